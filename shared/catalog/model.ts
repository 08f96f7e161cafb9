/** Catalog items as stored, and the snapshot the planner reads. */
import type { ConnectionType, SourceType } from '../connectors';
import type { ReplicaSchedule } from '../dataplane/contract';

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
  'type',
  'role',
  'role_membership',
  'default_privilege',
  'network_policy',
  'system_parameter',
] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

/** Kinds that live in a schema and share its namespace (Materialize's "items"). */
export const ITEM_KINDS = ['secret', 'connection', 'source', 'subsource', 'sink', 'table', 'view', 'materialized_view', 'index', 'type'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
export const isItemKind = (k: ObjectKind): k is ItemKind => (ITEM_KINDS as readonly string[]).includes(k);

/** Kinds whose data the data plane keeps in a collection (each needs a read policy). */
export const COLLECTION_KINDS: readonly ObjectKind[] = ['source', 'subsource', 'table', 'materialized_view'];
/** Connector kinds: they get a status with history (mz_source_statuses / mz_sink_statuses). */
export const CONNECTOR_KINDS: readonly ObjectKind[] = ['source', 'sink'];

/**
 * The connector status family an object reports under (mz_source_statuses / mz_sink_statuses):
 * sources and sinks, and tables fed by a source (their ingestion export has a status of its own,
 * as in Materialize).
 */
/**
 * The column names the catalog knows of an object, in order: a table's columns, a view's or
 * materialized view's output columns (when the planner read them from the body), a record type's
 * fields. What `COMMENT ON COLUMN` may name and `mz_comments` numbers from 1.
 */
export function knownColumns(o: CatalogObject): readonly string[] | undefined {
  switch (o.kind) {
    case 'table':
      return o.spec.columns.map((c) => c.name);
    case 'view':
    case 'materialized_view':
      return o.spec.columns;
    case 'type':
      return o.spec.category === 'record' ? o.spec.fields.map((f) => f.name) : undefined;
    default:
      return undefined;
  }
}

export function connectorKind(o: { readonly kind: ObjectKind; readonly spec: unknown }): 'source' | 'sink' | undefined {
  if (o.kind === 'source' || o.kind === 'sink') return o.kind;
  if (o.kind === 'table' && ((o.spec as ObjectSpec['table']).fromSource || (o.spec as ObjectSpec['table']).webhook)) return 'source';
  return undefined;
}

export interface ClusterSpec {
  readonly managed: boolean;
  /** Managed clusters only. */
  readonly size?: string;
  readonly replicationFactor?: number;
  /** Other options as written (canonical names), for SHOW CREATE and mz_clusters. */
  readonly options: Readonly<Record<string, string>>;
  /** A graceful reconfiguration under way (`ALTER CLUSTER ... WITH (WAIT ...)`): its pending replicas run beside the current ones. */
  readonly reconfiguration?: Reconfiguration;
  /** `SCHEDULE = ON REFRESH`: its replicas run only around its materialized views' refreshes (absent: `MANUAL`). */
  readonly schedule?: ReplicaSchedule;
}

/**
 * What a managed cluster becomes once its pending replicas (`r1-pending`, ...) are hydrated or the
 * deadline passes: `commit` drops the current replicas and makes the pending ones current,
 * `rollback` drops the pending ones. Settled by one catalog commit (shared/planner/reconfigure.ts).
 */
export interface Reconfiguration {
  readonly size: string;
  readonly replicationFactor: number;
  /**
   * The schedule the cluster has once it commits, which its pending replicas run on: `null` is
   * MANUAL. Absent in a reconfiguration recorded before schedules were part of the target: the
   * cluster keeps the one it has.
   */
  readonly schedule?: ReplicaSchedule | null;
  /** `for`: cut over at the deadline whatever the replicas' state; `until_ready`: as soon as they are hydrated. */
  readonly strategy: 'for' | 'until_ready';
  readonly onTimeout: 'commit' | 'rollback';
  /** ISO 8601. */
  readonly deadline: string;
  readonly startedAt: string;
}

/**
 * A materialized view's refresh schedule (Materialize's `RefreshSchedule`): it is recomputed at
 * each `ats` time and at every `intervalMs` from `alignedToMs`, and not in between. Times are
 * `mz_timestamp`s, milliseconds since the epoch.
 */
export interface RefreshSchedule {
  readonly ats: readonly number[];
  readonly everies: readonly { readonly intervalMs: number; readonly alignedToMs: number }[];
}

export interface ReplicaSpec {
  readonly size: string;
  readonly clusterId: string;
  /** True when the cluster manages this replica (created and dropped with the cluster). */
  readonly managed: boolean;
  readonly options: Readonly<Record<string, string>>;
  /** Created by a graceful reconfiguration that has not settled yet (Materialize's `-pending` replicas). */
  readonly pending?: boolean;
  /** Its cluster's `SCHEDULE = ON REFRESH`, as the data plane gets it with the replica. */
  readonly schedule?: ReplicaSchedule;
}

export interface ItemSpecBase {
  readonly schemaId: string;
  /** Canonical SQL of the CREATE statement (SHOW CREATE). */
  readonly createSql: string;
  /** `RETAIN HISTORY FOR ...` of a table, source, index or materialized view, in ms (absent: the default, 1 s). */
  readonly retainHistoryMs?: number;
}

export interface ConnectorSettings {
  /** The connection's type (shared/connectors): `kafka`, `postgres`, `aws`, `ssh`, `confluent-schema-registry`, ... */
  readonly type: ConnectionType;
  /** Plain option values by canonical name (never a secret value). */
  readonly options: Readonly<Record<string, string>>;
  /** Option name → secret object id. */
  readonly secretRefs: Readonly<Record<string, string>>;
  /** Option name → connection object id (SSH TUNNEL, schema registry). */
  readonly connectionRefs: Readonly<Record<string, string>>;
}

/** Where a source-fed table's rows come from: its source and the upstream reference it exports. */
export interface TableSource {
  readonly sourceId: string;
  /** The upstream table or topic, as resolved (`public.orders`, `counter`); '' for a single-output source's only output. */
  readonly reference: string;
}

/** What feeds a webhook table: the cluster its ingestion runs on, and the webhook's settings as a webhook source keeps them. */
export interface TableWebhook {
  readonly clusterId: string;
  /** `BODY FORMAT` and the planned `CHECK`. */
  readonly options: Readonly<Record<string, string>>;
  /** The secrets the `CHECK` reads: option name → secret object id. */
  readonly secretRefs?: Readonly<Record<string, string>>;
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
    /** The source's connector type (shared/connectors). */
    readonly sourceType: SourceType;
    readonly options: Readonly<Record<string, string>>;
    /** Secrets the source reads itself (a webhook's `CHECK`): option name → secret object id. */
    readonly secretRefs?: Readonly<Record<string, string>>;
    readonly format?: string;
    readonly envelope?: string;
  };
  subsource: ItemSpecBase & { readonly sourceId: string; readonly reference: string };
  sink: ItemSpecBase & {
    readonly clusterId: string;
    readonly fromId: string;
    readonly connectionId: string;
    readonly options: Readonly<Record<string, string>>;
    /** Avro `DOC ON` docs of the generated key and value schemas (an object and, for a column, its name). */
    readonly avroDocs?: {
      readonly key: readonly { readonly objectId: string; readonly column?: string; readonly doc: string }[];
      readonly value: readonly { readonly objectId: string; readonly column?: string; readonly doc: string }[];
    };
    /** Secrets the source reads itself (a webhook's `CHECK`): option name → secret object id. */
    readonly secretRefs?: Readonly<Record<string, string>>;
    readonly format?: string;
    readonly envelope?: string;
  };
  table: ItemSpecBase & {
    readonly columns: readonly { readonly name: string; readonly type: string; readonly notNull: boolean }[];
    /** `CREATE TABLE ... FROM SOURCE`: read-only, written by an ingestion export of the source. */
    readonly fromSource?: TableSource;
    /** `CREATE TABLE ... FROM WEBHOOK`: written by the webhook's ingestion (as a webhook source's). */
    readonly webhook?: TableWebhook;
  };
  /** `columns`: the output column names, when the planner could read them from the body. */
  view: ItemSpecBase & { readonly query: string; readonly columns?: readonly string[] };
  materialized_view: ItemSpecBase & {
    readonly clusterId: string;
    readonly query: string;
    readonly columns?: readonly string[];
    /** `CREATE REPLACEMENT MATERIALIZED VIEW ... FOR mv`: the id of the materialized view it is to replace. */
    readonly replacementFor?: string;
    /** `REFRESH AT / EVERY ...`: when the data plane refreshes it; absent for `REFRESH ON COMMIT` (the default). */
    readonly refresh?: RefreshSchedule;
  };
  index: ItemSpecBase & { readonly clusterId: string; readonly onId: string; readonly keyParts: readonly string[] };
  type: ItemSpecBase & TypeSpec;
  /**
   * `CREATE ROLE`: catalog only. Materialize supports inheriting roles only; a role keeps its
   * session variables' defaults (`ALTER ROLE ... SET`: canonical name → value) and the system
   * privileges granted to it (`GRANT CREATEDB ON SYSTEM TO r`: ACL letters).
   */
  role: { readonly inherit: true; readonly vars?: Readonly<Record<string, string>>; readonly systemPrivileges?: string };
  /**
   * `GRANT role TO member`: one membership per (role, member), as Materialize keeps them (its grantor
   * is always mz_system). Its own object, so that the built-in role materialize, which is not
   * stored, can be a member; it depends on the stored roles it names.
   */
  role_membership: { readonly roleId: string; readonly memberId: string; readonly grantorId: string };
  /**
   * `ALTER DEFAULT PRIVILEGES FOR ROLE r [IN DATABASE d | IN SCHEMA s] GRANT ... ON <type>S TO g`:
   * what objects of `objectType` created by `roleId` get for `grantee` (Materialize's
   * mz_default_privileges row). It depends on the stored roles, database and schema it names.
   */
  default_privilege: {
    readonly roleId: string;
    readonly databaseId?: string;
    readonly schemaId?: string;
    readonly objectType: PrivilegeObjectType;
    readonly grantee: string;
    /** ACL letters (`arwd`, `U`, `UC`), Materialize's order. */
    readonly privileges: string;
  };
  /**
   * `CREATE NETWORK POLICY name (RULES (...))`: catalog only (who may connect is the front door's
   * business), as mz_network_policies and mz_network_policy_rules show it.
   */
  network_policy: { readonly rules: readonly NetworkPolicyRule[] };
  /** `ALTER SYSTEM SET name = value`: a session variable's system default (the object's name is the variable's). */
  system_parameter: { readonly value: string };
};

/** One rule of a network policy: Materialize has `allow` and `ingress` only. */
export interface NetworkPolicyRule {
  readonly name: string;
  readonly action: 'allow';
  readonly direction: 'ingress';
  readonly address: string;
}

/** The object types privileges are granted on (views, sources and materialized views are `table`). */
export type PrivilegeObjectType = 'table' | 'type' | 'secret' | 'connection' | 'cluster' | 'database' | 'schema';

/** One entry of an object's access control list (Materialize's mz_aclitem): role ids and ACL letters. */
export interface AclItem {
  readonly grantee: string;
  readonly grantor: string;
  readonly privileges: string;
}

/**
 * A user-defined type (`CREATE TYPE`): catalog only, nothing on the data plane. Type names are kept
 * as written and resolved (`int4`, `pg_catalog.text`, `materialize.public.int_list`); `dependsOn`
 * holds the user-defined ones, so they cannot be dropped from under it.
 */
export type TypeSpec =
  | { readonly category: 'list'; readonly element: TypeRef }
  | { readonly category: 'map'; readonly key: TypeRef; readonly value: TypeRef }
  | { readonly category: 'record'; readonly fields: readonly (TypeRef & { readonly name: string })[] };

/** A type a user-defined type names: as written (`int4`, `numeric(5,2)`), and the id of a user-defined one. */
export interface TypeRef {
  readonly type: string;
  readonly id?: string;
}

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
  /**
   * A role id once `ALTER ... OWNER TO` or `REASSIGN OWNED` set one; until then the principal (app
   * password) that created the object when it acts as the role materialize; the role's id when the
   * password was made for another role (shared/planner/roles.ts).
   */
  readonly owner: string;
  /**
   * `GRANT` / `REVOKE` / default privileges: the object's access control list. Absent means the
   * default its kind gets at creation (its owner's privileges, and Materialize's built-in defaults).
   */
  readonly privileges?: readonly AclItem[];
  /** `COMMENT ON`: the object's comment, and its columns' by column name (tables). */
  readonly comment?: string;
  readonly columnComments?: Readonly<Record<string, string>>;
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
/**
 * The schema of a session's temporary items (Materialize's `mz_temp`). It belongs to no database
 * (`NO_DATABASE`); over the HTTP API a request is the session, so it lives in the planner's
 * working copy only and is never committed (shared/planner/workspace.ts).
 */
export const TEMP_SCHEMA = 'mz_temp';
/** The database id of a schema that belongs to no database (Materialize's ambient schemas). */
export const NO_DATABASE = '';

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Where an object's name must be unique (the planner's name lookups): mirrors the name guards of keys.ts. */
function nameKey(o: CatalogObject): string | undefined {
  if (isItemKind(o.kind)) return itemKey((o.spec as ItemSpecBase).schemaId, o.name);
  switch (o.kind) {
    case 'cluster':
      return clusterKey(o.name);
    case 'cluster_replica':
      return `r\u0000${o.spec.clusterId}\u0000${o.name}`;
    case 'database':
      return databaseKey(o.name);
    case 'schema':
      return schemaKey(o.spec.databaseId, o.name);
    case 'role':
      return roleKey(o.name);
    case 'network_policy':
      return `np\u0000${o.name}`;
    case 'system_parameter':
      return `sp\u0000${o.name}`;
  }
  return undefined;
}
const roleKey = (name: string) => `role\u0000${name}`;
const itemKey = (schemaId: string, name: string) => `i\u0000${schemaId}\u0000${name}`;
const clusterKey = (name: string) => `c\u0000${name}`;
const databaseKey = (name: string) => `d\u0000${name}`;
const schemaKey = (databaseId: string, name: string) => `s\u0000${databaseId}\u0000${name}`;

/** Lookups over a root snapshot's objects, built once on first use (a cached snapshot serves many requests). */
interface Indexes {
  readonly names: Map<string, CatalogObject>;
  /** Per kind, sorted by name (stable: ties keep the snapshot's order); likewise items and replicas. */
  readonly kinds: Map<ObjectKind, CatalogObject[]>;
  readonly items: ItemObject[];
  readonly replicasOf: Map<string, ReplicaObject[]>;
  /** In the snapshot's order. */
  readonly dependents: Map<string, CatalogObject[]>;
  readonly order: Map<string, number>;
}

function buildIndexes(objects: readonly CatalogObject[]): Indexes {
  const names = new Map<string, CatalogObject>();
  const kinds = new Map<ObjectKind, CatalogObject[]>();
  const replicasOf = new Map<string, ReplicaObject[]>();
  const dependents = new Map<string, CatalogObject[]>();
  const order = new Map<string, number>();
  const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
    const list = m.get(k);
    if (list) list.push(v);
    else m.set(k, [v]);
  };
  const sorted = [...objects].sort(byName);
  for (const o of sorted) {
    const key = nameKey(o);
    if (key !== undefined) names.set(key, o);
    push(kinds, o.kind, o);
    if (o.kind === 'cluster_replica') push(replicasOf, o.spec.clusterId, o);
  }
  objects.forEach((o, i) => {
    order.set(o.id, i);
    for (const ref of new Set(o.dependsOn)) push(dependents, ref, o);
  });
  const items = sorted.filter((o): o is ItemObject => isItemKind(o.kind));
  return { names, kinds, items, replicasOf, dependents, order };
}

/** A derived snapshot compacts into a new root once its own changes reach this share of the base. */
const COMPACT_AT = (baseSize: number) => Math.max(256, baseSize >> 3);

/**
 * What the planner sees: the tenant's live (not dropped) objects, with lookups.
 *
 * Immutable. A root snapshot holds every object and indexes them on first use; a derived one
 * (`CatalogSnapshot.derive`) holds only the objects that differ from its root, so the planner's
 * working copy and the per-tenant snapshot cache cost what changed, not the catalog's size.
 */
export class CatalogSnapshot {
  /** Root: every live object. Derived: the objects that differ from `root` (null = no longer live). */
  private readonly own: ReadonlyMap<string, CatalogObject | null>;
  private readonly root: CatalogSnapshot | undefined;
  private indexes: Indexes | undefined;
  private ownNames: Map<string, CatalogObject> | undefined;
  private allCache: CatalogObject[] | undefined;
  private sizeCache: number | undefined;

  constructor(
    readonly tenant: string,
    objects: readonly CatalogObject[],
    derived?: { readonly root: CatalogSnapshot; readonly own: ReadonlyMap<string, CatalogObject | null> },
  ) {
    if (derived) {
      this.root = derived.root;
      this.own = derived.own;
    } else {
      const own = new Map<string, CatalogObject>();
      for (const o of objects) if (!o.dropped) own.set(o.id, o);
      this.own = own;
    }
  }

  /**
   * This snapshot with `changes` applied (a dropped object leaves it). O(changes), not O(catalog):
   * derived snapshots share their root, and compact into a new root once they have grown.
   */
  static derive(base: CatalogSnapshot, changes: Iterable<CatalogObject>): CatalogSnapshot {
    const root = base.root ?? base;
    const own = new Map(base.root ? base.own : []);
    for (const o of changes) own.set(o.id, o.dropped ? null : o);
    const next = new CatalogSnapshot(base.tenant, [], { root, own });
    return own.size >= COMPACT_AT(root.own.size) ? new CatalogSnapshot(base.tenant, next.all()) : next;
  }

  /** Every live object by id (a copy for derived snapshots). */
  get byId(): ReadonlyMap<string, CatalogObject> {
    return this.root ? new Map(this.all().map((o) => [o.id, o])) : (this.own as ReadonlyMap<string, CatalogObject>);
  }

  get size(): number {
    if (!this.root) return this.own.size;
    if (this.sizeCache === undefined) {
      let n = this.root.own.size;
      for (const [id, o] of this.own) {
        const inRoot = this.root.own.has(id);
        if (o === null && inRoot) n--;
        else if (o !== null && !inRoot) n++;
      }
      this.sizeCache = n;
    }
    return this.sizeCache;
  }

  all(): CatalogObject[] {
    if (!this.allCache) {
      if (!this.root) this.allCache = [...(this.own as ReadonlyMap<string, CatalogObject>).values()];
      else {
        // The root's order, with changed objects in place and new ones at the end.
        const out: CatalogObject[] = [];
        for (const o of this.root.all()) {
          const mine = this.own.get(o.id);
          if (mine === undefined) out.push(o);
          else if (mine !== null) out.push(mine);
        }
        for (const [id, o] of this.own) if (o !== null && !this.root.own.has(id)) out.push(o);
        this.allCache = out;
      }
    }
    return [...this.allCache];
  }

  get(id: string): CatalogObject | undefined {
    if (!this.root) return (this.own.get(id) as CatalogObject | undefined) ?? undefined;
    const mine = this.own.get(id);
    return mine === undefined ? this.root.get(id) : (mine ?? undefined);
  }

  /** Where `id` sits in the catalog's order (the root's order; objects added later come after). */
  orderOf(id: string): number {
    const root = this.root ?? this;
    const i = root.index().order.get(id);
    if (i !== undefined) return i;
    let n = root.own.size;
    for (const k of this.own.keys()) {
      if (k === id) return n;
      n++;
    }
    return Number.MAX_SAFE_INTEGER;
  }

  private index(): Indexes {
    return (this.indexes ??= buildIndexes(this.all()));
  }

  /**
   * The root's matches for a lookup, corrected by this snapshot's own changes: changed objects in
   * place, new ones at the end, then sorted by name if `sortByName` (else the snapshot's order).
   */
  private merged<T extends CatalogObject>(fromRoot: readonly T[] | undefined, matches: (o: CatalogObject) => o is T, sortByName = true): T[] {
    if (!this.root) return [...(fromRoot ?? [])];
    let resort = false;
    const out: T[] = [];
    for (const o of fromRoot ?? []) {
      const mine = this.own.get(o.id);
      if (mine === undefined) out.push(o);
      else if (mine !== null && matches(mine)) {
        out.push(mine);
        resort ||= mine.name !== o.name;
      }
    }
    for (const [id, o] of this.own) {
      if (o === null || !matches(o)) continue;
      const before = this.root.get(id);
      if (before && matches(before)) continue; // already placed above
      out.push(o);
      resort = true;
    }
    return resort && sortByName ? out.sort(byName) : out;
  }

  private byKey(key: string): CatalogObject | undefined {
    if (!this.root) return this.index().names.get(key);
    if (!this.ownNames) {
      this.ownNames = new Map();
      for (const o of this.own.values()) {
        const k = o ? nameKey(o) : undefined;
        if (k !== undefined) this.ownNames.set(k, o!);
      }
    }
    const mine = this.ownNames.get(key);
    if (mine) return mine;
    const o = this.root.byKey(key);
    return o && !this.own.has(o.id) ? o : undefined;
  }

  ofKind<K extends ObjectKind>(kind: K): ObjectOf<K>[] {
    const root = this.root ?? this;
    return this.merged(root.index().kinds.get(kind) as ObjectOf<K>[] | undefined, (o): o is ObjectOf<K> => o.kind === kind);
  }
  clusters(): ClusterObject[] {
    return this.ofKind('cluster');
  }
  cluster(name: string): ClusterObject | undefined {
    return this.byKey(clusterKey(name)) as ClusterObject | undefined;
  }
  replicas(clusterId?: string): ReplicaObject[] {
    if (clusterId === undefined) return this.ofKind('cluster_replica');
    const root = this.root ?? this;
    return this.merged(root.index().replicasOf.get(clusterId), (o): o is ReplicaObject => o.kind === 'cluster_replica' && o.spec.clusterId === clusterId);
  }
  database(name: string): ObjectOf<'database'> | undefined {
    return this.byKey(databaseKey(name)) as ObjectOf<'database'> | undefined;
  }
  schema(databaseId: string, name: string): ObjectOf<'schema'> | undefined {
    return this.byKey(schemaKey(databaseId, name)) as ObjectOf<'schema'> | undefined;
  }
  /** A network policy by name (the built-in `default` is not stored). */
  networkPolicy(name: string): ObjectOf<'network_policy'> | undefined {
    return this.byKey(`np\u0000${name}`) as ObjectOf<'network_policy'> | undefined;
  }
  /** An `ALTER SYSTEM SET` value by its variable's canonical name. */
  systemParameter(name: string): ObjectOf<'system_parameter'> | undefined {
    return this.byKey(`sp\u0000${name}`) as ObjectOf<'system_parameter'> | undefined;
  }
  /** A stored role by name (the built-in ones are not stored: shared/planner/roles.ts). */
  role(name: string): ObjectOf<'role'> | undefined {
    return this.byKey(roleKey(name)) as ObjectOf<'role'> | undefined;
  }
  items(): ItemObject[] {
    const root = this.root ?? this;
    return this.merged(root.index().items, (o): o is ItemObject => isItemKind(o.kind));
  }
  /** The item named `name` in schema `schemaId`, whatever its kind. */
  item(schemaId: string, name: string): ItemObject | undefined {
    return this.byKey(itemKey(schemaId, name)) as ItemObject | undefined;
  }
  /** Live objects that reference `id` (direct dependents). */
  dependentsOf(id: string): CatalogObject[] {
    const root = this.root ?? this;
    const fromRoot = root.index().dependents.get(id);
    if (!this.root) return [...(fromRoot ?? [])];
    const refs = (o: CatalogObject): o is CatalogObject => o.dependsOn.includes(id);
    return this.merged(fromRoot, refs, false);
  }
  /** The qualified name of an item: database.schema.name. */
  qualifiedName(o: CatalogObject): string[] {
    if (isItemKind(o.kind)) {
      const schema = this.get((o as ItemObject).spec.schemaId) as ObjectOf<'schema'> | undefined;
      // An item of a schema outside any database is named by its schema alone (`mz_temp.v`), as in Materialize.
      if (schema?.spec.databaseId === NO_DATABASE) return [schema.name, o.name];
      const db = schema ? (this.get(schema.spec.databaseId) as ObjectOf<'database'> | undefined) : undefined;
      return [db?.name ?? '?', schema?.name ?? '?', o.name];
    }
    if (o.kind === 'schema') return o.spec.databaseId === NO_DATABASE ? [o.name] : [(this.get(o.spec.databaseId) as ObjectOf<'database'> | undefined)?.name ?? '?', o.name];
    if (o.kind === 'cluster_replica') return [(this.get(o.spec.clusterId) as ClusterObject | undefined)?.name ?? '?', o.name];
    return [o.name];
  }
}
