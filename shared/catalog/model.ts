/** Catalog items as stored, and the snapshot the planner reads. */

export const OBJECT_KINDS = ['cluster', 'cluster_replica'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export interface ClusterSpec {
  readonly managed: boolean;
  /** Managed clusters only. */
  readonly size?: string;
  readonly replicationFactor?: number;
  /** Other options as written (canonical names), for SHOW CREATE and mz_clusters. */
  readonly options: Readonly<Record<string, string>>;
}

export interface ReplicaSpec {
  readonly size: string;
  readonly clusterId: string;
  /** True when the cluster manages this replica (created and dropped with the cluster). */
  readonly managed: boolean;
  readonly options: Readonly<Record<string, string>>;
}

interface ObjectBase {
  readonly id: string;
  readonly name: string;
  /** Bumped on every change to the object's desired state: the data plane's fence. */
  readonly generation: number;
  /** Bumped on every write to the item (including children): optimistic concurrency. */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly owner: string;
  readonly dropped?: boolean;
  readonly droppedAt?: string;
}

export type CatalogObject =
  | (ObjectBase & { readonly kind: 'cluster'; readonly spec: ClusterSpec })
  | (ObjectBase & { readonly kind: 'cluster_replica'; readonly spec: ReplicaSpec });

export type ClusterObject = Extract<CatalogObject, { kind: 'cluster' }>;
export type ReplicaObject = Extract<CatalogObject, { kind: 'cluster_replica' }>;

/** What the planner sees: the tenant's live (not dropped) objects. */
export class CatalogSnapshot {
  readonly byId = new Map<string, CatalogObject>();
  constructor(readonly tenant: string, objects: readonly CatalogObject[]) {
    for (const o of objects) if (!o.dropped) this.byId.set(o.id, o);
  }
  clusters(): ClusterObject[] {
    return [...this.byId.values()].filter((o): o is ClusterObject => o.kind === 'cluster').sort(byName);
  }
  cluster(name: string): ClusterObject | undefined {
    return this.clusters().find((c) => c.name === name);
  }
  replicas(clusterId?: string): ReplicaObject[] {
    return [...this.byId.values()]
      .filter((o): o is ReplicaObject => o.kind === 'cluster_replica' && (clusterId === undefined || o.spec.clusterId === clusterId))
      .sort(byName);
  }
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
