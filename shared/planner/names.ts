/** Name resolution against a catalog view, with Materialize's defaults and messages. Pure. */
import { DEFAULT_DATABASE, DEFAULT_SCHEMA, NO_DATABASE, TEMP_SCHEMA, type CatalogObject, type CatalogSnapshot, type ItemKind, type ItemObject, type ObjectKind, type ObjectOf } from '../catalog/model';
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

/**
 * Where names that do not say their database or schema resolve: the session's `database` and
 * `search_path` (Materialize's active database and search path). The database need not exist: a
 * session may name one that does not (Materialize lets it, so that SHOW DATABASES can find one).
 */
export interface NameScope {
  readonly database: string;
  /** The schemas of search_path, as written (some may not exist). */
  readonly searchPath: readonly string[];
}

/** A fresh session's: `materialize` and `public`. */
export const DEFAULT_SCOPE: NameScope = { database: DEFAULT_DATABASE, searchPath: [DEFAULT_SCHEMA] };

/** Materialize's system schemas: they belong to no database (ambient), and no user changes them. */
export const SYSTEM_SCHEMAS: ReadonlySet<string> = new Set(['mz_catalog', 'mz_catalog_unstable', 'mz_internal', 'mz_introspection', 'mz_unsafe', 'pg_catalog', 'information_schema']);

/**
 * A schema found by name: a catalog schema, or one of Materialize's system schemas (which the
 * catalog does not hold; nothing of the user's is in them).
 */
export type FoundSchema = { readonly schema: ObjectOf<'schema'> } | { readonly system: string };

/**
 * Materialize's resolve_schema (its catalog state): a named database must exist (unknown
 * database); the schema is looked for in that database, or the session's when none is named (if
 * it exists), then among the schemas of no database (the system schemas, `mz_temp`).
 */
function findSchema(view: CatalogSnapshot, database: string | undefined, schemaName: string, scope: NameScope, position: number): FoundSchema | undefined {
  const db = view.database(database ?? scope.database);
  if (database !== undefined && !db) throw unknownDatabase(database, position);
  const schema = (db && view.schema(db.id, schemaName)) ?? view.schema(NO_DATABASE, schemaName);
  if (schema) return { schema };
  return SYSTEM_SCHEMAS.has(schemaName) ? { system: schemaName } : undefined;
}

/**
 * The schemas of the session's search_path that exist, in order (Materialize's
 * resolve_search_path: each resolved as a schema name, the missing ones left out).
 */
export function searchPathSchemas(view: CatalogSnapshot, scope: NameScope): FoundSchema[] {
  return scope.searchPath.flatMap((name) => findSchema(view, undefined, name, scope, 0) ?? []);
}

/**
 * The session's current schema: the first schema of search_path that exists (Materialize's
 * resolve_active_schema), else 3F000 `no valid schema selected`.
 */
export function activeSchema(view: CatalogSnapshot, scope: NameScope, position: number): FoundSchema {
  const first = searchPathSchemas(view, scope)[0];
  if (!first) throw mz.InvalidSchemaName().at(position);
  return first;
}

/** The session's database, which must exist for what names no database: Materialize's `no database specified and no active database`. */
export function activeDatabase(view: CatalogSnapshot, scope: NameScope, position: number): ObjectOf<'database'> {
  const db = view.database(scope.database);
  if (!db) throw new PlanError('no database specified and no active database', { code: SQLSTATE.internalError, position });
  return db;
}

/** A user's schema: a system schema is Materialize's read-only one. */
function userSchema(found: FoundSchema, position: number): ObjectOf<'schema'> {
  if ('system' in found) throw mz.ReadOnlySystemSchema(found.system).at(position);
  return found.schema;
}

/** `db.schema` / `schema` → the schema object (a schema name alone: the session's database's, else a schema of no database). */
export function resolveSchema(view: CatalogSnapshot, name: ObjectName, position: number, scope: NameScope = DEFAULT_SCOPE): ObjectOf<'schema'> {
  const schemaName = name[name.length - 1]!;
  const found = findSchema(view, name.length === 2 ? name[0]! : undefined, schemaName, scope, position);
  if (!found) throw unknownSchema(schemaName, position);
  return userSchema(found, position);
}

/**
 * Where a new item named `name` goes: its schema and its own name. Materialize's
 * allocate_qualified_name: an unqualified name goes to the session's current schema (the first of
 * search_path that exists, else 3F000); a schema named alone is the session's database's (a
 * system schema's is no database's), and that database must exist.
 */
export function itemTarget(view: CatalogSnapshot, name: ObjectName, position: number, scope: NameScope = DEFAULT_SCOPE): { schema: ObjectOf<'schema'>; name: string } {
  const itemName = name[name.length - 1]!;
  if (name.length === 1) return { schema: userSchema(activeSchema(view, scope, position), position), name: itemName };
  const schemaName = name[name.length - 2]!;
  if (name.length === 2 && !SYSTEM_SCHEMAS.has(schemaName) && schemaName !== TEMP_SCHEMA && !view.database(scope.database)) {
    throw new PlanError('no database specified for non-system schema and no active database', { code: SQLSTATE.internalError, position });
  }
  return { schema: resolveSchema(view, name.slice(0, -1), position, scope), name: itemName };
}

/** The request's temporary schema (`mz_temp`), once a temporary item made it. */
export function tempSchema(view: CatalogSnapshot): ObjectOf<'schema'> | undefined {
  return view.schema(NO_DATABASE, TEMP_SCHEMA);
}

/**
 * Finds an item by a possibly qualified name; undefined when absent (a named database or schema
 * must exist). Materialize's resolve: an unqualified name is looked up among the temporary items
 * first, then in each schema of the session's search_path that exists; a qualified one in its
 * schema only (`mz_temp.x` names a temporary item).
 */
export function findItem(view: CatalogSnapshot, name: ObjectName, position: number, scope: NameScope = DEFAULT_SCOPE): ItemObject | undefined {
  const itemName = name[name.length - 1]!;
  if (name.length === 1) {
    const temp = tempSchema(view);
    const found = temp && view.item(temp.id, itemName);
    if (found) return found;
    for (const s of searchPathSchemas(view, scope)) {
      const item = 'schema' in s ? view.item(s.schema.id, itemName) : undefined;
      if (item) return item;
    }
    return undefined;
  }
  const schemaName = name[name.length - 2]!;
  const found = findSchema(view, name.length === 3 ? name[0]! : undefined, schemaName, scope, position);
  if (!found) throw unknownSchema(schemaName, position);
  return 'schema' in found ? view.item(found.schema.id, itemName) : undefined;
}

/**
 * A name as Materialize prints it for the session (minimal_qualification): without the database
 * when it is the session's, and without the schema too when the name alone resolves to the same
 * object.
 */
export function minimalName(view: CatalogSnapshot, o: CatalogObject, scope: NameScope = DEFAULT_SCOPE): string {
  const q = view.qualifiedName(o);
  if (q.length !== 3) return q.join('.');
  if (q[0] !== scope.database) return q.join('.');
  let alone: ItemObject | undefined;
  try {
    alone = findItem(view, [q[2]!], 0, scope);
  } catch {
    alone = undefined;
  }
  return alone?.id === o.id ? q[2]! : q.slice(1).join('.');
}

export function wrongType(o: { name: string; kind: ObjectKind }, expected: string, position: number): PlanError {
  return mz.MismatchedObjectType(o.name, KIND_LABEL[o.kind], expected).at(position);
}

/** Resolves an item that must exist and be of one of `kinds`. */
export function resolveItem<K extends ItemKind>(view: CatalogSnapshot, name: ObjectName, kinds: readonly K[], expected: string, position: number, scope: NameScope = DEFAULT_SCOPE): Extract<ItemObject, { kind: K }> {
  const item = findItem(view, name, position, scope);
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
