/**
 * The system tables (Materialize's names and columns) computed from a catalog read, and the
 * evaluation of SELECT / SHOW over them. Pure: the caller loads the inputs.
 */
import { DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogSnapshot } from '../catalog/model';
import type { ReplicaStatusRecord } from '../catalog/store';
import type { HistoryRow, StoredStatus } from '../status/store';
import type { EffectRecord } from '../effects/model';
import { PlanError, SQLSTATE } from '../errors';
import type { Expr, ObjectName, Statement } from '../sql/ast';

export type Value = string | number | boolean | null;
export type ColumnType = 'text' | 'int8' | 'bool' | 'timestamptz';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

export interface Relation {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Value[])[];
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

const col = (name: string, type: ColumnType = 'text'): Column => ({ name, type });

/** mz_objects.type spellings. */
const OBJECT_TYPE: Readonly<Record<string, string>> = {
  secret: 'secret',
  connection: 'connection',
  source: 'source',
  subsource: 'source',
  sink: 'sink',
  table: 'table',
  view: 'view',
  materialized_view: 'materialized-view',
  index: 'index',
};

interface RelationDef {
  readonly schema: 'mz_catalog' | 'mz_internal';
  readonly columns: readonly Column[];
  /** Which inputs the relation reads, so the caller loads no more than it needs. */
  readonly needs: readonly Input[];
  rows(i: SystemInputs): Value[][];
}

export const RELATIONS: Readonly<Record<string, RelationDef>> = {
  mz_clusters: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('owner_id'), col('managed', 'bool'), col('size'), col('replication_factor', 'int8')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().map((c) => [c.id, c.name, c.owner, c.spec.managed, c.spec.size ?? null, c.spec.managed ? (c.spec.replicationFactor ?? 1) : null]),
  },
  mz_cluster_replicas: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('cluster_id'), col('size'), col('availability_zone'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.replicas().map((r) => [r.id, r.name, r.spec.clusterId, r.spec.size, r.spec.options['AVAILABILITY ZONE'] ?? null, r.owner]),
  },
  mz_databases: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('database').map((d) => [d.id, d.name, d.owner]),
  },
  mz_schemas: {
    schema: 'mz_catalog',
    columns: [col('id'), col('database_id'), col('name'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('schema').map((x) => [x.id, x.spec.databaseId, x.name, x.owner]),
  },
  mz_sources: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('connection_id'), col('envelope_type'), col('cluster_id'), col('owner_id'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => [
      ...snapshot.ofKind('source').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.sourceType, x.spec.connectionId ?? null, x.spec.envelope ?? null, x.spec.clusterId, x.owner, x.spec.createSql]),
      ...snapshot.ofKind('subsource').map((x) => [x.id, x.spec.schemaId, x.name, 'subsource', null, null, null, x.owner, null]),
    ],
  },
  mz_sinks: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('connection_id'), col('envelope_type'), col('cluster_id'), col('owner_id'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('sink').map((x) => [x.id, x.spec.schemaId, x.name, 'kafka', x.spec.connectionId, x.spec.envelope ?? null, x.spec.clusterId, x.owner, x.spec.createSql]),
  },
  mz_connections: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('owner_id'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('connection').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.connector.type, x.owner, x.spec.createSql]),
  },
  mz_secrets: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('secret').map((x) => [x.id, x.spec.schemaId, x.name, x.owner]),
  },
  mz_tables: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('owner_id'), col('create_sql')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('table').map((x) => [x.id, x.spec.schemaId, x.name, x.owner, x.spec.createSql]),
  },
  mz_views: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('definition'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('view').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.query, x.owner]),
  },
  mz_materialized_views: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('cluster_id'), col('definition'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('materialized_view').map((x) => [x.id, x.spec.schemaId, x.name, x.spec.clusterId, x.spec.query, x.owner]),
  },
  mz_indexes: {
    schema: 'mz_catalog',
    columns: [col('id'), col('name'), col('on_id'), col('cluster_id'), col('owner_id')],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('index').map((x) => [x.id, x.name, x.spec.onId, x.spec.clusterId, x.owner]),
  },
  mz_objects: {
    schema: 'mz_catalog',
    columns: [col('id'), col('schema_id'), col('name'), col('type'), col('owner_id'), col('cluster_id')],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.items().map((x) => [x.id, x.spec.schemaId, x.name, OBJECT_TYPE[x.kind] ?? x.kind, x.owner, (x.spec as { clusterId?: string }).clusterId ?? null]),
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

/** Resolves `mz_clusters`, `mz_catalog.mz_clusters`, `materialize.mz_internal.x`, ... */
export function resolveRelation(name: ObjectName, position: number): { name: string; def: RelationDef } {
  const parts = name.length === 3 && name[0] === 'materialize' ? name.slice(1) : name;
  const [schema, rel] = parts.length === 2 ? [parts[0], parts[1]!] : [undefined, parts[0]!];
  const def = RELATIONS[rel];
  // mz_catalog is on the search path; mz_internal must be named, as in Materialize.
  if (def && (schema === def.schema || (schema === undefined && def.schema === 'mz_catalog'))) return { name: rel, def };
  throw new PlanError(`unknown catalog item '${name.join('.')}'`, {
    code: SQLSTATE.undefinedTable,
    position,
    hint: `System tables: ${Object.entries(RELATIONS).map(([n, d]) => `${d.schema}.${n}`).join(', ')}.`,
  });
}

/** Which inputs a read statement needs beyond the snapshot. */
export function inputsNeeded(s: Extract<Statement, { kind: 'show' | 'select' }>, snapshot?: CatalogSnapshot): Set<Input> {
  if (s.kind === 'select') {
    if (snapshot && userRelation(snapshot, s.from)) return new Set<Input>(['connectorStatuses']);
    return new Set(resolveRelation(s.from, s.fromPosition).def.needs);
  }
  return new Set(s.what === 'cluster replicas' ? ['replicaStatuses'] : []);
}

/** A user object named in FROM (resolved in materialize.public by default), if it is one. */
function userRelation(snapshot: CatalogSnapshot, name: ObjectName) {
  const [db, schema, rel] = name.length === 3 ? name : name.length === 2 ? [DEFAULT_DATABASE, name[0]!, name[1]!] : [DEFAULT_DATABASE, DEFAULT_SCHEMA, name[0]!];
  const d = snapshot.database(db!);
  const sc = d ? snapshot.schema(d.id, schema!) : undefined;
  return sc ? snapshot.item(sc.id, rel!) : undefined;
}

export function evaluateSelect(s: Extract<Statement, { kind: 'select' }>, inputs: SystemInputs): Relation {
  const user = userRelation(inputs.snapshot, s.from);
  if (user) {
    // Reading a stalled or failed source (or anything built on one) is an error, never stale rows.
    const own = user.kind === 'source' || user.kind === 'subsource' ? inputs.connectorStatuses.find((x) => x.objectId === (user.kind === 'subsource' ? user.spec.sourceId : user.id)) : undefined;
    const failing = own && (own.status === 'stalled' || own.status === 'failed') ? own : failingUpstream(inputs.snapshot, inputs.connectorStatuses, user.id);
    if (failing) {
      throw new PlanError(`cannot read ${s.from.join('.')}: ${failing.kind} ${failing.name} is ${failing.status}: ${failing.error}`, {
        code: SQLSTATE.internalError,
        position: s.fromPosition,
        ...(failing.details?.hints?.length ? { hint: failing.details.hints.join(' ') } : {}),
      });
    }
    throw new PlanError(`reading the rows of ${s.from.join('.')} is outside the control plane: the data plane serves them`, {
      code: SQLSTATE.featureNotSupported,
      position: s.fromPosition,
      hint: 'SELECT here reads the system catalog (mz_sources, mz_internal.mz_source_statuses, ...).',
    });
  }
  const { def } = resolveRelation(s.from, s.fromPosition);
  return project(filterSortLimit({ columns: def.columns, rows: def.rows(inputs) }, s.where, s.orderBy, s.limit, s.offset), s.columns);
}

export function evaluateShow(s: Extract<Statement, { kind: 'show' }>, inputs: SystemInputs): Relation {
  let rel: Relation;
  switch (s.what) {
    case 'clusters': {
      const rows = inputs.snapshot.clusters().map((c) => {
        const replicas = inputs.snapshot.replicas(c.id).map((r) => `${r.name} (${r.spec.size})`).join(', ');
        return [c.name, replicas, null] as Value[];
      });
      rel = { columns: [col('name'), col('replicas'), col('comment')], rows };
      break;
    }
    case 'cluster replicas': {
      const status = new Map(inputs.replicaStatuses.map((r) => [r.replicaId, r.status]));
      const clusters = new Map(inputs.snapshot.clusters().map((c) => [c.id, c]));
      const rows = inputs.snapshot
        .replicas()
        .filter((r) => s.inCluster === undefined || clusters.get(r.spec.clusterId)?.name === s.inCluster)
        .map((r) => [clusters.get(r.spec.clusterId)?.name ?? null, r.name, r.spec.size, status.get(r.id) === 'online', null] as Value[])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])));
      rel = { columns: [col('cluster'), col('replica'), col('size'), col('ready', 'bool'), col('comment')], rows };
      break;
    }
    case 'databases':
      rel = { columns: [col('name'), col('comment')], rows: inputs.snapshot.ofKind('database').map((d) => [d.name, null]) };
      break;
    case 'schemas': {
      const dbName = s.from?.[0] ?? DEFAULT_DATABASE;
      const db = inputs.snapshot.database(dbName);
      if (!db) throw new PlanError(`unknown database '${dbName}'`, { code: SQLSTATE.undefinedObject });
      rel = { columns: [col('name'), col('comment')], rows: inputs.snapshot.ofKind('schema').filter((x) => x.spec.databaseId === db.id).map((x) => [x.name, null]) };
      break;
    }
    default:
      rel = showItems(s, inputs.snapshot);
  }
  if (s.filter?.kind === 'like') {
    const nameIdx = rel.columns.findIndex((c) => c.name === 'name' || c.name === 'replica');
    const re = likeToRegExp(s.filter.pattern, false);
    rel = { columns: rel.columns, rows: rel.rows.filter((r) => re.test(String(r[nameIdx]))) };
  } else if (s.filter?.kind === 'where') {
    rel = filterSortLimit(rel, s.filter.expr, [], undefined, undefined);
  }
  return rel;
}

function columnIndex(rel: Relation, name: string, position?: number): number {
  const i = rel.columns.findIndex((c) => c.name === name);
  if (i < 0) {
    throw new PlanError(`column "${name}" does not exist`, {
      code: SQLSTATE.undefinedColumn,
      ...(position !== undefined ? { position } : {}),
      hint: `Columns: ${rel.columns.map((c) => c.name).join(', ')}.`,
    });
  }
  return i;
}

function filterSortLimit(rel: Relation, where: Expr | undefined, orderBy: readonly { column: string; desc: boolean }[], limit?: number, offset?: number): Relation {
  let rows = rel.rows;
  if (where) rows = rows.filter((r) => evaluate(where, rel, r) === true);
  if (orderBy.length) {
    const keys = orderBy.map((o) => ({ i: columnIndex(rel, o.column), desc: o.desc }));
    rows = [...rows].sort((a, b) => {
      for (const k of keys) {
        const c = compare(a[k.i] ?? null, b[k.i] ?? null);
        if (c !== 0) return k.desc ? -c : c;
      }
      return 0;
    });
  }
  const start = offset ?? 0;
  rows = rows.slice(start, limit === undefined ? undefined : start + limit);
  return { columns: rel.columns, rows };
}

function project(rel: Relation, columns: readonly string[] | undefined): Relation {
  if (!columns) return rel;
  const idx = columns.map((c) => columnIndex(rel, c));
  return { columns: idx.map((i) => rel.columns[i]!), rows: rel.rows.map((r) => idx.map((i) => r[i] ?? null)) };
}

/** NULLs sort last, like PostgreSQL's ascending order. */
function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The terms of a chain of one operator (`a OR b OR c`), left to right, without recursion. */
function chainTerms(e: Extract<Expr, { kind: 'and' | 'or' }>): Expr[] {
  const terms: Expr[] = [];
  let at: Expr = e;
  while (at.kind === e.kind) {
    const link = at as Extract<Expr, { kind: 'and' | 'or' }>;
    terms.push(link.right);
    at = link.left;
  }
  terms.push(at);
  return terms.reverse();
}

/** SQL's three-valued logic: null stands for unknown. */
function evaluate(e: Expr, rel: Relation, row: readonly Value[]): Value {
  switch (e.kind) {
    case 'column':
      return row[columnIndex(rel, e.name, e.position)] ?? null;
    case 'literal':
      return e.value;
    case 'binary': {
      const l = evaluate(e.left, rel, row);
      const r = evaluate(e.right, rel, row);
      if (l === null || r === null) return null;
      const c = compare(l, typeof l === 'number' && typeof r === 'string' ? Number(r) : typeof l === 'string' && typeof r === 'number' ? String(r) : r);
      switch (e.op) {
        case '=':
          return c === 0;
        case '<>':
          return c !== 0;
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '>':
          return c > 0;
        case '>=':
          return c >= 0;
      }
      return null;
    }
    case 'and':
    case 'or': {
      // A flat chain of N terms parses as a left-deep tree N levels deep: walk its spine in a
      // loop (recursion would overflow the stack at a few thousand terms).
      // Every term is evaluated (as before: an unknown column errs whatever the other terms say).
      const decisive = e.kind === 'or';
      const values = chainTerms(e).map((term) => evaluate(term, rel, row));
      if (values.includes(decisive)) return decisive;
      return values.includes(null) ? null : !decisive;
    }
    case 'not': {
      const v = evaluate(e.expr, rel, row);
      return v === null ? null : !v;
    }
    case 'in': {
      const v = evaluate(e.expr, rel, row);
      if (v === null) return null;
      const found = e.list.some((x) => compare(evaluate(x, rel, row), v) === 0);
      return e.negated ? !found : found;
    }
    case 'like': {
      const v = evaluate(e.expr, rel, row);
      const p = evaluate(e.pattern, rel, row);
      if (v === null || p === null) return null;
      const m = likeToRegExp(String(p), e.caseInsensitive).test(String(v));
      return e.negated ? !m : m;
    }
    case 'is_null': {
      const v = evaluate(e.expr, rel, row) === null;
      return e.negated ? !v : v;
    }
  }
}

export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, caseInsensitive ? 'i' : '');
}

/** SHOW SOURCES | SINKS | ... [FROM schema] [IN CLUSTER c]: the items of one schema (public by default). */
function showItems(s: Extract<Statement, { kind: 'show' }>, snapshot: CatalogSnapshot): Relation {
  const kinds: Record<string, readonly string[]> = {
    sources: ['source', 'subsource'],
    sinks: ['sink'],
    connections: ['connection'],
    secrets: ['secret'],
    tables: ['table'],
    views: ['view'],
    'materialized views': ['materialized_view'],
    indexes: ['index'],
    objects: ['secret', 'connection', 'source', 'subsource', 'sink', 'table', 'view', 'materialized_view', 'index'],
  };
  const wanted = kinds[s.what];
  if (!wanted) throw new PlanError(`SHOW ${s.what.toUpperCase()} is not supported`, { code: SQLSTATE.featureNotSupported });
  const from = s.from ?? [DEFAULT_SCHEMA];
  const [dbName, schemaName] = from.length === 2 ? [from[0]!, from[1]!] : [DEFAULT_DATABASE, from[0]!];
  const db = snapshot.database(dbName);
  const schema = db ? snapshot.schema(db.id, schemaName) : undefined;
  if (!schema) throw new PlanError(`unknown schema '${from.join('.')}'`, { code: SQLSTATE.undefinedObject });
  const clusterName = (id: string | undefined) => (id ? (snapshot.get(id)?.name ?? null) : null);
  let items = snapshot.items().filter((i) => wanted.includes(i.kind) && i.spec.schemaId === schema.id);
  if (s.on) {
    const on = snapshot.items().find((i) => i.name === s.on![s.on!.length - 1]);
    items = items.filter((i) => i.kind === 'index' && i.spec.onId === on?.id);
  }
  if (s.inCluster !== undefined) items = items.filter((i) => clusterName((i.spec as { clusterId?: string }).clusterId) === s.inCluster);
  switch (s.what) {
    case 'sources':
      return {
        columns: [col('name'), col('type'), col('cluster'), col('comment')],
        rows: items.map((i) => [i.name, i.kind === 'subsource' ? 'subsource' : (i.spec as { sourceType: string }).sourceType, clusterName((i.spec as { clusterId?: string }).clusterId), null]),
      };
    case 'sinks':
      return { columns: [col('name'), col('type'), col('cluster'), col('comment')], rows: items.map((i) => [i.name, 'kafka', clusterName((i.spec as { clusterId: string }).clusterId), null]) };
    case 'connections':
      return { columns: [col('name'), col('type'), col('comment')], rows: items.map((i) => [i.name, (i.spec as { connector: { type: string } }).connector.type, null]) };
    case 'materialized views':
      return { columns: [col('name'), col('cluster'), col('comment')], rows: items.map((i) => [i.name, clusterName((i.spec as { clusterId: string }).clusterId), null]) };
    case 'indexes':
      return {
        columns: [col('name'), col('on'), col('cluster'), col('key'), col('comment')],
        rows: items.map((i) => {
          const x = i.spec as { onId: string; clusterId: string; keyParts: readonly string[] };
          return [i.name, snapshot.get(x.onId)?.name ?? null, clusterName(x.clusterId), `{${x.keyParts.join(',')}}`, null];
        }),
      };
    case 'objects':
      return { columns: [col('name'), col('type'), col('comment')], rows: items.map((i) => [i.name, OBJECT_TYPE[i.kind] ?? i.kind, null]) };
    default:
      return { columns: [col('name'), col('comment')], rows: items.map((i) => [i.name, null]) };
  }
}
