import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ATTENTION_INDEX, FULL_PASS_EVENT } from '../../shared/definitions';
import type { CatalogTable } from './catalog-table';
import { dataPlaneTokenEnvironment, dataPlaneTokenSecretProblem, grantDataPlaneToken } from './data-plane-token';
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import { type EffectQueues, QUEUE_KEY_SEND_ACTIONS } from './effect-queues';
import { PropsValidator } from './props-validation';
import type { DataPlaneTable } from './reference-data-plane';
import { grantSecretActions } from './secret-store';

/** Where a sweeper permission applies. */
export type SweeperResource = 'attentionIndex' | 'catalogTable' | 'effectQueues' | 'dataPlaneTable' | 'secretStore' | 'secretList' | 'dataPlaneToken';

/**
 * The AWS calls the sweeper makes (functions/sweeper/handler.ts → shared/lambda/sweeper.ts
 * `sweeperHandler` → shared/sweeper/), each with the one IAM action it needs and where. The
 * constructor grants exactly these and a test pins the role to them. A new call in the sweeper
 * adds its line here, nothing broader. `TransactWriteItems` is no IAM action: its `Put` items are
 * authorized as `PutItem`.
 */
export const SWEEPER_ACCESS = {
  /** shared/sweeper/sweeper.ts `QueryCommand` on the attention index: pending effects, stale locks, live connector statuses, shard by shard. */
  readAttention: { action: 'dynamodb:Query', on: 'attentionIndex' },
  /** `UpdateCommand` on an effect record: claims one replay window (a conditional write). */
  claimReplay: { action: 'dynamodb:UpdateItem', on: 'catalogTable' },
  /** `SendMessageCommand` to the effect's controller queue: the replay itself. */
  replayEffect: { action: 'sqs:SendMessage', on: 'effectQueues' },
  /** shared/catalog/staged.ts `settle` of a lock found on the index: `GetCommand` of its staging record. */
  readStaging: { action: 'dynamodb:GetItem', on: 'catalogTable' },
  /** `settle`: `QueryCommand` of the staged records (on the table, no index). */
  readStages: { action: 'dynamodb:Query', on: 'catalogTable' },
  /** `settle`: `BatchWriteCommand` rolling the staged items forward, then deleting the stage records. */
  applyStages: { action: 'dynamodb:BatchWriteItem', on: 'catalogTable' },
  /** `settle`: `DeleteCommand` of the lock (conditional on its owner). */
  releaseLock: { action: 'dynamodb:DeleteItem', on: 'catalogTable' },
  /** shared/sweeper/connectors.ts through `CatalogStore.getObject`: `GetCommand` of a connector's object and its connection. */
  readObject: { action: 'dynamodb:GetItem', on: 'catalogTable' },
  /** shared/catalog/status-store.ts `StatusStore.apply`: a `TransactWriteCommand` putting the status and its history row. */
  writeStatus: { action: 'dynamodb:PutItem', on: 'catalogTable' },
  /** `resolveConnection`: the values of the secrets a connection refers to, for the probe (`AwsSecretStore.get`). */
  readConnectionSecret: { action: 'secretsmanager:GetSecretValue', on: 'secretStore' },
  /** full pass: `AwsSecretStore.list` (no resource-level permissions: `*`) and `prune` of a secret no live catalog secret refers to. */
  listStoredSecrets: { action: 'secretsmanager:ListSecrets', on: 'secretList' },
  collectSecret: { action: 'secretsmanager:DeleteSecret', on: 'secretStore' },
  /** shared/sweeper/full-pass.ts: `GetCommand` of the pass marker, `UpdateCommand` claiming it. */
  readPassMarker: { action: 'dynamodb:GetItem', on: 'catalogTable' },
  claimPass: { action: 'dynamodb:UpdateItem', on: 'catalogTable' },
  /** full pass: `QueryCommand` of the tenant list, of a tenant's objects and effects (on the table). */
  readTenants: { action: 'dynamodb:Query', on: 'catalogTable' },
  /** full pass: `PutCommand` of the marker (cursor), `TransactWriteCommand` of orphan / missing effects and their txn record. */
  writeEffects: { action: 'dynamodb:PutItem', on: 'catalogTable' },
  /** The reference data plane (shared/dataplane/reference.ts) `observe`: `QueryCommand` of a tenant's resources. */
  observeDataPlane: { action: 'dynamodb:Query', on: 'dataPlaneTable' },
  /** Its `setReadPolicy` (full pass repair): `GetCommand`, then a `TransactWriteCommand` putting the resource and its log row. */
  repairReadPolicy: { action: 'dynamodb:GetItem', on: 'dataPlaneTable' },
  repairReadPolicyWrite: { action: 'dynamodb:PutItem', on: 'dataPlaneTable' },
  /**
   * shared/sweeper/sweeper.ts with admission (shared/router/admission.ts): a due effect is admitted
   * (a `TransactWriteCommand`: a `ConditionCheck` that it is pending, an `Update` of its tenant's
   * admission item); at the cap, the admission item is read (`GetCommand`) with each admitted
   * effect, and the leaked ids are released (`UpdateCommand`).
   */
  admitEffect: { action: 'dynamodb:ConditionCheckItem', on: 'catalogTable' },
  admitEffectUpdate: { action: 'dynamodb:UpdateItem', on: 'catalogTable' },
  readAdmission: { action: 'dynamodb:GetItem', on: 'catalogTable' },
  /** An external data plane's bearer token (shared/lambda/data-plane-token.ts), when `dataPlaneTokenSecret` is given. */
  readDataPlaneToken: { action: 'secretsmanager:GetSecretValue', on: 'dataPlaneToken' },
} as const satisfies Record<string, { readonly action: string; readonly on: SweeperResource }>;

/** The actions of {@link SWEEPER_ACCESS} on one resource, without repeats. */
export function sweeperActions(on: SweeperResource): string[] {
  return [...new Set(Object.values(SWEEPER_ACCESS).filter((a) => a.on === on).map((a) => a.action))];
}

export interface SweeperProps {
  /** The catalog whose attention index the sweeper reads and whose effect records it claims. */
  readonly catalog: CatalogTable;
  /** The queues the sweeper re-sends due effects to. */
  readonly queues: EffectQueues;
  /**
   * The reference data plane's table, which the sweeper observes (connector health, the full
   * pass's diff) and repairs read policies in.
   * @default - none: the sweeper talks to an external data plane over HTTP (`DATAPLANE_URL`)
   */
  readonly dataPlaneTable?: DataPlaneTable;
  /**
   * The Secrets Manager secret whose text is the external data plane's bearer token: the sweeper
   * gets its ARN in `DATAPLANE_TOKEN_SECRET_ARN` and may read it (GetSecretValue on that secret
   * only). Known by its complete ARN; only with an external data plane (no `dataPlaneTable`).
   * @default - none: no Authorization header is sent to the data plane
   */
  readonly dataPlaneTokenSecret?: secretsmanager.ISecret;
  /**
   * The sweeper's entry file.
   * @default functions/sweeper/handler.ts
   */
  readonly entry?: string;
  /**
   * Environment of the function (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * How often the EventBridge rule runs the sweeper (a `rate(...)` schedule, in whole minutes:
   * EventBridge's finest rate). The outbox replay's shortest delay is 30 s and its longest
   * 10 minutes (`RETRY_POLICIES['sweeper.replay']`), so a slower sweep only delays replays.
   * @default Duration.minutes(1)
   */
  readonly interval?: Duration;
  /**
   * How often a second rule runs the sweeper's full pass ({@link FULL_PASS_EVENT}), on its own so
   * that its period does not depend on the due work. Most of these invocations find the pass not
   * due (one read of its marker); while a pass is under way each one goes on from the pass's
   * cursor for half of the invocation's time. Its period is then about
   * max(FullPassOptions.intervalMs, tenants × seconds per tenant ÷ (timeout ÷ 2) × this interval):
   * every minute, 10 000 tenants at about 0.1 s each take about 35 minutes, within the hour.
   * @default Duration.minutes(1)
   */
  readonly fullPassInterval?: Duration;
  /**
   * Hard limit on one sweep. A sweep longer than the interval overlaps the next one, which is
   * safe: each replay is claimed with a conditional write, so two sweepers never both send it.
   * @default Duration.minutes(1)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB.
   * @default 256
   */
  readonly memorySize?: number;
}

/**
 * The sweeper: a Lambda run by an EventBridge rule on a rate schedule (a rule, not EventBridge
 * Scheduler: rules are in LocalStack's free tier, Scheduler is a mock there). One sweep reads
 * the catalog's sparse attention index, re-sends effects that stayed pending past their replay
 * delay, finishes abandoned staged commits, moves connector statuses (observing the data plane
 * and probing upstreams), and now and then runs the full pass (orphans and missing resources
 * through the outbox, read policies repaired). It needs no reserved concurrency: two sweeps at
 * once are safe by design.
 */
export class Sweeper extends Construct {
  /** The sweeper Lambda. */
  readonly handler: DdlFunction;
  /** The rule that runs the due work every {@link interval}. */
  readonly rule: events.Rule;
  /** The rule that runs the full pass every {@link fullPassInterval}. */
  readonly fullPassRule: events.Rule;
  readonly fullPassInterval: Duration;
  /** How often the rule fires. */
  readonly interval: Duration;

  constructor(scope: Construct, id: string, props: SweeperProps) {
    super(scope, id);
    this.interval = props.interval ?? Duration.minutes(1);
    this.fullPassInterval = props.fullPassInterval ?? Duration.minutes(1);
    new PropsValidator(scope, id)
      .durationInRange('interval', props.interval, Duration.minutes(1), Duration.hours(1))
      .durationInRange('fullPassInterval', props.fullPassInterval, Duration.minutes(1), Duration.hours(1))
      .check(
        props.fullPassInterval === undefined || Number.isInteger(props.fullPassInterval.toSeconds() / 60),
        `fullPassInterval must be a whole number of minutes (an EventBridge rate), got ${props.fullPassInterval?.toHumanString()}`,
      )
      .check(
        props.interval === undefined || Number.isInteger(props.interval.toSeconds() / 60),
        `interval must be a whole number of minutes (an EventBridge rate), got ${props.interval?.toHumanString()}`,
      )
      .check(
        props.dataPlaneTokenSecret === undefined || props.dataPlaneTable === undefined,
        'dataPlaneTokenSecret is for an external data plane: the reference data plane (dataPlaneTable) takes no token',
      )
      .check(dataPlaneTokenSecretProblem(props.dataPlaneTokenSecret) === undefined, dataPlaneTokenSecretProblem(props.dataPlaneTokenSecret) ?? '')
      .throwIfInvalid();

    this.handler = new DdlFunction(this, 'Sweeper', {
      entry: props.entry ?? functionEntry('sweeper'),
      description: 'Sweeps the outbox, connector statuses and the data plane (orphans, missing resources, read policies)',
      timeout: props.timeout ?? Duration.minutes(1),
      memorySize: props.memorySize,
      environment: { ...props.environment, ...dataPlaneTokenEnvironment(props.dataPlaneTokenSecret) },
      // The upstream probes (pg, kafkajs: shared/probes/real.ts and its protocol files) are imported on first use
      // (shared/probes/lazy.ts): a chunk, so that a sweep with no connector to probe never loads them.
      splitChunks: true,
    });
    const fn = this.handler.function;

    // A failed or late sweep is not worth retrying: the next tick reads the state as it is then
    // (level-based) and does the same work. So no async retries, and a tick that could not be
    // delivered within one interval is dropped instead of queued behind the next one.
    fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: this.interval });
    this.rule = new events.Rule(this, 'Schedule', {
      description: `Runs the DDL control plane sweeper every ${this.interval.toHumanString()}`,
      schedule: events.Schedule.rate(this.interval),
    });
    this.rule.addTarget(new targets.LambdaFunction(fn, { maxEventAge: this.interval }));
    this.fullPassRule = new events.Rule(this, 'FullPassSchedule', {
      description: `Runs the DDL control plane sweeper's full pass every ${this.fullPassInterval.toHumanString()}`,
      schedule: events.Schedule.rate(this.fullPassInterval),
    });
    this.fullPassRule.addTarget(new targets.LambdaFunction(fn, { maxEventAge: this.fullPassInterval, event: events.RuleTargetInput.fromObject(FULL_PASS_EVENT) }));

    this.grantSweeperAccess(fn, props);
  }

  /** Exactly {@link SWEEPER_ACCESS}: one grant per resource it names. */
  private grantSweeperAccess(grantee: iam.IGrantable, props: SweeperProps): void {
    props.catalog.grantIndexRead(grantee, ATTENTION_INDEX, sweeperActions('attentionIndex'));
    props.catalog.grantTableActions(grantee, sweeperActions('catalogTable'), true);
    props.dataPlaneTable?.grantTableActions(grantee, sweeperActions('dataPlaneTable'), true);
    const queueActions = sweeperActions('effectQueues');
    for (const { queue } of props.queues.all) {
      queue.grant(grantee, ...queueActions);
      queue.encryptionMasterKey?.grant(grantee, ...QUEUE_KEY_SEND_ACTIONS);
    }
    // Under the function's construct, next to its other policies.
    grantSecretActions(this.handler, this.handler.role, [...sweeperActions('secretStore'), ...sweeperActions('secretList')]);
    // `readDataPlaneToken` (a test pins it to DATA_PLANE_TOKEN_ACTIONS), on that one secret.
    if (props.dataPlaneTokenSecret) grantDataPlaneToken(this.handler, this.handler, props.dataPlaneTokenSecret);
  }
}
