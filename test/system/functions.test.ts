/**
 * Materialize's functions over the catalog, answered by the SQL engine against the catalog's
 * roles, memberships, objects and privileges (shared/system/functions.ts): the privilege checks in
 * every overload, role membership, the mz_internal name lookups, and regclass / regtype / regproc.
 * The expected answers and errors are Materialize's, from its sqllogictest files
 * (test/sqllogictest/privilege_grants.slt, role_membership.slt, mz_schema_oid.slt, regclass.slt).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { inProcessCatalogSql } from '../../shared/api/catalog-sql';
import { jsonRows } from '../../shared/api/json-values';
import type { CatalogSnapshot, ItemObject } from '../../shared/catalog/model';
import { Session } from '../../shared/planner/session';
import { plannedCatalog } from '../helpers/planned-catalog';

const engine = inProcessCatalogSql();
afterAll(() => engine.close());

// The cluster first: the planner's ids start at u1, the id of the role materialize.
const catalog = plannedCatalog(`
  CREATE CLUSTER quickstart (SIZE = '25cc');
  CREATE CLUSTER c (SIZE = '25cc');
  CREATE ROLE joe; CREATE ROLE group1; CREATE ROLE group2; CREATE ROLE other;
  GRANT group1 TO joe; GRANT group2 TO group1;
  CREATE SCHEMA s; CREATE SCHEMA sch;
  CREATE TABLE t (i int); CREATE TABLE s.t (i int); CREATE TABLE "2" (); CREATE TABLE array_length (); CREATE TABLE int4 ();
  CREATE MATERIALIZED VIEW m AS SELECT * FROM t; CREATE INDEX ti ON t (i);
  CREATE DATABASE d; CREATE TABLE d.public.t (); CREATE SCHEMA d.sc;
  CREATE TYPE ty AS LIST (ELEMENT TYPE = int4); CREATE TYPE sch.ty2 AS LIST (ELEMENT TYPE = int4);
  CREATE SECRET se AS 'x';
  CREATE CONNECTION conn TO KAFKA (BROKER 'localhost:9092', SECURITY PROTOCOL PLAINTEXT);
  GRANT SELECT ON t TO group2; GRANT USAGE ON CLUSTER c TO joe; GRANT USAGE ON SECRET se TO group1;
  GRANT CREATE ON DATABASE d TO PUBLIC; REVOKE USAGE ON TYPE ty FROM PUBLIC;
`);

interface Ask {
  readonly user?: string;
  readonly set?: Readonly<Record<string, string[]>>;
  readonly snapshot?: CatalogSnapshot;
}

async function run(text: string, o: Ask = {}) {
  const snapshot = o.snapshot ?? catalog;
  const session = new Session(o.user ?? 'materialize');
  for (const [k, v] of Object.entries(o.set ?? {})) session.set(k, v);
  return engine.query({
    text,
    position: 0,
    snapshot,
    session,
    inputs: async () => ({ snapshot, replicaStatuses: [], effects: [], connectorStatuses: [], history: [] }),
    userRead: async (item: ItemObject) => {
      throw new Error(`read of the user object ${item.name}`);
    },
  });
}

/** The one value of a one-row, one-column answer. */
async function value(text: string, o: Ask = {}): Promise<unknown> {
  const a = await run(text, o);
  const rows = jsonRows(a.fields ?? [], a.rows);
  expect(rows, text).toHaveLength(1);
  return rows[0]![0];
}

async function failure(text: string, o: Ask = {}): Promise<{ code: string; message: string }> {
  try {
    await run(text, o);
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error(`no error for ${text}`);
}

const roleOid = (name: string) => `(SELECT oid FROM mz_roles WHERE name = '${name}')`;
/** An OID no role or object has (Materialize's tests use the largest one plus one). */
const NO_OID = `((SELECT max(oid::int8) FROM mz_objects) + (SELECT max(oid::int8) FROM mz_roles) + 1)::text::oid`;

describe('pg_has_role and has_role', () => {
  it('follow memberships of memberships, in every overload (role_membership.slt)', async () => {
    for (const fn of ['pg_has_role', 'has_role']) {
      expect(await value(`SELECT ${fn}('joe', 'group1', 'USAGE')`)).toBe(true);
      expect(await value(`SELECT ${fn}('joe', 'group2', 'USAGE')`)).toBe(true);
      expect(await value(`SELECT ${fn}('group1', 'group2', 'MEMBER')`)).toBe(true);
      expect(await value(`SELECT ${fn}('group2', 'joe', 'USAGE')`)).toBe(false);
      expect(await value(`SELECT ${fn}('joe', 'other', 'USAGE')`)).toBe(false);
      expect(await value(`SELECT ${fn}('joe', 'joe', 'usage')`)).toBe(true);
      expect(await value(`SELECT ${fn}(${roleOid('joe')}, 'group1', 'USAGE')`)).toBe(true);
      expect(await value(`SELECT ${fn}('joe', ${roleOid('group1')}, 'USAGE')`)).toBe(true);
      expect(await value(`SELECT ${fn}(${roleOid('joe')}, ${roleOid('group2')}, 'USAGE')`)).toBe(true);
      expect(await value(`SELECT ${fn}('group1', 'USAGE')`, { user: 'joe' })).toBe(true);
      expect(await value(`SELECT ${fn}(${roleOid('other')}, 'USAGE')`, { user: 'joe' })).toBe(false);
      expect(await value(`SELECT ${fn}('materialize', NULL, 'MEMBER')`)).toBeNull();
      expect(await value(`SELECT ${fn}('materialize', 'materialize', NULL)`)).toBeNull();
    }
    // PostgreSQL's `name` overloads are ours too: current_user is a name.
    expect(await value(`SELECT pg_has_role(current_user, 'group2', 'USAGE')`, { user: 'joe' })).toBe(true);
    expect(await value(`SELECT pg_catalog.pg_has_role(current_user, ${roleOid('other')}, 'USAGE')`, { user: 'joe' })).toBe(false);
  });

  it('are false for an OID no role has, and give Materialize errors for unknown names and privileges', async () => {
    expect(await value(`SELECT pg_has_role(${NO_OID}, 'materialize', 'MEMBER')`)).toBe(false);
    expect(await value(`SELECT pg_has_role('materialize', ${NO_OID}, 'MEMBER')`)).toBe(false);
    expect(await failure(`SELECT pg_has_role('fake-role', 'materialize', 'USAGE')`)).toEqual({ code: 'XX000', message: 'role "fake-role" does not exist' });
    expect(await failure(`SELECT pg_has_role('materialize', 'fake-role', 'USAGE')`)).toEqual({ code: 'XX000', message: 'role "fake-role" does not exist' });
    expect(await failure(`SELECT has_role('materialize', 'materialize', 'fake privilege')`)).toEqual({ code: 'XX000', message: 'unrecognized privilege type: "fake privilege"' });
    // PUBLIC is no row of mz_roles.
    expect(await failure(`SELECT pg_has_role('joe', 'public', 'USAGE')`)).toEqual({ code: 'XX000', message: 'role "public" does not exist' });
  });
});

describe('has_*_privilege', () => {
  it('read the ACL items: the role, the roles it is a member of, and PUBLIC (privilege_grants.slt)', async () => {
    const answers: [string, Ask, boolean | null][] = [
      // t: SELECT granted to group2, which joe is a member of through group1.
      [`has_table_privilege('joe', 't', 'SELECT')`, {}, true],
      [`has_table_privilege('joe', 't', 'INSERT')`, {}, false],
      [`has_table_privilege('other', 't', 'SELECT')`, {}, false],
      [`has_table_privilege('joe', 's.t', 'SELECT')`, {}, false],
      // The owner's own item, and the session's role for the two-argument forms.
      [`has_table_privilege('t', 'INSERT')`, {}, true],
      [`has_table_privilege('t', 'SELECT')`, { user: 'joe' }, true],
      [`has_table_privilege('m', 'SELECT')`, { user: 'other' }, false],
      [`has_table_privilege(current_user, 't', 'SELECT')`, { user: 'joe' }, true],
      [`has_table_privilege((SELECT oid FROM mz_tables WHERE name = 't' AND schema_id = (SELECT id FROM mz_schemas WHERE name = 's')), 'SELECT')`, {}, true],
      [`has_table_privilege('d.public.t', 'SELECT')`, {}, true],
      // System relations: PUBLIC may read them.
      [`has_table_privilege('joe', 'mz_tables', 'SELECT')`, {}, true],
      [`has_table_privilege('joe', 'mz_catalog.mz_tables', 'INSERT')`, {}, false],
      // An index is a relation to regclass, not one with privileges.
      [`has_table_privilege('ti', 'SELECT')`, {}, null],
      [`has_cluster_privilege('joe', 'c', 'USAGE')`, {}, true],
      [`has_cluster_privilege('joe', 'c', 'CREATE')`, {}, false],
      [`has_cluster_privilege('c', 'CREATE')`, {}, true],
      [`has_secret_privilege('joe', 'se', 'USAGE')`, {}, true],
      [`has_secret_privilege('other', 'se', 'USAGE')`, {}, false],
      [`has_secret_privilege('se', 'USAGE')`, {}, true],
      [`has_connection_privilege('joe', 'conn', 'USAGE')`, {}, false],
      [`has_connection_privilege('conn', 'USAGE')`, {}, true],
      // CREATE on d granted to PUBLIC.
      [`has_database_privilege('other', 'd', 'CREATE')`, {}, true],
      [`has_database_privilege('materialize', 'USAGE')`, {}, true],
      [`has_schema_privilege('sch', 'USAGE')`, {}, true],
      [`has_schema_privilege('joe', 'mz_catalog', 'USAGE')`, {}, true],
      [`has_schema_privilege('joe', 'mz_catalog', 'CREATE')`, {}, false],
      [`has_schema_privilege('d.sc', 'CREATE')`, {}, true],
      // USAGE on ty revoked from PUBLIC; built-in types stay usable by everyone.
      [`has_type_privilege('joe', 'ty', 'USAGE')`, {}, false],
      [`has_type_privilege('joe', 'sch.ty2', 'USAGE')`, {}, true],
      [`has_type_privilege('ty', 'USAGE')`, {}, true],
      [`has_type_privilege('joe', 'int4', 'USAGE')`, {}, true],
      // materialize holds every system privilege; joe none.
      [`has_system_privilege('CREATEDB')`, {}, true],
      [`has_system_privilege('joe', 'CREATEROLE')`, {}, false],
      [`has_system_privilege(${roleOid('materialize')}, 'CREATECLUSTER')`, {}, true],
    ];
    for (const [q, ask, expected] of answers) expect(await value(`SELECT ${q}`, ask), q).toBe(expected);
  });
  it('are true when any of the privileges listed is held', async () => {
    expect(await value(`SELECT has_cluster_privilege('joe', 'c', 'USAGE, CREATE')`)).toBe(true);
    expect(await value(`SELECT has_table_privilege('joe', 't', 'insert,select')`)).toBe(true);
    expect(await value(`SELECT has_connection_privilege('conn', ' usage , CREATE')`)).toBe(true);
  });

  it('are NULL when an input is NULL or an OID names no role or object', async () => {
    for (const q of [
      `has_system_privilege(NULL, 'CREATEROLE')`,
      `has_system_privilege('joe', NULL)`,
      `has_cluster_privilege(NULL, 'c', 'USAGE')`,
      `has_cluster_privilege('joe', NULL, 'USAGE')`,
      `has_cluster_privilege('joe', 'c', NULL)`,
      `has_connection_privilege(NULL, 'conn', 'USAGE')`,
      `has_connection_privilege('joe', NULL, 'USAGE')`,
      `has_database_privilege('joe', 'd', NULL)`,
      `has_schema_privilege(NULL, 'sch', 'USAGE')`,
      `has_secret_privilege('joe', NULL, 'USAGE')`,
      `has_table_privilege(NULL, 't', 'SELECT')`,
      `has_table_privilege('joe', NULL, 'SELECT')`,
      `has_type_privilege('joe', 'ty', NULL)`,
      `has_system_privilege(${NO_OID}, 'CREATECLUSTER')`,
      `has_cluster_privilege(${NO_OID}, 'c', 'USAGE')`,
      `has_connection_privilege('joe', ${NO_OID}, 'USAGE')`,
      `has_database_privilege(${NO_OID}, 'd', 'USAGE')`,
      `has_database_privilege('joe', ${NO_OID}, 'USAGE')`,
      `has_schema_privilege('joe', ${NO_OID}, 'USAGE')`,
      `has_secret_privilege(${NO_OID}, 'se', 'USAGE')`,
      `has_table_privilege('joe', ${NO_OID}, 'SELECT')`,
      `has_type_privilege(${NO_OID}, 'ty', 'USAGE')`,
    ]) {
      expect(await value(`SELECT ${q}`), q).toBeNull();
    }
  });

  it("give Materialize's errors for unknown roles, objects and privilege types", async () => {
    const errors: [string, string][] = [
      [`has_system_privilege('fake_role', 'CREATEDB')`, 'role "fake_role" does not exist'],
      [`has_system_privilege('joe', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_cluster_privilege('fake_role', 'c', 'USAGE')`, 'role "fake_role" does not exist'],
      [`has_cluster_privilege('joe', 'fake_cluster', 'USAGE')`, 'error cluster "fake_cluster" does not exist'],
      [`has_cluster_privilege('joe', 'c', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_connection_privilege('fake_role', 'conn', 'USAGE')`, 'role "fake_role" does not exist'],
      [`has_connection_privilege('joe', 'fake_connection', 'USAGE')`, 'connection "fake_connection" does not exist'],
      [`has_connection_privilege('joe', 'conn', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_database_privilege('fake_role', 'd', 'USAGE')`, 'role "fake_role" does not exist'],
      [`has_database_privilege('joe', 'fake_database', 'USAGE')`, 'database "fake_database" does not exist'],
      [`has_database_privilege('joe', 'd', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_schema_privilege('fake_role', 'sch', 'USAGE')`, 'role "fake_role" does not exist'],
      [`has_schema_privilege('joe', 'fake_schema', 'USAGE')`, 'schema "fake_schema" does not exist'],
      [`has_schema_privilege('joe', 'sch', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_secret_privilege('fake_role', 'se', 'USAGE')`, 'role "fake_role" does not exist'],
      [`has_secret_privilege('joe', 'fake_secret', 'USAGE')`, 'secret "fake_secret" does not exist'],
      [`has_secret_privilege('joe', 'se', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_table_privilege('fake_role', 't', 'SELECT')`, 'role "fake_role" does not exist'],
      [`has_table_privilege('joe', 'fake_table', 'SELECT')`, 'relation "fake_table" does not exist'],
      [`has_table_privilege('joe', 't', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_table_privilege('t3', 'SELECT')`, 'relation "t3" does not exist'],
      [`has_type_privilege('fake_role', 'ty', 'USAGE')`, 'role "fake_role" does not exist'],
      [`has_type_privilege('joe', 'fake_type', 'USAGE')`, 'type "fake_type" does not exist'],
      [`has_type_privilege('joe', 'ty', 'fake privilege')`, 'unrecognized privilege type: "fake privilege"'],
      [`has_type_privilege('ty1', 'USAGE')`, 'type "ty1" does not exist'],
      // The database's privileges are USAGE and CREATE: PostgreSQL's "unrecognized privilege type: USAGE" is not Materialize's answer.
      [`has_table_privilege('t', 'SELECT, nope')`, 'unrecognized privilege type: " nope"'],
    ];
    for (const [q, message] of errors) expect(await failure(`SELECT ${q}`), q).toEqual({ code: 'XX000', message });
  });
});

describe("mz_internal's name lookups", () => {
  it('mz_schema_oid resolves through the session database, or the one named, and ambient schemas (mz_schema_oid.slt)', async () => {
    const schemaOid = (db: string, s: string) => `(SELECT s.oid FROM mz_schemas s JOIN mz_databases d ON s.database_id = d.id WHERE s.name = '${s}' AND d.name = '${db}')`;
    expect(await value(`SELECT mz_internal.mz_schema_oid('s') = ${schemaOid('materialize', 's')}`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_schema_oid('materialize.s') = ${schemaOid('materialize', 's')}`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_schema_oid('mz_catalog') = (SELECT oid FROM mz_schemas WHERE name = 'mz_catalog')`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_schema_oid(NULL) IS NULL`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_schema_oid('d.sc') = ${schemaOid('d', 'sc')}`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_schema_oid('d.public') = ${schemaOid('d', 'public')}`)).toBe(true);
    expect(await failure(`SELECT mz_internal.mz_schema_oid('sc')`)).toEqual({ code: 'XX000', message: 'schema "sc" does not exist' });
    expect(await failure(`SELECT mz_internal.mz_schema_oid('d.s.i')`)).toEqual({ code: 'XX000', message: 'improper schema name (too many dotted names): d.s.i' });
    expect(await failure(`SELECT mz_internal.mz_schema_oid('schmutz')`)).toEqual({ code: 'XX000', message: 'schema "schmutz" does not exist' });
    const noDatabase = { set: { database: [''] } };
    expect(await value(`SELECT mz_internal.mz_schema_oid('mz_catalog') = (SELECT oid FROM mz_schemas WHERE name = 'mz_catalog')`, noDatabase)).toBe(true);
    expect(await failure(`SELECT mz_internal.mz_schema_oid('s')`, noDatabase)).toEqual({ code: 'XX000', message: 'schema "s" does not exist' });
  });

  it('mz_role_oid, mz_database_oid, mz_secret_oid and mz_connection_oid find the catalog object by name', async () => {
    for (const [fn, name, table] of [
      ['mz_role_oid', 'joe', 'mz_roles'],
      ['mz_database_oid', 'd', 'mz_databases'],
      ['mz_secret_oid', 'se', 'mz_secrets'],
      ['mz_connection_oid', 'conn', 'mz_connections'],
    ] as const) {
      expect(await value(`SELECT mz_internal.${fn}('${name}') = (SELECT oid FROM ${table} WHERE name = '${name}')`)).toBe(true);
      expect(await value(`SELECT mz_internal.${fn}(NULL) IS NULL`)).toBe(true);
    }
    expect(await failure(`SELECT mz_internal.mz_role_oid('nobody')`)).toEqual({ code: 'XX000', message: 'role "nobody" does not exist' });
    expect(await failure(`SELECT mz_internal.mz_database_oid('nodb')`)).toEqual({ code: 'XX000', message: 'database "nodb" does not exist' });
    expect(await failure(`SELECT mz_internal.mz_secret_oid('nose')`)).toEqual({ code: 'XX000', message: 'secret "nose" does not exist' });
    expect(await failure(`SELECT mz_internal.mz_connection_oid('noconn')`)).toEqual({ code: 'XX000', message: 'connection "noconn" does not exist' });
    // Not resolved by the engine's own roles: the engine has a role materialize too, but not joe.
    expect(await value(`SELECT pg_get_userbyid(mz_internal.mz_role_oid('joe'))`)).toBe('joe');
  });

  it('the mz_aclitem helpers read the text form of mz_aclitem', async () => {
    // PUBLIC's items have no grantee in the text form; its id is p.
    expect(await value(`SELECT mz_internal.mz_aclitem_grantee('=U/s1') || ' ' || mz_internal.mz_aclitem_grantee('u1=UC/s1') || ' ' || mz_internal.mz_aclitem_grantor('u1=UC/s1') || ' ' || mz_internal.mz_aclitem_privileges('u1=UC/s1')`)).toBe('p u1 s1 UC');
    expect(await value(`SELECT bool_or(mz_internal.mz_aclitem_grantee(p) = 'p') FROM (SELECT unnest(privileges) AS p FROM mz_databases WHERE name = 'd') x`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_acl_item_contains_privilege('u1=arwd/u1', 'UPDATE')`)).toBe(true);
    expect(await value(`SELECT mz_internal.mz_acl_item_contains_privilege('u1=r/u1', 'INSERT, DELETE')`)).toBe(false);
    expect(await value(`SELECT mz_internal.mz_validate_privileges('CREATEDB,createcluster')`)).toBe(true);
    expect(await failure(`SELECT mz_internal.mz_validate_privileges('SELECT,')`)).toEqual({ code: 'XX000', message: 'unrecognized privilege type: ""' });
    expect(await failure(`SELECT mz_internal.mz_validate_role_privilege('SELECT')`)).toEqual({ code: 'XX000', message: 'unrecognized privilege type: "SELECT"' });
  });
});

describe('regclass, regtype and regproc', () => {
  const tableOid = (schema: string) => `(SELECT oid FROM mz_tables WHERE name = 't' AND schema_id = (SELECT id FROM mz_schemas WHERE name = '${schema}' AND database_id = (SELECT id FROM mz_databases WHERE name = 'materialize')))`;

  it('resolve names through the session search path, and print them as qualified as it needs (regclass.slt)', async () => {
    expect(await value(`SELECT 't'::regclass::oid = ${tableOid('public')}`)).toBe(true);
    expect(await value(`SELECT 's.t'::regclass::oid = ${tableOid('s')}`)).toBe(true);
    expect(await value(`SELECT 't'::regclass = 's.t'::regclass`)).toBe(false);
    expect(await value(`SELECT 'public.t'::regclass::text`)).toBe('t');
    expect(await value(`SELECT 't'::regclass::text`)).toBe('t');
    expect(await value(`SELECT 's.t'::regclass::text`)).toBe('s.t');
    const sFirst = { set: { search_path: ['s', 'public'] } };
    expect(await value(`SELECT 's.t'::regclass::text`, sFirst)).toBe('t');
    expect(await value(`SELECT 't'::regclass::oid = ${tableOid('s')}`, sFirst)).toBe(true);
    expect(await value(`SELECT 'public.t'::regclass::text`, sFirst)).toBe('public.t');
    expect(await value(`SELECT 'd.public.t'::regclass::text`)).toBe('d.public.t');
    expect(await value(`SELECT 'materialize.public.t'::regclass = 't'::regclass`)).toBe(true);
    expect(await value(`SELECT 'm'::regclass::oid = (SELECT oid FROM mz_materialized_views WHERE name = 'm')`)).toBe(true);
    // Every spelling of the cast: CAST, the type before the literal, pg_catalog's name.
    expect(await value(`SELECT CAST('t' AS pg_catalog.regclass) = regclass 't' AND pg_catalog.regclass 't' = 't'::regclass`)).toBe(true);
    expect(await value(`SELECT c.oid::pg_catalog.regclass::text FROM pg_class c WHERE c.relname = 'ti'`)).toBe('ti');
  });

  it("find system relations, and give Materialize's errors for unknown names", async () => {
    expect(await value(`SELECT 'mz_tables'::regclass::text`)).toBe('mz_tables');
    expect(await value(`SELECT 'mz_tables'::regclass = (SELECT oid FROM pg_class WHERE relname = 'mz_tables')`)).toBe(true);
    expect(await value(`SELECT 'mz_catalog.mz_tables'::regclass::oid = 'mz_tables'::regclass::oid`)).toBe(true);
    expect(await value(`SELECT 'mz_tables'::regclass IS NOT NULL`, { set: { database: [''] } })).toBe(true);
    expect(await failure(`SELECT 'dne'::regclass`)).toEqual({ code: 'XX000', message: 'relation "dne" does not exist' });
    expect(await failure(`SELECT 'abs'::regclass`)).toEqual({ code: 'XX000', message: 'relation "abs" does not exist' });
    expect(await failure(`SELECT 't'::regclass::oid::int`, { set: { database: [''] } })).toEqual({ code: 'XX000', message: 'relation "t" does not exist' });
    // A relation Materialize has and we do not serve: the answer a FROM gets.
    expect(await failure(`SELECT 'mz_internal.mz_recent_activity_log'::regclass`)).toMatchObject({ code: '0A000' });
  });

  it('take OIDs: numbers, and literals that start with a digit (not text values)', async () => {
    expect(await value(`SELECT 2::regclass::text`)).toBe('2');
    expect(await value(`SELECT '2'::regclass::text`)).toBe('2');
    expect(await value(`SELECT 1::int4::regclass::oid::int8`)).toBe('1');
    expect(await value(`SELECT 1::oid::regclass::oid::int8`)).toBe('1');
    expect(await value(`SELECT '1'::pg_catalog.regclass::text`)).toBe('1');
    expect(await value(`SELECT NULL::regclass::text`)).toBeNull();
    expect(await failure(`SELECT '2'::text::regclass`)).toEqual({ code: 'XX000', message: 'string is not a valid identifier: "2"' });
    expect(await value(`SELECT '"2"'::regclass != 2`)).toBe(true);
    expect(await value(`SELECT '"2"'::regclass::text`)).toBe('2');
  });

  it('tell relations, types and functions of one name apart', async () => {
    expect(await value(`SELECT 'array_length'::regclass::text`)).toBe('array_length');
    expect(await value(`SELECT 'array_length'::regproc::text`)).toBe('array_length');
    expect(await value(`SELECT 'int4'::regclass::text`)).toBe('int4');
    expect(await value(`SELECT 'int4'::regtype::text`)).toBe('int4');
    expect(await value(`SELECT 'int4'::regclass::oid = 'int4'::regtype::oid`)).toBe(false);
    expect(await value(`SELECT 'int4'::regtype::oid::int8`)).toBe('23');
    expect(await value(`SELECT 'ty'::regtype::oid = (SELECT oid FROM mz_types WHERE name = 'ty')`)).toBe(true);
    expect(await value(`SELECT 'sch.ty2'::regtype::text`)).toBe('sch.ty2');
    expect(await value(`SELECT pg_type_is_visible('bool'::REGTYPE::OID)`)).toBe(true);
    expect(await failure(`SELECT 'nope'::regtype`)).toEqual({ code: 'XX000', message: 'type "nope" does not exist' });
    expect(await failure(`SELECT 'nope'::regproc`)).toEqual({ code: 'XX000', message: 'function "nope" does not exist' });
  });

  it("name pg_catalog's relations with PostgreSQL's OIDs, which pg_description's classoid holds", async () => {
    expect(await value(`SELECT 'pg_class'::regclass::oid::int8`)).toBe('1259');
    expect(await value(`SELECT 'pg_catalog.pg_namespace'::pg_catalog.regclass::oid::int8`)).toBe('2615');
    const commented = plannedCatalog(`CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE TABLE t (i int); COMMENT ON TABLE t IS 'the t'`);
    expect(await value(`SELECT d.description FROM pg_description d WHERE d.classoid = 'pg_class'::regclass AND d.objoid = 't'::regclass`, { snapshot: commented })).toBe('the t');
    expect(await value(`SELECT obj_description('t'::regclass, 'pg_class')`, { snapshot: commented })).toBe('the t');
  });

  it("are sent with PostgreSQL's type OIDs, compare, sort and group", async () => {
    const a = await run(`SELECT 't'::regclass AS c, 'int4'::regtype AS ty, 'abs'::regproc AS p`);
    expect(a.fields?.map((f) => f.typeOid)).toEqual([2205, 2206, 24]);
    const sorted = await run(`SELECT DISTINCT x FROM (VALUES ('t'::regclass), ('s.t'::regclass), ('t'::regclass)) v(x) ORDER BY x`);
    expect(sorted.rowCount).toBe(2);
    expect(await value(`SELECT 't'::regclass IN (SELECT oid FROM pg_class WHERE relname = 't')`)).toBe(true);
  });
});

describe('json', () => {
  it("is Materialize's other name for jsonb, in casts as the Terraform provider writes them", async () => {
    expect(await value(`SELECT pg_typeof('{}'::json)::text`)).toBe('jsonb');
    expect(await value(`SELECT pg_typeof(CAST('[]' AS pg_catalog.json))::text`)).toBe('jsonb');
    expect(await value(`SELECT COALESCE(r.rules, '[]'::json) FROM (SELECT jsonb_agg(name) AS rules FROM mz_clusters WHERE false) r`)).toEqual([]);
  });
});

describe('resolution of unqualified functions', () => {
  it("finds mz_catalog's functions, and pg_catalog's stand-ins before PostgreSQL's own", async () => {
    expect(await value(`SELECT mz_environment_id() = mz_catalog.mz_environment_id()`)).toBe(true);
    expect(await value(`SELECT mz_version() = mz_catalog.mz_version()`)).toBe(true);
    expect(await value(`SELECT current_database()`, { set: { database: ['d'] } })).toBe('d');
    expect(await value(`SELECT mz_is_superuser()`)).toBe(false);
  });
});

describe('temporary items', () => {
  it('a temporary view named with mz_temp is the user object it names', async () => {
    const snapshot = plannedCatalog(`CREATE TEMPORARY VIEW temp_v AS SELECT 1 AS a`);
    await expect(run(`SELECT * FROM mz_temp.temp_v`, { snapshot })).rejects.toThrow('read of the user object temp_v');
    await expect(run(`SELECT * FROM temp_v`, { snapshot })).rejects.toThrow('read of the user object temp_v');
  });
});
