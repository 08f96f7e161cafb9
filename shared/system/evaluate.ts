/**
 * SELECT and SHOW over the system tables (shared/system/relations.ts defines them): a hand-written
 * evaluator of the subset the parser reads (one relation, plain columns, WHERE, ORDER BY, LIMIT).
 * Pure: the caller loads the inputs.
 */
import { KAFKA } from '../connectors';
import { DEFAULT_DATABASE, TEMP_SCHEMA, type CatalogSnapshot } from '../catalog/model';
import { PlanError, SQLSTATE } from '../errors';
import { activeDatabase, activeSchema, DEFAULT_SCOPE, findItem, isSystemRelation, SYSTEM_SCHEMAS as SYSTEM_SCHEMA_NAMES, tempSchema, unknownItem, type NameScope } from '../planner/names';
import type { Expr, ObjectName, Statement } from '../sql/ast';
import { reconfigurationNotice } from '../planner/reconfigure';
import { typeDisplayName } from '../planner/types';
import { BUILTIN_ROLES } from '../planner/roles';
import { OBJECT_TYPE, type SystemInputs } from './catalog-relations';
import { systemRelation } from './registry';
import { col, type Relation, type Value } from './relations';
import type { Input } from './typed';

/** SHOW's comment column: the object's comment, or an empty string, as in Materialize. */
const commentOf = (o: { readonly comment?: string }): string => o.comment ?? '';

/** The qualified name (`mz_catalog.mz_clusters`) of the system relation `name` resolves to, if any (unqualified: mz_catalog, then pg_catalog). */
export function systemRelationName(name: ObjectName): string | undefined {
  const parts = name.length === 3 && name[0] === DEFAULT_DATABASE ? name.slice(1) : name;
  const candidates = parts.length === 2 ? [[parts[0]!, parts[1]!]] : parts.length === 1 ? [['mz_catalog', parts[0]!], ['pg_catalog', parts[0]!]] : [];
  const hit = candidates.find(([schema, rel]) => systemRelation(schema!, rel!));
  return hit ? `${hit[0]}.${hit[1]}` : undefined;
}

/** Materialize's system schemas: SHOW ... FROM one of them lists its system relations. */
export const SYSTEM_SCHEMAS: ReadonlySet<string> = SYSTEM_SCHEMA_NAMES;

/** SHOWs that list the items of one schema: without FROM, the session's current schema's. */
const ITEM_SHOWS: ReadonlySet<string> = new Set(['sources', 'sinks', 'connections', 'secrets', 'tables', 'views', 'materialized views', 'types', 'objects', 'indexes', 'subsources']);

/**
 * The SHOW as Materialize plans it for the session: an item listing without FROM lists the
 * current schema (the first of search_path that exists, else 3F000; resolve_active_schema), so a
 * system schema first on search_path lists its system relations. SHOW INDEXES ON and SHOW
 * SUBSOURCES ON name no schema.
 */
export function showForSession<T extends Extract<Statement, { kind: 'show' }>>(s: T, snapshot: CatalogSnapshot, scope: NameScope): T {
  if (s.from || s.on || !ITEM_SHOWS.has(s.what)) return s;
  const active = activeSchema(snapshot, scope, 0);
  if ('system' in active) return { ...s, from: [active.system] };
  return { ...s, from: snapshot.qualifiedName(active.schema) };
}

/** The system schema a `SHOW ... FROM` names (`mz_internal`, `materialize.mz_internal`), if it names one. */
export function systemSchemaOf(from: ObjectName | undefined): string | undefined {
  if (!from || from.length > 2 || (from.length === 2 && from[0] !== DEFAULT_DATABASE)) return undefined;
  const schema = from[from.length - 1]!;
  return SYSTEM_SCHEMAS.has(schema) ? schema : undefined;
}

/** The relations of a system schema and their kinds (`table`, `view`, `source`, ...), by name. */
export type SystemSchemaItems = (schema: string) => readonly { readonly name: string; readonly kind: string }[];

/** Which inputs a SHOW (or `SELECT ... FROM (SHOW ...)`) needs beyond the snapshot. */
export function inputsNeeded(s: Extract<Statement, { kind: 'show' | 'select' }>, snapshot?: CatalogSnapshot): Set<Input> {
  if (s.kind === 'select') return s.fromShow ? inputsNeeded(s.fromShow, snapshot) : new Set();
  return new Set(s.what === 'cluster replicas' ? ['replicaStatuses'] : []);
}

/** A user object named in FROM (the request's temporary items first, then materialize.public by default), if it is one. */
function userRelation(snapshot: CatalogSnapshot, name: ObjectName, scope: NameScope) {
  try {
    return findItem(snapshot, name, 0, scope);
  } catch {
    // An unknown database or schema: not a user object (a system relation, or unknown).
    return undefined;
  }
}

/** `SELECT ... FROM (SHOW ...)`: the SHOW's output, then the same WHERE, ORDER BY, LIMIT and columns (any other query goes to the SQL engine). */
export function evaluateSelect(s: Extract<Statement, { kind: 'select' }>, inputs: SystemInputs, systemItems?: SystemSchemaItems, scope: NameScope = DEFAULT_SCOPE): Relation {
  if (!s.fromShow) throw new PlanError('a SELECT of a relation is answered by the SQL engine', { code: SQLSTATE.internalError });
  return project(filterSortLimit(evaluateShow(s.fromShow, inputs, systemItems, scope), s.where, s.orderBy, s.limit, s.offset), s.columns);
}

export function evaluateShow(shown: Extract<Statement, { kind: 'show' }>, inputs: SystemInputs, systemItems?: SystemSchemaItems, scope: NameScope = DEFAULT_SCOPE): Relation {
  const s = showForSession(shown, inputs.snapshot, scope);
  let rel: Relation;
  switch (s.what) {
    case 'clusters': {
      const rows = inputs.snapshot.clusters().map((c) => {
        const replicas = inputs.snapshot.replicas(c.id).map((r) => `${r.name} (${r.spec.size})`).join(', ');
        return [c.name, replicas, commentOf(c)] as Value[];
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
        .map((r) => [clusters.get(r.spec.clusterId)?.name ?? null, r.name, r.spec.size, status.get(r.id) === 'online', commentOf(r)] as Value[])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])));
      // Materialize's columns stay as they are: a reconfiguration under way is said in a notice.
      const notices = inputs.snapshot
        .clusters()
        .filter((c) => c.spec.reconfiguration && (s.inCluster === undefined || c.name === s.inCluster))
        .map((c) => reconfigurationNotice(c.name, c.spec.reconfiguration!, inputs.snapshot.replicas(c.id).filter((r) => r.spec.pending).map((r) => r.name)));
      rel = { columns: [col('cluster'), col('replica'), col('size'), col('ready', 'bool'), col('comment')], rows, ...(notices.length ? { notices } : {}) };
      break;
    }
    case 'databases':
      rel = { columns: [col('name'), col('comment')], rows: inputs.snapshot.ofKind('database').map((d) => [d.name, commentOf(d)]) };
      break;
    case 'schemas': {
      // Without FROM: the session's database, which must exist (show_schemas).
      const db = s.from ? inputs.snapshot.database(s.from[0]!) : activeDatabase(inputs.snapshot, scope, 0);
      if (!db) throw new PlanError(`unknown database '${s.from![0]}'`, { code: SQLSTATE.undefinedObject });
      rel = { columns: [col('name'), col('comment')], rows: inputs.snapshot.ofKind('schema').filter((x) => x.spec.databaseId === db.id).map((x) => [x.name, commentOf(x)]) };
      break;
    }
    case 'roles':
      // Materialize's mz_show_roles: user roles only (not the system and predefined ones), and no COMMENT ON ROLE here.
      rel = {
        columns: [col('name'), col('comment')],
        rows: [...inputs.snapshot.ofKind('role').map((r) => r.name), ...BUILTIN_ROLES.filter((r) => !r.builtin).map((r) => r.name)]
          .map((name) => [name, ''] as Value[])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      };
      break;
    case 'columns':
      rel = showColumns(s, inputs.snapshot, scope);
      break;
    case 'subsources':
      rel = showSubsources(s, inputs.snapshot, scope);
      break;
    default:
      rel = systemItems && systemSchemaOf(s.from) ? showSystemItems(s, systemSchemaOf(s.from)!, systemItems) : showItems(s, inputs.snapshot, scope);
  }
  if (s.filter?.kind === 'like') {
    const nameIdx = rel.columns.findIndex((c) => c.name === 'name' || c.name === 'replica');
    const re = likeToRegExp(s.filter.pattern, false);
    rel = { ...rel, rows: rel.rows.filter((r) => re.test(String(r[nameIdx]))) };
  } else if (s.filter?.kind === 'where') {
    rel = filterSortLimit(rel, s.filter.expr, [], undefined, undefined);
  }
  return rel;
}

/**
 * `SHOW COLUMNS FROM <relation>`: name, nullable, type and comment, in column order, as
 * Materialize shows them. The catalog knows the columns of tables only (a view's or a source's
 * come from its query or upstream), so other relations answer 0A000.
 */
function showColumns(s: Extract<Statement, { kind: 'show' }>, snapshot: CatalogSnapshot, scope: NameScope): Relation {
  const name = s.from!;
  const position = s.fromPosition;
  const at = position !== undefined ? { position } : {};
  const o = userRelation(snapshot, name, scope);
  if (!o) {
    // A system relation (ours or one of Materialize's we do not serve): its columns are not kept here.
    if (systemRelationName(name) || name.some((part) => /^(?:mz_|pg_|information_schema$)/.test(part))) {
      throw new PlanError(`SHOW COLUMNS of system relation ${systemRelationName(name) ?? name.join('.')} is not supported by this control plane`, { code: SQLSTATE.featureNotSupported, ...at });
    }
    throw new PlanError(`unknown catalog item '${name.join('.')}'`, { code: SQLSTATE.undefinedTable, ...at });
  }
  const full = snapshot.qualifiedName(o).join('.');
  if (o.kind !== 'table') {
    if (['source', 'subsource', 'view', 'materialized_view'].includes(o.kind)) {
      throw new PlanError(`SHOW COLUMNS of a ${OBJECT_TYPE[o.kind] ?? o.kind} is not supported by this control plane: the catalog knows the columns of tables only`, { code: SQLSTATE.featureNotSupported, ...at });
    }
    // Materialize's wording (an unstructured plan error there).
    throw new PlanError(`${full} is a ${OBJECT_TYPE[o.kind] ?? o.kind} and so does not have columns`, { code: SQLSTATE.internalError, ...at });
  }
  return {
    columns: [col('name'), col('nullable', 'bool'), col('type'), col('comment')],
    rows: o.spec.columns.map((c) => [c.name, !c.notNull, typeDisplayName(c.type), o.columnComments?.[c.name] ?? '']),
  };
}

/**
 * `SHOW SUBSOURCES [ON <source> | FROM <schema>]`: the subsources of a source, or of a schema
 * (public by default), as Materialize shows them (name and type; we make no progress subsources).
 */
function showSubsources(s: Extract<Statement, { kind: 'show' }>, snapshot: CatalogSnapshot, scope: NameScope): Relation {
  let items = snapshot.items().filter((i) => i.kind === 'subsource');
  if (s.on) {
    const source = userRelation(snapshot, s.on, scope);
    if (!source) throw new PlanError(`unknown catalog item '${s.on.join('.')}'`, { code: SQLSTATE.undefinedTable });
    if (source.kind !== 'source') {
      throw new PlanError(`cannot show subsources on ${snapshot.qualifiedName(source).join('.')} because it is a ${OBJECT_TYPE[source.kind] ?? source.kind}`, { code: SQLSTATE.internalError });
    }
    items = items.filter((i) => i.kind === 'subsource' && i.spec.sourceId === source.id);
  } else {
    const schema = schemaOf(snapshot, s.from, scope);
    items = items.filter((i) => i.spec.schemaId === schema.id);
  }
  return { columns: [col('name'), col('type')], rows: items.map((i) => [i.name, 'subsource']) };
}

/**
 * The schema `SHOW ... FROM` names (a schema alone: the session's database's); `mz_temp` is the
 * request's temporary items (none yet: empty); a system schema holds no user item.
 */
function schemaOf(snapshot: CatalogSnapshot, from: ObjectName | undefined, scope: NameScope): { readonly id: string } {
  if (!from) return schemaOf(snapshot, showForSession({ kind: 'show', what: 'objects' } as Extract<Statement, { kind: 'show' }>, snapshot, scope).from, scope);
  if (from.length === 1 && from[0] === TEMP_SCHEMA) return tempSchema(snapshot) ?? { id: '\u0000no temporary schema' };
  const [dbName, schemaName] = from.length === 2 ? [from[0]!, from[1]!] : [scope.database, from[0]!];
  if (SYSTEM_SCHEMAS.has(schemaName)) return { id: `\u0000system schema ${schemaName}` };
  const db = snapshot.database(dbName);
  if (!db) throw new PlanError(`unknown database '${dbName}'`, { code: SQLSTATE.undefinedObject });
  const schema = snapshot.schema(db.id, schemaName);
  // 3F000, PostgreSQL's invalid_schema_name, for a SHOW whose FROM names no schema.
  if (!schema) throw new PlanError(`unknown schema '${schemaName}'`, { code: SQLSTATE.invalidSchemaName });
  return schema;
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
  return { ...rel, rows };
}

function project(rel: Relation, columns: readonly string[] | undefined): Relation {
  if (!columns) return rel;
  const idx = columns.map((c) => columnIndex(rel, c));
  return { ...rel, columns: idx.map((i) => rel.columns[i]!), rows: rel.rows.map((r) => idx.map((i) => r[i] ?? null)) };
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

/** SHOW SOURCES | TABLES | VIEWS ... FROM a system schema: its system relations of that kind. */
function showSystemItems(s: Extract<Statement, { kind: 'show' }>, schema: string, systemItems: SystemSchemaItems): Relation {
  const kinds: Record<string, readonly string[]> = {
    sources: ['source'],
    tables: ['table'],
    views: ['view'],
    'materialized views': ['materialized-view'],
    objects: ['table', 'view', 'source', 'materialized-view', 'continual-task'],
  };
  const wanted = kinds[s.what] ?? [];
  const items = systemItems(schema).filter((i) => wanted.includes(i.kind)).sort((a, b) => a.name.localeCompare(b.name));
  switch (s.what) {
    case 'sources':
      return { columns: [col('name'), col('type'), col('cluster'), col('comment')], rows: items.map((i) => [i.name, null, null, '']) };
    case 'materialized views':
      return { columns: [col('name'), col('cluster'), col('comment')], rows: items.map((i) => [i.name, null, '']) };
    case 'objects':
      return { columns: [col('name'), col('type'), col('comment')], rows: items.map((i) => [i.name, i.kind, '']) };
    default:
      return { columns: [col('name'), col('comment')], rows: items.map((i) => [i.name, '']) };
  }
}

/** SHOW SOURCES | SINKS | ... [FROM schema] [IN CLUSTER c]: the items of one schema (public by default). */
function showItems(s: Extract<Statement, { kind: 'show' }>, snapshot: CatalogSnapshot, scope: NameScope): Relation {
  const kinds: Record<string, readonly string[]> = {
    sources: ['source', 'subsource'],
    sinks: ['sink'],
    connections: ['connection'],
    secrets: ['secret'],
    tables: ['table'],
    views: ['view'],
    'materialized views': ['materialized_view'],
    indexes: ['index'],
    types: ['type'],
    objects: ['secret', 'connection', 'source', 'subsource', 'sink', 'table', 'view', 'materialized_view', 'index', 'type'],
  };
  const wanted = kinds[s.what];
  if (!wanted) throw new PlanError(`SHOW ${s.what.toUpperCase()} is not supported`, { code: SQLSTATE.featureNotSupported });
  const schema = schemaOf(snapshot, s.from, scope);
  const clusterName = (id: string | undefined) => (id ? (snapshot.get(id)?.name ?? null) : null);
  // `SHOW INDEXES ON x` lists x's indexes, which live in x's schema (mz_temp for a temporary view's).
  let items = snapshot.items().filter((i) => wanted.includes(i.kind) && ((s.what === 'indexes' && s.on && !s.from) || i.spec.schemaId === schema.id));
  if (s.on && s.what === 'tables') {
    // Materialize's wording (an unstructured plan error there).
    const source = findItem(snapshot, s.on, 0, scope);
    if (!source) throw unknownItem(s.on, 0);
    if (source.kind !== 'source') throw new PlanError(`cannot show tables on ${snapshot.qualifiedName(source).join('.')} because it is a ${OBJECT_TYPE[source.kind] ?? source.kind}`, { code: SQLSTATE.internalError });
    items = items.filter((i) => i.kind === 'table' && i.spec.fromSource?.sourceId === source.id);
  } else if (s.on) {
    // Resolved like any name (Materialize: `unknown catalog item 't'`); a system relation has no user indexes.
    const on = isSystemRelation(s.on) ? undefined : findItem(snapshot, s.on, 0, scope);
    if (!on && !isSystemRelation(s.on)) throw unknownItem(s.on, 0);
    items = items.filter((i) => i.kind === 'index' && i.spec.onId === on?.id);
  }
  if (s.inCluster !== undefined) items = items.filter((i) => clusterName((i.spec as { clusterId?: string }).clusterId) === s.inCluster);
  switch (s.what) {
    case 'sources':
      return {
        columns: [col('name'), col('type'), col('cluster'), col('comment')],
        rows: items.map((i) => [i.name, i.kind === 'subsource' ? 'subsource' : (i.spec as { sourceType: string }).sourceType, clusterName((i.spec as { clusterId?: string }).clusterId), commentOf(i)]),
      };
    case 'sinks':
      return { columns: [col('name'), col('type'), col('cluster'), col('comment')], rows: items.map((i) => [i.name, KAFKA.name, clusterName((i.spec as { clusterId: string }).clusterId), commentOf(i)]) };
    case 'connections':
      return { columns: [col('name'), col('type'), col('comment')], rows: items.map((i) => [i.name, (i.spec as { connector: { type: string } }).connector.type, commentOf(i)]) };
    case 'materialized views':
      return { columns: [col('name'), col('cluster'), col('comment')], rows: items.map((i) => [i.name, clusterName((i.spec as { clusterId: string }).clusterId), commentOf(i)]) };
    case 'indexes':
      return {
        columns: [col('name'), col('on'), col('cluster'), col('key'), col('comment')],
        rows: items.map((i) => {
          const x = i.spec as { onId: string; clusterId: string; keyParts: readonly string[] };
          return [i.name, snapshot.get(x.onId)?.name ?? null, clusterName(x.clusterId), `{${x.keyParts.join(',')}}`, commentOf(i)];
        }),
      };
    case 'objects':
      return { columns: [col('name'), col('type'), col('comment')], rows: items.map((i) => [i.name, OBJECT_TYPE[i.kind] ?? i.kind, commentOf(i)]) };
    default:
      return { columns: [col('name'), col('comment')], rows: items.map((i) => [i.name, commentOf(i)]) };
  }
}
