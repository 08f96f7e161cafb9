/**
 * pg_catalog and information_schema as Materialize serves them: over the catalog, not over the
 * engine's own PostgreSQL catalog. As in Materialize, the per-database relations are a table of
 * every database's rows (`mz_internal.pg_class_all_databases`, ...) and a view that keeps the
 * session's database (`pg_catalog.pg_class`). Rows are built by column name (Materialize's columns,
 * shared/system/materialize-columns.ts); views are engine SQL over them. System relations are
 * listed with their columns too, so tools can browse mz_catalog. Pure.
 */
import { knownColumns, NO_DATABASE, type CatalogSnapshot, type ItemObject, type ObjectOf } from '../catalog/model';
import { BUILTIN_ROLES, MZ_SYSTEM_ROLE_ID, ownerOf, PUBLIC_ROLE_ID } from '../planner/roles';
import { columnType, OBJECT_TYPE, type SystemInputs } from './catalog-relations';
import { MATERIALIZE_COLUMNS } from './materialize-columns';
import { CLASS_OID, oidsOf, SYSTEM_SCHEMA_OIDS, SYSTEM_SCHEMAS } from './oids';
import { PG_TYPES, relation, type AnyRelation, type PgType, type SqlView, type StandInFunction, type SystemSchema } from './typed';

const def = relation<SystemInputs>();
const mz = MATERIALIZE_COLUMNS;


/** A relation of the catalog as pg_class lists it: a user item or one of our system relations. */
interface ClassEntry {
  readonly oid: number;
  readonly name: string;
  readonly namespace: number;
  readonly owner: number;
  readonly relkind: string | null;
  readonly columns: readonly { readonly name: string; readonly typeOid: number; readonly typeMod: number; readonly notNull: boolean; readonly len: number }[];
  readonly hasIndex: boolean;
  readonly database: string | null;
}

const RELKIND: Readonly<Record<string, string>> = { table: 'r', source: 'r', subsource: 'r', index: 'i', view: 'v', materialized_view: 'm' };

/** A system relation as pg_class lists it: its name, columns (null: not known here) and whether it is a view. */
export interface ServedRelation {
  readonly schema: SystemSchema;
  readonly name: string;
  readonly columns: Readonly<Record<string, PgType>> | undefined;
  readonly view: boolean;
}

let served: readonly ServedRelation[] = [];
/** The registry (shared/system/registry.ts) says which relations it serves, for pg_class to list. */
export function setServedRelations(relations: readonly ServedRelation[]): void {
  served = relations;
}

let systemCache: ClassEntry[] | undefined;
/** The system relations the engine serves, with their columns; OIDs fixed by their sorted names, below the user range. */
function systemEntries(): ClassEntry[] {
  if (systemCache) return systemCache;
  const sorted = [...served].sort((a, b) => `${a.schema}.${a.name}`.localeCompare(`${b.schema}.${b.name}`));
  systemCache = sorted.map((r, k) => ({
    // pg_class, pg_namespace, ...: PostgreSQL's OIDs, the classoid of pg_description and `'pg_class'::regclass` alike.
    oid: (r.schema === 'pg_catalog' ? (CLASS_OID as Readonly<Record<string, number>>)[r.name] : undefined) ?? 17_000 + k,
    name: r.name,
    namespace: SYSTEM_SCHEMA_OIDS[r.schema]!,
    owner: oidOfRole(MZ_SYSTEM_ROLE_ID),
    relkind: r.view ? 'v' : 'r',
    columns: Object.entries(r.columns ?? {}).map(([name, t]) => ({ name, typeOid: PG_TYPES[t].oid, typeMod: -1, notNull: false, len: PG_TYPES[t].len })),
    hasIndex: false,
    database: null,
  }));
  return systemCache;
}

const oidOfRole = (id: string): number => 16_600 + Math.max(0, BUILTIN_ROLES.findIndex((r) => r.id === id));

/** The database name of a schema id (null for ambient schemas). */
function databaseOfSchema(snapshot: CatalogSnapshot, schemaId: string): string | null {
  const s = snapshot.get(schemaId) as ObjectOf<'schema'> | undefined;
  if (!s || s.spec.databaseId === NO_DATABASE) return null;
  return (snapshot.get(s.spec.databaseId) as ObjectOf<'database'> | undefined)?.name ?? null;
}

function userEntries(snapshot: CatalogSnapshot): ClassEntry[] {
  const oids = oidsOf(snapshot);
  const indexed = new Set(snapshot.ofKind('index').map((i) => i.spec.onId));
  return snapshot
    .items()
    .filter((x) => RELKIND[x.kind] !== undefined)
    .map((x: ItemObject) => ({
      oid: oids.of(x.id)!,
      name: x.name,
      namespace: oids.of(x.spec.schemaId) ?? 0,
      owner: oids.of(ownerOf(snapshot, x)) ?? 0,
      relkind: RELKIND[x.kind]!,
      columns:
        x.kind === 'table'
          ? x.spec.columns.map((c) => {
              const t = columnType(c.type);
              const len = Object.values(PG_TYPES).find((p) => p.oid === t.oid)?.len ?? -1;
              return { name: c.name, typeOid: t.oid, typeMod: t.mod, notNull: c.notNull, len };
            })
          : [],
      hasIndex: indexed.has(x.id),
      database: databaseOfSchema(snapshot, x.spec.schemaId),
    }));
}

/** pg_class entries of a snapshot, computed once per snapshot (pg_class and pg_attribute both read them). */
const entriesCache = new WeakMap<CatalogSnapshot, ClassEntry[]>();
function classEntries(snapshot: CatalogSnapshot): ClassEntry[] {
  let e = entriesCache.get(snapshot);
  if (!e) entriesCache.set(snapshot, (e = [...systemEntries(), ...userEntries(snapshot)]));
  return e;
}

const PG_TABLES: readonly AnyRelation<SystemInputs>[] = [
  def({
    schema: 'mz_internal',
    name: 'pg_namespace_all_databases',
    columns: mz['mz_internal.pg_namespace_all_databases'],
    needs: [],
    rows: ({ snapshot }) => {
      const oids = oidsOf(snapshot);
      return [
        ...SYSTEM_SCHEMAS.map((s) => ({ oid: s.oid, nspname: s.name, nspowner: oidOfRole(MZ_SYSTEM_ROLE_ID), nspacl: null, database_name: null })),
        ...snapshot.ofKind('schema').map((s) => ({
          oid: oids.of(s.id)!,
          nspname: s.name,
          nspowner: oids.of(ownerOf(snapshot, s)) ?? 0,
          nspacl: null,
          database_name: s.spec.databaseId === NO_DATABASE ? null : ((snapshot.get(s.spec.databaseId) as ObjectOf<'database'> | undefined)?.name ?? null),
        })),
      ];
    },
  }),
  def({
    schema: 'mz_internal',
    name: 'pg_class_all_databases',
    columns: mz['mz_internal.pg_class_all_databases'],
    needs: [],
    rows: ({ snapshot }) =>
      classEntries(snapshot).map((c) => ({
        oid: c.oid,
        relname: c.name,
        relnamespace: c.namespace,
        reloftype: 0,
        relowner: c.owner,
        relam: 0,
        reltablespace: 0,
        reltuples: -1,
        reltoastrelid: 0,
        relhasindex: c.hasIndex,
        relpersistence: 'p',
        relkind: c.relkind,
        relnatts: c.columns.length,
        relchecks: 0,
        relhasrules: false,
        relhastriggers: false,
        relhassubclass: false,
        relrowsecurity: false,
        relforcerowsecurity: false,
        relreplident: 'd',
        relispartition: false,
        relhasoids: false,
        reloptions: null,
        database_name: c.database,
      })),
  }),
  def({
    schema: 'mz_internal',
    name: 'pg_attribute_all_databases',
    columns: mz['mz_internal.pg_attribute_all_databases'],
    needs: [],
    rows: ({ snapshot }) =>
      classEntries(snapshot).flatMap((c) =>
        c.columns.map((col, k) => ({
          attrelid: c.oid,
          attname: col.name,
          atttypid: col.typeOid,
          attlen: col.len,
          attnum: k + 1,
          atttypmod: col.typeMod,
          attndims: 0,
          attnotnull: col.notNull,
          atthasdef: false,
          attidentity: '',
          attgenerated: '',
          attisdropped: false,
          attcollation: 0,
          database_name: c.database,
          pg_type_database_name: null,
        })),
      ),
  }),
  /** User-defined types (built-in ones come from PostgreSQL's own pg_type in the view). */
  def({
    schema: 'mz_internal',
    name: 'pg_type_all_databases',
    columns: mz['mz_internal.pg_type_all_databases'],
    needs: [],
    rows: ({ snapshot }) => {
      const oids = oidsOf(snapshot);
      return snapshot.ofKind('type').map((t) => ({
        oid: oids.of(t.id)!,
        typname: t.name,
        typnamespace: oids.of(t.spec.schemaId) ?? 0,
        typowner: oids.of(ownerOf(snapshot, t)) ?? 0,
        typlen: -1,
        typtype: t.spec.category === 'record' ? 'c' : 'b',
        typcategory: t.spec.category === 'record' ? 'C' : 'U',
        typdelim: ',',
        typrelid: 0,
        typelem: t.spec.category === 'list' ? (t.spec.element.id ? (oids.of(t.spec.element.id) ?? 0) : columnType(t.spec.element.type).oid) : 0,
        typarray: 0,
        typinput: null,
        typreceive: 0,
        typnotnull: false,
        typbasetype: 0,
        typtypmod: -1,
        typcollation: 0,
        typdefault: null,
        database_name: databaseOfSchema(snapshot, t.spec.schemaId),
      }));
    },
  }),
  def({
    schema: 'mz_internal',
    name: 'pg_description_all_databases',
    columns: mz['mz_internal.pg_description_all_databases'],
    needs: [],
    rows: ({ snapshot }) => {
      const oids = oidsOf(snapshot);
      return snapshot.all().flatMap((x) => {
        const oid = oids.of(x.id);
        if (oid === undefined) return [];
        const classoid = x.kind === 'schema' ? CLASS_OID.pg_namespace : x.kind === 'database' ? CLASS_OID.pg_database : x.kind === 'type' ? CLASS_OID.pg_type : x.kind === 'role' ? CLASS_OID.pg_authid : CLASS_OID.pg_class;
        const db = 'schemaId' in (x.spec as object) ? databaseOfSchema(snapshot, (x.spec as { schemaId: string }).schemaId) : null;
        const rows: { objoid: number; classoid: number; objsubid: number; description: string; oid_database_name: string | null; class_database_name: string | null }[] = [];
        if (x.comment !== undefined) rows.push({ objoid: oid, classoid, objsubid: 0, description: x.comment, oid_database_name: db, class_database_name: null });
        if (x.columnComments) {
          (knownColumns(x) ?? []).forEach((c, k) => {
            const text = x.columnComments![c];
            if (text !== undefined) rows.push({ objoid: oid, classoid, objsubid: k + 1, description: text, oid_database_name: db, class_database_name: null });
          });
        }
        return rows;
      });
    },
  }),
  def({ schema: 'mz_internal', name: 'pg_attrdef_all_databases', columns: mz['mz_internal.pg_attrdef_all_databases'], needs: [], rows: () => [] }),
  def({
    schema: 'mz_internal',
    name: 'pg_authid_core',
    columns: mz['mz_internal.pg_authid_core'],
    needs: [],
    rows: ({ snapshot }) => {
      const oids = oidsOf(snapshot);
      const roles = [...BUILTIN_ROLES.filter((r) => r.id !== PUBLIC_ROLE_ID).map((r) => ({ id: r.id, name: r.name })), ...snapshot.ofKind('role').map((r) => ({ id: r.id, name: r.name }))];
      return roles.map((r) => ({ oid: oids.of(r.id) ?? 0, rolname: r.name, rolsuper: r.id === MZ_SYSTEM_ROLE_ID, rolinherit: true, rolcanlogin: r.id === 'u1', rolreplication: false, rolbypassrls: false, rolconnlimit: -1, rolpassword: null, rolvaliduntil: null }));
    },
  }),
  /** The databases, for pg_database (one row each; Materialize's defaults for the rest). */
  def({
    schema: 'mz_internal',
    name: 'pg_database_all',
    columns: mz['pg_catalog.pg_database'],
    needs: [],
    rows: ({ snapshot }) => {
      const oids = oidsOf(snapshot);
      return snapshot.ofKind('database').map((d) => ({ oid: oids.of(d.id)!, datname: d.name, datdba: oids.of(ownerOf(snapshot, d)) ?? 0, encoding: 6, datistemplate: false, datallowconn: true, datcollate: 'C', datctype: 'C', datacl: null }));
    },
  }),
];

/** Columns of a Materialize relation, comma-separated, for a view's select list. */
const cols = (name: keyof typeof MATERIALIZE_COLUMNS): string => Object.keys(MATERIALIZE_COLUMNS[name]).join(', ');
const sessionDb = `(database_name IS NULL OR database_name = mzpg.current_database())`;

const view = (schema: SystemSchema, name: string, sql: string, reads: readonly string[]): SqlView => ({ kind: 'view', schema, name, sql, reads });

/**
 * Relations Materialize has and leaves empty (it has no collations, triggers, policies, rewrite
 * rules, extensions, enums, ... of PostgreSQL's kind), or that we leave empty (pg_proc, pg_operator,
 * pg_aggregate, pg_depend, pg_language, pg_locks: a driver's metadata query joins them and finds no
 * rows). Their columns are Materialize's.
 */
const EMPTY_PG_RELATIONS = [
  'pg_aggregate', 'pg_collation', 'pg_depend', 'pg_enum', 'pg_event_trigger', 'pg_extension', 'pg_language', 'pg_locks',
  'pg_operator', 'pg_policy', 'pg_proc', 'pg_range', 'pg_rewrite', 'pg_shdescription', 'pg_trigger',
] as const;

const emptyView = (name: (typeof EMPTY_PG_RELATIONS)[number]): SqlView => {
  const columns = MATERIALIZE_COLUMNS[`pg_catalog.${name}`] as Readonly<Record<string, string>>;
  const list = Object.entries(columns).map(([c, t]) => `NULL::${t === 'char' ? '"char"' : t} AS ${c}`);
  return view('pg_catalog', name, `SELECT ${list.join(', ')} WHERE false`, []);
};

export const PG_VIEWS: readonly SqlView[] = [
  ...EMPTY_PG_RELATIONS.map(emptyView),
  view('pg_catalog', 'pg_namespace', `SELECT ${cols('pg_catalog.pg_namespace')} FROM mz_internal.pg_namespace_all_databases WHERE ${sessionDb}`, ['mz_internal.pg_namespace_all_databases']),
  view('pg_catalog', 'pg_class', `SELECT ${cols('pg_catalog.pg_class')} FROM mz_internal.pg_class_all_databases WHERE ${sessionDb}`, ['mz_internal.pg_class_all_databases']),
  view('pg_catalog', 'pg_attribute', `SELECT ${cols('pg_catalog.pg_attribute')} FROM mz_internal.pg_attribute_all_databases WHERE ${sessionDb}`, ['mz_internal.pg_attribute_all_databases']),
  view(
    'pg_catalog',
    'pg_type',
    `SELECT t.oid, t.typname::text, t.typnamespace, 16600::oid AS typowner, t.typlen, t.typtype, t.typcategory, t.typdelim, t.typrelid, t.typelem, t.typarray,
            t.typinput::text, t.typreceive::oid, t.typnotnull, t.typbasetype, t.typtypmod, t.typcollation, t.typdefault
       FROM pg_catalog.pg_type t WHERE t.typnamespace = 11 AND t.typtype IN ('b', 'p') AND t.typname NOT LIKE 'pg\\_%' AND t.oid < 10000
     UNION ALL
     SELECT ${cols('pg_catalog.pg_type')} FROM mz_internal.pg_type_all_databases WHERE ${sessionDb}`,
    ['mz_internal.pg_type_all_databases'],
  ),
  view('pg_catalog', 'pg_description', `SELECT ${cols('pg_catalog.pg_description')} FROM mz_internal.pg_description_all_databases WHERE oid_database_name IS NULL OR oid_database_name = mzpg.current_database()`, ['mz_internal.pg_description_all_databases']),
  view('pg_catalog', 'pg_attrdef', `SELECT ${cols('pg_catalog.pg_attrdef')} FROM mz_internal.pg_attrdef_all_databases`, ['mz_internal.pg_attrdef_all_databases']),
  view('pg_catalog', 'pg_database', `SELECT ${cols('pg_catalog.pg_database')} FROM mz_internal.pg_database_all`, ['mz_internal.pg_database_all']),
  view(
    'pg_catalog',
    'pg_authid',
    `SELECT oid, rolname, rolsuper, rolinherit, mz_internal.pg_authid_core.rolsuper AS rolcreaterole, rolsuper AS rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit, rolpassword, rolvaliduntil FROM mz_internal.pg_authid_core`,
    ['mz_internal.pg_authid_core'],
  ),
  view(
    'pg_catalog',
    'pg_roles',
    `SELECT rolname, rolsuper, rolinherit, rolsuper AS rolcreaterole, rolsuper AS rolcreatedb, rolcanlogin, rolreplication, rolconnlimit, '********'::text AS rolpassword, rolvaliduntil, rolbypassrls, NULL::text[] AS rolconfig, oid FROM mz_internal.pg_authid_core`,
    ['mz_internal.pg_authid_core'],
  ),
  view('pg_catalog', 'pg_user', `SELECT rolname AS usename, oid AS usesysid, rolsuper AS usecreatedb, rolsuper AS usesuper, false AS userepl, false AS usebypassrls, '********'::text AS passwd, rolvaliduntil AS valuntil, NULL::text[] AS useconfig FROM mz_internal.pg_authid_core WHERE rolcanlogin`, ['mz_internal.pg_authid_core']),
  view('pg_catalog', 'pg_auth_members', `SELECT r.oid AS roleid, m.oid AS member, g.oid AS grantor, false AS admin_option FROM mz_catalog.mz_role_members rm JOIN mz_catalog.mz_roles r ON r.id = rm.role_id JOIN mz_catalog.mz_roles m ON m.id = rm.member JOIN mz_catalog.mz_roles g ON g.id = rm.grantor`, ['mz_catalog.mz_role_members', 'mz_catalog.mz_roles']),
  view(
    'pg_catalog',
    'pg_tables',
    `SELECT n.nspname AS schemaname, c.relname AS tablename, mzpg.pg_get_userbyid(c.relowner)::text AS tableowner FROM mzpg.pg_class c JOIN mzpg.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r'`,
    ['pg_catalog.pg_class', 'pg_catalog.pg_namespace', 'mz_internal.pg_authid_core'],
  ),
  view(
    'pg_catalog',
    'pg_views',
    `SELECT s.name AS schemaname, v.name AS viewname, r.name AS viewowner, v.definition FROM mz_catalog.mz_views v JOIN mz_catalog.mz_schemas s ON s.id = v.schema_id LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id JOIN mz_catalog.mz_roles r ON r.id = v.owner_id WHERE d.name IS NULL OR d.name = mzpg.current_database()`,
    ['mz_catalog.mz_views', 'mz_catalog.mz_schemas', 'mz_catalog.mz_databases', 'mz_catalog.mz_roles'],
  ),
  view(
    'pg_catalog',
    'pg_matviews',
    `SELECT s.name AS schemaname, v.name AS matviewname, r.name AS matviewowner, v.definition FROM mz_catalog.mz_materialized_views v JOIN mz_catalog.mz_schemas s ON s.id = v.schema_id LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id JOIN mz_catalog.mz_roles r ON r.id = v.owner_id WHERE d.name IS NULL OR d.name = mzpg.current_database()`,
    ['mz_catalog.mz_materialized_views', 'mz_catalog.mz_schemas', 'mz_catalog.mz_databases', 'mz_catalog.mz_roles'],
  ),
  view(
    'pg_catalog',
    'pg_index',
    `SELECT i.oid AS indexrelid, o.oid AS indrelid, 0::int2 AS indnatts, false AS indisunique, false AS indisprimary, true AS indimmediate, false AS indisclustered, true AS indisvalid, false AS indisreplident, ARRAY[]::int2[] AS indkey, ARRAY[]::int2[] AS indoption, NULL::text AS indexprs, NULL::text AS indpred
       FROM mz_catalog.mz_indexes i JOIN mz_catalog.mz_objects o ON o.id = i.on_id`,
    ['mz_catalog.mz_indexes', 'mz_catalog.mz_objects'],
  ),
  view(
    'pg_catalog',
    'pg_indexes',
    `SELECT d.name AS table_catalog, s.name AS schemaname, o.name AS tablename, i.name AS indexname, NULL::text AS tablespace, i.create_sql AS indexdef
       FROM mz_catalog.mz_indexes i JOIN mz_catalog.mz_objects o ON o.id = i.on_id JOIN mz_catalog.mz_schemas s ON s.id = o.schema_id LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id`,
    ['mz_catalog.mz_indexes', 'mz_catalog.mz_objects', 'mz_catalog.mz_schemas', 'mz_catalog.mz_databases'],
  ),
  view('pg_catalog', 'pg_settings', `SELECT name, setting FROM mzpg.session_settings()`, []),
  view('pg_catalog', 'pg_am', `SELECT 0::oid AS oid, ''::text AS amname, 0::oid AS amhandler, ''::text AS amtype WHERE false`, []),
  view('pg_catalog', 'pg_constraint', `SELECT ${Object.entries(MATERIALIZE_COLUMNS['pg_catalog.pg_constraint']).map(([c, t]) => `NULL::${t === 'char' ? '"char"' : t} AS ${c}`).join(', ')} WHERE false`, []),
  view('pg_catalog', 'pg_inherits', `SELECT 0::oid AS inhrelid, 0::oid AS inhparent, 0::int4 AS inhseqno, false AS inhdetachpending WHERE false`, []),
  view('pg_catalog', 'pg_tablespace', `SELECT 1663::oid AS oid, 'pg_default'::text AS spcname, 16600::oid AS spcowner, NULL::text[] AS spcacl, NULL::text[] AS spcoptions`, []),
  view(
    'mz_internal',
    'mz_show_default_privileges',
    // Materialize's definition (builtin.rs), its WHERE clause's precedence and all.
    `SELECT CASE defaults.role_id WHEN 'p' THEN 'PUBLIC' ELSE object_owner.name END AS object_owner, databases.name AS database, schemas.name AS schema, defaults.object_type,
            CASE defaults.grantee WHEN 'p' THEN 'PUBLIC' ELSE grantee.name END AS grantee, unnest(mz_internal.mz_format_privileges(defaults.privileges)) AS privilege_type
       FROM mz_catalog.mz_default_privileges defaults
       LEFT JOIN mz_catalog.mz_roles AS object_owner ON defaults.role_id = object_owner.id
       LEFT JOIN mz_catalog.mz_roles AS grantee ON defaults.grantee = grantee.id
       LEFT JOIN mz_catalog.mz_databases AS databases ON defaults.database_id = databases.id
       LEFT JOIN mz_catalog.mz_schemas AS schemas ON defaults.schema_id = schemas.id
      WHERE defaults.grantee NOT LIKE 's%' AND defaults.database_id IS NULL OR defaults.database_id NOT LIKE 's%' AND defaults.schema_id IS NULL OR defaults.schema_id NOT LIKE 's%'`,
    ['mz_catalog.mz_default_privileges', 'mz_catalog.mz_roles', 'mz_catalog.mz_databases', 'mz_catalog.mz_schemas'],
  ),
  view(
    'information_schema',
    'schemata',
    `SELECT d.name AS catalog_name, s.name AS schema_name FROM mz_catalog.mz_schemas s LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id WHERE d.name IS NULL OR d.name = mzpg.current_database()`,
    ['mz_catalog.mz_schemas', 'mz_catalog.mz_databases'],
  ),
  view(
    'information_schema',
    'tables',
    `SELECT coalesce(d.name, '') AS table_catalog, s.name AS table_schema, r.name AS table_name,
            CASE r.type WHEN 'materialized-view' THEN 'MATERIALIZED VIEW' WHEN 'view' THEN 'VIEW' WHEN 'table' THEN 'BASE TABLE' ELSE upper(r.type) END AS table_type
       FROM mz_catalog.mz_relations r JOIN mz_catalog.mz_schemas s ON s.id = r.schema_id LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id
      WHERE d.name IS NULL OR d.name = mzpg.current_database()`,
    ['mz_catalog.mz_relations', 'mz_catalog.mz_schemas', 'mz_catalog.mz_databases'],
  ),
  view(
    'information_schema',
    'columns',
    `SELECT coalesce(d.name, '') AS table_catalog, s.name AS table_schema, o.name AS table_name, c.name AS column_name, c.position::int8 AS ordinal_position, c.default AS column_default,
            CASE WHEN c.nullable THEN 'YES' ELSE 'NO' END AS is_nullable, c.type AS data_type, NULL::int4 AS character_maximum_length, NULL::int4 AS numeric_precision, NULL::int4 AS numeric_scale
       FROM mz_catalog.mz_columns c JOIN mz_catalog.mz_objects o ON o.id = c.id JOIN mz_catalog.mz_schemas s ON s.id = o.schema_id LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id
      WHERE d.name IS NULL OR d.name = mzpg.current_database()`,
    ['mz_catalog.mz_columns', 'mz_catalog.mz_objects', 'mz_catalog.mz_schemas', 'mz_catalog.mz_databases'],
  ),
  view(
    'information_schema',
    'views',
    `SELECT coalesce(d.name, '') AS table_catalog, s.name AS table_schema, v.name AS table_name, v.definition AS view_definition FROM mz_catalog.mz_views v JOIN mz_catalog.mz_schemas s ON s.id = v.schema_id LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id WHERE d.name IS NULL OR d.name = mzpg.current_database()`,
    ['mz_catalog.mz_views', 'mz_catalog.mz_schemas', 'mz_catalog.mz_databases'],
  ),
];

/**
 * The functions Materialize answers over its catalog, as engine SQL: `mz.*` settings are the
 * session's (shared/pglite/host.ts sets them per query).
 */
export const STAND_INS: readonly StandInFunction[] = [
  { name: 'current_database', reads: [], sql: `CREATE FUNCTION mzpg.current_database() RETURNS name LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.database')::name $$;` },
  { name: 'session_user', reads: [], sql: `CREATE FUNCTION mzpg."session_user"() RETURNS name LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.user')::name $$;` },
  { name: 'current_catalog', reads: [], sql: `CREATE FUNCTION mzpg."current_catalog"() RETURNS name LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.database')::name $$;` },
  { name: 'current_schema', reads: [], sql: `CREATE FUNCTION mzpg.current_schema() RETURNS name LANGUAGE sql STABLE AS $$ SELECT nullif(pg_catalog.current_setting('mz.current_schema', true), '')::name $$;` },
  {
    name: 'current_schemas',
    reads: [],
    sql: `CREATE FUNCTION mzpg.current_schemas(implicit boolean) RETURNS name[] LANGUAGE sql STABLE AS $$ SELECT CASE WHEN implicit THEN string_to_array(pg_catalog.current_setting('mz.schemas_implicit'), ',')::name[] ELSE string_to_array(nullif(pg_catalog.current_setting('mz.schemas'), ''), ',')::name[] END $$;`,
  },
  {
    name: 'version',
    reads: [],
    sql: `CREATE FUNCTION mzpg.version() RETURNS text LANGUAGE sql STABLE AS $$ SELECT 'PostgreSQL 9.5.0 on aarch64-unknown-linux-gnu (ddl-control-plane, Materialize ' || pg_catalog.current_setting('mz.mz_version') || ')' $$;`,
  },
  { name: 'mz_version', reads: [], sql: `CREATE FUNCTION mz_catalog.mz_version() RETURNS text LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.mz_version') $$;` },
  { name: 'mz_version_num', reads: [], sql: `CREATE FUNCTION mz_catalog.mz_version_num() RETURNS int4 LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.mz_version_num')::int4 $$;` },
  { name: 'mz_environment_id', reads: [], sql: `CREATE FUNCTION mz_catalog.mz_environment_id() RETURNS text LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.environment_id') $$;` },
  {
    name: 'pg_get_userbyid',
    reads: ['mz_internal.pg_authid_core'],
    sql: `CREATE FUNCTION mzpg.pg_get_userbyid(role oid) RETURNS name LANGUAGE sql STABLE AS $$ SELECT coalesce((SELECT rolname::name FROM mz_internal.pg_authid_core WHERE oid = role), ('unknown (OID=' || role || ')')::name) $$;`,
  },
  {
    name: 'pg_table_is_visible',
    reads: ['mz_internal.pg_class_all_databases', 'mz_internal.pg_namespace_all_databases'],
    sql: `CREATE FUNCTION mzpg.pg_table_is_visible(rel oid) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT n.nspname = ANY (mzpg.current_schemas(true)) FROM mzpg.pg_class c JOIN mzpg.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = rel $$;`,
  },
  {
    name: 'pg_type_is_visible',
    reads: ['mz_internal.pg_type_all_databases', 'mz_internal.pg_namespace_all_databases'],
    sql: `CREATE FUNCTION mzpg.pg_type_is_visible(typ oid) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT coalesce((SELECT n.nspname = ANY (mzpg.current_schemas(true)) FROM mzpg.pg_type t JOIN mzpg.pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = typ), false) $$;`,
  },
  { name: 'pg_function_is_visible', reads: [], sql: `CREATE FUNCTION mzpg.pg_function_is_visible(f oid) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT pg_catalog.pg_function_is_visible(f) $$;` },
  {
    name: 'obj_description',
    reads: ['mz_internal.pg_description_all_databases', 'mz_internal.pg_class_all_databases'],
    // The catalog is named in pg_catalog, as Materialize finds it (not with the engine's regclass: the engine's pg_class).
    sql: `CREATE FUNCTION mzpg.obj_description(obj oid, catalog name) RETURNS text LANGUAGE sql STABLE AS $$ SELECT description FROM mzpg.pg_description WHERE objoid = obj AND classoid = (SELECT c.oid FROM mzpg.pg_class c WHERE c.relname = catalog::text AND c.relnamespace = 11) AND objsubid = 0 $$;
          CREATE FUNCTION mzpg.obj_description(obj oid) RETURNS text LANGUAGE sql STABLE AS $$ SELECT description FROM mzpg.pg_description WHERE objoid = obj AND objsubid = 0 LIMIT 1 $$;`,
  },
  {
    name: 'col_description',
    reads: ['mz_internal.pg_description_all_databases'],
    sql: `CREATE FUNCTION mzpg.col_description(rel oid, col integer) RETURNS text LANGUAGE sql STABLE AS $$ SELECT description FROM mzpg.pg_description WHERE objoid = rel AND classoid = 1259 AND objsubid = col $$;`,
  },
  { name: 'shobj_description', reads: [], sql: `CREATE FUNCTION mzpg.shobj_description(obj oid, catalog name) RETURNS text LANGUAGE sql STABLE AS $$ SELECT NULL::text $$;` },
  {
    name: 'format_type',
    reads: ['mz_internal.pg_type_all_databases'],
    sql: `CREATE FUNCTION mzpg.format_type(typ oid, mod integer) RETURNS text LANGUAGE sql STABLE AS $$ SELECT CASE WHEN typ >= 20000 THEN coalesce((SELECT typname FROM mz_internal.pg_type_all_databases WHERE oid = typ LIMIT 1), '???') ELSE pg_catalog.format_type(typ, mod) END $$;`,
  },
  {
    name: 'pg_get_viewdef',
    reads: ['mz_internal.pg_class_all_databases', 'mz_catalog.mz_views', 'mz_catalog.mz_materialized_views'],
    sql: `CREATE FUNCTION mzpg.pg_get_viewdef(rel oid) RETURNS text LANGUAGE sql STABLE AS $$ SELECT coalesce((SELECT definition FROM mz_catalog.mz_views WHERE oid = rel), (SELECT definition FROM mz_catalog.mz_materialized_views WHERE oid = rel)) $$;
          CREATE FUNCTION mzpg.pg_get_viewdef(rel oid, pretty boolean) RETURNS text LANGUAGE sql STABLE AS $$ SELECT mzpg.pg_get_viewdef(rel) $$;
          CREATE FUNCTION mzpg.pg_get_viewdef(rel text) RETURNS text LANGUAGE sql STABLE AS $$ SELECT NULL::text $$;`,
  },
  {
    name: 'pg_get_indexdef',
    reads: ['mz_catalog.mz_indexes'],
    sql: `CREATE FUNCTION mzpg.pg_get_indexdef(idx oid) RETURNS text LANGUAGE sql STABLE AS $$ SELECT create_sql FROM mz_catalog.mz_indexes WHERE oid = idx $$;
          CREATE FUNCTION mzpg.pg_get_indexdef(idx oid, col integer, pretty boolean) RETURNS text LANGUAGE sql STABLE AS $$ SELECT CASE WHEN col = 0 THEN mzpg.pg_get_indexdef(idx) ELSE NULL END $$;`,
  },
  { name: 'pg_get_expr', reads: [], sql: `CREATE FUNCTION mzpg.pg_get_expr(expr text, rel oid) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT expr $$; CREATE FUNCTION mzpg.pg_get_expr(expr text, rel oid, pretty boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT expr $$;` },
  { name: 'pg_get_constraintdef', reads: [], sql: `CREATE FUNCTION mzpg.pg_get_constraintdef(c oid) RETURNS text LANGUAGE sql STABLE AS $$ SELECT NULL::text $$; CREATE FUNCTION mzpg.pg_get_constraintdef(c oid, pretty boolean) RETURNS text LANGUAGE sql STABLE AS $$ SELECT NULL::text $$;` },
  {
    name: 'current_setting',
    reads: [],
    sql: `CREATE FUNCTION mzpg.current_setting(setting text) RETURNS text LANGUAGE sql STABLE AS $$ SELECT coalesce(pg_catalog.current_setting('mz.' || lower(setting), true), pg_catalog.current_setting(setting)) $$;
          CREATE FUNCTION mzpg.current_setting(setting text, missing_ok boolean) RETURNS text LANGUAGE sql STABLE AS $$ SELECT coalesce(pg_catalog.current_setting('mz.' || lower(setting), true), pg_catalog.current_setting(setting, missing_ok)) $$;`,
  },
  {
    name: 'session_settings',
    reads: [],
    sql: `CREATE FUNCTION mzpg.session_settings() RETURNS TABLE (name text, setting text) LANGUAGE sql STABLE AS $$ SELECT substr(s.name, 4), s.setting FROM pg_catalog.pg_settings s WHERE s.name LIKE 'mz.%' AND s.name NOT IN ('mz.schemas', 'mz.schemas_implicit', 'mz.current_schema', 'mz.user', 'mz.database') $$;`,
  },
  { name: 'pg_table_size', reads: [], sql: `CREATE FUNCTION mzpg.pg_table_size(rel regclass) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 0::bigint $$; CREATE FUNCTION mzpg.pg_table_size(rel oid) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 0::bigint $$;` },
  { name: 'pg_total_relation_size', reads: [], sql: `CREATE FUNCTION mzpg.pg_total_relation_size(rel oid) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 0::bigint $$;` },
  { name: 'pg_relation_size', reads: [], sql: `CREATE FUNCTION mzpg.pg_relation_size(rel oid) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 0::bigint $$;` },
  { name: 'pg_indexes_size', reads: [], sql: `CREATE FUNCTION mzpg.pg_indexes_size(rel oid) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 0::bigint $$;` },
  {
    name: 'mz_format_privileges',
    reads: [],
    // ACL letters as privilege names, in Materialize's order (AclMode::explode).
    sql: `CREATE FUNCTION mz_internal.mz_format_privileges(privileges text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
            SELECT coalesce(array_agg(p.name ORDER BY p.k), '{}') FROM (VALUES ('r', 'SELECT', 1), ('a', 'INSERT', 2), ('w', 'UPDATE', 3), ('d', 'DELETE', 4), ('U', 'USAGE', 5), ('C', 'CREATE', 6),
              ('R', 'CREATEROLE', 7), ('B', 'CREATEDB', 8), ('N', 'CREATECLUSTER', 9), ('P', 'CREATENETWORKPOLICY', 10)) AS p(letter, name, k) WHERE strpos(privileges, p.letter) > 0 $$;`,
  },
  {
    name: 'mz_aclexplode',
    reads: [],
    // One row per privilege of each `grantee=letters/grantor` item (PUBLIC's grantee is empty there, `p` here); no grant options.
    sql: `CREATE FUNCTION mz_internal.mz_aclexplode(items text[]) RETURNS TABLE (grantor text, grantee text, privilege_type text, is_grantable boolean) LANGUAGE sql IMMUTABLE AS $$
            SELECT split_part(split_part(i.item, '=', 2), '/', 2), coalesce(nullif(split_part(i.item, '=', 1), ''), 'p'), f.name, false
              FROM unnest(items) WITH ORDINALITY AS i(item, n), unnest(mz_internal.mz_format_privileges(split_part(split_part(i.item, '=', 2), '/', 1))) WITH ORDINALITY AS f(name, k)
             ORDER BY i.n, f.k $$;`,
  },
  { name: 'pg_backend_pid', reads: [], sql: `CREATE FUNCTION mzpg.pg_backend_pid() RETURNS int4 LANGUAGE sql STABLE AS $$ SELECT coalesce(nullif(pg_catalog.current_setting('mz.backend_pid', true), ''), '0')::int4 $$;` },
];

export const PG_RELATIONS: readonly AnyRelation<SystemInputs>[] = PG_TABLES;

/** mz_objects.type of a kind (re-exported for SHOW and tests). */
export { OBJECT_TYPE };
