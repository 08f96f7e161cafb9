import { Duration } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { DEFAULT_TIMEOUT_MS } from '../../shared/dataplane/http-client';
import { type Controller, EXECUTOR_MAPPING } from '../../shared/definitions';
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
export const EXECUTOR_TIMEOUT = Duration.seconds(25);

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
   * Function timeout; at most the queue's visibility timeout, or SQS would hand a message
   * still in progress to a second invocation. When effects go to an external data plane, at least
   * {@link DATA_PLANE_CALL_WORST_CASE}.
   * @default EXECUTOR_TIMEOUT (25 seconds)
   */
  readonly timeout?: Duration;
  /**
   * Function memory in MB.
   * @default 256
   */
  readonly memorySize?: number;
}

/**
 * The effect executor of one controller: a Lambda fed by the controller's FIFO queue with
 * partial batch responses, allowed to read and write the catalog and the reference data plane
 * (and, for the secrets controller, the secrets it owns) and nothing else.
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
      .durationInRange('timeout', timeout, Duration.seconds(1), visibility)
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
    });
    const fn = this.handler.function;

    // Grants ReceiveMessage, DeleteMessage, ChangeMessageVisibility, GetQueueAttributes and
    // GetQueueUrl on this queue only (and key use when the queue has a customer managed key).
    this.eventSource = new sources.SqsEventSource(props.queue.queue, {
      // The local runtime's deployed profile runs the same EXECUTOR_MAPPING (local/profiles.ts).
      batchSize: props.batchSize ?? EXECUTOR_MAPPING.batchSize[callsExternalDataPlane ? 'externalDataPlane' : 'referenceDataPlane'],
      maxConcurrency: props.maxConcurrency ?? EXECUTOR_MAPPING.maxConcurrency,
      reportBatchItemFailures: true,
    });
    fn.addEventSource(this.eventSource);

    props.catalog.grantItemReadWrite(fn);
    props.dataPlaneTable?.grantItemReadWrite(fn);

    if (props.controller === 'secrets') grantSecretStore(this, this.handler.role, SECRETS_EXECUTOR_METHODS);
    if (tokenSecret) grantDataPlaneToken(this, this.handler, tokenSecret);
  }
}
