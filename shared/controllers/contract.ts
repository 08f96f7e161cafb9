/**
 * The controller contract between the control plane and a data plane (DESIGN.md). Every
 * operation is an idempotent "make it so" keyed by resource id and generation: applying an
 * older generation than the one held changes nothing, so duplicates and reordering are harmless.
 */

/** The owner tag every resource we create carries (like a Kubernetes owner reference). */
export interface ResourceOwner {
  readonly tenant: string;
  readonly objectId: string;
  readonly objectKind: string;
  readonly objectName: string;
}

export const MANAGED_BY = 'ddl-control-plane';

export interface ReplicaSpec {
  readonly clusterId: string;
  readonly size: string;
}

export interface ApplyResult {
  /** Did this call change the data plane? (false: it already held this or a newer generation) */
  readonly changed: boolean;
  /** The generation the data plane holds for the resource after the call. */
  readonly heldGeneration: number;
}

export type ResourceKind = 'replica';
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
  readonly lastError?: string;
  readonly lastHeartbeat?: string;
  readonly createdAt: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface ComputeController {
  ensureReplica(owner: ResourceOwner, generation: number, spec: ReplicaSpec): Promise<ApplyResult>;
  dropReplica(owner: ResourceOwner, generation: number): Promise<ApplyResult>;
}

export interface DataPlane extends ComputeController {
  /** Everything that exists for a tenant (present resources only), with owner and health. */
  observe(tenant: string): Promise<ObservedResource[]>;
}
