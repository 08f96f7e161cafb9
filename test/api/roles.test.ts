/**
 * Roles and privileges through the SQL API on the real emulators: every caller acts as the role
 * materialize; CREATE ROLE, memberships, privileges and default privileges are catalog items
 * only (no effect is recorded), shown by mz_roles, mz_role_members, mz_default_privileges and the
 * privileges columns, and DROP ROLE keeps a role that anything still names, in Materialize's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { ok, rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('roles', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const errorOf = (r: { body: any }) => r.body.results.find((x: { error?: unknown }) => x.error)?.error;

describe('roles and privileges', () => {
  it('keep roles, memberships and ACLs in the catalog, with no effect, as mz_roles and friends show them', async () => {
    const { sql, tenant } = await sqlClient(p);
    const effects = async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').length;
    await ok(sql, 'CREATE TABLE t (a int)');
    const before = await effects();

    await ok(sql, 'CREATE ROLE analysts; CREATE ROLE joe; GRANT analysts TO joe, materialize');
    const [[analysts], [joe]] = (await rows(sql, "SELECT id FROM mz_roles WHERE name IN ('analysts', 'joe') ORDER BY name")) as [[string], [string]];
    expect(await rows(sql, "SELECT name, inherit, rolcanlogin, rolsuper FROM mz_roles WHERE id LIKE 'u%' ORDER BY name")).toEqual([
      ['analysts', true, false, false],
      ['joe', true, false, false],
      ['materialize', true, false, false],
    ]);
    expect(await rows(sql, 'SHOW ROLES')).toEqual([['analysts', ''], ['joe', ''], ['materialize', '']]);
    const members = await rows(sql, 'SELECT role_id, member, grantor FROM mz_role_members');
    expect(members).toHaveLength(2);
    expect(members).toEqual(expect.arrayContaining([[analysts, 'u1', 's1'], [analysts, joe, 's1']]));

    await ok(sql, 'GRANT SELECT, INSERT ON t TO joe, PUBLIC');
    expect(await rows(sql, "SELECT owner_id, privileges FROM mz_tables WHERE name = 't'")).toEqual([['u1', ['u1=arwd/u1', `${joe}=ar/u1`, '=ar/u1']]]);

    // What materialize creates from now on in public, analysts may read.
    await ok(sql, 'ALTER DEFAULT PRIVILEGES FOR ROLE materialize IN SCHEMA public GRANT SELECT ON TABLES TO analysts');
    await ok(sql, 'CREATE VIEW v AS SELECT a FROM t');
    expect(await rows(sql, "SELECT privileges FROM mz_views WHERE name = 'v'")).toEqual([[[`u1=r/u1`, `${analysts}=r/u1`]]]);
    expect(await rows(sql, "SELECT role_id, object_type, grantee, privileges FROM mz_default_privileges WHERE grantee <> 's2'")).toEqual([
      ['p', 'type', 'p', 'U'],
      ['u1', 'table', analysts, 'r'],
    ]);

    // The table changes owner: its privileges move to the new owner, and the view's do not.
    await ok(sql, 'ALTER TABLE t OWNER TO analysts');
    expect(await rows(sql, "SELECT owner_id, privileges FROM mz_tables WHERE name = 't'")).toEqual([[analysts, [`${analysts}=arwd/${analysts}`, `${joe}=ar/${analysts}`, `=ar/${analysts}`]]]);
    expect(await effects()).toBe(before);
  });

  it("refuses to drop a role that anything still names, listing what in Materialize's words, and drops it once nothing does", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE TABLE t (a int); CREATE ROLE joe; GRANT joe TO materialize; CREATE TABLE owned (a int); ALTER TABLE owned OWNER TO joe');
    await ok(sql, 'GRANT SELECT ON t TO joe; ALTER DEFAULT PRIVILEGES FOR ROLE materialize GRANT USAGE ON TYPES TO joe');
    const r = await sql('DROP ROLE joe');
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatchObject({
      code: '2BP01',
      message: 'role "joe" cannot be dropped because some objects depend on it',
      // Materialize's order: objects in the catalog's order, then default privileges.
      detail: [
        'joe: privileges on TABLE "materialize.public.t" granted by materialize',
        'joe: owner of TABLE "materialize.public.owned"',
        'joe: default privileges on TYPES granted to joe',
      ].join('\n'),
    });
    await ok(sql, 'DROP OWNED BY joe');
    expect(await rows(sql, "SELECT name FROM mz_tables ORDER BY name")).toEqual([['t']]);
    expect(await rows(sql, "SELECT privileges FROM mz_tables WHERE name = 't'")).toEqual([[['u1=arwd/u1']]]);
    await ok(sql, 'DROP ROLE joe');
    expect(await rows(sql, "SELECT name FROM mz_roles WHERE id LIKE 'u%'")).toEqual([['materialize']]);
    // Its membership went with it.
    expect(await rows(sql, 'SELECT * FROM mz_role_members')).toEqual([]);
  });

  it('keeps a role that holds system privileges (granted by mz_system), as validate_dropped_role_ownership does', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE ROLE joe; GRANT CREATEDB ON SYSTEM TO joe');
    const r = await sql('DROP ROLE joe');
    expect(errorOf(r)).toMatchObject({
      code: '2BP01',
      message: 'role "joe" cannot be dropped because some objects depend on it',
      detail: 'joe: privileges on SYSTEM granted by mz_system',
    });
    await ok(sql, 'REVOKE CREATEDB ON SYSTEM FROM joe');
    await ok(sql, 'DROP ROLE joe');
  });

  it('a password made for mz_system acts as mz_system, a superuser: it owns what it creates', async () => {
    const { sql, tenant } = await sqlClient(p, undefined, { role: 'materialize' });
    const asSystem = (await sqlClient(p, tenant, { role: 'mz_system' })).sql;
    expect(await rows(asSystem, 'SHOW is_superuser')).toEqual([['on']]);
    await ok(asSystem, "CREATE CLUSTER c (SIZE = '25cc'); CREATE ROLE joe; GRANT CREATEDB ON SYSTEM TO joe");
    expect(await rows(sql, "SELECT owner_id FROM mz_clusters WHERE name = 'c'")).toEqual([['s1']]);
    expect(errorOf(await sql('DROP CLUSTER c'))).toMatchObject({ code: '42501', message: 'must be owner of CLUSTER c' });
  });

  it("answers Materialize's errors, and a failing statement leaves nothing of its request", async () => {
    // A password made for the role materialize acts as it, not as a superuser (as in Materialize's own tests).
    const { sql } = await sqlClient(p, undefined, { role: 'materialize' });
    await ok(sql, 'CREATE ROLE g; CREATE TABLE t (a int)');
    const cases: [string, string, string][] = [
      ['CREATE ROLE materialize', '42710', "role 'materialize' already exists"],
      ['CREATE ROLE mz_foo', '42939', 'role name "mz_foo" is reserved'],
      ['CREATE ROLE r LOGIN', '0A000', 'SUPERUSER, PASSWORD, and LOGIN attributes is not supported in this environment'],
      ['DROP ROLE materialize', '55006', 'current role cannot be dropped'],
      ['GRANT g TO mz_system', '42939', 'role name "mz_system" is reserved'],
      ['GRANT mz_system TO g', '0LP01', 'role name "mz_system" cannot be granted'],
      ['GRANT g TO nobody', '42704', "unknown role 'nobody'"],
      ['ALTER TABLE t OWNER TO g', '42501', 'must be a member of "g"'],
      ['GRANT CREATEDB ON SYSTEM TO g', '42501', 'permission denied to GRANT/REVOKE SYSTEM PRIVILEGES'],
      ['ALTER DEFAULT PRIVILEGES FOR ALL ROLES GRANT SELECT ON TABLES TO g', '42501', 'permission denied to ALTER DEFAULT PRIVILEGES FOR ALL ROLES'],
      ['GRANT USAGE ON TABLE t TO g', '0LP01', 'invalid privilege types USAGE for TABLE "materialize.public.t"'],
    ];
    for (const [query, code, message] of cases) {
      const r = await sql(`CREATE ROLE scratch; ${query}`);
      expect(r.status, query).toBe(400);
      expect(errorOf(r), query).toMatchObject({ code, message: expect.stringContaining(message) });
    }
    // The CREATE ROLE before each failing statement did not commit.
    expect(await rows(sql, "SELECT name FROM mz_roles WHERE name = 'scratch'")).toEqual([]);
  });

  it('a password made without a role acts as a superuser (the bootstrap password, an admin): what needs one succeeds', async () => {
    const { sql } = await sqlClient(p);
    expect(await rows(sql, 'SHOW is_superuser')).toEqual([['on']]);
    await ok(sql, 'CREATE ROLE g; CREATE TABLE t (a int)');
    const r = await sql(
      [
        'ALTER TABLE t OWNER TO g',
        'GRANT CREATEDB ON SYSTEM TO g',
        'ALTER DEFAULT PRIVILEGES FOR ROLE g GRANT SELECT ON TABLES TO materialize',
        'ALTER DEFAULT PRIVILEGES FOR ALL ROLES GRANT SELECT ON TABLES TO g',
      ].join('; '),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [[g]] = (await rows(sql, "SELECT id FROM mz_roles WHERE name = 'g'")) as [[string]];
    expect(await rows(sql, "SELECT owner_id FROM mz_tables WHERE name = 't'")).toEqual([[g]]);
    // The table is g's now; a superuser may still drop it.
    await ok(sql, 'DROP TABLE t');
  });

  it('a password made for a role acts as that role: it owns what it creates and is no superuser', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE ROLE svc; CREATE TABLE admins_table (a int)");
    const [[svc]] = (await rows(sql, "SELECT id FROM mz_roles WHERE name = 'svc'")) as [[string]];
    const asSvc = (await sqlClient(p, tenant, { role: 'svc' })).sql;
    expect(await rows(asSvc, 'SHOW is_superuser')).toEqual([['off']]);
    await ok(asSvc, 'CREATE TABLE svc_table (a int)');
    expect(await rows(sql, "SELECT owner_id FROM mz_tables WHERE name = 'svc_table'")).toEqual([[svc]]);
    // Not the owner of materialize's table, not a member of materialize, not a superuser.
    for (const [query, message] of [
      ['DROP TABLE admins_table', 'must be owner of TABLE materialize.public.admins_table'],
      ['ALTER TABLE svc_table OWNER TO materialize', 'must be a member of "materialize"'],
      ['GRANT CREATEDB ON SYSTEM TO svc', 'permission denied to GRANT/REVOKE SYSTEM PRIVILEGES'],
    ]) {
      expect(errorOf(await asSvc(query!)), query).toMatchObject({ code: '42501', message: expect.stringContaining(message!) });
    }
    await ok(asSvc, 'DROP TABLE svc_table');
    // Once its role is gone, the password authenticates but acts as no one.
    await ok(sql, 'DROP ROLE svc');
    expect(errorOf(await asSvc('SHOW TABLES'))).toMatchObject({ code: '28000', message: 'role "svc" does not exist' });
  });
});
