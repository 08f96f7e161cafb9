/**
 * The one source of truth for the stateful resources: the CDK stack (`cdk/`) and the local
 * runtime (`local/`) both build their tables and queues from these plain descriptions, so the
 * emulator and AWS cannot drift apart. No SDK and no CDK types here: both sides translate.
 */
import { RETRY_POLICIES } from './effects/retry-policies';

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
 * The attention index spreads its items over this many partition keys so that no single key
 * takes every write (one partition sustains ~1000 WCU); the sweeper queries each shard.
 */
export const ATTENTION_SHARDS = 4;

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

export const CONTROLLERS = ['compute', 'storage', 'secrets'] as const;
export type Controller = (typeof CONTROLLERS)[number];

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

export const EFFECT_QUEUES: readonly QueueDefinition[] = CONTROLLERS.map((controller) => ({
  controller,
  name: `ddl-effects-${controller}`,
  dlqName: `ddl-effects-${controller}-dlq`,
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: RETRY_POLICIES[`executor.${controller}`].budget,
  retentionSeconds: 4 * 24 * 3600,
}));

export function queueDefinition(controller: Controller): QueueDefinition {
  const q = EFFECT_QUEUES.find((d) => d.controller === controller);
  if (!q) throw new Error(`no queue for controller ${controller}`);
  return q;
}

/** The names every handler receives through its environment (see shared/config.ts). */
export const ENV = {
  catalogTable: 'CATALOG_TABLE',
  dataPlaneTable: 'DATAPLANE_TABLE',
  dataPlaneUrl: 'DATAPLANE_URL',
  queueUrl: (c: Controller) => `QUEUE_URL_${c.toUpperCase()}`,
  dlqUrl: (c: Controller) => `DLQ_URL_${c.toUpperCase()}`,
} as const;

/**
 * The status queue: health reports from the data plane (shared/controllers/contract.ts
 * StatusReport) to the status-ingest function. A standard queue: reports carry their own order
 * (generation, sequence), so FIFO's per-group throughput limit would buy nothing. A report
 * older than a few heartbeats is superseded, so retention is short.
 */
export const STATUS_QUEUE = {
  name: 'ddl-status-reports',
  dlqName: 'ddl-status-reports-dlq',
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 5,
  retentionSeconds: 3600,
} as const;
