/**
 * Materialize's functions over its catalog, as the SQL engine answers them: the privilege checks
 * (`has_table_privilege`, `has_cluster_privilege`, `pg_has_role`, ... in every overload Materialize
 * has), the name lookups of mz_internal (`mz_role_oid`, `mz_schema_oid`, ...), its mz_aclitem
 * helpers, and the `regclass`, `regtype` and `regproc` types, all resolved against the catalog's
 * relations (mz_roles, mz_role_members, mz_relations, ...) and the session's database and search
 * path, never against the engine's own roles and relations. Written from Materialize's semantics
 * (src/sql/src/func.rs, src/sql/src/plan/typeconv.rs, src/expr): the same results, and the same
 * messages for unknown roles, objects and privilege types. Pure: engine SQL only.
 *
 * SQLSTATEs: Materialize raises these errors while evaluating (`mz_error_if_null`, its EvalError
 * variants), and it answers every evaluation error of this kind with XX000; so do we.
 *
 * Superusers: Materialize's checks read the privileges (ACLs) alone — whether a role is a
 * superuser belongs to a session, not to the catalog (its comment on `pg_has_role`) — so no role
 * passes a check here for being one, mz_system included; mz_system holds its privileges through
 * the ACL items it owns.
 *
 * Where they live in the engine: pg_catalog's under `mzpg` (its stand-in schema), mz_catalog's and
 * mz_internal's under their own names, helpers under `mzfn` (no Materialize schema maps to it). The
 * engine's search path is `mz_catalog, mzpg, pg_catalog` (shared/pglite/host.ts), Materialize's
 * order, so unqualified calls find mz_catalog's functions and the stand-ins shadow PostgreSQL's.
 * PostgreSQL picks among overloads of different argument types regardless of schema, so each
 * function PostgreSQL also has is given PostgreSQL's signatures too (`name` roles): its own would
 * otherwise win for `has_table_privilege(current_user, ...)` and read the engine's catalog.
 */
import type { StandInFunction } from './typed';

/** Materialize's error, as its evaluation raises it (XX000). */
const RAISE = `CREATE FUNCTION mzfn.raise(msg text, det text DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = msg, DETAIL = coalesce(det, '');
END $$`;

/**
 * The engine's private helpers, created before the stand-ins: the schema they live in, errors,
 * identifiers, privilege letters, role membership and the name resolution of regclass and regtype.
 */
export const ENGINE_HELPERS_SQL: string = [
  'CREATE SCHEMA mzfn',
  'GRANT USAGE ON SCHEMA mzfn TO mz_reader',
  RAISE,
  // parse_ident as Materialize has it (transliterated from PostgreSQL's): the same messages, raised as XX000.
  `CREATE FUNCTION mzfn.parse_ident(ident text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE msg text; det text;
BEGIN
  RETURN pg_catalog.parse_ident(ident);
EXCEPTION WHEN invalid_parameter_value THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  PERFORM mzfn.raise(msg, nullif(det, ''));
  RETURN NULL;
END $$`,
  // Privilege names (comma-separated, any case, spaces around) as ACL letters; Materialize's AclMode::parse_multiple_privileges.
  `CREATE FUNCTION mzfn.privilege_letters(privileges text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE part text; letter text; letters text := '';
BEGIN
  FOREACH part IN ARRAY pg_catalog.regexp_split_to_array(privileges, ',') LOOP
    letter := CASE upper(btrim(part, E' \\t\\n\\r'))
      WHEN 'INSERT' THEN 'a' WHEN 'SELECT' THEN 'r' WHEN 'UPDATE' THEN 'w' WHEN 'DELETE' THEN 'd' WHEN 'USAGE' THEN 'U'
      WHEN 'CREATE' THEN 'C' WHEN 'CREATEROLE' THEN 'R' WHEN 'CREATEDB' THEN 'B' WHEN 'CREATECLUSTER' THEN 'N'
      WHEN 'CREATENETWORKPOLICY' THEN 'P' END;
    IF letter IS NULL THEN
      PERFORM mzfn.raise(format('unrecognized privilege type: "%s"', part));
    END IF;
    letters := letters || letter;
  END LOOP;
  RETURN letters;
END $$`,
  // The session's role (Materialize's current_user).
  `CREATE FUNCTION mzfn.current_role() RETURNS text LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.user') $$`,
  // Whether role $1 is role $2 or a member of it, through memberships of memberships (mz_role_members).
  `CREATE FUNCTION mzfn.is_member(oid, oid) RETURNS boolean LANGUAGE sql STABLE AS $$
WITH RECURSIVE m(id) AS (
  SELECT r.id FROM mz_catalog.mz_roles r WHERE r.oid = $1
  UNION
  SELECT rm.role_id FROM mz_catalog.mz_role_members rm JOIN m ON rm.member = m.id
)
SELECT EXISTS (SELECT FROM m JOIN mz_catalog.mz_roles r ON r.id = m.id WHERE r.oid = $2) $$`,
  // Whether role $1 holds one of the privileges $3 in ACL $2: granted to PUBLIC, or to a role it is a member of.
  `CREATE FUNCTION mzfn.acl_allows(oid, text[], text) RETURNS boolean LANGUAGE sql STABLE AS $$
SELECT coalesce(bool_or(mz_internal.mz_acl_item_contains_privilege(item, $3)), false)
  FROM unnest($2) AS item
 WHERE mz_internal.mz_aclitem_grantee(item) = 'p'
    OR mzpg.pg_has_role($1, (SELECT r.oid FROM mz_catalog.mz_roles r WHERE r.id = mz_internal.mz_aclitem_grantee(item)), 'USAGE') $$`,
  // The catalog's items an OID alias names (mz_object_oid_alias): relations (indexes too) for
  // regclass, types for regtype, functions for regproc, with their schema and database (NULL: an
  // ambient schema). Built-in types and functions are PostgreSQL's own in pg_catalog (Materialize
  // gives them PostgreSQL's OIDs); a function's OID is its first overload's.
  `CREATE FUNCTION mzfn.items(kind text) RETURNS TABLE (oid oid, name text, schema_name text, database_name text) LANGUAGE sql STABLE AS $$
SELECT c.oid, c.relname, n.nspname, n.database_name
  FROM mz_internal.pg_class_all_databases c JOIN mz_internal.pg_namespace_all_databases n ON n.oid = c.relnamespace
 WHERE kind = 'regclass'
UNION ALL
SELECT t.oid, t.typname, n.nspname, n.database_name
  FROM mz_internal.pg_type_all_databases t JOIN mz_internal.pg_namespace_all_databases n ON n.oid = t.typnamespace
 WHERE kind = 'regtype'
UNION ALL
SELECT t.oid, t.typname::text, 'pg_catalog', NULL
  FROM pg_catalog.pg_type t
 WHERE kind = 'regtype' AND t.typnamespace = 11 AND t.typtype IN ('b', 'p') AND t.typname NOT LIKE 'pg\\_%' AND t.oid < 10000
UNION ALL
SELECT min(p.oid), p.proname::text, 'pg_catalog', NULL
  FROM pg_catalog.pg_proc p
 WHERE kind = 'regproc' AND p.pronamespace = 11
 GROUP BY p.proname $$`,
  // The items named $4 in database $2 (or an ambient schema) among the schemas $3, of the best
  // ranked schema (the first of $3 that has one): Materialize's mz_name_rank.
  `CREATE FUNCTION mzfn.best_ranked(kind text, db text, path text[], item text) RETURNS oid[] LANGUAGE sql STABLE AS $$
SELECT array_agg(DISTINCT r.oid ORDER BY r.oid) FROM (
  SELECT i.oid, array_position(path, i.schema_name) AS pref, min(array_position(path, i.schema_name)) OVER () AS best
    FROM mzfn.items(kind) i
   WHERE i.name = item AND i.schema_name = ANY (path) AND (i.database_name IS NULL OR i.database_name = db)
) r WHERE r.pref = r.best $$`,
  // An item's OID from its name as typed (\`db.schema.name\`, quoted or not), resolved through the
  // session's database and search path (mz_resolve_object_name); \`oid_like\`: a string that starts
  // with a digit is an OID (every cast but text to regclass). Materialize's messages when no item
  // (or more than one) has that name.
  `CREATE FUNCTION mzfn.reg_in(kind text, what text, item text, oid_like boolean) RETURNS oid LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE n text[]; found oid[];
BEGIN
  IF oid_like AND substring(item, 1, 1) BETWEEN '0' AND '9' THEN
    RETURN item::oid;
  END IF;
  n := mz_internal.mz_normalize_object_name(item);
  found := mzfn.best_ranked(kind, coalesce(n[1], mzpg.current_database()), CASE WHEN n[2] IS NULL THEN mzpg.current_schemas(true)::text[] ELSE ARRAY[n[2]] END, n[3]);
  IF found IS NULL THEN
    PERFORM mzfn.raise(format('%s "%s" does not exist', what, item));
  ELSIF cardinality(found) > 1 THEN
    PERFORM mzfn.raise(format('more than one %s named "%s"', what, item));
  END IF;
  RETURN found[1];
END $$`,
  // An item's name as regclass, regtype and regproc print it: qualified only as much as the
  // session needs to find it (mz_global_id_to_name); an OID that names nothing prints as a number.
  `CREATE FUNCTION mzfn.reg_name(kind text, item oid) RETURNS text LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE it record; path text[] := mzpg.current_schemas(true)::text[];
BEGIN
  SELECT i.name, i.schema_name, i.database_name INTO it FROM mzfn.items(kind) i WHERE i.oid = item LIMIT 1;
  IF NOT FOUND THEN
    RETURN item::text;
  ELSIF it.database_name IS DISTINCT FROM mzpg.current_database() AND it.database_name IS NOT NULL THEN
    RETURN it.database_name || '.' || it.schema_name || '.' || it.name;
  ELSIF NOT (it.schema_name = ANY (path)) OR mzfn.best_ranked(kind, mzpg.current_database(), path, it.name) IS DISTINCT FROM ARRAY[item] THEN
    RETURN it.schema_name || '.' || it.name;
  END IF;
  RETURN it.name;
END $$`,
].join(';\n');

/**
 * A type standing in for PostgreSQL's `regclass`, `regtype` or `regproc`: an OID (PostgreSQL's own
 * I/O and wire format for OIDs, as Materialize sends them), whose casts from and to text look the
 * name up in the catalog. It is named as PostgreSQL's, in `mzpg`, so an unqualified `regclass`
 * finds it; the rewriter (shared/system/query.ts) points `pg_catalog.regclass` at it too and turns a
 * string literal cast to it into a call of `mzfn.<type>_in`; the engine host sends PostgreSQL's
 * type OID for it on the wire.
 */
function regType(type: 'regclass' | 'regtype' | 'regproc', what: string, textOidLike: boolean): StandInFunction {
  const t = `mzpg.${type}`;
  const io = (fn: string, args: string, returns: string, internal: string) => `CREATE FUNCTION mzfn.${type}_${fn}(${args}) RETURNS ${returns} LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS '${internal}'`;
  const fromInt = (from: string) =>
    `CREATE FUNCTION mzfn.${type}_of_${from}(${from}) RETURNS ${t} LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT $1::pg_catalog.oid::${t} $$;
CREATE CAST (${from} AS ${t}) WITH FUNCTION mzfn.${type}_of_${from}(${from}) AS IMPLICIT`;
  return {
    name: type,
    reads: RESOLVE_READS,
    sql: [
      `CREATE TYPE ${t}`,
      io('io_in', 'cstring', t, 'oidin'),
      io('io_out', t, 'cstring', 'oidout'),
      io('io_recv', 'internal', t, 'oidrecv'),
      io('io_send', t, 'bytea', 'oidsend'),
      `CREATE TYPE ${t} (INPUT = mzfn.${type}_io_in, OUTPUT = mzfn.${type}_io_out, RECEIVE = mzfn.${type}_io_recv, SEND = mzfn.${type}_io_send, LIKE = pg_catalog.oid, CATEGORY = 'N')`,
      // As Materialize: OIDs and integers cast implicitly, an OID's bytes unchanged.
      `CREATE CAST (${t} AS pg_catalog.oid) WITHOUT FUNCTION AS IMPLICIT`,
      `CREATE CAST (pg_catalog.oid AS ${t}) WITHOUT FUNCTION AS IMPLICIT`,
      `CREATE CAST (int4 AS ${t}) WITHOUT FUNCTION AS IMPLICIT`,
      fromInt('int2'),
      fromInt('int8'),
      // A string literal (the rewriter calls this one): an OID when it starts with a digit.
      `CREATE FUNCTION mzfn.${type}_in(text) RETURNS ${t} LANGUAGE sql STABLE STRICT AS $$ SELECT mzfn.reg_in('${type}', '${what}', $1, true)::${t} $$`,
      // A text value (\`'2'::text::regclass\` reads 2 as a name in Materialize, unlike a literal).
      `CREATE FUNCTION mzfn.${type}_of_text(text) RETURNS ${t} LANGUAGE sql STABLE STRICT AS $$ SELECT mzfn.reg_in('${type}', '${what}', $1, ${textOidLike})::${t} $$`,
      `CREATE CAST (text AS ${t}) WITH FUNCTION mzfn.${type}_of_text(text)`,
      `CREATE FUNCTION mzfn.${type}_of_name(name) RETURNS ${t} LANGUAGE sql STABLE STRICT AS $$ SELECT mzfn.${type}_of_text($1::text) $$`,
      `CREATE CAST (name AS ${t}) WITH FUNCTION mzfn.${type}_of_name(name)`,
      `CREATE FUNCTION mzfn.${type}_text(${t}) RETURNS text LANGUAGE sql STABLE STRICT AS $$ SELECT mzfn.reg_name('${type}', $1::pg_catalog.oid) $$`,
      `CREATE CAST (${t} AS text) WITH FUNCTION mzfn.${type}_text(${t})`,
    ].join(';\n'),
  };
}

const ROLES = ['mz_catalog.mz_roles', 'mz_catalog.mz_role_members'];
/** What name resolution of regclass, regtype and regproc reads (every branch's tables: one not loaded would hold another catalog's rows). */
const RESOLVE_READS = ['mz_internal.pg_class_all_databases', 'mz_internal.pg_namespace_all_databases', 'mz_internal.pg_type_all_databases'];

/** An object kind's privilege check in all its overloads (Materialize's `privilege_fn!` and the wrappers around it). */
interface PrivilegeCheck {
  readonly fn: string;
  /** Engine schema: `mzpg` for pg_catalog's, `mz_catalog` for Materialize's own. */
  readonly schema: 'mzpg' | 'mz_catalog';
  /** SQL for the ACL (text[]) of the object whose OID is `$2`; NULL when there is none. */
  readonly acl: string;
  /** SQL for the OID of the object named `$2` (text), raising Materialize's error when unknown. */
  readonly byName: string;
  /** Whether PostgreSQL has the function too: its `name`-typed overloads are shadowed. */
  readonly postgres: boolean;
  readonly reads: readonly string[];
}

function privilegeCheck(c: PrivilegeCheck): StandInFunction {
  const f = `${c.schema}.${c.fn}`;
  const sql = (args: string, body: string) => `CREATE FUNCTION ${f}(${args}) RETURNS boolean LANGUAGE sql STABLE AS $$ ${body} $$`;
  return {
    name: c.fn,
    reads: [...ROLES, ...c.reads],
    sql: [
      // Privileges are checked before anything else, for their error; any NULL, or a role or object
      // that is not there (by OID), is NULL; else whether an ACL item allows it.
      `CREATE FUNCTION ${f}(oid, oid, text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE acl text[];
BEGIN
  IF NOT mz_internal.mz_validate_privileges($3) OR $1 IS NULL OR $2 IS NULL OR $3 IS NULL
     OR NOT EXISTS (SELECT FROM mz_catalog.mz_roles r WHERE r.oid = $1) THEN
    RETURN NULL;
  END IF;
  acl := (${c.acl});
  IF acl IS NULL THEN
    RETURN NULL;
  END IF;
  RETURN mzfn.acl_allows($1, acl, $3);
END $$`,
      sql('text, text, text', `SELECT ${f}(mz_internal.mz_role_oid($1), ${c.byName}, $3)`),
      sql('text, oid, text', `SELECT ${f}(mz_internal.mz_role_oid($1), $2, $3)`),
      sql('oid, text, text', `SELECT ${f}($1, ${c.byName}, $3)`),
      sql('text, text', `SELECT ${f}(mzfn.current_role(), $1, $2)`),
      sql('oid, text', `SELECT ${f}(mzfn.current_role(), $1, $2)`),
      ...(c.postgres ? [sql('name, text, text', `SELECT ${f}($1::text, $2, $3)`), sql('name, oid, text', `SELECT ${f}($1::text, $2, $3)`)] : []),
    ].join(';\n'),
  };
}

/** A name lookup of mz_internal (`mz_role_oid`, ...): the OID, NULL for NULL, Materialize's error for an unknown name. */
function oidLookup(fn: string, what: string, from: string, reads: readonly string[], declare = ''): StandInFunction {
  return {
    name: fn,
    reads,
    sql: `CREATE FUNCTION mz_internal.${fn}(text) RETURNS oid LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE ${declare}found oid[];
BEGIN
  found := ARRAY(${from});
  IF cardinality(found) = 0 THEN
    PERFORM mzfn.raise(format('${what} "%s" does not exist', $1));
  ELSIF cardinality(found) > 1 THEN
    PERFORM mzfn.raise('more than one record produced in subquery');
  END IF;
  RETURN found[1];
END $$`,
  };
}

/** System relations (OIDs below the user range) are not rows of our mz_relations: as in Materialize, PUBLIC may read them. */
const RELATION_ACL = `SELECT privileges FROM mz_catalog.mz_relations WHERE oid = $2
  UNION ALL SELECT ARRAY['=r/s1', 's1=r/s1'] FROM mz_internal.pg_class_all_databases c WHERE c.oid = $2 AND c.oid < 20000 AND c.relkind IN ('r', 'v', 'm') LIMIT 1`;
/** Built-in types (PostgreSQL's, in pg_catalog) are not rows of mz_types: as in Materialize, PUBLIC may use them. */
const TYPE_ACL = `SELECT privileges FROM mz_catalog.mz_types WHERE oid = $2
  UNION ALL SELECT ARRAY['=U/s1', 's1=U/s1'] FROM pg_catalog.pg_type t WHERE t.oid = $2 AND t.oid IN (SELECT i.oid FROM mzfn.items('regtype') i WHERE i.database_name IS NULL) LIMIT 1`;

/** Role membership: Materialize's pg_has_role (and has_role, its alias), in PostgreSQL's overloads and its own. */
function roleMembership(): StandInFunction[] {
  const pg = (args: string, body: string) => `CREATE FUNCTION mzpg.pg_has_role(${args}) RETURNS boolean LANGUAGE sql STABLE AS $$ ${body} $$`;
  const alias = (args: string, call: string) => `CREATE FUNCTION mz_catalog.has_role(${args}) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT mzpg.pg_has_role(${call}) $$`;
  return [
    {
      name: 'pg_has_role',
      reads: ROLES,
      sql: [
        // The privilege is checked (MEMBER or USAGE) and otherwise ignored: there are no NOINHERIT roles.
        `CREATE FUNCTION mzpg.pg_has_role(oid, oid, text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT mz_internal.mz_validate_role_privilege($3) OR $1 IS NULL OR $2 IS NULL OR $3 IS NULL THEN
    RETURN NULL;
  ELSIF NOT EXISTS (SELECT FROM mz_catalog.mz_roles r WHERE r.oid = $1) OR NOT EXISTS (SELECT FROM mz_catalog.mz_roles r WHERE r.oid = $2) THEN
    RETURN false;
  END IF;
  RETURN mzfn.is_member($1, $2);
END $$`,
        pg('text, text, text', 'SELECT mzpg.pg_has_role(mz_internal.mz_role_oid($1), mz_internal.mz_role_oid($2), $3)'),
        pg('text, oid, text', 'SELECT mzpg.pg_has_role(mz_internal.mz_role_oid($1), $2, $3)'),
        pg('oid, text, text', 'SELECT mzpg.pg_has_role($1, mz_internal.mz_role_oid($2), $3)'),
        pg('text, text', 'SELECT mzpg.pg_has_role(mzfn.current_role(), $1, $2)'),
        pg('oid, text', 'SELECT mzpg.pg_has_role(mzfn.current_role(), $1, $2)'),
        pg('name, name, text', 'SELECT mzpg.pg_has_role($1::text, $2::text, $3)'),
        pg('name, oid, text', 'SELECT mzpg.pg_has_role($1::text, $2, $3)'),
        pg('oid, name, text', 'SELECT mzpg.pg_has_role($1, $2::text, $3)'),
        pg('name, text', 'SELECT mzpg.pg_has_role($1::text, $2)'),
      ].join(';\n'),
    },
    {
      name: 'has_role',
      reads: ROLES,
      sql: [
        alias('text, text, text', '$1, $2, $3'),
        alias('text, oid, text', '$1, $2, $3'),
        alias('oid, text, text', '$1, $2, $3'),
        alias('oid, oid, text', '$1, $2, $3'),
        alias('text, text', '$1, $2'),
        alias('oid, text', '$1, $2'),
      ].join(';\n'),
    },
  ];
}

/** A dotted name as an array of `parts` (NULL for the parts left out, from the left), as mz_normalize_object_name and mz_normalize_schema_name give it. */
function normalizeName(fn: string, what: string, parts: number): StandInFunction {
  return {
    name: fn,
    reads: [],
    sql: `CREATE FUNCTION mz_internal.${fn}(text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE ident text[] := mzfn.parse_ident($1);
BEGIN
  IF array_length(ident, 1) > ${parts} THEN
    PERFORM mzfn.raise('improper ${what} name (too many dotted names): ' || $1);
  END IF;
  RETURN array_fill(NULL::text, ARRAY[${parts} - array_length(ident, 1)]) || ident;
END $$`,
  };
}

/** Registered in the registry (shared/system/registry.ts) with pg_catalog's stand-ins. */
export const FUNCTION_STAND_INS: readonly StandInFunction[] = [
  // The types come first: the functions below take and return them.
  regType('regclass', 'relation', false),
  regType('regtype', 'type', true),
  regType('regproc', 'function', true),
  {
    name: 'mz_validate_privileges',
    reads: [],
    sql: `CREATE FUNCTION mz_internal.mz_validate_privileges(text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  PERFORM mzfn.privilege_letters($1);
  RETURN true;
END $$`,
  },
  {
    name: 'mz_validate_role_privilege',
    reads: [],
    sql: `CREATE FUNCTION mz_internal.mz_validate_role_privilege(text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  IF upper($1) NOT IN ('MEMBER', 'USAGE') THEN
    PERFORM mzfn.raise(format('unrecognized privilege type: "%s"', $1));
  END IF;
  RETURN true;
END $$`,
  },
  // mz_aclitem values are text here (\`grantee=letters/grantor\`, role ids; PUBLIC's grantee is empty, \`p\` as an id).
  { name: 'mz_aclitem_grantee', reads: [], sql: `CREATE FUNCTION mz_internal.mz_aclitem_grantee(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT coalesce(nullif(split_part($1, '=', 1), ''), 'p') $$` },
  { name: 'mz_aclitem_grantor', reads: [], sql: `CREATE FUNCTION mz_internal.mz_aclitem_grantor(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT split_part($1, '/', 2) $$` },
  { name: 'mz_aclitem_privileges', reads: [], sql: `CREATE FUNCTION mz_internal.mz_aclitem_privileges(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT split_part(split_part($1, '=', 2), '/', 1) $$` },
  {
    name: 'mz_acl_item_contains_privilege',
    reads: [],
    sql: `CREATE FUNCTION mz_internal.mz_acl_item_contains_privilege(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS $$
SELECT EXISTS (SELECT FROM regexp_split_to_table(mzfn.privilege_letters($2), '') AS l WHERE strpos(mz_internal.mz_aclitem_privileges($1), l) > 0) $$`,
  },
  normalizeName('mz_normalize_object_name', 'relation', 3),
  normalizeName('mz_normalize_schema_name', 'schema', 2),
  oidLookup('mz_role_oid', 'role', `SELECT r.oid FROM mz_catalog.mz_roles r WHERE r.name = $1`, ['mz_catalog.mz_roles']),
  oidLookup('mz_database_oid', 'database', `SELECT d.oid FROM mz_catalog.mz_databases d WHERE d.name = $1`, ['mz_catalog.mz_databases']),
  oidLookup('mz_secret_oid', 'secret', `SELECT s.oid FROM mz_catalog.mz_secrets s WHERE s.name = $1`, ['mz_catalog.mz_secrets']),
  oidLookup('mz_connection_oid', 'connection', `SELECT c.oid FROM mz_catalog.mz_connections c WHERE c.name = $1`, ['mz_catalog.mz_connections']),
  // A schema of the named database (the session's by default) or an ambient one (mz_catalog, mz_temp, ...).
  oidLookup(
    'mz_schema_oid',
    'schema',
    `SELECT s.oid FROM mz_catalog.mz_schemas s LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id
      WHERE (d.name = coalesce(n[1], mzpg.current_database()) OR s.database_id IS NULL) AND s.name = n[2]`,
    ['mz_catalog.mz_schemas', 'mz_catalog.mz_databases'],
    'n text[] := mz_internal.mz_normalize_schema_name($1); ',
  ),
  ...roleMembership(),
  privilegeCheck({ fn: 'has_table_privilege', schema: 'mzpg', acl: RELATION_ACL, byName: `mzfn.reg_in('regclass', 'relation', $2, false)`, postgres: true, reads: ['mz_catalog.mz_relations', ...RESOLVE_READS] }),
  privilegeCheck({ fn: 'has_schema_privilege', schema: 'mzpg', acl: 'SELECT privileges FROM mz_catalog.mz_schemas WHERE oid = $2', byName: 'mz_internal.mz_schema_oid($2)', postgres: true, reads: ['mz_catalog.mz_schemas', 'mz_catalog.mz_databases'] }),
  privilegeCheck({ fn: 'has_database_privilege', schema: 'mzpg', acl: 'SELECT privileges FROM mz_catalog.mz_databases WHERE oid = $2', byName: 'mz_internal.mz_database_oid($2)', postgres: true, reads: ['mz_catalog.mz_databases'] }),
  privilegeCheck({ fn: 'has_type_privilege', schema: 'mz_catalog', acl: TYPE_ACL, byName: `mzfn.reg_in('regtype', 'type', $2, true)`, postgres: true, reads: ['mz_catalog.mz_types', ...RESOLVE_READS] }),
  privilegeCheck({ fn: 'has_secret_privilege', schema: 'mz_catalog', acl: 'SELECT privileges FROM mz_catalog.mz_secrets WHERE oid = $2', byName: 'mz_internal.mz_secret_oid($2)', postgres: false, reads: ['mz_catalog.mz_secrets'] }),
  privilegeCheck({ fn: 'has_connection_privilege', schema: 'mz_catalog', acl: 'SELECT privileges FROM mz_catalog.mz_connections WHERE oid = $2', byName: 'mz_internal.mz_connection_oid($2)', postgres: false, reads: ['mz_catalog.mz_connections'] }),
  {
    // Clusters have no OIDs: the cluster is named, and checked before the privileges.
    name: 'has_cluster_privilege',
    reads: [...ROLES, 'mz_catalog.mz_clusters'],
    sql: [
      `CREATE FUNCTION mz_catalog.has_cluster_privilege(oid, text, text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF $2 IS NULL THEN
    RETURN NULL;
  ELSIF NOT EXISTS (SELECT FROM mz_catalog.mz_clusters c WHERE c.name = $2) THEN
    PERFORM mzfn.raise(format('error cluster "%s" does not exist', $2));
  END IF;
  IF NOT mz_internal.mz_validate_privileges($3) OR $1 IS NULL OR $3 IS NULL OR NOT EXISTS (SELECT FROM mz_catalog.mz_roles r WHERE r.oid = $1) THEN
    RETURN NULL;
  END IF;
  RETURN mzfn.acl_allows($1, (SELECT c.privileges FROM mz_catalog.mz_clusters c WHERE c.name = $2), $3);
END $$`,
      `CREATE FUNCTION mz_catalog.has_cluster_privilege(text, text, text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT mz_catalog.has_cluster_privilege(mz_internal.mz_role_oid($1), $2, $3) $$`,
      `CREATE FUNCTION mz_catalog.has_cluster_privilege(text, text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT mz_catalog.has_cluster_privilege(mzfn.current_role(), $1, $2) $$`,
    ].join(';\n'),
  },
  {
    name: 'has_system_privilege',
    reads: [...ROLES, 'mz_catalog.mz_system_privileges'],
    sql: [
      `CREATE FUNCTION mz_catalog.has_system_privilege(oid, text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT mz_internal.mz_validate_privileges($2) OR $1 IS NULL OR $2 IS NULL OR NOT EXISTS (SELECT FROM mz_catalog.mz_roles r WHERE r.oid = $1) THEN
    RETURN NULL;
  END IF;
  RETURN mzfn.acl_allows($1, ARRAY(SELECT p.privileges FROM mz_catalog.mz_system_privileges p), $2);
END $$`,
      `CREATE FUNCTION mz_catalog.has_system_privilege(text, text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT mz_catalog.has_system_privilege(mz_internal.mz_role_oid($1), $2) $$`,
      `CREATE FUNCTION mz_catalog.has_system_privilege(text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT mz_catalog.has_system_privilege(mzfn.current_role(), $1) $$`,
    ].join(';\n'),
  },
  { name: 'mz_is_superuser', reads: [], sql: `CREATE FUNCTION mz_catalog.mz_is_superuser() RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT pg_catalog.current_setting('mz.is_superuser', true) = 'on' $$` },
];
