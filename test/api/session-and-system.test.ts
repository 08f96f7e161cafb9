/**
 * Issue 29, item 8: statements Materialize's clients send (the Terraform provider, dbt-materialize)
 * with Materialize's semantics — the session's `cluster` as the default cluster (dbt sets it),
 * role defaults of session variables (`ALTER ROLE ... SET / RESET`, mz_role_parameters, applied
 * to the role's next sessions), `COMMENT ON ROLE`, network policies, `ALTER SINK ... SET FROM`
 * (dbt's blue/green deploys) and `ALTER SYSTEM SET / RESET` (a superuser's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { ok, rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('session-system', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const errorOf = (r: { body: any }) => r.body.results.find((x: { error?: unknown }) => x.error)?.error;

describe('session variables', () => {
  it("SET cluster makes the request's later statements default to that cluster, as dbt relies on", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE CLUSTER dbt_prod (SIZE = '25cc')");
    const r = await ok(sql, 'SET cluster = dbt_prod; SHOW cluster; CREATE MATERIALIZED VIEW mv AS SELECT 1 AS a; CREATE DEFAULT INDEX ON mv');
    expect(r[1].rows).toEqual([['dbt_prod']]);
    expect(await rows(sql, "SELECT c.name FROM mz_materialized_views m JOIN mz_clusters c ON c.id = m.cluster_id WHERE m.name = 'mv'")).toEqual([['dbt_prod']]);
    expect(await rows(sql, "SELECT c.name FROM mz_indexes i JOIN mz_clusters c ON c.id = i.cluster_id WHERE i.name = 'mv_primary_idx'")).toEqual([['dbt_prod']]);
    // A request is a session of its own: the next one starts from the default again.
    expect(await rows(sql, 'SHOW cluster')).toEqual([['quickstart']]);
    expect(errorOf(await sql('SET cluster = nope; CREATE MATERIALIZED VIEW mv2 AS SELECT 1 AS a'))).toMatchObject({ code: '42704', message: "unknown cluster 'nope'" });
  });

  it("SET search_path and SET database move where the request's later statements create, find and list names", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE SCHEMA analytics; CREATE DATABASE d; CREATE SCHEMA d.s");
    await ok(sql, 'SET search_path = nope, analytics, public; CREATE TABLE t (a int); CREATE VIEW v AS SELECT a FROM t; CREATE INDEX i ON t (a)');
    expect(await rows(sql, "SELECT o.name, s.name FROM mz_objects o JOIN mz_schemas s ON s.id = o.schema_id WHERE o.name IN ('t', 'v', 'i') ORDER BY 1")).toEqual([
      ['i', 'analytics'],
      ['t', 'analytics'],
      ['v', 'analytics'],
    ]);
    // SHOW lists the current schema; a later request is a fresh session, back on public.
    expect((await ok(sql, 'SET schema = analytics; SHOW TABLES'))[1].rows).toEqual([['t', '']]);
    expect(await rows(sql, 'SHOW TABLES')).toEqual([]);
    expect(errorOf(await sql('DROP VIEW v'))).toMatchObject({ code: '42P01', message: "unknown catalog item 'v'" });
    await ok(sql, 'SET search_path = analytics; DROP VIEW v');
    // The session's database: its schemas, for names with a schema and without.
    await ok(sql, 'SET database = d; CREATE TABLE s.x (a int); CREATE TABLE y (a int); CREATE SCHEMA s2');
    expect(await rows(sql, "SELECT d.name, s.name, t.name FROM mz_tables t JOIN mz_schemas s ON s.id = t.schema_id JOIN mz_databases d ON d.id = s.database_id WHERE t.name IN ('x', 'y') ORDER BY 3")).toEqual([
      ['d', 's', 'x'],
      ['d', 'public', 'y'],
    ]);
    expect((await ok(sql, 'SET database = d; SHOW SCHEMAS'))[1].rows.map((r: string[]) => r[0]).sort()).toEqual(expect.arrayContaining(['public', 's', 's2']));
    expect(errorOf(await sql('SET search_path = nope; CREATE TABLE z (a int)'))).toMatchObject({ code: '3F000', message: 'no valid schema selected' });
    expect(errorOf(await sql('SET database = nope; CREATE SCHEMA z'))).toMatchObject({ message: 'no database specified and no active database' });
  });

  it("SHOW schema is the session's current schema, and SET of a database or cluster that does not exist says so, as Materialize does", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE SCHEMA analytics');
    const r = await ok(sql, "SET search_path = nope, analytics; SHOW schema; SET search_path = nope; SHOW schema; SET database = nope; SET cluster = 'nope'");
    expect(r[1]).toMatchObject({ rows: [['analytics']], desc: { columns: [{ name: 'schema' }] } });
    expect(r[3]).toMatchObject({ rows: [[null]], notices: [{ message: 'no schema on the search path exists: nope', severity: 'notice' }] });
    expect(r[4].notices).toEqual([{ message: 'database "nope" does not exist', severity: 'notice' }]);
    expect(r[5].notices).toEqual([{ message: 'cluster "nope" does not exist', severity: 'notice' }]);
  });

  it('the options query parameter gives the session its variables first, as Materialize\'s HTTP API does', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE SCHEMA analytics');
    const r = await sql('CREATE TABLE t (a int); SHOW search_path; SHOW TABLES', { options: { search_path: 'analytics', application_name: 'dbt' } });
    expect(r.status).toBe(200);
    expect(r.body.results[1].rows).toEqual([['analytics']]);
    expect(r.body.results[2].rows).toEqual([['t', '']]);
    expect(await rows(sql, 'SHOW TABLES FROM analytics')).toEqual([['t', '']]);
    // A SET in the request still wins over the options, for the statements after it.
    const set = await sql('SET search_path = public; SHOW search_path', { options: { search_path: 'analytics' } });
    expect(set.body.results[1].rows).toEqual([['public']]);
  });

  it('refuses options that are not a JSON object of strings, or that SET would refuse, before any statement runs', async () => {
    const { sql, password } = await sqlClient(p);
    const send = async (options: string) => {
      const r = await fetch(`${p.url}/api/sql?options=${encodeURIComponent(options)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${password}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'CREATE TABLE t (a int)' }),
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    for (const [options, code, message] of [
      ['[1]', '08P01', 'Failed to deserialize "options" map'],
      ['{"search_path": 5}', '08P01', 'Failed to deserialize "options" map'],
      ['not json', '08P01', 'Failed to deserialize "options" map'],
      ['{"nope": "1"}', '42704', 'options: unrecognized configuration parameter "nope"'],
      ['{"transaction_isolation": "bogus"}', '22023', 'options: invalid value for parameter "transaction_isolation": "bogus"'],
      ['{"mz_version": "1"}', '55P02', 'options: parameter "mz_version" cannot be changed'],
    ] as const) {
      const r = await send(options);
      expect({ options, status: r.status, error: r.body.error ?? r.body.results?.[0]?.error }).toMatchObject({ options, status: 400, error: { code, message } });
    }
    // Nothing ran.
    expect(await rows(sql, 'SHOW TABLES')).toEqual([]);
  });
});

describe('ALTER ROLE ... SET / RESET', () => {
  it('keeps role defaults (mz_role_parameters), with a notice, and the role starts its sessions with them', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE CLUSTER svc_cluster (SIZE = '25cc'); CREATE ROLE svc");
    const r = await ok(sql, "ALTER ROLE svc SET cluster TO svc_cluster; ALTER ROLE svc SET search_path = 'public', 'analytics'");
    expect(r[0]).toEqual({ ok: 'ALTER ROLE', notices: [{ message: 'variable "cluster" was updated for "svc", this will have no effect on the current session', severity: 'notice' }] });
    const [[svc]] = (await rows(sql, "SELECT id FROM mz_roles WHERE name = 'svc'")) as [[string]];
    expect(await rows(sql, 'SELECT role_id, parameter_name, parameter_value FROM mz_role_parameters ORDER BY parameter_name')).toEqual([
      [svc, 'cluster', 'svc_cluster'],
      [svc, 'search_path', 'public, analytics'],
    ]);
    const asSvc = (await sqlClient(p, tenant, { role: 'svc' })).sql;
    expect(await rows(asSvc, 'SHOW cluster')).toEqual([['svc_cluster']]);
    expect(await rows(sql, 'SHOW cluster')).toEqual([['quickstart']]);
    for (const [q, code, message] of [
      ['ALTER ROLE svc SET nope = 1', '42704', 'unrecognized configuration parameter "nope"'],
      ['ALTER ROLE svc SET transaction_isolation = bogus', '22023', 'invalid value for parameter "transaction_isolation": "bogus"'],
      ['ALTER ROLE nobody SET cluster = c', '42704', "unknown role 'nobody'"],
    ] as const) {
      expect(errorOf(await sql(q)), q).toMatchObject({ code, message });
    }
    await ok(sql, 'ALTER ROLE svc RESET cluster');
    expect(await rows(sql, 'SELECT parameter_name FROM mz_role_parameters')).toEqual([['search_path']]);
    expect(await rows(asSvc, 'SHOW cluster')).toEqual([['quickstart']]);
  });
});

describe('COMMENT ON ROLE', () => {
  it('comments a role (mz_comments), replaces and removes it', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE ROLE analyst; COMMENT ON ROLE analyst IS 'reads dashboards'");
    const [[id]] = (await rows(sql, "SELECT id FROM mz_roles WHERE name = 'analyst'")) as [[string]];
    expect(await rows(sql, 'SELECT id, object_type, comment FROM mz_internal.mz_comments')).toEqual([[id, 'role', 'reads dashboards']]);
    await ok(sql, 'COMMENT ON ROLE analyst IS NULL');
    expect(await rows(sql, 'SELECT id FROM mz_internal.mz_comments')).toEqual([]);
    expect(errorOf(await sql("COMMENT ON ROLE nobody IS 'x'"))).toMatchObject({ code: '42704', message: "unknown role 'nobody'" });
  });
});

describe('network policies', () => {
  it('creates, alters and drops network policies with their rules (mz_network_policies, mz_network_policy_rules)', async () => {
    const { sql } = await sqlClient(p);
    expect(await rows(sql, 'SELECT name FROM mz_internal.mz_network_policies')).toEqual([['default']]);
    await ok(sql, "CREATE NETWORK POLICY office (RULES (hq (ACTION = 'allow', DIRECTION = 'ingress', ADDRESS = '8.2.3.4/28'), vpn (action = 'allow', direction = 'ingress', address = '10.0.0.0/8')))");
    const [[id]] = (await rows(sql, "SELECT id FROM mz_internal.mz_network_policies WHERE name = 'office'")) as [[string]];
    expect(await rows(sql, `SELECT name, action, address, direction FROM mz_internal.mz_network_policy_rules WHERE policy_id = '${id}' ORDER BY name`)).toEqual([
      ['hq', 'allow', '8.2.3.4/28', 'ingress'],
      ['vpn', 'allow', '10.0.0.0/8', 'ingress'],
    ]);
    await ok(sql, "ALTER NETWORK POLICY office SET (RULES (hq (ACTION = 'allow', DIRECTION = 'ingress', ADDRESS = '8.2.3.0/24')))");
    expect(await rows(sql, `SELECT name, address FROM mz_internal.mz_network_policy_rules WHERE policy_id = '${id}'`)).toEqual([['hq', '8.2.3.0/24']]);
    for (const [q, code, message] of [
      ["CREATE NETWORK POLICY office (RULES (a (ACTION = 'allow', DIRECTION = 'ingress', ADDRESS = '1.2.3.4/32')))", 'XX000', "network policy 'office' already exists"],
      ["CREATE NETWORK POLICY p2 (RULES (a (ACTION = 'deny', DIRECTION = 'ingress', ADDRESS = '1.2.3.4/32')))", 'XX000', 'Allow is the only valid option'],
      ["CREATE NETWORK POLICY p2 (RULES (a (ACTION = 'allow', DIRECTION = 'egress', ADDRESS = '1.2.3.4/32')))", 'XX000', 'Ingress is the only valid option'],
      ["CREATE NETWORK POLICY p2 (RULES (a (ACTION = 'allow', DIRECTION = 'ingress', ADDRESS = 'nowhere')))", 'XX000', 'Value must be valid IPV4 or IPV6 CIDR'],
      ["CREATE NETWORK POLICY p2 (RULES (a (ACTION = 'allow', ADDRESS = '1.2.3.4/32')))", 'XX000', 'Direction, Address, and Action must specified when creating a rule'],
      ['DROP NETWORK POLICY default', 'XX000', 'network policy is currently in use'],
      ['DROP NETWORK POLICY nope', '42704', "unknown network policy 'nope'"],
    ] as const) {
      expect(errorOf(await sql(q)), q).toMatchObject({ code, message });
    }
    // ALTER SYSTEM SET network_policy (a superuser's) names the policy every login gets; that one is in use.
    await ok(sql, 'ALTER SYSTEM SET network_policy = office');
    expect(errorOf(await sql('DROP NETWORK POLICY office'))).toMatchObject({ code: 'XX000', message: 'network policy is currently in use' });
    expect(errorOf(await sql("ALTER SYSTEM SET network_policy = 'nope'"))).toMatchObject({
      code: '22023',
      message: 'parameter "network_policy" cannot have value "nope": no network policy with such name exists',
    });
    await ok(sql, 'ALTER SYSTEM RESET network_policy');
    await ok(sql, 'DROP NETWORK POLICY office; DROP NETWORK POLICY IF EXISTS office');
    expect(await rows(sql, 'SELECT count(*) FROM mz_internal.mz_network_policy_rules')).toEqual([['1']]);
  });
});

describe('ALTER SINK ... SET FROM', () => {
  it("moves a sink to another relation (dbt's blue/green swap): new definition, dependency and generation", async () => {
    const { sql } = await sqlClient(p);
    await ok(
      sql,
      [
        "CREATE CLUSTER quickstart (SIZE = '25cc')",
        'CREATE TABLE blue (a int)',
        'CREATE TABLE green (a int)',
        "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092', SECURITY PROTOCOL PLAINTEXT) WITH (VALIDATE = false)",
        "CREATE SINK s FROM blue INTO KAFKA CONNECTION k (TOPIC 't') FORMAT JSON ENVELOPE DEBEZIUM",
      ].join('; '),
    );
    await ok(sql, 'ALTER SINK s SET FROM green');
    expect(await rows(sql, 'SHOW CREATE SINK s')).toEqual([['materialize.public.s', "CREATE SINK s FROM green INTO KAFKA CONNECTION k (TOPIC = 't') FORMAT JSON ENVELOPE DEBEZIUM"]]);
    await ok(sql, 'DROP TABLE blue');
    expect(errorOf(await sql('DROP TABLE green'))?.code).toBe('2BP01');
    expect(errorOf(await sql('ALTER SINK s SET FROM nope'))).toMatchObject({ code: '42P01', message: "unknown catalog item 'nope'" });
    expect(await ok(sql, 'ALTER SINK IF EXISTS nope SET FROM green')).toEqual([{ ok: 'ALTER SINK', notices: [{ message: 'sink "nope" does not exist, skipping', severity: 'notice' }] }]);
  });
});

describe('ALTER SYSTEM SET / RESET', () => {
  it("sets a system default that new sessions start from; a superuser's only", async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE CLUSTER shared (SIZE = '25cc'); ALTER SYSTEM SET cluster = shared");
    expect(await rows(sql, 'SHOW cluster')).toEqual([['shared']]);
    expect(errorOf(await sql("ALTER SYSTEM SET transaction_isolation = 'bogus'"))).toMatchObject({ code: '22023' });
    // Only session variables' system defaults are a superuser's to change; the rest (and RESET ALL) are mz_system's.
    expect(errorOf(await sql('ALTER SYSTEM SET max_tables = 1000'))).toMatchObject({ code: '42501', message: 'permission denied to alter system', detail: "You must be the 'mz_system' role" });
    expect(errorOf(await sql('ALTER SYSTEM RESET ALL'))).toMatchObject({ code: '42501', message: 'permission denied to alter system' });
    await ok(sql, 'CREATE ROLE svc');
    const asSvc = (await sqlClient(p, tenant, { role: 'svc' })).sql;
    expect(await rows(asSvc, 'SHOW cluster')).toEqual([['shared']]);
    expect(errorOf(await asSvc('ALTER SYSTEM RESET cluster'))).toMatchObject({
      code: '42501',
      message: "permission denied to toggle the 'cluster' system configuration parameter",
      detail: "You must be a superuser to toggle the 'cluster' system configuration parameter",
    });
    await ok(sql, 'ALTER SYSTEM RESET cluster');
    expect(await rows(sql, 'SHOW cluster')).toEqual([['quickstart']]);
  });
});
