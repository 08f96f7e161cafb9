/**
 * The workload's model of one tenant's catalog: what the generator expects to exist after each
 * request, so it can write mostly meaningful DDL (drop what exists, depend on what exists) and
 * predict each request's outcome. Pure, no I/O. It follows the planner's rules as documented
 * (dependencies, CASCADE closures, owned parts); a response that disagrees with a prediction is
 * reported by the run as `mispredicted`, which is how a drift between the two shows.
 *
 * Where the product decides something after the answer (a graceful reconfiguration commits or
 * rolls back once its replicas are hydrated or its deadline passes), the model keeps every value
 * the object may have (`ModelCluster.sizes`) and what may still be in flight
 * (`ModelCluster.reconfiguring`), so that it never predicts an answer that depends on timing.
 */

export type ItemKind = 'secret' | 'connection' | 'source' | 'subsource' | 'table' | 'view' | 'materialized_view' | 'index' | 'sink' | 'type';

export type ConnType = 'postgres' | 'kafka' | 'mysql' | 'sqlserver' | 'ssh';

/** What a source reads (a table from it names a reference accordingly). */
export type SourceFlavour = 'counter' | 'auction' | 'postgres' | 'mysql' | 'sqlserver' | 'webhook';

export interface ModelItem {
  readonly id: number;
  readonly kind: ItemKind;
  name: string;
  /** Items this one depends on (ids); ADD COLUMN of a user-defined type adds one. */
  readonly deps: number[];
  /** The cluster it runs on (sources, sinks, materialized views, indexes). */
  cluster?: number;
  readonly connType?: ConnType;
  /** For a subsource: the source that owns it. */
  readonly sourceId?: number;
  /** For an index: the relation it is on (dropped with it, CASCADE or not, as in Materialize). */
  readonly on?: number;
  readonly flavour?: SourceFlavour;
  /** Tables created with a column list: the columns in order (ADD COLUMN appends). */
  readonly columns?: string[];
  /** Sources with upstream tables: the references their subsources export (ADD SUBSOURCE of one of them answers 42P07). */
  readonly references?: string[];
  comment?: string;
  columnComments?: Record<string, string>;
  /** RETAIN HISTORY in ms, when set (absent: the default). */
  retainMs?: number;
}

export interface ModelReplica {
  readonly name: string;
  /** The sizes it may have (more than one only after a reconfiguration that may have rolled back). */
  readonly sizes: readonly string[];
}

export interface ModelCluster {
  readonly id: number;
  name: string;
  managed: boolean;
  /** Managed clusters: the sizes it may have (one, unless a reconfiguration may have rolled back). */
  sizes: string[];
  /** Managed clusters: replicas r1..rN. */
  rf: number;
  /** Unmanaged clusters: their replicas. */
  replicas: ModelReplica[];
  /** `SCHEDULE = ON REFRESH` (managed only: one replica, no REPLICATION FACTOR). */
  onRefresh: boolean;
  /**
   * A graceful reconfiguration may still be pending (its settle comes after the answer): a later
   * request whose answer depends on the cluster's shape waits for it to settle first, as a
   * Materialize client whose ALTER blocks until then would.
   */
  reconfiguring: boolean;
  comment?: string;
}

export interface TenantModel {
  readonly clusters: ModelCluster[];
  readonly items: ModelItem[];
  /** Extra schemas holding only tables (the staged requests' big schemas): name → table count. */
  readonly schemas: { name: string; tables: number }[];
  nextId: number;
  nextName: number;
}

export function emptyModel(): TenantModel {
  return { clusters: [], items: [], schemas: [], nextId: 1, nextName: 1 };
}

export function cloneModel(m: TenantModel): TenantModel {
  return structuredClone(m);
}

export const TYPE_OF: Readonly<Record<ItemKind, string>> = {
  secret: 'SECRET',
  connection: 'CONNECTION',
  source: 'SOURCE',
  subsource: 'SOURCE',
  table: 'TABLE',
  view: 'VIEW',
  materialized_view: 'MATERIALIZED VIEW',
  index: 'INDEX',
  sink: 'SINK',
  type: 'TYPE',
};

export const RELATION_KINDS: readonly ItemKind[] = ['source', 'subsource', 'table', 'view', 'materialized_view'];
/** What a sink can export (Materialize: tables, sources and materialized views; a view has no storage). */
export const SINKABLE_KINDS: readonly ItemKind[] = ['source', 'subsource', 'table', 'materialized_view'];
/** What takes RETAIN HISTORY (Materialize: tables, sources, indexes, materialized views). */
export const RETAINING_KINDS: readonly ItemKind[] = ['table', 'source', 'subsource', 'index', 'materialized_view'];

export function freshName(m: TenantModel, prefix: string): string {
  return `${prefix}${m.nextName++}`;
}

export function itemByName(m: TenantModel, name: string): ModelItem | undefined {
  return m.items.find((i) => i.name === name);
}

export function clusterByName(m: TenantModel, name: string): ModelCluster | undefined {
  return m.clusters.find((c) => c.name === name);
}

/** Items that would block a RESTRICT drop of `id` (its owned parts excluded). */
function partsOf(m: TenantModel, id: number): ModelItem[] {
  return m.items.filter((i) => i.kind === 'subsource' && i.sourceId === id);
}

export function subsourcesOf(m: TenantModel, id: number): ModelItem[] {
  return partsOf(m, id);
}

function dependentsOfItem(m: TenantModel, id: number): ModelItem[] {
  const parts = partsOf(m, id).map((p) => p.id);
  const on = new Set([id, ...parts]);
  return m.items.filter((i) => !parts.includes(i.id) && i.deps.some((d) => on.has(d)));
}

function dependentsOfCluster(m: TenantModel, clusterId: number): ModelItem[] {
  return m.items.filter((i) => i.cluster === clusterId);
}

/** Whether dropping the item needs CASCADE: something depends on it other than its own indexes. */
export function itemHasDependents(m: TenantModel, id: number): boolean {
  return dependentsOfItem(m, id).some((d) => d.on !== id);
}

export function clusterHasDependents(m: TenantModel, clusterId: number): boolean {
  return dependentsOfCluster(m, clusterId).length > 0;
}

/** Removes an item with everything that depends on it (CASCADE) and its owned parts. */
export function dropItemCascade(m: TenantModel, id: number): void {
  const doomed = new Set<number>();
  const visit = (itemId: number) => {
    if (doomed.has(itemId)) return;
    doomed.add(itemId);
    for (const d of dependentsOfItem(m, itemId)) visit(d.id);
    for (const p of partsOf(m, itemId)) visit(p.id);
  };
  visit(id);
  removeItems(m, doomed);
}

export function dropClusterCascade(m: TenantModel, clusterId: number): void {
  for (const d of dependentsOfCluster(m, clusterId)) if (m.items.some((i) => i.id === d.id)) dropItemCascade(m, d.id);
  const idx = m.clusters.findIndex((c) => c.id === clusterId);
  if (idx >= 0) m.clusters.splice(idx, 1);
}

function removeItems(m: TenantModel, ids: ReadonlySet<number>): void {
  for (let i = m.items.length - 1; i >= 0; i--) if (ids.has(m.items[i]!.id)) m.items.splice(i, 1);
}

export function addItem(m: TenantModel, item: Omit<ModelItem, 'id'>): ModelItem {
  const it = { ...item, id: m.nextId++ } as ModelItem;
  m.items.push(it);
  return it;
}

export function addCluster(m: TenantModel, c: Omit<ModelCluster, 'id' | 'replicas' | 'onRefresh' | 'reconfiguring'> & Partial<Pick<ModelCluster, 'replicas' | 'onRefresh'>>): ModelCluster {
  const cl: ModelCluster = { replicas: [], onRefresh: false, ...c, reconfiguring: false, id: m.nextId++ };
  m.clusters.push(cl);
  return cl;
}

/** The one size a cluster has for sure, if the model knows it. */
export function certainSize(c: ModelCluster): string | undefined {
  return c.sizes.length === 1 ? c.sizes[0] : undefined;
}

/**
 * A managed cluster handed over as unmanaged (`SET (MANAGED = false)`): its replicas r1..rN stay
 * as they are, now listed one by one.
 */
export function toUnmanaged(c: ModelCluster): void {
  c.replicas = Array.from({ length: c.rf }, (_, i) => ({ name: `r${i + 1}`, sizes: [...c.sizes] }));
  c.managed = false;
  c.sizes = [];
  c.rf = 0;
}

/** Rough catalog size, used to steer the mix toward drops when a tenant grows. */
export function modelSize(m: TenantModel): number {
  return m.items.length + m.clusters.length;
}
