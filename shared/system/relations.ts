/**
 * The system tables' definitions: Materialize's names and columns, and how each relation's rows
 * are computed from a catalog read (and the status, effect and history items it needs). Pure: the
 * caller loads the inputs; shared/system/evaluate.ts evaluates SELECT and SHOW over them.
 */
import { NO_DATABASE, type CatalogSnapshot, type Reconfiguration } from '../catalog/model';
import type { HistoryRow, ReplicaStatusRecord, StoredStatus } from '../catalog/status-store';
import type { EffectRecord } from '../effects/model';
import { DEFAULT_READ_POLICY } from '../dataplane/contract';
import { formatInterval } from '../sql/interval';
import { aclOf, aclText, BUILTIN_DEFAULT_PRIVILEGES, BUILTIN_ROLES, MATERIALIZE_ROLE_ID, MZ_SYSTEM_ROLE_ID, ownerOf, PUBLIC_ROLE_ID } from '../planner/roles';

export type Value = string | number | boolean | null;
export type ColumnType = 'text' | 'int8' | 'bool' | 'timestamptz';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

export interface Relation {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Value[])[];
  /** What the reader should know that no column carries (a SHOW's notices). */
  readonly notices?: readonly string[];
}

export interface SystemInputs {
  readonly snapshot: CatalogSnapshot;
  readonly replicaStatuses: readonly ReplicaStatusRecord[];
  readonly effects: readonly EffectRecord[];
  readonly connectorStatuses: readonly StoredStatus[];
  readonly history: readonly HistoryRow[];
}

export type Input = 'replicaStatuses' | 'effects' | 'connectorStatuses' | 'history';

/** A connector's status as shown: its own, or a subsource's parent's. */
function connectorRows(kind: 'source' | 'sink', i: SystemInputs): Value[][] {
  const byId = new Map(i.connectorStatuses.map((x) => [x.objectId, x]));
  const rows: Value[][] = [];
  const row = (id: string, name: string, type: string, st: StoredStatus | undefined) =>
    rows.push([id, name, type, st?.lastStatusChangeAt ?? null, st?.status ?? 'created', st?.error ?? null, st?.details ? JSON.stringify(st.details) : null]);
  if (kind === 'source') {
    for (const x of i.snapshot.ofKind('source')) row(x.id, x.name, x.spec.sourceType, byId.get(x.id));
    for (const x of i.snapshot.ofKind('subsource')) row(x.id, x.name, 'subsource', byId.get(x.spec.sourceId));
    for (const x of i.snapshot.ofKind('table')) if (x.spec.fromSource) row(x.id, x.name, 'table', byId.get(x.id));
  } else {
    for (const x of i.snapshot.ofKind('sink')) {
      const own = byId.get(x.id);
      const upstream = failingUpstream(i.snapshot, i.connectorStatuses, x.id);
      // A sink whose input is stalled or failed cannot be running, whatever its own probe says.
      const shown = upstream && (own?.status ?? 'running') === 'running' ? { ...own!, status: 'stalled' as const, error: `upstream ${upstream.kind} ${upstream.name} is ${upstream.status}: ${upstream.error}` } : own;
      row(x.id, x.name, 'kafka', shown);
    }
  }
  return rows;
}

/** The first stalled or failed connector this object reads from, transitively (itself excluded). */
export function failingUpstream(snapshot: CatalogSnapshot, statuses: readonly StoredStatus[], id: string): StoredStatus | undefined {
  const byId = new Map(statuses.map((x) => [x.objectId, x]));
  const seen = new Set<string>();
  const visit = (oid: string): StoredStatus | undefined => {
    if (seen.has(oid)) return undefined;
    seen.add(oid);
    const o = snapshot.get(oid);
    if (!o) return undefined;
    if (oid !== id) {
      const sid = o.kind === 'subsource' ? o.spec.sourceId : oid;
      const st = byId.get(sid);
      if (st && (st.status === 'stalled' || st.status === 'failed')) return st;
    }
    const refs = o.kind === 'subsource' ? [o.spec.sourceId] : o.dependsOn;
    for (const d of refs) {
      const dep = snapshot.get(d);
      if (dep && ['source', 'subsource', 'table', 'view', 'materialized_view'].includes(dep.kind)) {
        const f = visit(d);
        if (f) return f;
      }
    }
    return undefined;
  };
  return visit(id);
}

export const col = (name: string, type: ColumnType = 'text'): Column => ({ name, type });

/** mz_objects.type spellings. */
export const OBJECT_TYPE: Readonly<Record<string, string>> = {
  secret: 'secret',
  connection: 'connection',
  source: 'source',
  subsource: 'source',
  sink: 'sink',
  table: 'table',
  view: 'view',
  materialized_view: 'materialized-view',
  index: 'index',
  type: 'type',
};

/** mz_comments.object_type: the audit log's spellings, as Materialize writes them (items as in mz_objects). */
const COMMENT_OBJECT_TYPE: Readonly<Record<string, string>> = { ...OBJECT_TYPE, cluster: 'cluster', cluster_replica: 'cluster-replica', database: 'database', schema: 'schema' };

/** A reconfiguration's strategy as the system tables spell it. */
const strategyName = (r: Reconfiguration): string => (r.strategy === 'for' ? 'wait for' : 'wait until ready');

export interface RelationDef {
  readonly schema: 'mz_catalog' | 'mz_internal';
  readonly columns: readonly Column[];
  /** Which inputs the relation reads, so the caller loads no more than it needs. */
  readonly needs: readonly Input[];
  rows(i: SystemInputs): Value[][];
}

/** An object's ACL as mz_aclitem[] reads as text. */
const acl = (snapshot: CatalogSnapshot, o: Parameters<typeof aclOf>[1]): string => aclText(aclOf(snapshot, o));

/** Materialize's role rows: the built-in roles, then the stored ones. */
function roleRows(snapshot: CatalogSnapshot): Value[][] {
  const builtins = BUILTIN_ROLES.filter((r) => r.id !== PUBLIC_ROLE_ID).map((r) => [r.id, r.name, true, false, r.id === MZ_SYSTEM_ROLE_ID] as Value[]);
  return [...builtins, ...snapshot.ofKind('role').map((r) => [r.id, r.name, true, false, false] as Value[])];
}

export const RELATIONS: Readonly<Record<string, RelationDef>> = {
  /** Roles: Materialize's built-in ones (materialize is every caller here), and CREATE ROLE's. No role logs in with a password. */
  mz_roles: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('inherit', 'bool'), col('rolcanlogin', 'bool'), col('rolsuper', 'bool')],
    needs: [],
    rows: ({ snapshot }) => roleRows(snapshot),
  },
  /** GRANT role TO member: one row per membership (the grantor is always mz_system, as in Materialize). */
  mz_role_members: {
    schema: 'mz_catalog',
    columns: [col('role_id'), col('member'), col('grantor')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('role_membership').map((m) => [m.spec.roleId, m.spec.memberId, m.spec.grantorId]),
  },
  /** ALTER DEFAULT PRIVILEGES, after Materialize's built-in rows (`p` is PUBLIC). */
  mz_default_privileges: {
    schema: 'mz_catalog',
    columns: [col('role_id'), col('database_id'), col('schema_id'), col('object_type'), col('grantee'), col('privileges')],
    needs: [],
    rows: ({ snapshot }) => [
      ...BUILTIN_DEFAULT_PRIVILEGES.map((d) => [PUBLIC_ROLE_ID, null, null, d.objectType, d.grantee, d.privileges] as Value[]),
      ...snapshot.ofKind('default_privilege').map((d) => [d.spec.roleId, d.spec.databaseId ?? null, d.spec.schemaId ?? null, d.spec.objectType, d.spec.grantee, d.spec.privileges] as Value[]),
    ],
  },
  /** Fixed here: only a superuser may grant system privileges, and no caller is one. */
  mz_system_privileges: {
    schema: 'mz_catalog',
    columns: [col('privileges')],
    needs: [],
    rows: () => [[`${MZ_SYSTEM_ROLE_ID}=RBNP/${MZ_SYSTEM_ROLE_ID}`], [`${MATERIALIZE_ROLE_ID}=RBNP/${MZ_SYSTEM_ROLE_ID}`]],
  },
  mz_clusters: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('owner_id'), col('privileges'), col('managed', 'bool'), col('size'), col('replication_factor', 'int8')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().map((c) => [c.id, c.name, ownerOf(snapshot, c), acl(snapshot, c), c.spec.managed, c.spec.size ?? null, c.spec.managed ? (c.spec.replicationFactor ?? 1) : null]),
  },
  /**
   * Materialize's seven columns, no more: a replica of a reconfiguration under way shows here as
   * Materialize shows it (the `-pending` name, its id in mz_internal.mz_pending_cluster_replicas);
   * what it waits for and until when is in mz_internal.mz_cluster_replica_reconfigurations, by id.
   * `disk` is NULL: whether a size has a local disk is the data plane's to know, not the catalog's.
   */
  mz_cluster_replicas: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('cluster_id'), col('size'), col('availability_zone'), col('owner_id'), col('disk', 'bool')],
    needs: [],
    rows: ({ snapshot }) => snapshot.replicas().map((r) => [r.id, r.name, r.spec.clusterId, r.spec.size, r.spec.options['AVAILABILITY ZONE'] ?? null, ownerOf(snapshot, r), null]),
  },
  mz_databases: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('owner_id'), col('privileges')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('database').map((d) => [d.id, d.name, ownerOf(snapshot, d), acl(snapshot, d)]),
  },
  mz_schemas: {
    schema: 'mz_catalog',
    columns: [col('id'), col('database_id'), col('name'), col('owner_id'), col('privileges')],
    needs: [],
    // The request's mz_temp belongs to no database: NULL, as Materialize's ambient schemas.
    rows: ({ snapshot }) => snapshot.ofKind('schema').map((x) => [x.id, x.spec.databaseId === NO_DATABASE ? null : x.spec.databaseId, x.name, ownerOf(snapshot, x), acl(snapshot, x)]),
  },
  mz_sources: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('connection_id'), col('envelope_type'), col('cluster_id'), col('owner_id'), col('privileges'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => [
      ...snapshot.ofKind('source').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.sourceType, x.spec.connectionId ?? null, x.spec.envelope ?? null, x.spec.clusterId, ownerOf(snapshot, x), acl(snapshot, x), x.spec.createSql]),
      ...snapshot.ofKind('subsource').map((x) => [x.id, x.spec.schemaId, x.name, 'subsource', null, null, null, ownerOf(snapshot, x), acl(snapshot, x), null]),
    ],
  },
  mz_sinks: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('connection_id'), col('envelope_type'), col('cluster_id'), col('owner_id'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('sink').map((x) => [x.id, x.spec.schemaId, x.name, 'kafka', x.spec.connectionId, x.spec.envelope ?? null, x.spec.clusterId, ownerOf(snapshot, x), x.spec.createSql]),
  },
  mz_connections: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('owner_id'), col('privileges'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('connection').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.connector.type, ownerOf(snapshot, x), acl(snapshot, x), x.spec.createSql]),
  },
  mz_secrets: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('owner_id'), col('privileges')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('secret').map((x) => [x.id, x.spec.schemaId, x.name, ownerOf(snapshot, x), acl(snapshot, x)]),
  },
  mz_tables: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('owner_id'), col('privileges'), col('create_sql'), col('source_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('table').map((x) => [x.id, x.spec.schemaId, x.name, ownerOf(snapshot, x), acl(snapshot, x), x.spec.createSql, x.spec.fromSource?.sourceId ?? null]),
  },
  mz_views: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('definition'), col('owner_id'), col('privileges')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('view').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.query, ownerOf(snapshot, x), acl(snapshot, x)]),
  },
  mz_materialized_views: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('cluster_id'), col('definition'), col('owner_id'), col('privileges')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('materialized_view').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.clusterId, x.spec.query, ownerOf(snapshot, x), acl(snapshot, x)]),
  },
  mz_indexes: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('on_id'), col('cluster_id'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('index').map((x) => [x.id, x.name, x.spec.onId, x.spec.clusterId, ownerOf(snapshot, x)]),
  },
  /** User-defined types (CREATE TYPE); Materialize's built-in types are not listed. `oid` is null: we assign none. */
  mz_types: {
    schema: 'mz_catalog',
    columns: [col('id'), col('oid', 'int8'), col('schema_id'), col('name'), col('category'), col('owner_id'), col('privileges'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('type').map((x) => [x.id, null, x.spec.schemaId, x.name, x.spec.category, ownerOf(snapshot, x), acl(snapshot, x), x.spec.createSql]),
  },
  /** A list type's element: the id of a user-defined type, else the built-in type's name as written (Materialize gives built-ins ids of their own). */
  mz_list_types: {
    schema: 'mz_catalog',
    columns: [col('id'), col('element_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('type').flatMap((x) => (x.spec.category === 'list' ? [[x.id, x.spec.element.id ?? x.spec.element.type]] : [])),
  },
  /** A map type's key and value, as in mz_list_types. */
  mz_map_types: {
    schema: 'mz_catalog',
    columns: [col('id'), col('key_id'), col('value_id')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('type').flatMap((x) => (x.spec.category === 'map' ? [[x.id, x.spec.key.id ?? x.spec.key.type, x.spec.value.id ?? x.spec.value.type]] : [])),
  },
  mz_objects: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('owner_id'), col('cluster_id')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.items().map((x) => [x.id, x.spec.schemaId, x.name, OBJECT_TYPE[x.kind] ?? x.kind, ownerOf(snapshot, x), (x.spec as { clusterId?: string }).clusterId ?? null]),
  },
  /** As in Materialize: which catalog items each item references (clusters and schemas are not items). */
  mz_object_dependencies: {
    schema: 'mz_internal',
    columns: [col('object_id'), col('referenced_object_id')],
    needs: [],
    rows: ({ snapshot }) => {
      const items = snapshot.items();
      const ids = new Set(items.map((x) => x.id));
      return items.flatMap((x) => {
        // A subsource is an owned part of its source, so it is not in dependsOn; it still reads from it.
        const refs = new Set([...x.dependsOn, ...(x.kind === 'subsource' ? [x.spec.sourceId] : [])]);
        return [...refs].filter((d) => ids.has(d)).map((d) => [x.id, d] as Value[]);
      });
    },
  },
  /** COMMENT ON: one row per commented object, and per commented column (object_sub_id = its position, from 1). */
  mz_comments: {
    schema: 'mz_internal',
    columns: [col('id'), col('object_type'), col('object_sub_id', 'int8'), col('comment')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.all().flatMap((x) => {
        const rows: Value[][] = [];
        const type = COMMENT_OBJECT_TYPE[x.kind] ?? x.kind;
        if (x.comment !== undefined) rows.push([x.id, type, null, x.comment]);
        if (x.kind === 'table' && x.columnComments) {
          x.spec.columns.forEach((c, k) => {
            const text = x.columnComments![c.name];
            if (text !== undefined) rows.push([x.id, type, k + 1, text]);
          });
        }
        return rows;
      }),
  },
  mz_source_statuses: {
    schema: 'mz_internal',
    columns: [col('id'), col('name'), col('type'), col('last_status_change_at', 'timestamptz'), col('status'), col('error'), col('details')],
    needs: ['connectorStatuses'],
    rows: (i) => connectorRows('source', i),
  },
  mz_sink_statuses: {
    schema: 'mz_internal',
    columns: [col('id'), col('name'), col('type'), col('last_status_change_at', 'timestamptz'), col('status'), col('error'), col('details')],
    needs: ['connectorStatuses'],
    rows: (i) => connectorRows('sink', i),
  },
  mz_source_status_history: {
    schema: 'mz_internal',
    columns: [col('occurred_at', 'timestamptz'), col('source_id'), col('status'), col('error'), col('details')],
    needs: ['history'],
    rows: ({ history }) =>
      history.filter((h) => (h as { kind?: string }).kind !== 'sink').map((h) => [h.occurredAt, h.objectId, h.status, h.error, h.details ? JSON.stringify(h.details) : null]),
  },
  mz_sink_status_history: {
    schema: 'mz_internal',
    columns: [col('occurred_at', 'timestamptz'), col('sink_id'), col('status'), col('error'), col('details')],
    needs: ['history'],
    rows: ({ history }) =>
      history.filter((h) => (h as { kind?: string }).kind === 'sink').map((h) => [h.occurredAt, h.objectId, h.status, h.error, h.details ? JSON.stringify(h.details) : null]),
  },
  /** Ours: views, materialized views, indexes and sinks show a stalled or failed source they read from. */
  mz_dependency_statuses: {
    schema: 'mz_internal',
    columns: [col('id'), col('name'), col('type'), col('status'), col('error'), col('upstream_id'), col('upstream_name')],
    needs: ['connectorStatuses'],
    rows: ({ snapshot, connectorStatuses }) =>
      snapshot
        .items()
        .filter((x) => ['view', 'materialized_view', 'index', 'sink'].includes(x.kind))
        .map((x) => {
          const up = failingUpstream(snapshot, connectorStatuses, x.id);
          return [x.id, x.name, OBJECT_TYPE[x.kind] ?? x.kind, up ? up.status : 'running', up ? `upstream ${up.kind} ${up.name}: ${up.error}` : null, up?.objectId ?? null, up?.name ?? null];
        }),
  },
  mz_cluster_replica_statuses: {
    schema: 'mz_internal',
    columns: [col('replica_id'), col('process_id', 'int8'), col('status'), col('reason'), col('updated_at', 'timestamptz')],
    needs: ['replicaStatuses'],
    rows: ({ snapshot, replicaStatuses }) => {
      const byId = new Map(replicaStatuses.map((s) => [s.replicaId, s]));
      return snapshot.replicas().map((r) => {
        const s = byId.get(r.id);
        // Not yet provisioned: offline until the executor reports it, like a replica still starting.
        return s ? [r.id, 0, s.status, s.reason, s.updatedAt] : [r.id, 0, 'offline', 'provisioning', r.updatedAt];
      });
    },
  },
  /**
   * Materialize's: each table's, source's (subsources are sources there), index's and materialized
   * view's RETAIN HISTORY (`FOR`, in ms; 1000 by default).
   */
  mz_history_retention_strategies: {
    schema: 'mz_internal',
    columns: [col('id'), col('strategy'), col('value', 'int8')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .items()
        .filter((x) => x.kind === 'table' || x.kind === 'source' || x.kind === 'subsource' || x.kind === 'index' || x.kind === 'materialized_view')
        .map((x) => [x.id, 'FOR', x.spec.retainHistoryMs ?? DEFAULT_READ_POLICY.lagMs]),
  },
  /** Materialize's: each managed cluster's SCHEDULE (`manual` or `on-refresh`, with its hydration time estimate). */
  mz_cluster_schedules: {
    schema: 'mz_internal',
    columns: [col('cluster_id'), col('type'), col('refresh_hydration_time_estimate')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .clusters()
        .filter((c) => c.spec.managed)
        .map((c) => [c.id, c.spec.schedule ? 'on-refresh' : 'manual', c.spec.schedule ? formatInterval(c.spec.schedule.hydrationTimeEstimateMs * 1000) : null]),
  },
  /** Materialize's: each materialized view's REFRESH strategies (`on-commit`, or one row per `at` and `every`; times in ms). */
  mz_materialized_view_refresh_strategies: {
    schema: 'mz_internal',
    columns: [col('materialized_view_id'), col('type'), col('interval'), col('aligned_to', 'int8'), col('at', 'int8')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('materialized_view').flatMap((mv): Value[][] => {
        const r = mv.spec.refresh;
        if (!r) return [[mv.id, 'on-commit', null, null, null]];
        return [
          ...r.ats.map((at): Value[] => [mv.id, 'at', null, null, at]),
          ...r.everies.map((e): Value[] => [mv.id, 'every', formatInterval(e.intervalMs * 1000), e.alignedToMs, null]),
        ];
      }),
  },
  /** Materialize's: the replicas of reconfigurations not yet settled (`r1-pending`, ...). */
  mz_pending_cluster_replicas: {
    schema: 'mz_internal',
    columns: [col('id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.replicas().filter((r) => r.spec.pending).map((r) => [r.id]),
  },
  /** Ours: each graceful reconfiguration under way (ALTER CLUSTER ... WITH (WAIT ...)), what it waits for and until when. */
  mz_pending_cluster_reconfigurations: {
    schema: 'mz_internal',
    columns: [
      col('cluster_id'), col('cluster_name'), col('size'), col('replication_factor', 'int8'), col('strategy'), col('on_timeout'),
      col('pending_replicas'), col('started_at', 'timestamptz'), col('deadline', 'timestamptz'),
    ],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().flatMap((c) => {
        const r = c.spec.reconfiguration;
        if (!r) return [];
        const pending = snapshot.replicas(c.id).filter((x) => x.spec.pending).map((x) => x.name);
        return [[c.id, c.name, r.size, r.replicationFactor, strategyName(r), r.onTimeout, pending.join(', '), r.startedAt, r.deadline]];
      }),
  },
  /**
   * Ours: every replica of a cluster under reconfiguration, by id (mz_cluster_replicas.id): the
   * `pending` ones the reconfiguration made (kept on commit, dropped on rollback) and the
   * `current` ones they replace (dropped on commit, kept on rollback), with the deadline.
   */
  mz_cluster_replica_reconfigurations: {
    schema: 'mz_internal',
    columns: [
      col('replica_id'), col('replica_name'), col('cluster_id'), col('cluster_name'), col('role'), col('strategy'), col('on_timeout'),
      col('started_at', 'timestamptz'), col('deadline', 'timestamptz'),
    ],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().flatMap((c) => {
        const r = c.spec.reconfiguration;
        if (!r) return [];
        return snapshot.replicas(c.id).map((x) => [x.id, x.name, c.id, c.name, x.spec.pending ? 'pending' : 'current', strategyName(r), r.onTimeout, r.startedAt, r.deadline]);
      }),
  },
  mz_pending_effects: {
    schema: 'mz_internal',
    columns: [
      col('effect_id'), col('object_id'), col('object_name'), col('controller'), col('kind'), col('intent'), col('generation', 'int8'),
      col('state'), col('attempts', 'int8'), col('last_error'), col('dead_lettered', 'bool'), col('created_at', 'timestamptz'), col('updated_at', 'timestamptz'),
    ],
    needs: ['effects'],
    rows: ({ effects }) =>
      effects
        .filter((e) => e.state === 'pending' || e.state === 'failed')
        .map((e) => [e.effectId, e.objectId, e.objectName, e.controller, e.kind, e.intent, e.generation, e.state, e.attempts, e.lastError ?? null, Boolean((e as { deadLettered?: boolean }).deadLettered), e.createdAt, e.updatedAt]),
  },
};
