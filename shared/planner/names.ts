/** Name resolution against a catalog view, with Materialize's defaults and messages. Pure. */
import { DEFAULT_DATABASE, DEFAULT_SCHEMA, NO_DATABASE, TEMP_SCHEMA, type CatalogSnapshot, type ItemKind, type ItemObject, type ObjectKind, type ObjectOf } from '../catalog/model';
import { PlanError, SQLSTATE } from '../errors';
import { mz } from '../mz-errors';
import { SEARCHED_SYSTEM_NAMES } from '../sql/searched-system-names';
import type { ObjectName, ObjectType } from '../sql/ast';
import { MAX_IDENTIFIER_BYTES } from './limits';

/** What each object type of the SQL surface means in the catalog. */
export const KINDS_OF_TYPE: Readonly<Record<ObjectType, readonly ObjectKind[]>> = {
  cluster: ['cluster'],
  'cluster replica': ['cluster_replica'],
  database: ['database'],
  schema: ['schema'],
  secret: ['secret'],
  connection: ['connection'],
  source: ['source', 'subsource'],
  sink: ['sink'],
  table: ['table'],
  view: ['view'],
  'materialized view': ['materialized_view'],
  index: ['index'],
  type: ['type'],
};

export const KIND_LABEL: Readonly<Record<ObjectKind, string>> = {
  database: 'database',
  schema: 'schema',
  cluster: 'cluster',
  cluster_replica: 'cluster replica',
  secret: 'secret',
  connection: 'connection',
  source: 'source',
  subsource: 'subsource',
  sink: 'sink',
  table: 'table',
  view: 'view',
  materialized_view: 'materialized view',
  index: 'index',
  type: 'type',
  role: 'role',
  role_membership: 'role membership',
  default_privilege: 'default privilege',
  network_policy: 'network policy',
  system_parameter: 'system parameter',
};

/** Kinds a query can read from. */
export const RELATION_KINDS: readonly ItemKind[] = ['source', 'subsource', 'table', 'view', 'materialized_view'];

/**
 * What every name must be: not empty, no NUL, at most 255 bytes (Materialize's lexer limit). The
 * system's prefixes (`mz_`, `pg_`, `external_`) are reserved for the kinds Materialize reserves
 * them for — clusters, replicas, schemas, roles and network policies, each checked where it is
 * created with its own message — not for items, which Materialize lets a user name `mz_x`.
 */
export function validateName(name: string, position: number, what: string): void {
  if (name.includes('\u0000')) {
    throw new PlanError(`${what} name contains a NUL character`, { code: SQLSTATE.characterNotInRepertoire, position });
  }
  if (name.length === 0) throw new PlanError(`${what} name is empty`, { code: SQLSTATE.syntaxError, position });
  if (Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) {
    throw new PlanError(`identifier length exceeds ${MAX_IDENTIFIER_BYTES} bytes`, { code: SQLSTATE.nameTooLong, position });
  }
}

export function unknownDatabase(name: string, position: number): PlanError {
  return mz.UnknownDatabase(name).at(position);
}

export function unknownSchema(name: string, position: number): PlanError {
  return mz.UnknownSchema(name).at(position);
}

export function unknownItem(name: ObjectName, position: number): PlanError {
  return mz.UnknownItem(name.join('.')).at(position);
}

export function unknownCluster(name: string, position: number): PlanError {
  return mz.UnknownCluster(name).at(position);
}

/**
 * Materialize's built-in clusters: every environment has them and the system owns them, so a
 * user who alters or drops one is refused as not its owner (not told that it does not exist).
 */
export const SYSTEM_CLUSTERS: ReadonlySet<string> = new Set(['mz_system', 'mz_catalog_server', 'mz_probe', 'mz_support', 'mz_analytics']);

/** Materialize's refusal to change what the user does not own (`must be owner of CLUSTER mz_system`). */
export function notOwner(objectType: string, name: string, position: number): PlanError {
  return mz.Ownership([[objectType, name]]).at(position);
}

/** Prefixes Materialize reserves for its own schemas, clusters and roles (BUILTIN_PREFIXES). */
export const RESERVED_PREFIXES: readonly string[] = ['mz_', 'pg_', 'external_'];

/** `db.schema` / `schema` → the schema object. */
export function resolveSchema(view: CatalogSnapshot, name: ObjectName, position: number): ObjectOf<'schema'> {
  const [dbName, schemaName] = name.length === 2 ? [name[0]!, name[1]!] : [DEFAULT_DATABASE, name[0]!];
  const db = view.database(dbName);
  if (!db) throw unknownDatabase(dbName, position);
  const schema = view.schema(db.id, schemaName);
  if (!schema) throw unknownSchema(schemaName, position);
  return schema;
}

/** Where a new item named `name` goes: its schema and its own name. */
export function itemTarget(view: CatalogSnapshot, name: ObjectName, position: number): { schema: ObjectOf<'schema'>; name: string } {
  const itemName = name[name.length - 1]!;
  const schema = resolveSchema(view, name.length === 1 ? [DEFAULT_SCHEMA] : name.slice(0, -1), position);
  return { schema, name: itemName };
}

/** The request's temporary schema (`mz_temp`), once a temporary item made it. */
export function tempSchema(view: CatalogSnapshot): ObjectOf<'schema'> | undefined {
  return view.schema(NO_DATABASE, TEMP_SCHEMA);
}

/**
 * Finds an item by a possibly qualified name; undefined when absent (the database or schema must
 * exist). An unqualified name is looked up among the temporary items first, as Materialize's
 * search path puts `mz_temp` first; `mz_temp.x` names a temporary item.
 */
export function findItem(view: CatalogSnapshot, name: ObjectName, position: number): ItemObject | undefined {
  if (name.length <= 2 && (name.length === 1 || name[0] === TEMP_SCHEMA)) {
    const temp = tempSchema(view);
    const found = temp ? view.item(temp.id, name[name.length - 1]!) : undefined;
    if (found || name.length === 2) return found;
  }
  const { schema, name: itemName } = itemTarget(view, name, position);
  return view.item(schema.id, itemName);
}

export function wrongType(o: { name: string; kind: ObjectKind }, expected: string, position: number): PlanError {
  return mz.MismatchedObjectType(o.name, KIND_LABEL[o.kind], expected).at(position);
}

/** Resolves an item that must exist and be of one of `kinds`. */
export function resolveItem<K extends ItemKind>(view: CatalogSnapshot, name: ObjectName, kinds: readonly K[], expected: string, position: number): Extract<ItemObject, { kind: K }> {
  const item = findItem(view, name, position);
  if (!item) throw unknownItem(name, position);
  if (!(kinds as readonly string[]).includes(item.kind)) throw wrongType(item, expected, position);
  return item as Extract<ItemObject, { kind: K }>;
}

/**
 * System relations a view may read without a catalog dependency: a name in a system schema, or an
 * unqualified one that names a relation of `mz_catalog` or `pg_catalog`, which Materialize's search
 * path tries before the user's schemas. Any other name is a user's item, `mz_` prefix or not (as in
 * Materialize, items may be named so).
 */
export function isSystemRelation(name: ObjectName): boolean {
  const schema = name.length >= 2 ? name[name.length - 2]! : undefined;
  const rel = name[name.length - 1]!;
  if (schema && ['mz_catalog', 'mz_internal', 'pg_catalog', 'information_schema', 'mz_introspection'].includes(schema)) return true;
  return name.length === 1 && SEARCHED_SYSTEM_NAMES.has(rel);
}
