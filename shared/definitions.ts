/**
 * The one source of truth for the stateful resources: the CDK stack (`cdk/`) and the local
 * runtime (`local/`) both build their tables and queues from these plain descriptions, so the
 * emulator and AWS cannot drift apart. No SDK and no CDK types here: both sides translate.
 */
import { HEARTBEAT_INTERVAL_SECONDS } from './dataplane/contract';
import { RETRY_POLICIES } from './effects/retry-policies';
import { CONTROLLERS, type Controller } from './effects/model';
import { SECRET_NAME_ROOT } from './clients/secret-names';

export type KeyAttribute = { readonly name: string; readonly type: 'S' | 'N' };

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
}

export interface TableDefinition {
  /** Logical id: the CDK construct id, and the local table name's suffix. */
  readonly id: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  /** Stream view type, when the table has a stream. */
  readonly stream?: 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES';
  readonly ttlAttribute?: string;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
}

/** Attribute names shared by the catalog store, the router and the sweeper. */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  /** Sparse "needs attention" index keys: set only on items the sweeper must look at. */
  attnPk: 'attnPk',
  attnSk: 'attnSk',
  /** Epoch seconds; DynamoDB's TTL deletes the item some time after it passes. */
  expiresAt: 'expiresAt',
} as const;

export const ATTENTION_INDEX = 'attention';

/**
 * What the sweeper's full-pass schedule sends (cdk/constructs/sweeper.ts); its due-work schedule
 * sends EventBridge's own scheduled event. The full pass runs on its own schedule, so its period
 * does not depend on how long the due work takes.
 */
export const FULL_PASS_EVENT = { pass: 'full' } as const;
/**
 * What the attention index is sized for. Its items are spread over ATTENTION_SHARDS partition
 * keys (`ATTN#<n>`, by a hash of the item's key) because one partition key of an index takes at
 * most `partitionWritesPerSecond` writes
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html),
 * and its sort key (a date) only grows, so DynamoDB cannot split a hot shard by sort key.
 * Every write that puts, moves or removes an item's index entry is an index write: a running
 * connector moves its report deadline on every heartbeat (2: the old entry out, the new one in),
 * an effect enters when committed and leaves when settled (2). Raising the shard count is safe
 * on a live table (items stay on their shard until next written, and a sweep reads every shard
 * below the count); lowering it strands the items on the shards no sweep reads any more.
 */
export const ATTENTION_CAPACITY = {
  /** Running connectors (sources and sinks) the deployment is sized for: the attention index's shards and status-ingest's concurrency follow it. */
  connectors: 25_000,
  /** Writes per second one partition key of an index takes (DynamoDB's per-partition 1 000 WCU, items under 1 KB). */
  partitionWritesPerSecond: 1000,
  /** The share of that a shard is planned to use: headroom for bursts and an uneven hash. */
  utilisation: 0.5,
} as const;

/**
 * Shards of the attention index for `connectors` running connectors heartbeating every
 * `heartbeatIntervalSeconds` and `effectsPerSecond` effects committed and settled (all queues),
 * each shard kept at `utilisation` of a partition's write limit; at least 1.
 */
export function attentionShards(o: { connectors: number; heartbeatIntervalSeconds: number; effectsPerSecond: number; partitionWritesPerSecond?: number; utilisation?: number }): number {
  const { partitionWritesPerSecond = ATTENTION_CAPACITY.partitionWritesPerSecond, utilisation = ATTENTION_CAPACITY.utilisation } = o;
  if (!(o.connectors >= 0) || !(o.effectsPerSecond >= 0) || !(o.heartbeatIntervalSeconds > 0) || !(partitionWritesPerSecond > 0) || !(utilisation > 0 && utilisation <= 1)) {
    throw new Error(`attention index sizing needs connectors and effects ≥ 0, a positive heartbeat interval and write limit, a utilisation in (0, 1]; got ${JSON.stringify(o)}`);
  }
  const writesPerSecond = (2 * o.connectors) / o.heartbeatIntervalSeconds + 2 * o.effectsPerSecond;
  return Math.max(1, Math.ceil(writesPerSecond / (partitionWritesPerSecond * utilisation) - 1e-9));
}

/** The catalog: catalog items, name guards, the outbox, transactions, statuses, app passwords. */
export const CATALOG_TABLE: TableDefinition = {
  id: 'Catalog',
  partitionKey: { name: ATTR.pk, type: 'S' },
  sortKey: { name: ATTR.sk, type: 'S' },
  // The router reads the inserted effect record; it never needs the old image.
  stream: 'NEW_IMAGE',
  ttlAttribute: ATTR.expiresAt,
  globalSecondaryIndexes: [
    {
      indexName: ATTENTION_INDEX,
      partitionKey: { name: ATTR.attnPk, type: 'S' },
      sortKey: { name: ATTR.attnSk, type: 'S' },
    },
  ],
};

/** The reference data plane's own state: resources (with owner tags) and the action log. */
export const DATAPLANE_TABLE: TableDefinition = {
  id: 'DataPlane',
  partitionKey: { name: ATTR.pk, type: 'S' },
  sortKey: { name: ATTR.sk, type: 'S' },
  ttlAttribute: ATTR.expiresAt,
  globalSecondaryIndexes: [],
};

// The controllers (one queue, DLQ and executor each) are the effect model's (shared/effects/model.ts).
export { CONTROLLERS, type Controller } from './effects/model';

export interface QueueDefinition {
  readonly controller: Controller;
  /** FIFO queue name without the `.fifo` suffix. */
  readonly name: string;
  readonly dlqName: string;
  /** Seconds a received message stays invisible before SQS hands it out again. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before SQS moves a message to the DLQ: the retry policy's budget. */
  readonly maxReceiveCount: number;
  readonly retentionSeconds: number;
}

/**
 * Settings of a deployment that the stack (`cdk/`) sets and the local runtime can reuse, in
 * seconds. The stack's props override them per deployment.
 */
export const DEPLOYMENT_DEFAULTS = {
  /** The effect executors' function timeout: one effect's worst data plane call plus its catalog reads and writes. */
  executorTimeoutSeconds: 25,
  /** The executors' event source batching window (MaximumBatchingWindowInSeconds); 0 = none. */
  executorBatchingWindowSeconds: 0,
  /**
   * How long a warm authorizer (or, in LocalStack mode, DDL function) keeps a password record it
   * found (`PASSWORD_CACHE_SECONDS`; 0 = read it on every request).
   */
  passwordCacheSeconds: 60,
  /** How long API Gateway caches an authorizer decision per `Authorization` header (0 = not at all). */
  authorizerCacheTtlSeconds: 0,
} as const;

/**
 * The shortest queue visibility timeout AWS recommends for an SQS event source: six times the
 * function timeout plus the batching window. A shorter one lets SQS hand a message still being
 * worked on (or waiting in a throttled invocation) out again, which counts an extra receive
 * against the DLQ budget and duplicates work.
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html
 */
export function minVisibilityTimeoutSeconds(functionTimeoutSeconds: number, batchingWindowSeconds = 0): number {
  return 6 * functionTimeoutSeconds + batchingWindowSeconds;
}

/**
 * The longest time a revoked app password can keep working: API Gateway's cached decision, then
 * a warm authorizer's cached password record (read just before the revocation).
 */
export function revocationDelaySeconds(authorizerCacheTtlSeconds: number, passwordCacheSeconds: number): number {
  return authorizerCacheTtlSeconds + passwordCacheSeconds;
}

export const EFFECT_QUEUES: readonly QueueDefinition[] = CONTROLLERS.map((controller) => ({
  controller,
  name: `ddl-effects-${controller}`,
  dlqName: `ddl-effects-${controller}-dlq`,
  visibilityTimeoutSeconds: minVisibilityTimeoutSeconds(DEPLOYMENT_DEFAULTS.executorTimeoutSeconds, DEPLOYMENT_DEFAULTS.executorBatchingWindowSeconds),
  maxReceiveCount: RETRY_POLICIES[`executor.${controller}`].budget,
  retentionSeconds: 4 * 24 * 3600,
}));

export function queueDefinition(controller: Controller): QueueDefinition {
  const q = EFFECT_QUEUES.find((d) => d.controller === controller);
  if (!q) throw new Error(`no queue for controller ${controller}`);
  return q;
}

/**
 * The physical names of one deployment (one CloudFormation stack), all derived from its stack
 * name so that two stacks in one account and region share none of them. The local runtime keeps
 * its own names (a prefix per instance, local/resources.ts).
 */
export interface DeploymentNames {
  /** FIFO queue names, with the `.fifo` suffix. */
  readonly queueName: (c: Controller) => string;
  readonly dlqName: (c: Controller) => string;
  /** The status queue (standard, no suffix) and its DLQ ({@link STATUS_QUEUE}). */
  readonly statusQueueName: string;
  readonly statusDlqName: string;
  /** Every secret of the deployment is named `<secretNamePrefix>/<tenant>/<secret id>`. */
  readonly secretNamePrefix: string;
  /** The CloudWatch namespace of the functions' metrics (`POWERTOOLS_METRICS_NAMESPACE`). */
  readonly metricsNamespace: string;
  /** The REST API's name. */
  readonly apiName: string;
}

export { SECRET_NAME_ROOT } from './clients/secret-names';
/** The longest `.fifo` queue name SQS accepts. */
const MAX_QUEUE_NAME = 80;

/** The longest stack name whose derived names all fit their services' limits. */
export const MAX_STACK_NAME_LENGTH =
  MAX_QUEUE_NAME - '-'.length - Math.max(...EFFECT_QUEUES.map((q) => `${q.dlqName}.fifo`.length));

export function deploymentNames(stackName: string): DeploymentNames {
  const byController = (c: Controller, pick: (q: QueueDefinition) => string) => `${stackName}-${pick(queueDefinition(c))}.fifo`;
  return {
    queueName: (c) => byController(c, (q) => q.name),
    dlqName: (c) => byController(c, (q) => q.dlqName),
    statusQueueName: `${stackName}-${STATUS_QUEUE.name}`,
    statusDlqName: `${stackName}-${STATUS_QUEUE.dlqName}`,
    secretNamePrefix: `${SECRET_NAME_ROOT}/${stackName}`,
    metricsNamespace: stackName,
    apiName: `${stackName}-sql-api`,
  };
}

/** The names every handler receives through its environment (see shared/config.ts). */
export const ENV = {
  catalogTable: 'CATALOG_TABLE',
  dataPlaneTable: 'DATAPLANE_TABLE',
  dataPlaneUrl: 'DATAPLANE_URL',
  /** The deployment's secret name prefix ({@link DeploymentNames.secretNamePrefix}); unset: {@link SECRET_NAME_ROOT}. */
  secretNamePrefix: 'SECRET_NAME_PREFIX',
  /** Seconds a warm function keeps a found password record ({@link DEPLOYMENT_DEFAULTS}.passwordCacheSeconds). */
  passwordCacheSeconds: 'PASSWORD_CACHE_SECONDS',
  /**
   * `true` where no API Gateway authorizer runs (LocalStack mode): the DDL function checks the
   * app password itself.
   */
  authenticateInFunction: 'AUTHENTICATE_IN_FUNCTION',
  /** The stack's own EventBridge bus, where the stream router publishes status events (the router alone gets it). */
  eventBusName: 'EVENT_BUS_NAME',
  /** Effects of one tenant admitted to the effect queues at a time ({@link EFFECT_CAPACITY}.perTenantInQueue). */
  perTenantInQueue: 'EFFECTS_PER_TENANT_IN_QUEUE',
  queueUrl: (c: Controller) => `QUEUE_URL_${c.toUpperCase()}`,
  dlqUrl: (c: Controller) => `DLQ_URL_${c.toUpperCase()}`,
  /** The Postgres wire port (the local runtime's `--pg-port` reads it too). */
  pgPort: 'PG_PORT',
  /** The pgwire task's HTTP health port (`GET /health`: 200 while it serves, 503 once it drains). */
  pgwireHealthPort: 'PGWIRE_HEALTH_PORT',
  /** The complete ARN of the Secrets Manager secret holding the pgwire endpoint's TLS certificate and key. */
  pgwireTlsSecretArn: 'PGWIRE_TLS_SECRET_ARN',
  /** Seconds the pgwire task lets statements in flight finish after SIGTERM. */
  pgwireDrainSeconds: 'PGWIRE_DRAIN_SECONDS',
  /** Connections one pgwire task serves at most (more answer 53300). */
  pgwireMaxConnections: 'PGWIRE_MAX_CONNECTIONS',
} as const;

/**
 * The Postgres wire endpoint's task on Fargate (cdk/constructs/pgwire-service.ts,
 * functions/pgwire-server/main.ts): the defaults both sides share.
 */
export const PGWIRE_DEFAULTS = {
  /** Materialize's SQL port. */
  port: 6875,
  healthPort: 8080,
  /**
   * After SIGTERM: how long statements in flight may take to finish. ECS kills the container
   * `stopTimeoutSeconds` after SIGTERM, so this stays below it.
   */
  drainSeconds: 25,
  /** ECS's grace between SIGTERM and SIGKILL (its maximum is 120 s). */
  stopTimeoutSeconds: 30,
  maxConnections: 1000,
  /** TCP keepalive after this much idle time: under the NLB's 350 s idle timeout, so an idle session survives it. */
  tcpKeepAliveSeconds: 60,
  /** How often the task reads its TLS secret again (a renewed certificate is served without a restart). */
  tlsRefreshSeconds: 3600,
} as const;

/**
 * The status queue: health reports from the data plane (shared/dataplane/contract.ts
 * StatusReport) to the status-ingest function. A standard queue: reports carry their own order
 * (generation, sequence), so FIFO's per-group throughput limit would buy nothing. A report
 * older than a few heartbeats is superseded, so retention is short.
 */
export const STATUS_QUEUE = {
  name: 'ddl-status-reports',
  dlqName: 'ddl-status-reports-dlq',
  /** Six times the status-ingest function's timeout (STATUS_INGEST_TIMEOUT_SECONDS), as for every SQS event source. */
  visibilityTimeoutSeconds: 120,
  maxReceiveCount: 5,
  retentionSeconds: 3600,
} as const;

/**
 * The catalog stream's event source mapping (the stream router's trigger), as the stack deploys
 * it (cdk/constructs/stream-router.ts) and as the local runtime's deployed profile runs it
 * (local/stream-poller.ts). Limits: https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
 */
export const STREAM_MAPPING = {
  /** Records per invocation. */
  batchSize: 100,
  /** A failed invocation is retried as two halves, so one poison record cannot hold back its neighbours. */
  bisectBatchOnError: true,
  /**
   * Age past which a record goes to the on-failure queue instead of being retried. Stuck records
   * block their shard; the sweeper re-drives stale effects from the catalog (the outbox is the
   * record of truth), so giving up after an hour loses nothing.
   */
  maxRecordAgeSeconds: 3600,
  /** Retries of a failed batch before it goes to the on-failure queue. */
  retryAttempts: RETRY_POLICIES['router.stream'].budget,
  /**
   * Lambda reads each shard of a DynamoDB stream about four times a second
   * (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html#services-ddb-batching).
   * Not a setting of the mapping: the rate the local deployed profile reproduces.
   */
  pollsPerSecondPerShard: 4,
} as const;

/**
 * The effect queues' event source mappings (the executors' triggers, cdk/constructs/effect-executor.ts).
 * The batch size depends on where effects go: with the reference data plane (the local runtime's,
 * and the stack's default) 10, the FIFO maximum; to an external data plane 1, since one call to it
 * may take the whole `dataplane.http` retry window and every message of a timed-out batch comes
 * back with one more receive counted against its budget.
 */
/** An effect queue's batch size with the reference data plane: the FIFO maximum (EXECUTOR_MAPPING). */
const REFERENCE_BATCH_SIZE = 10;
const DATA_PLANE_EFFECTS_PER_SECOND = 50;
const EFFECT_SECONDS = 0.1;

/**
 * Effect capacity: the rate the data plane accepts effects at, per controller queue, and how long
 * one effect holds an executor. An executor invocation handles its batch one effect after the
 * other, so by Little's law the invocations in flight that keep the data plane at its rate are
 * rate × seconds per effect; more would only queue at the data plane (or get throttled there),
 * fewer leave its allowance unused. Set `dataPlaneEffectsPerSecond` from the data plane's own
 * documented limit; `effectSeconds` is one effect's data-plane call plus its catalog reads and
 * writes (about 0.1 s against DynamoDB and the reference data plane; `npm run bench -- --only
 * capacity` measures the drain rate these give against the local pipeline).
 */
export const EFFECT_CAPACITY = {
  /** Effects per second per controller queue the data plane allows (the reference data plane's, and the stack's default). */
  dataPlaneEffectsPerSecond: DATA_PLANE_EFFECTS_PER_SECOND,
  /** Seconds one effect holds an executor invocation. */
  effectSeconds: EFFECT_SECONDS,
  /**
   * Effects of one tenant admitted to the queues at a time (shared/router/admission.ts): the
   * router and the DDL function's fast path send an effect only once admitted, and the executor
   * that settles one of a tenant's effects admits and sends the next. Batch size × the executors'
   * concurrency (10 × 5 = 50), so a tenant alone still fills every executor, and another tenant
   * waits behind at most this many of a burst's effects (1 s at 50/s) instead of all of them.
   */
  perTenantInQueue: REFERENCE_BATCH_SIZE * executorConcurrency(DATA_PLANE_EFFECTS_PER_SECOND, EFFECT_SECONDS),
} as const;

/**
 * Executor invocations per queue that drive the data plane at `effectsPerSecond` when each effect
 * takes `effectSeconds` (Little's law), at least 2 (the least MaximumConcurrency Lambda accepts).
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html#events-sqs-max-concurrency
 */
export function executorConcurrency(effectsPerSecond: number, effectSeconds: number): number {
  if (!(effectsPerSecond > 0) || !(effectSeconds > 0)) throw new Error(`effect capacity needs a positive rate and effect time, got ${effectsPerSecond}/s × ${effectSeconds} s`);
  // The epsilon keeps 50 × 0.1 (5.000000000000001 in floating point) at 5.
  return Math.max(2, Math.ceil(effectsPerSecond * effectSeconds - 1e-9));
}

/**
 * The attention index's shard count (ATTENTION_CAPACITY): 6 for 25 000 connectors heartbeating
 * every 20 s and every queue at the data plane's allowed rate ((2 × 25 000 ÷ 20 + 2 × 3 × 50) ÷
 * 500 = 5.6); the sweeper queries each shard. 500 000 connectors need 101. The stack and the local
 * runtime read this one value (the catalog's keys and the sweeper are built with it).
 */
export const ATTENTION_SHARDS = attentionShards({
  connectors: ATTENTION_CAPACITY.connectors,
  heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS,
  effectsPerSecond: CONTROLLERS.length * EFFECT_CAPACITY.dataPlaneEffectsPerSecond,
});

/**
 * status-ingest's capacity: every running connector heartbeats every HEARTBEAT_INTERVAL_SECONDS,
 * one SQS message each, and status-ingest must take them as fast as they come or the queue grows
 * (and deadlines pass on connectors that did report). An invocation handles its batch's reports
 * side by side (Powertools' BatchProcessor runs them in parallel), so it takes about one report's
 * time: a GetItem of the status and a conditional write (2 DynamoDB calls, about 10 ms each
 * in-region) plus the invocation's own overhead.
 */
export const STATUS_INGEST_CAPACITY = {
  /** Reports per invocation: the event source mapping's batch size (SQS's most for a standard queue without a batching window). */
  batchSize: 10,
  /** Seconds one invocation takes for its batch (its reports side by side). */
  invocationSeconds: 0.05,
  /** The share of the invocations in flight planned to be busy: headroom for a burst of changes (a data plane restarting reports every connector at once). */
  utilisation: 0.5,
} as const;

/**
 * Invocations in flight status-ingest needs for `connectors` running connectors heartbeating every
 * `heartbeatIntervalSeconds` (Little's law: invocations a second × seconds each, over the planned
 * utilisation), within what an SQS event source accepts (2 to 1 000).
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html#events-sqs-max-concurrency
 */
export function statusIngestConcurrency(o: { connectors: number; heartbeatIntervalSeconds: number; batchSize?: number; invocationSeconds?: number; utilisation?: number }): number {
  const { batchSize = STATUS_INGEST_CAPACITY.batchSize, invocationSeconds = STATUS_INGEST_CAPACITY.invocationSeconds, utilisation = STATUS_INGEST_CAPACITY.utilisation } = o;
  if (!(o.connectors >= 0) || !(o.heartbeatIntervalSeconds > 0) || !(batchSize >= 1) || !(invocationSeconds > 0) || !(utilisation > 0 && utilisation <= 1)) {
    throw new Error(`status-ingest sizing needs connectors ≥ 0, a positive heartbeat interval and invocation time, a batch of at least 1, a utilisation in (0, 1]; got ${JSON.stringify(o)}`);
  }
  const needed = (o.connectors / o.heartbeatIntervalSeconds / batchSize) * (invocationSeconds / utilisation);
  return Math.min(1000, Math.max(2, Math.ceil(needed - 1e-9)));
}

/**
 * The status queue's event source mapping (cdk/constructs/status-ingest.ts): sized, like the
 * attention index, for ATTENTION_CAPACITY.connectors (25 000 connectors → 13 in flight;
 * 500 000 → 250).
 */
export const STATUS_INGEST_MAPPING = {
  batchSize: STATUS_INGEST_CAPACITY.batchSize,
  maxConcurrency: statusIngestConcurrency({ connectors: ATTENTION_CAPACITY.connectors, heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS }),
} as const;

export const EXECUTOR_MAPPING = {
  batchSize: { referenceDataPlane: REFERENCE_BATCH_SIZE, externalDataPlane: 1 },
  /**
   * Most concurrent invocations per queue: bounds the load the executors put on the data plane
   * to the rate it allows (EFFECT_CAPACITY). Per tenant, admission caps the effects in the queues
   * (EFFECT_CAPACITY.perTenantInQueue; docs/operations.md "Effect capacity and per-tenant fairness").
   */
  maxConcurrency: executorConcurrency(EFFECT_CAPACITY.dataPlaneEffectsPerSecond, EFFECT_CAPACITY.effectSeconds),
} as const;

/**
 * How long API Gateway caches the authorizer's decision per `Authorization` header (the stack's
 * default, DEPLOYMENT_DEFAULTS). Zero means every request invokes the authorizer; a revoked app
 * password can still work until the authorizer's own password cache expires
 * (revocationDelaySeconds).
 */
export const AUTHORIZER_CACHE_TTL_SECONDS = DEPLOYMENT_DEFAULTS.authorizerCacheTtlSeconds;
