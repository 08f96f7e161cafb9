/**
 * The controller contract between the control plane and a data plane (DESIGN.md). Every
 * operation is an idempotent "make it so" keyed by resource id and generation: applying an
 * older generation than the one held changes nothing, so duplicates and reordering are harmless.
 * `docs/controller-contract.openapi.json` is the same contract over HTTP.
 */

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
  readonly type: 'kafka' | 'postgres' | 'load-generator' | 'webhook' | 'aws' | 'ssh';
  readonly options: Readonly<Record<string, string>>;
  /** Option name → secret id: the data plane reads the value from the secret store. */
  readonly secretRefs: Readonly<Record<string, string>>;
}

export interface ResourceSpecs {
  /** Compute: a replica of a cluster. */
  readonly replica: { readonly clusterId: string; readonly size: string };
  /** Compute: the dataflow maintaining a materialized view or an index, on a cluster. */
  readonly dataflow: {
    readonly clusterId: string;
    readonly objectKind: 'materialized_view' | 'index';
    readonly inputs: readonly string[];
    /** An index is an arrangement with its own compaction window. */
    readonly readPolicy?: ReadPolicy;
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
