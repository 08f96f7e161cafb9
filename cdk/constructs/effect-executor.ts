import { Duration } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { DEFAULT_TIMEOUT_MS } from '../../shared/dataplane/http-client';
import { type Controller, DEPLOYMENT_DEFAULTS, EXECUTOR_MAPPING, minVisibilityTimeoutSeconds } from '../../shared/definitions';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import type { CatalogTable } from './catalog-table';
import { dataPlaneTokenEnvironment, dataPlaneTokenSecretProblem, grantDataPlaneToken } from './data-plane-token';
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import type { EffectQueue } from './effect-queues';
import { PropsValidator } from './props-validation';
import type { DataPlaneTable } from './reference-data-plane';
import { grantSecretStore, type SecretStoreMethod } from './secret-store';

/**
 * The secret store methods the secrets executor calls (shared/executor/executor.ts
 * `reconcileSecret`): `has` the committed generation, then `prune` older ones, or all of them
 * when the secret is dropped. It never writes a value (the DDL Lambda does, before its commit).
 */
export const SECRETS_EXECUTOR_METHODS: readonly SecretStoreMethod[] = ['has', 'prune'];

/**
 * The longest one call to an external data plane can take (shared/dataplane/http-client.ts):
 * every attempt of the `dataplane.http` policy timing out, with the longest wait between attempts
 * (the policy's cap: a Retry-After is honoured up to it). An executor makes one such call per
 * effect, so its timeout must cover this.
 */
export const DATA_PLANE_CALL_WORST_CASE = Duration.millis(
  RETRY_POLICIES['dataplane.http'].budget * DEFAULT_TIMEOUT_MS +
    (RETRY_POLICIES['dataplane.http'].budget - 1) * RETRY_POLICIES['dataplane.http'].capMs,
);

/** The executors' timeout: one effect's worst data plane call plus its catalog reads and writes. */
export const EXECUTOR_TIMEOUT = Duration.seconds(DEPLOYMENT_DEFAULTS.executorTimeoutSeconds);

/**
 * What an executor does to the catalog (shared/executor/executor.ts): it reads the effect record
 * and its object (GetItem), settles the effect (UpdateItem, in a transaction with a status Put),
 * records attempts (UpdateItem) and writes or deletes replica and connector statuses (PutItem,
 * DeleteItem). The compute executor's reconfiguration step (shared/executor/reconfigure.ts) also
 * reads the tenant's catalog (Query on the table, never the attention index) and settles a cluster
 * reconfiguration with a catalog commit (its writes above, and the catalog-version update that
 * also checks no staged commit holds the catalog).
 */
export const EXECUTOR_CATALOG_ACTIONS = ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query'] as const;

/**
 * What the compute and storage executors do to the reference data plane's table
 * (shared/dataplane/reference.ts `apply`, `setReadPolicy`): GetItem, then a conditional PutItem
 * (alone or with its action-log row in a transaction); `observe` (Query) for the reconfiguration
 * step's hydration check. The secrets executor never touches it.
 */
export const EXECUTOR_DATA_PLANE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'] as const;

export interface EffectExecutorProps {
  /** The controller whose effects this executor applies. */
  readonly controller: Controller;
  /** The catalog: the executor reads the desired state and marks effects applied. */
  readonly catalog: CatalogTable;
  /** The controller's queue pair. */
  readonly queue: EffectQueue;
  /**
   * The reference data plane's table, when the reference data plane is deployed.
   * @default - none: the executor talks to an external data plane over HTTP (`DATAPLANE_URL`)
   */
  readonly dataPlaneTable?: DataPlaneTable;
  /**
   * The Secrets Manager secret whose text is the external data plane's bearer token. An executor
   * that calls the data plane (every one but the secrets executor) gets its ARN in
   * `DATAPLANE_TOKEN_SECRET_ARN` and may read it (GetSecretValue on that secret only). Known by
   * its complete ARN; only with an external data plane (no `dataPlaneTable`).
   * @default - none: no Authorization header is sent to the data plane
   */
  readonly dataPlaneTokenSecret?: secretsmanager.ISecret;
  /**
   * The executor's entry file.
   * @default functions/executor-<controller>/handler.ts
   */
  readonly entry?: string;
  /**
   * Environment of the function (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * Messages per invocation (a FIFO queue allows at most 10). An invocation handles its messages
   * one after the other, within one function timeout.
   * @default EXECUTOR_MAPPING.batchSize: 10 with the reference data plane and for the secrets
   *   controller; 1 when effects go to an external data plane (one call to it may take
   *   {@link DATA_PLANE_CALL_WORST_CASE}: a batch of several could outlast the timeout, and every
   *   message of a timed-out batch comes back with one more receive counted against its budget)
   */
  readonly batchSize?: number;
  /**
   * Most concurrent invocations the queue's event source starts (2 to 1000). Bounds the load
   * the executors put on the data plane.
   * @default EXECUTOR_MAPPING.maxConcurrency (5)
   */
  readonly maxConcurrency?: number;
  /**
   * Function timeout. Six times it plus the batching window must fit in the queue's visibility
   * timeout (AWS's rule for SQS event sources, `minVisibilityTimeoutSeconds`): otherwise SQS hands
   * out again a message still in progress or waiting in a throttled invocation, counting a
   * receive against its DLQ budget. When effects go to an external data plane, at least
   * {@link DATA_PLANE_CALL_WORST_CASE}.
   * @default EXECUTOR_TIMEOUT (25 seconds)
   */
  readonly timeout?: Duration;
  /**
   * How long the event source gathers messages before invoking (MaximumBatchingWindowInSeconds, 0 to 300).
   * @default - none (DEPLOYMENT_DEFAULTS.executorBatchingWindowSeconds)
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Function memory in MB.
   * @default 256
   */
  readonly memorySize?: number;
}

/**
 * The effect executor of one controller: a Lambda fed by the controller's FIFO queue with
 * partial batch responses, allowed the item calls it makes on the catalog and (compute and
 * storage) the reference data plane, and, for the secrets controller, the secrets it owns:
 * nothing else.
 */
export class EffectExecutor extends Construct {
  /** The controller this executor serves. */
  readonly controller: Controller;
  /** The executor Lambda. */
  readonly handler: DdlFunction;
  /** The SQS event source on the controller's queue. */
  readonly eventSource: sources.SqsEventSource;

  constructor(scope: Construct, id: string, props: EffectExecutorProps) {
    super(scope, id);
    const visibility = Duration.seconds(props.queue.definition.visibilityTimeoutSeconds);
    const timeout = props.timeout ?? EXECUTOR_TIMEOUT;
    const batchingWindow = props.maxBatchingWindow ?? Duration.seconds(DEPLOYMENT_DEFAULTS.executorBatchingWindowSeconds);
    // The secrets controller's effects go to the secret store, never to the data plane
    // (shared/effects/model.ts); the other controllers make one data plane call per effect.
    const callsExternalDataPlane = props.dataPlaneTable === undefined && props.controller !== 'secrets';
    new PropsValidator(scope, id)
      .check(
        props.queue.definition.controller === props.controller,
        `queue is ${props.queue.definition.controller}'s, not ${props.controller}'s`,
      )
      .integerInRange('batchSize', props.batchSize, 1, 10)
      .integerInRange('maxConcurrency', props.maxConcurrency, 2, 1_000)
      .durationInRange('timeout', timeout, Duration.seconds(1), Duration.minutes(15))
      .durationInRange('maxBatchingWindow', props.maxBatchingWindow, Duration.seconds(0), Duration.minutes(5))
      .check(
        minVisibilityTimeoutSeconds(timeout.toSeconds(), batchingWindow.toSeconds()) <= visibility.toSeconds(),
        `the queue's visibility timeout (${visibility.toHumanString()}) must be at least six times the function timeout plus the batching window (6 × ${timeout.toHumanString()} + ${batchingWindow.toHumanString()} = ${minVisibilityTimeoutSeconds(timeout.toSeconds(), batchingWindow.toSeconds())} seconds): shorten the timeout or raise visibilityTimeoutSeconds in shared/definitions.ts`,
      )
      .check(
        !callsExternalDataPlane || timeout.toMilliseconds() >= DATA_PLANE_CALL_WORST_CASE.toMilliseconds(),
        `timeout must cover one call to the external data plane with its retries (${DATA_PLANE_CALL_WORST_CASE.toHumanString()}), got ${timeout.toHumanString()}`,
      )
      .check(
        props.dataPlaneTokenSecret === undefined || props.dataPlaneTable === undefined,
        'dataPlaneTokenSecret is for an external data plane: the reference data plane (dataPlaneTable) takes no token',
      )
      .check(dataPlaneTokenSecretProblem(props.dataPlaneTokenSecret) === undefined, dataPlaneTokenSecretProblem(props.dataPlaneTokenSecret) ?? '')
      .throwIfInvalid();
    const tokenSecret = callsExternalDataPlane ? props.dataPlaneTokenSecret : undefined;

    this.controller = props.controller;
    this.handler = new DdlFunction(this, 'Executor', {
      entry: props.entry ?? functionEntry(`executor-${props.controller}`),
      description: `Applies ${props.controller} effects to the data plane`,
      timeout,
      memorySize: props.memorySize,
      environment: { ...props.environment, ...dataPlaneTokenEnvironment(tokenSecret) },
      splitChunks: true,
    });
    const fn = this.handler.function;

    // Grants ReceiveMessage, DeleteMessage, ChangeMessageVisibility, GetQueueAttributes and
    // GetQueueUrl on this queue only (and key use when the queue has a customer managed key).
    this.eventSource = new sources.SqsEventSource(props.queue.queue, {
      // The local runtime's deployed profile runs the same EXECUTOR_MAPPING (local/profiles.ts).
      batchSize: props.batchSize ?? EXECUTOR_MAPPING.batchSize[callsExternalDataPlane ? 'externalDataPlane' : 'referenceDataPlane'],
      maxConcurrency: props.maxConcurrency ?? EXECUTOR_MAPPING.maxConcurrency,
      ...(batchingWindow.toSeconds() > 0 ? { maxBatchingWindow: batchingWindow } : {}),
      reportBatchItemFailures: true,
    });
    fn.addEventSource(this.eventSource);

    props.catalog.grantTableActions(fn, EXECUTOR_CATALOG_ACTIONS, true);
    if (props.controller !== 'secrets') props.dataPlaneTable?.grantTableActions(fn, EXECUTOR_DATA_PLANE_ACTIONS, true);

    if (props.controller === 'secrets') grantSecretStore(this, this.handler.role, SECRETS_EXECUTOR_METHODS);
    if (tokenSecret) grantDataPlaneToken(this, this.handler, tokenSecret);
  }
}
