/**
 * The data-plane contract between the control plane and a data plane (DESIGN.md). Every
 * operation is an idempotent "make it so" keyed by resource id and generation: applying an
 * older generation than the one held changes nothing, so duplicates and reordering are harmless.
 * `docs/controller-contract.openapi.json` is the same contract over HTTP.
 */

import type { DataPlaneConnectorType } from '../connectors';

/** The owner tag every resource we create carries (like a Kubernetes owner reference). */
export interface ResourceOwner {
  readonly tenant: string;
  readonly objectId: string;
  readonly objectKind: string;
  readonly objectName: string;
}

export const MANAGED_BY = 'ddl-control-plane';

/**
 * How far back a collection keeps history (Materialize's compaction window). A collection
 * without one grows forever — the bug this product exists to prevent — so it is installed in
 * the same call that creates the collection.
 */
export interface ReadPolicy {
  readonly kind: 'lag';
  readonly lagMs: number;
}
export const DEFAULT_READ_POLICY: ReadPolicy = { kind: 'lag', lagMs: 1_000 };

/** Connector settings as the data plane needs them: secret values are referenced, never inlined. */
export interface ConnectorSpec {
  /** The connector type (shared/connectors: the descriptors with `dataPlane: true`). */
  readonly type: DataPlaneConnectorType;
  readonly options: Readonly<Record<string, string>>;
  /** Option name → secret id: the data plane reads the value from the secret store. */
  readonly secretRefs: Readonly<Record<string, string>>;
}

/**
 * A materialized view's `REFRESH AT / EVERY` schedule (absent: refreshed on every commit of its
 * inputs): recompute at each `ats` time and at every `intervalMs` from `alignedToMs` (ms since the epoch).
 */
export interface RefreshSpec {
  readonly ats: readonly number[];
  readonly everies: readonly { readonly intervalMs: number; readonly alignedToMs: number }[];
}

/**
 * A replica of a cluster with `SCHEDULE = ON REFRESH`: the data plane runs it only from
 * `hydrationTimeEstimateMs` before a refresh of a materialized view on its cluster until that
 * refresh is done, and keeps it off otherwise (Materialize's cluster scheduling).
 */
export interface ReplicaSchedule {
  readonly kind: 'on_refresh';
  readonly hydrationTimeEstimateMs: number;
}

export interface ResourceSpecs {
  /** Compute: a replica of a cluster. */
  readonly replica: { readonly clusterId: string; readonly size: string; readonly schedule?: ReplicaSchedule };
  /** Compute: the dataflow maintaining a materialized view or an index, on a cluster. */
  readonly dataflow: {
    readonly clusterId: string;
    readonly objectKind: 'materialized_view' | 'index';
    readonly inputs: readonly string[];
    /** An index is an arrangement with its own compaction window. */
    readonly readPolicy?: ReadPolicy;
    /** A materialized view's `REFRESH AT / EVERY` schedule. */
    readonly refresh?: RefreshSpec;
    /**
     * A replacement materialized view's target (`CREATE REPLACEMENT MATERIALIZED VIEW ... FOR`):
     * the dataflow hydrates beside the target's and writes nothing; `ALTER ... APPLY REPLACEMENT`
     * makes the target a new generation with this definition and drops this dataflow.
     */
    readonly replaces?: string;
  };
  /** Storage: a durable collection with its read policy. */
  readonly collection: { readonly objectKind: string; readonly readPolicy: ReadPolicy };
  /** Storage: an ingestion writing a source's collection, running on a cluster. */
  readonly ingestion: { readonly clusterId: string | null; readonly connector: ConnectorSpec };
  /** Storage: an export (sink) reading a collection, running on a cluster. */
  readonly export: { readonly clusterId: string | null; readonly from: string; readonly connector: ConnectorSpec };
}

export type ResourceKind = keyof ResourceSpecs;
export const RESOURCE_KINDS: readonly ResourceKind[] = ['replica', 'dataflow', 'collection', 'ingestion', 'export'];

export interface ApplyResult {
  /** Did this call change the data plane? (false: it already held this or a newer generation) */
  readonly changed: boolean;
  /** The generation the data plane holds for the resource after the call. */
  readonly heldGeneration: number;
}

export type Health = 'healthy' | 'unhealthy' | 'unknown';

export interface ObservedResource {
  readonly tenant: string;
  readonly kind: ResourceKind;
  readonly resourceId: string;
  /** Absent when the resource does not carry our owner tag: never touch it, only report it. */
  readonly owner?: ResourceOwner;
  readonly managedBy?: string;
  readonly generation: number;
  readonly health: Health;
  /** Connector errors, namespaced like Materialize's (`postgres: ...`, `kafka: ...`). */
  readonly lastError?: string;
  /** True when the error is definite (retrying will not help), e.g. a dropped publication. */
  readonly errorIsFatal?: boolean;
  readonly lastHeartbeat?: string;
  readonly createdAt: string;
  readonly readPolicy?: ReadPolicy;
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface DataPlane {
  /** Make it so: the resource exists with this spec at this generation. */
  ensure<K extends ResourceKind>(kind: K, owner: ResourceOwner, generation: number, spec: ResourceSpecs[K]): Promise<ApplyResult>;
  /** Make it so: the resource is gone as of this generation (an older ensure can't bring it back). */
  drop(kind: ResourceKind, owner: ResourceOwner, generation: number): Promise<ApplyResult>;
  /** Installs a collection's read policy (repairs; creation carries it already). */
  setReadPolicy(owner: ResourceOwner, generation: number, policy: ReadPolicy): Promise<ApplyResult>;
  /** Everything that exists for a tenant (present resources only), with owner and health. */
  observe(tenant: string): Promise<ObservedResource[]>;
}

/**
 * Health pushed by the data plane (DESIGN.md: health is reported, not polled). The running
 * ingestion or export sees a lost broker or replication slot first; it sends a report when its
 * health changes and a heartbeat (the same report, repeated) every {@link HEARTBEAT_INTERVAL_SECONDS}
 * while it runs. Delivery is at-least-once and unordered (an SQS standard queue): `generation`
 * and `sequence` make late and duplicate reports harmless.
 */
export const REPORTED_STATUSES = ['starting', 'running', 'paused', 'stalled', 'failed'] as const;
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

export interface StatusReport {
  readonly tenant: string;
  /** The source's or sink's object id (the ingestion's or export's resource id). */
  readonly objectId: string;
  readonly kind: 'ingestion' | 'export';
  /** The generation the data plane runs; a report about an older one than the catalog knows is ignored. */
  readonly generation: number;
  /** Grows with every report about one resource (across restarts of the reporter); an older or equal one is ignored. */
  readonly sequence: number;
  /** `change` when health changed, `heartbeat` when it repeats the current health on schedule. */
  readonly reason: 'change' | 'heartbeat';
  readonly status: ReportedStatus;
  /** With `stalled` and `failed`: the error, namespaced like Materialize's (`postgres: ...`). */
  readonly error: string | null;
  /** What the user can do about it. */
  readonly hints: readonly string[];
  /** Per-namespace errors (`{"postgres": "..."}`), shown in the status's details. */
  readonly namespaced: Readonly<Record<string, string>>;
  /** When the data plane saw this health (ISO 8601). */
  readonly observedAt: string;
}

/**
 * How often a running ingestion or export repeats its health. 20 s, so that the deadline below
 * plus one sweep interval (60 s) stays within two sweep intervals of the data plane going silent.
 */
export const HEARTBEAT_INTERVAL_SECONDS = 20;
/**
 * How long the control plane waits for the next report before it calls the connector stalled:
 * two missed heartbeats plus delivery slack, so one lost or late message is not an alarm (55 s).
 * With the due-work sweep every 60 s, a silent connector shows `stalled` at most 55 + 60 = 115 s
 * after its last report.
 */
export const HEARTBEAT_TIMEOUT_SECONDS = 2 * HEARTBEAT_INTERVAL_SECONDS + 15;
