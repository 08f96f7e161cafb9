/**
 * The Postgres wire endpoint with the clients Materialize's users drive it with, run the way their
 * users run them: psql (Debian's postgresql-client), psycopg2 the way dbt uses it (Debian's
 * /usr/bin/python3), node-postgres, and pgjdbc's DatabaseMetaData as SQL IDEs call it. Every
 * statement runs through the same SQL API as POST /api/sql, on the real emulators.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { captureOutput } from '../helpers/output';
import { rows, sqlClient, testPipeline } from '../helpers/pipeline';

const run = promisify(execFile);
let p: Pipeline;
let tenant: string;
let password: string;
let http: Awaited<ReturnType<typeof sqlClient>>['sql'];

beforeAll(async () => {
  // As `npm start` serves them: the SQL engine started with the server, on its own thread.
  p = await testPipeline('pgwire-clients', { workers: false, pgPort: 0, pgEngineAtStart: true });
  ({ sql: http, tenant, password } = await sqlClient(p));
});
afterAll(async () => {
  await p?.stop();
});

const conninfo = (extra = '') => `host=127.0.0.1 port=${p.pgPort} user=materialize dbname=materialize options=--tenant=${tenant} ${extra}`;

/** psql as a person runs it: no ~/.psqlrc, the password from PGPASSWORD. */
async function psql(args: string[], o: { input?: string; pw?: string } = {}): Promise<{ code: number; out: string; err: string }> {
  const child = execFile('psql', ['-X', '-v', 'ON_ERROR_STOP=1', conninfo(), ...args], { env: { ...process.env, PGPASSWORD: o.pw ?? password, PGCONNECT_TIMEOUT: '20' } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  if (o.input !== undefined) child.stdin!.end(o.input);
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  return { code, out, err };
}

describe('psql', () => {
  it('runs a DDL script with ON_ERROR_STOP and reads the catalog back with JOINs', async () => {
    const script = `CREATE CLUSTER analytics (SIZE = '25cc', REPLICATION FACTOR = 2);
CREATE SCHEMA sales;
CREATE TABLE sales.orders (id int, amount numeric);
CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE amount > 100;
`;
    const r = await psql(['-f', '-'], { input: script });
    expect(r.err).not.toMatch(/ERROR/);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter(Boolean)).toEqual(['CREATE CLUSTER', 'CREATE SCHEMA', 'CREATE TABLE', 'CREATE VIEW']);
    const q = await psql(['-A', '-t', '-c', `SELECT c.name, count(r.id) FROM mz_clusters c JOIN mz_cluster_replicas r ON r.cluster_id = c.id WHERE c.name = 'analytics' GROUP BY c.name`]);
    expect(q.out.trim()).toBe('analytics|2');
    // What psql ran is what HTTP sees: one catalog.
    expect(await rows(http, "SELECT name FROM mz_tables WHERE name = 'orders'")).toEqual([['orders']]);
  });

  it("answers psql's describe commands from pg_catalog", async () => {
    const dn = await psql(['-c', '\\dn']);
    expect(dn.code, dn.err).toBe(0);
    expect(dn.out).toMatch(/sales/);
    expect(dn.out).toMatch(/public/);
    const dt = await psql(['-c', '\\dt sales.*']);
    expect(dt.code, dt.err).toBe(0);
    expect(dt.out).toMatch(/orders/);
    const dv = await psql(['-c', '\\dv sales.*']);
    expect(dv.code, dv.err).toBe(0);
    expect(dv.out).toMatch(/big/);
    const d = await psql(['-c', '\\d sales.orders']);
    expect(d.code, d.err).toBe(0);
    expect(d.out).toMatch(/id\s+\|\s+integer/);
    expect(d.out).toMatch(/amount\s+\|\s+numeric/);
    const l = await psql(['-c', '\\l']);
    expect(l.code, l.err).toBe(0);
    expect(l.out).toMatch(/materialize/);
    for (const cmd of ['\\dm', '\\di']) {
      const x = await psql(['-c', cmd]);
      expect(x.code, `${cmd}: ${x.err}`).toBe(0);
    }
  });

  it('shows an error with its SQLSTATE and position (VERBOSITY verbose), and a BEGIN ... ROLLBACK leaves nothing', async () => {
    const e = await psql(['-v', 'VERBOSITY=verbose', '-c', 'CREATE CLUSTER analytics (SIZE = \'25cc\')']);
    expect(e.code).not.toBe(0);
    expect(e.err).toMatch(/ERROR:\s+42P07: cluster 'analytics' already exists\nLINE 1: CREATE CLUSTER analytics/);
    const before = (await tenantItems(p, tenant)).length;
    const r = await psql(['-f', '-'], { input: "BEGIN;\nCREATE SCHEMA rolled;\nSELECT count(*) FROM mz_schemas WHERE name = 'rolled';\nROLLBACK;\n" });
    expect(r.code, r.err).toBe(0);
    // Inside the block the schema is visible to the block's own reads; after ROLLBACK it never was.
    expect(r.out).toMatch(/\n\s+1\n/);
    expect(await rows(http, "SELECT count(*) FROM mz_schemas WHERE name = 'rolled'")).toEqual([['0']]);
    expect((await tenantItems(p, tenant)).length).toBe(before);
  });

  it('refuses a wrong password with 28P01 and no hint whether the user exists', async () => {
    const r = await psql(['-c', 'SELECT 1'], { pw: `${password.slice(0, -1)}${password.endsWith('a') ? 'b' : 'a'}` });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/password authentication failed for user "materialize"/);
  });
});

describe('psycopg2, the way dbt uses it', () => {
  it('runs with autocommit off: parameters, commit, rollback, and errors as psycopg2.errors classes', async () => {
    const py = `
import sys, json, psycopg2, psycopg2.errors
conn = psycopg2.connect(sys.argv[1], password=sys.argv[2])
out = {}
cur = conn.cursor()
cur.execute("SET cluster = 'analytics'")
cur.execute("SHOW cluster")
out['cluster'] = cur.fetchone()[0]
cur.execute("CREATE SCHEMA dbt_stage")
conn.commit()
cur.execute("SELECT name FROM mz_schemas WHERE name = %s", ('dbt_stage',))
out['schema'] = cur.fetchall()
cur.execute("CREATE TABLE dbt_stage.t (a int)")
conn.rollback()
cur.execute("SELECT count(*) FROM mz_tables WHERE name = 't'")
out['after_rollback'] = cur.fetchone()[0]
try:
    cur.execute("CREATE SCHEMA dbt_stage")
except psycopg2.errors.DuplicateSchema as e:
    out['error'] = [type(e).__name__, e.pgcode]
conn.rollback()
try:
    cur.execute("SELEC 1")
except psycopg2.errors.SyntaxError as e:
    out['syntax'] = e.pgcode
conn.rollback()
cur.execute("SELECT version(), current_database(), current_schema(), current_user")
out['who'] = list(cur.fetchone())
conn.close()
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', py, conninfo(), password]);
    const out = JSON.parse(stdout);
    expect(out.cluster).toBe('analytics');
    expect(out.schema).toEqual([['dbt_stage']]);
    expect(out.after_rollback).toBe(0);
    expect(out.error).toEqual(['DuplicateSchema', '42P06']);
    expect(out.syntax).toBe('42601');
    expect(out.who[0]).toMatch(/^PostgreSQL 9\.5\.0 on .*Materialize v/);
    expect(out.who.slice(1)).toEqual(['materialize', 'public', 'materialize']);
  });
});

describe('node-postgres', () => {
  const config = () => ({ host: '127.0.0.1', port: p.pgPort!, user: 'materialize', database: 'materialize', password, options: `--tenant=${tenant}` });

  it('runs the extended protocol with parameters, binary-free text results and typed values', async () => {
    const c = new pg.Client(config());
    await c.connect();
    try {
      const r = await c.query('SELECT name, replication_factor::int4 AS rf, id LIKE $2 AS user_id FROM mz_clusters WHERE name = $1', ['analytics', 'u%']);
      expect(r.rows).toEqual([{ name: 'analytics', rf: 2, user_id: true }]);
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([25, 23, 16]);
      // Only queries take parameters (Materialize plans DDL without them): nothing is created.
      const e = await c.query('CREATE SCHEMA with_param', ['x']).catch((x: Error & { code?: string }) => x);
      expect((e as { code?: string }).code).toBe('42P02');
      expect((await c.query("SELECT count(*)::int AS n FROM mz_schemas WHERE name = 'with_param'")).rows).toEqual([{ n: 0 }]);
      const named = await c.query({ name: 'by-name', text: 'SELECT count(*)::int AS n FROM mz_schemas WHERE name = $1', values: ['sales'] });
      expect(named.rows).toEqual([{ n: 1 }]);
      expect((await c.query({ name: 'by-name', text: 'SELECT count(*)::int AS n FROM mz_schemas WHERE name = $1', values: ['nope'] })).rows).toEqual([{ n: 0 }]);
    } finally {
      await c.end();
    }
  });

  it('acts as the role its app password was made for, and the bootstrap-like password as a superuser (SCRAM)', async () => {
    await rows(http, 'CREATE ROLE pgsvc');
    const svcPassword = await p.passwords.create(tenant, undefined, 'pgwire role test', { role: 'pgsvc' });
    const admin = new pg.Client(config());
    const svc = new pg.Client({ ...config(), user: 'pgsvc', password: svcPassword });
    await admin.connect();
    await svc.connect();
    try {
      expect((await admin.query('SHOW is_superuser')).rows).toEqual([{ is_superuser: 'on' }]);
      expect((await svc.query('SHOW is_superuser')).rows).toEqual([{ is_superuser: 'off' }]);
      await svc.query('CREATE TABLE pgsvc_table (a int)');
      expect(await rows(http, "SELECT r.name FROM mz_tables t JOIN mz_roles r ON r.id = t.owner_id WHERE t.name = 'pgsvc_table'")).toEqual([['pgsvc']]);
      const e = await svc.query('GRANT CREATEDB ON SYSTEM TO pgsvc').catch((x: Error & { code?: string }) => x);
      expect((e as { code?: string }).code).toBe('42501');
      await admin.query('GRANT CREATEDB ON SYSTEM TO pgsvc');
      await admin.query('DROP TABLE pgsvc_table');
    } finally {
      await admin.end();
      await svc.end();
    }
  });

  it("keeps a temporary view for the connection's later statements, as Materialize's session does, and nowhere else", async () => {
    const c = new pg.Client(config());
    const other = new pg.Client(config());
    await c.connect();
    await other.connect();
    try {
      // dbt's get_column_schema_from_query: create, read, drop, each its own statement.
      await c.query('CREATE TEMPORARY VIEW session_v AS SELECT 1 AS a');
      expect((await c.query("SELECT name FROM mz_views WHERE name = 'session_v'")).rows).toEqual([{ name: 'session_v' }]);
      await c.query('CREATE TEMPORARY VIEW session_w AS SELECT a FROM session_v');
      // Another connection, and HTTP, see neither; nothing was committed.
      expect((await other.query("SELECT count(*)::int AS n FROM mz_views WHERE name LIKE 'session_%'")).rows).toEqual([{ n: 0 }]);
      expect(await rows(http, "SELECT count(*) FROM mz_views WHERE name LIKE 'session_%'")).toEqual([['0']]);
      const dependent = await c.query('DROP VIEW session_v').catch((x: Error & { code?: string }) => x);
      expect((dependent as { code?: string }).code).toBe('2BP01');
      await c.query('DROP VIEW session_v CASCADE');
      expect((await c.query("SELECT count(*)::int AS n FROM mz_views WHERE name LIKE 'session_%'")).rows).toEqual([{ n: 0 }]);
      // A block that rolls back takes its temporary view back with it.
      await c.query('BEGIN');
      await c.query('CREATE TEMPORARY VIEW in_block AS SELECT 1 AS a');
      await c.query('ROLLBACK');
      expect((await c.query("SELECT count(*)::int AS n FROM mz_views WHERE name = 'in_block'")).rows).toEqual([{ n: 0 }]);
    } finally {
      await c.end();
      await other.end();
    }
  });

  it("resolves names by the connection's search_path and database across its statements and blocks, as Materialize's session does", async () => {
    const c = new pg.Client({ ...config(), options: `--tenant=${tenant} --search_path=wire_s,public` });
    await c.connect();
    try {
      await c.query('CREATE SCHEMA wire_s');
      // The startup parameter holds for the connection's later statements.
      await c.query('CREATE TABLE wire_t (a int)');
      await c.query('CREATE VIEW wire_v AS SELECT a FROM wire_t');
      expect((await c.query('SHOW TABLES')).rows).toEqual([{ name: 'wire_t', comment: '' }]);
      expect(await rows(http, "SELECT s.name FROM mz_objects o JOIN mz_schemas s ON s.id = o.schema_id WHERE o.name IN ('wire_t', 'wire_v')")).toEqual([['wire_s'], ['wire_s']]);
      // A block is planned again at its COMMIT with the SETs it made.
      await c.query('BEGIN');
      await c.query('SET search_path = public');
      await c.query('CREATE TABLE wire_p (a int)');
      await c.query('COMMIT');
      expect(await rows(http, "SELECT s.name FROM mz_tables t JOIN mz_schemas s ON s.id = t.schema_id WHERE t.name = 'wire_p'")).toEqual([['public']]);
      const e = await c.query('DROP VIEW wire_v').catch((x: Error & { code?: string }) => x);
      expect((e as { code?: string }).code).toBe('42P01');
      await c.query('SET schema = wire_s');
      await c.query('DROP VIEW wire_v');
      await c.query('DROP TABLE wire_t');
      await c.query('DROP TABLE public.wire_p');
    } finally {
      await c.end();
    }
  });

  it('serves a pool of many concurrent connections', async () => {
    const pool = new pg.Pool({ ...config(), max: 40 });
    try {
      const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => pool.query('SELECT $1::int + 1 AS n, count(*) AS clusters FROM mz_clusters', [i])));
      expect(answers.map((a) => a.rows[0].n)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      expect(p.pgServer!.connections).toBeGreaterThan(1);
    } finally {
      await pool.end();
    }
  });

  it('leaves nothing applied when a client disconnects mid-transaction', async () => {
    const c = new pg.Client(config());
    c.on('error', () => undefined); // the disconnect below is ours
    await c.connect();
    await c.query('BEGIN');
    await c.query('CREATE SCHEMA never_committed');
    expect((await c.query("SELECT count(*)::int AS n FROM mz_schemas WHERE name = 'never_committed'")).rows).toEqual([{ n: 1 }]);
    (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect(await rows(http, "SELECT count(*) FROM mz_schemas WHERE name = 'never_committed'")).toEqual([['0']]);
    // And a block that commits is one transaction.
    const d = new pg.Client(config());
    await d.connect();
    await d.query('BEGIN');
    await d.query('CREATE SCHEMA s1');
    await d.query('CREATE SCHEMA s2');
    await d.query('COMMIT');
    await d.end();
    expect(await rows(http, "SELECT name FROM mz_schemas WHERE name IN ('s1', 's2') ORDER BY name")).toEqual([['s1'], ['s2']]);
    // (By its statements: a transaction id's base-36 time part may itself hold "s1".)
    const txns = (await tenantItems(p, tenant)).filter((i) => i.type === 'txn' && (i.statements as string[]).some((st) => /\bCREATE SCHEMA s1\b/.test(st)));
    expect(txns).toHaveLength(1);
  });
});

describe('tenants and secret values over the wire', () => {
  const config = (o: { tenant?: string; password?: string } = {}) => ({ host: '127.0.0.1', port: p.pgPort!, user: 'materialize', database: 'materialize', password: o.password ?? password, options: `--tenant=${o.tenant ?? tenant}` });
  const failure = (x: unknown) => x as Error & { code?: string };

  it("a connection reads and changes only its own tenant's catalog, and a password opens only its own tenant", async () => {
    // Prepare: another tenant's objects, each of a kind a read could leak.
    const other = await sqlClient(p);
    expect((await other.sql("CREATE SCHEMA theirs; CREATE TABLE theirs.ledger (a int); CREATE SECRET their_pw AS 'x'; CREATE CLUSTER their_c (SIZE = '25cc')")).status).toBe(200);
    const theirs = JSON.stringify(await tenantItems(p, other.tenant));
    const c = new pg.Client(config());
    await c.connect();
    try {
      // Act + Assess: no system relation of this connection shows them (mz_*, pg_catalog, information_schema).
      for (const q of [
        "SELECT name FROM mz_schemas WHERE name = 'theirs'",
        "SELECT name FROM mz_tables WHERE name = 'ledger'",
        "SELECT name FROM mz_secrets WHERE name = 'their_pw'",
        "SELECT name FROM mz_clusters WHERE name = 'their_c'",
        "SELECT relname FROM pg_catalog.pg_class WHERE relname = 'ledger'",
        "SELECT table_name FROM information_schema.tables WHERE table_name = 'ledger'",
      ]) {
        expect((await c.query(q)).rows, q).toEqual([]);
      }
      for (const q of ['DROP TABLE theirs.ledger', 'DROP SECRET their_pw', 'DROP CLUSTER their_c', "CREATE TABLE theirs.mine (a int)"]) {
        const e = failure(await c.query(q).catch((x: unknown) => x));
        expect(e.code, q).toMatch(/^(3F000|42P01|42704)$/);
      }
    } finally {
      await c.end();
    }
    expect(JSON.stringify(await tenantItems(p, other.tenant))).toBe(theirs);
    // Either tenant's password names its own tenant only.
    for (const cfg of [config({ tenant: other.tenant }), config({ password: other.password })]) {
      const e = failure(await new pg.Client(cfg).connect().catch((x: unknown) => x));
      expect(e.code).toBe('28P01');
    }
  });

  it('never sends a secret value back: not in an answer, an error, a notice, SHOW CREATE, a log line or the catalog', async () => {
    const VALUE = 'Wq9-wire-secret-VALUE-4d1e';
    const NEXT = 'Yk3-wire-secret-NEXT-8c20';
    const output = captureOutput();
    const seen: string[] = [];
    const c = new pg.Client(config());
    c.on('notice', (n) => seen.push(JSON.stringify(n)));
    await c.connect();
    try {
      for (const q of [
        `CREATE SECRET wire_pw AS '${VALUE}'`,
        `CREATE SECRET wire_pw AS '${VALUE}'`, // a duplicate: an error
        `CREATE SECRET wire_bad '${VALUE}'`, // a syntax error right at the value
        `EXPLAIN EFFECTS FOR ALTER SECRET wire_pw AS '${NEXT}'`,
        `ALTER SECRET wire_pw AS '${NEXT}'`,
        'SHOW CREATE SECRET wire_pw',
        "SELECT * FROM mz_secrets WHERE name = 'wire_pw'",
      ]) {
        const r = await c.query(q).then(
          (x) => ({ rows: x.rows, command: x.command }),
          (x: unknown) => ({ error: { ...failure(x), message: failure(x).message } }),
        );
        seen.push(JSON.stringify(r));
      }
    } finally {
      await c.end();
      output.restore();
    }
    // The statements ran: the secret exists, and the errors were errors.
    expect(seen.join('\n')).toContain('"code":"42P07"');
    expect(seen.join('\n')).toContain('"code":"42601"');
    expect(seen.join('\n')).toContain('wire_pw');
    const everything = [...seen, ...output.chunks, JSON.stringify(await tenantItems(p, tenant))].join('\n');
    expect(everything).not.toContain(VALUE);
    expect(everything).not.toContain(NEXT);
  });
});

const JDBC_JAR = '/usr/share/java/postgresql.jar';

describe('pgjdbc', () => {
  it("answers DatabaseMetaData's getSchemas, getTables and getColumns as SQL IDEs call them", async () => {
    expect(existsSync(JDBC_JAR), `${JDBC_JAR} (Debian's libpostgresql-jdbc-java; .ci/run installs it)`).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'jdbc-'));
    writeFileSync(
      join(dir, 'Meta.java'),
      `import java.sql.*;
public class Meta {
  public static void main(String[] a) throws Exception {
    java.util.Properties props = new java.util.Properties();
    props.setProperty("user", "materialize");
    props.setProperty("password", a[1]);
    props.setProperty("options", "--tenant=" + a[2]);
    try (Connection c = DriverManager.getConnection(a[0], props)) {
      DatabaseMetaData m = c.getMetaData();
      StringBuilder out = new StringBuilder();
      out.append("product=").append(m.getDatabaseProductVersion()).append("\\n");
      try (ResultSet r = m.getSchemas()) { while (r.next()) out.append("schema=").append(r.getString("TABLE_SCHEM")).append("\\n"); }
      try (ResultSet r = m.getTables(null, "sales", "%", null)) { while (r.next()) out.append("table=").append(r.getString("TABLE_NAME")).append(":").append(r.getString("TABLE_TYPE")).append("\\n"); }
      try (ResultSet r = m.getColumns(null, "sales", "orders", "%")) { while (r.next()) out.append("column=").append(r.getString("COLUMN_NAME")).append(":").append(r.getString("TYPE_NAME")).append("\\n"); }
      try (PreparedStatement s = c.prepareStatement("SELECT name FROM mz_clusters WHERE name = ?")) {
        s.setString(1, "analytics");
        try (ResultSet r = s.executeQuery()) { while (r.next()) out.append("cluster=").append(r.getString(1)).append("\\n"); }
      }
      System.out.print(out);
    }
  }
}
`,
    );
    const { stdout } = await run('java', ['-cp', JDBC_JAR, join(dir, 'Meta.java'), `jdbc:postgresql://127.0.0.1:${p.pgPort}/materialize`, password, tenant], { timeout: 120_000 });
    const lines = stdout.trim().split('\n');
    expect(lines).toContain('schema=sales');
    expect(lines).toContain('schema=public');
    expect(lines).toContain('table=orders:TABLE');
    expect(lines).toContain('table=big:VIEW');
    expect(lines).toContain('column=id:int4');
    expect(lines).toContain('column=amount:numeric');
    expect(lines).toContain('cluster=analytics');
  });
});
