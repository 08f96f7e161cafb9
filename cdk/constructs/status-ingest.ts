import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deploymentNames, ENV, minVisibilityTimeoutSeconds, STATUS_INGEST_MAPPING, STATUS_QUEUE } from '../../shared/definitions';
import { REPORTER_TIMEOUT_SECONDS, STATUS_QUEUE_URL_ENV } from '../../shared/lambda/reference-reporter';
import type { CatalogTable } from './catalog-table';

/** The status-ingest function's timeout: a batch of 10 reports is 10 conditional writes and their history rows. */
export const STATUS_INGEST_TIMEOUT_SECONDS = 20;
if (STATUS_QUEUE.visibilityTimeoutSeconds < minVisibilityTimeoutSeconds(STATUS_INGEST_TIMEOUT_SECONDS)) {
  throw new Error(`STATUS_QUEUE.visibilityTimeoutSeconds must be at least six times the status-ingest timeout (${minVisibilityTimeoutSeconds(STATUS_INGEST_TIMEOUT_SECONDS)} s)`);
}
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import { PropsValidator } from './props-validation';
import type { DataPlaneTable } from './reference-data-plane';
import { grantSecretActions, SECRET_STORE_ACCESS } from './secret-store';

/**
 * The calls the reference data plane's reporter makes on its table: `ScanCommand` of the live
 * ingestions and exports, `QueryCommand` of a tenant's replicas (`observe`), `GetCommand` of one
 * resource it re-checks (found by the IAM sufficiency test, test/integration/iam.test.ts).
 */
export const REPORTER_TABLE_ACTIONS = ['dynamodb:Scan', 'dynamodb:Query', 'dynamodb:GetItem'] as const;

/**
 * The catalog calls the status-ingest function makes (shared/catalog/status-store.ts): `GetCommand` of
 * the status, a `TransactWriteCommand` putting the status and its history row (authorized as
 * `PutItem`), or an `UpdateCommand` moving the report mark of an unchanged status.
 */
export const STATUS_INGEST_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

export interface StatusIngestProps {
  /** The catalog whose connector statuses the reports move. */
  readonly catalog: CatalogTable;
  /**
   * The IAM principal (role or user ARN) the data plane sends its reports as: the only one the
   * queue accepts messages from.
   * @default - a role made here ({@link StatusIngest.reporterRole}), assumable from this account,
   *   for the data plane to send as
   */
  readonly dataPlanePrincipalArn?: string;
  /**
   * The reference data plane's table. When given, nothing else runs its ingestions, so a
   * scheduled reporter function, invoked every minute, runs their checks every
   * HEARTBEAT_INTERVAL_SECONDS (20 s: three rounds an invocation) and sends the reports (and
   * heartbeats), as the only principal allowed to: well within the 55 s report timeout.
   * Exclusive with `dataPlanePrincipalArn`.
   * @default - none: an external data plane reports
   */
  readonly referenceDataPlaneTable?: DataPlaneTable;
  /**
   * The function's entry file.
   * @default functions/status-ingest/handler.ts
   */
  readonly entry?: string;
  /**
   * The reference reporter's entry file.
   * @default functions/reference-reporter/handler.ts
   */
  readonly reporterEntry?: string;
  /**
   * Environment of the function (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * Most concurrent invocations the queue's event source starts: enough for every running
   * connector's heartbeat (`statusIngestConcurrency` in shared/definitions.ts: connectors ÷ 20 s ÷
   * 10 reports a batch × 0.05 s a batch, at half load). Size it for your connectors with
   * `ATTENTION_CAPACITY.connectors`, or set it here.
   * @default STATUS_INGEST_MAPPING.maxConcurrency (13, for 25 000 connectors)
   */
  readonly maxConcurrency?: number;
}

/**
 * The data plane's health reports (shared/dataplane/contract.ts StatusReport): a standard SQS
 * queue with a DLQ that only the data plane's principal may send to, and the status-ingest
 * function that applies each report to its connector's status (partial batch responses: one
 * bad report does not hold back the others).
 */
export class StatusIngest extends Construct {
  readonly queue: sqs.Queue;
  readonly dlq: sqs.Queue;
  readonly handler: DdlFunction;
  /** The principal allowed to send reports. */
  readonly senderArn: string;
  /** The role made for the data plane, when no principal and no reference data plane was given. */
  readonly reporterRole?: iam.Role;
  /** The reference data plane's reporter, when its table was given. */
  readonly reporter?: DdlFunction;

  constructor(scope: Construct, id: string, props: StatusIngestProps) {
    super(scope, id);
    new PropsValidator(scope, id)
      .check(
        props.dataPlanePrincipalArn === undefined || Token.isUnresolved(props.dataPlanePrincipalArn) || /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/.test(props.dataPlanePrincipalArn),
        `dataPlanePrincipalArn must be an IAM role or user ARN (arn:aws:iam::<account>:role/<name>), got "${props.dataPlanePrincipalArn}"`,
      )
      .check(
        props.dataPlanePrincipalArn === undefined || props.referenceDataPlaneTable === undefined,
        'dataPlanePrincipalArn is for an external data plane: with the reference data plane (referenceDataPlaneTable) its reporter sends',
      )
      .integerInRange('maxConcurrency', props.maxConcurrency, 2, 1_000)
      .throwIfInvalid();

    const common = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true };
    // Names derived from the stack: two stacks in one account and region share no queue.
    const names = deploymentNames(Stack.of(this).stackName);
    // Dead letters outlive `cdk destroy` (like the effect queues' DLQs).
    this.dlq = new sqs.Queue(this, 'Dlq', { ...common, queueName: names.statusDlqName, retentionPeriod: Duration.days(14), removalPolicy: RemovalPolicy.RETAIN });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...common,
      queueName: names.statusQueueName,
      visibilityTimeout: Duration.seconds(STATUS_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(STATUS_QUEUE.retentionSeconds),
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: STATUS_QUEUE.maxReceiveCount },
    });

    if (props.referenceDataPlaneTable) {
      this.reporter = this.referenceReporter(props.referenceDataPlaneTable, props.reporterEntry, props.environment);
      this.senderArn = this.reporter.role.roleArn;
    } else if (props.dataPlanePrincipalArn) {
      this.senderArn = props.dataPlanePrincipalArn;
    } else {
      this.reporterRole = new iam.Role(this, 'ReporterRole', {
        assumedBy: new iam.AccountRootPrincipal(),
        description: 'The data plane sends connector status reports to the status queue as this role',
      });
      this.senderArn = this.reporterRole.roleArn;
    }
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({ sid: 'DataPlaneSends', principals: [new iam.ArnPrincipal(this.senderArn)], actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    // An identity policy elsewhere in the account must not open the queue to anyone else: a
    // forged report could mark any connector running.
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyTheDataPlaneSends',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': this.senderArn } },
      }),
    );

    this.handler = new DdlFunction(this, 'StatusIngest', {
      entry: props.entry ?? functionEntry('status-ingest'),
      description: "Applies the data plane's connector status reports to the catalog",
      timeout: Duration.seconds(STATUS_INGEST_TIMEOUT_SECONDS),
      environment: props.environment,
    });
    const fn = this.handler.function;
    fn.addEventSource(new sources.SqsEventSource(this.queue, { batchSize: STATUS_INGEST_MAPPING.batchSize, maxConcurrency: props.maxConcurrency ?? STATUS_INGEST_MAPPING.maxConcurrency, reportBatchItemFailures: true }));
    props.catalog.grantTableActions(fn, STATUS_INGEST_TABLE_ACTIONS, true);
  }

  private referenceReporter(table: DataPlaneTable, entry: string | undefined, environment: StatusIngestProps['environment']): DdlFunction {
    const reporter = new DdlFunction(this, 'Reporter', {
      entry: entry ?? functionEntry('reference-reporter'),
      description: "Runs the reference data plane's connector checks and reports their health",
      // A round every heartbeat interval, each started with REPORTER_ROUND_ALLOWANCE_MS left (probes
      // are bounded: 5 s each, in parallel): rounds at 0, 20 and 40 s, done before the next minute's invocation.
      timeout: Duration.seconds(REPORTER_TIMEOUT_SECONDS),
      environment: { ...environment, [ENV.dataPlaneTable]: table.tableName, [STATUS_QUEUE_URL_ENV]: this.queue.queueUrl },
      // The probes' clients (pg, kafkajs) load on first use, as in the sweeper.
      splitChunks: true,
    });
    const fn = reporter.function;
    fn.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    new events.Rule(this, 'ReporterSchedule', {
      description: "Runs the reference data plane's health checks every minute",
      schedule: events.Schedule.rate(Duration.minutes(1)),
    }).addTarget(new targets.LambdaFunction(fn, { maxEventAge: Duration.minutes(1) }));
    table.grantTableActions(fn, REPORTER_TABLE_ACTIONS, false);
    this.queue.grant(fn, 'sqs:SendMessage');
    // The newest value of each secret a connector refers to (AwsSecretStore.newestGeneration,
    // then get): on the store's secrets only, no ListSecrets on `*`.
    grantSecretActions(reporter, reporter.role, [...SECRET_STORE_ACCESS.get, 'secretsmanager:ListSecretVersionIds']);
    return reporter;
  }
}
