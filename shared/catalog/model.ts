/** Catalog items as stored, and the snapshot the planner reads. */

export const OBJECT_KINDS = [
  'database',
  'schema',
  'cluster',
  'cluster_replica',
  'secret',
  'connection',
  'source',
  'subsource',
  'sink',
  'table',
  'view',
  'materialized_view',
  'index',
] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** Kinds that live in a schema and share its namespace (Materialize's "items"). */
export const ITEM_KINDS = ['secret', 'connection', 'source', 'subsource', 'sink', 'table', 'view', 'materialized_view', 'index'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const isItemKind = (k: ObjectKind): k is ItemKind => (ITEM_KINDS as readonly string[]).includes(k);

/** Kinds whose data the data plane keeps in a collection (each needs a read policy). */
export const COLLECTION_KINDS: readonly ObjectKind[] = ['source', 'subsource', 'table', 'materialized_view'];
/** Connector kinds: they get a status with history (mz_source_statuses / mz_sink_statuses). */
export const CONNECTOR_KINDS: readonly ObjectKind[] = ['source', 'sink'];

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

export interface ItemSpecBase {
  readonly schemaId: string;
  /** Canonical SQL of the CREATE statement (SHOW CREATE). */
  readonly createSql: string;
}

export interface ConnectorSettings {
  /** `kafka`, `postgres`, `load-generator`, `webhook`, `aws`, `ssh`, `confluent-schema-registry`. */
  readonly type: string;
  /** Plain option values by canonical name (never a secret value). */
  readonly options: Readonly<Record<string, string>>;
  /** Option name → secret object id. */
  readonly secretRefs: Readonly<Record<string, string>>;
  /** Option name → connection object id (SSH TUNNEL, schema registry). */
  readonly connectionRefs: Readonly<Record<string, string>>;
}

export type ObjectSpec = {
  database: Record<string, never>;
  schema: { readonly databaseId: string };
  cluster: ClusterSpec;
  cluster_replica: ReplicaSpec;
  secret: ItemSpecBase;
  connection: ItemSpecBase & { readonly connector: ConnectorSettings; readonly validate: boolean };
  source: ItemSpecBase & {
    readonly clusterId: string;
    readonly connectionId?: string;
    readonly sourceType: 'kafka' | 'postgres' | 'load-generator' | 'webhook';
    readonly options: Readonly<Record<string, string>>;
    readonly format?: string;
    readonly envelope?: string;
  };
  subsource: ItemSpecBase & { readonly sourceId: string; readonly reference: string };
  sink: ItemSpecBase & {
    readonly clusterId: string;
    readonly fromId: string;
    readonly connectionId: string;
    readonly options: Readonly<Record<string, string>>;
    readonly format?: string;
    readonly envelope?: string;
  };
  table: ItemSpecBase & { readonly columns: readonly { readonly name: string; readonly type: string; readonly notNull: boolean }[] };
  view: ItemSpecBase & { readonly query: string };
  materialized_view: ItemSpecBase & { readonly clusterId: string; readonly query: string };
  index: ItemSpecBase & { readonly clusterId: string; readonly onId: string; readonly keyParts: readonly string[] };
};

interface ObjectBase {
  readonly id: string;
  readonly name: string;
  /** Bumped on every change to the object's desired state: the data plane's fence. */
  readonly generation: number;
  /** Bumped on every write to the item (including children): optimistic concurrency. */
  readonly version: number;
  /** Live objects that reference this one (not counting owned parts: replicas, subsources). */
  readonly dependents: number;
  /** Objects this one references; each counts it in its `dependents`. */
  readonly dependsOn: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly owner: string;
  readonly dropped?: boolean;
  readonly droppedAt?: string;
}

export type CatalogObject = { [K in ObjectKind]: ObjectBase & { readonly kind: K; readonly spec: ObjectSpec[K] } }[ObjectKind];
export type ObjectOf<K extends ObjectKind> = Extract<CatalogObject, { kind: K }>;
export type ClusterObject = ObjectOf<'cluster'>;
export type ReplicaObject = ObjectOf<'cluster_replica'>;
export type ItemObject = Extract<CatalogObject, { kind: ItemKind }>;

export const DEFAULT_DATABASE = 'materialize';
export const DEFAULT_SCHEMA = 'public';

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** What the planner sees: the tenant's live (not dropped) objects, with lookups. */
export class CatalogSnapshot {
  readonly byId = new Map<string, CatalogObject>();
  constructor(
    readonly tenant: string,
    objects: readonly CatalogObject[],
  ) {
    for (const o of objects) if (!o.dropped) this.byId.set(o.id, o);
  }
  all(): CatalogObject[] {
    return [...this.byId.values()];
  }
  ofKind<K extends ObjectKind>(kind: K): ObjectOf<K>[] {
    return this.all()
      .filter((o): o is ObjectOf<K> => o.kind === kind)
      .sort(byName);
  }
  get(id: string): CatalogObject | undefined {
    return this.byId.get(id);
  }
  clusters(): ClusterObject[] {
    return this.ofKind('cluster');
  }
  cluster(name: string): ClusterObject | undefined {
    return this.clusters().find((c) => c.name === name);
  }
  replicas(clusterId?: string): ReplicaObject[] {
    return this.ofKind('cluster_replica').filter((r) => clusterId === undefined || r.spec.clusterId === clusterId);
  }
  database(name: string): ObjectOf<'database'> | undefined {
    return this.ofKind('database').find((d) => d.name === name);
  }
  schema(databaseId: string, name: string): ObjectOf<'schema'> | undefined {
    return this.ofKind('schema').find((s) => s.spec.databaseId === databaseId && s.name === name);
  }
  items(): ItemObject[] {
    return this.all()
      .filter((o): o is ItemObject => isItemKind(o.kind))
      .sort(byName);
  }
  /** The item named `name` in schema `schemaId`, whatever its kind. */
  item(schemaId: string, name: string): ItemObject | undefined {
    return this.items().find((i) => i.spec.schemaId === schemaId && i.name === name);
  }
  /** Live objects that reference `id` (direct dependents). */
  dependentsOf(id: string): CatalogObject[] {
    return this.all().filter((o) => o.dependsOn.includes(id));
  }
  /** The qualified name of an item: database.schema.name. */
  qualifiedName(o: CatalogObject): string[] {
    if (isItemKind(o.kind)) {
      const schema = this.get((o as ItemObject).spec.schemaId) as ObjectOf<'schema'> | undefined;
      const db = schema ? (this.get(schema.spec.databaseId) as ObjectOf<'database'> | undefined) : undefined;
      return [db?.name ?? '?', schema?.name ?? '?', o.name];
    }
    if (o.kind === 'schema') return [(this.get(o.spec.databaseId) as ObjectOf<'database'> | undefined)?.name ?? '?', o.name];
    if (o.kind === 'cluster_replica') return [(this.get(o.spec.clusterId) as ClusterObject | undefined)?.name ?? '?', o.name];
    return [o.name];
  }
}
