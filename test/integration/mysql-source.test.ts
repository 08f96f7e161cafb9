/**
 * MySQL connections and sources against a REAL server speaking MySQL's protocol (a private
 * MariaDB, test/helpers/mysql.ts, started once for the file), through the local pipeline with
 * the real prober: the login and Materialize's replication checks at CREATE CONNECTION and
 * VALIDATE CONNECTION, the tables a CREATE SOURCE names resolved upstream, and at run time the
 * reference data plane's own checks, reported through the status queue, driving the status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';
import { settledDataPlane, tenantItems } from '../helpers/catalog';
import { startMariaDb, type TestMySql } from '../helpers/mysql';
import { eventually, ok, rows, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

let p: Pipeline;
let db: TestMySql;
beforeAll(async () => {
  db = await startMariaDb();
  await db.sql('CREATE DATABASE shop');
  await db.sql('CREATE TABLE shop.orders (id int PRIMARY KEY, amount decimal(10, 2))');
  await db.sql('CREATE TABLE shop.items (id int PRIMARY KEY, name text)');
  // A user who may replicate but read no table: MySQL lists only the tables a user has a privilege on.
  await db.sql("CREATE USER 'lonely'@'127.0.0.1' IDENTIFIED BY 'lonely-pw'");
  await db.sql("GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'lonely'@'127.0.0.1'");
  // As in the Postgres source test: no case waits for a probe to time out (a stopped server
  // refuses at once), so the timeout only has to be long enough never to fire on a loaded machine.
  p = await testPipeline('mysqlsource', { prober: realProber({ timeoutMs: 30_000, network: LOCAL_PROBE_POLICY }) });
});
afterAll(async () => {
  await p?.stop();
  await db?.close();
});

const connection = (name: string, secret: string, user = db.user) => `CREATE CONNECTION ${name} TO MYSQL (HOST '${db.host}', PORT ${db.port}, USER '${user}', PASSWORD SECRET ${secret})`;
const setup = (source: string) => [`CREATE SECRET mypass AS '${db.password}'`, connection('my', 'mypass'), "CREATE CLUSTER ingest (SIZE = '25cc')", source].join('; ');

async function status(sql: SqlClient, name: string) {
  const row = (await rows(sql, `SELECT status, error, details FROM mz_internal.mz_source_statuses WHERE name = '${name}'`))[0] ?? [];
  return { status: row[0] as string, error: row[1] as string | null, details: (row[2] as any) ?? null };
}

async function history(sql: SqlClient, name: string): Promise<string[]> {
  const id = (await rows(sql, `SELECT id FROM mz_sources WHERE name = '${name}'`))[0]?.[0];
  return (await rows(sql, `SELECT status FROM mz_internal.mz_source_status_history WHERE source_id = '${id}' ORDER BY occurred_at`)).map((r) => r[0]);
}

/** The tenant's items once its effects settled: what a refused request must leave as it was. */
async function settledItems(tenant: string) {
  await settledDataPlane(p, tenant);
  return tenantItems(p, tenant);
}

const ACCESS_DENIED = (user: string) => `mysql: Server error: \`ERROR 28000 (1045): Access denied for user '${user}'@'127.0.0.1' (using password: YES)'`;

describe('MySQL connections against a real server', () => {
  it('CREATE CONNECTION with the right password commits and VALIDATE CONNECTION passes; a wrong one answers Access denied and commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    expect(await ok(sql, `CREATE SECRET mypass AS '${db.password}'; ${connection('my', 'mypass')}`)).toEqual([
      { ok: 'CREATE SECRET', notices: [] },
      { ok: 'CREATE CONNECTION', notices: [] },
    ]);
    expect(await ok(sql, 'VALIDATE CONNECTION my')).toEqual([{ ok: 'VALIDATE CONNECTION', notices: [] }]);
    expect(await rows(sql, "SELECT name, type FROM mz_connections WHERE name = 'my'")).toEqual([['my', 'mysql']]);

    const before = await settledItems(tenant);
    const refused = await sql(`CREATE SECRET badpass AS 'not-the-password'; ${connection('bad', 'badpass')}`);
    expect(refused.status).toBe(400);
    // A refused login is definite (08000): retrying the same password will not help.
    expect(refused.body.results.at(-1).error).toMatchObject({ code: '08000', message: ACCESS_DENIED('root'), hint: 'Check the USER of the connection and the PASSWORD secret' });
    expect(JSON.stringify(refused.body)).not.toContain('not-the-password');
    expect(await tenantItems(p, tenant)).toEqual(before);

    // The password changes under a committed connection: VALIDATE CONNECTION answers Materialize's 58000 and changes nothing.
    await ok(sql, "ALTER SECRET mypass AS 'rotated-elsewhere'");
    const stale = await sql('VALIDATE CONNECTION my');
    expect(stale.status).toBe(400);
    expect(stale.body.results[0].error).toMatchObject({ code: '58000', message: ACCESS_DENIED('root') });
    await ok(sql, `ALTER SECRET mypass AS '${db.password}'`);
    expect(await ok(sql, 'VALIDATE CONNECTION my')).toEqual([{ ok: 'VALIDATE CONNECTION', notices: [] }]);
  });

  it('refuses a server whose binlog is not row-based with Materialize\'s message, the settings in DETAIL, and commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    const before = await settledItems(tenant);
    // New sessions take the global value: the probe's connection sees MIXED.
    await db.sql("SET GLOBAL binlog_format = 'MIXED'");
    try {
      const r = await sql(`CREATE SECRET mypass AS '${db.password}'; ${connection('my', 'mypass')}`);
      expect(r.status).toBe(400);
      expect(r.body.results.at(-1).error).toEqual({
        code: '08000',
        message: 'mysql: Invalid MySQL system replication settings',
        detail: 'Invalid MySQL system replication settings: binlog_format: expected ROW, got MIXED',
        hint: 'Set the necessary MySQL database system settings.',
      });
      expect(await tenantItems(p, tenant)).toEqual(before);
    } finally {
      await db.sql("SET GLOBAL binlog_format = 'ROW'");
    }
  });
});

describe('MySQL sources against a real server', () => {
  it('goes running by the data plane\'s reports, stalls with a mysql: error when the server stops, and runs again when it is back', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, setup('CREATE SOURCE shop IN CLUSTER ingest FROM MYSQL CONNECTION my FOR TABLES (shop.orders AS orders, shop.items)'));
    expect((await rows(sql, 'SHOW SOURCES')).map((r) => r.slice(0, 2))).toEqual([
      ['items', 'subsource'],
      ['orders', 'subsource'],
      ['shop', 'mysql'],
    ]);
    // The first report comes when the ingestion is applied, not at a later round.
    await eventually(async () => (await status(sql, 'shop')).status === 'running', 15_000);
    expect(await status(sql, 'shop')).toMatchObject({ status: 'running', error: null });

    await db.stop();
    try {
      await p.reportHealth();
      const stalled = await status(sql, 'shop');
      expect(stalled).toMatchObject({ status: 'stalled', error: 'mysql: error connecting to server: Connection refused (os error 111)' });
      expect(stalled.details.namespaced).toEqual({ mysql: 'error connecting to server: Connection refused (os error 111)' });
    } finally {
      await db.start();
    }
    await p.reportHealth();
    expect(await status(sql, 'shop')).toMatchObject({ status: 'running', error: null });
    const h = await history(sql, 'shop');
    expect(h.slice(0, 2)).toEqual(['created', 'starting']);
    expect(h.slice(-3)).toEqual(['running', 'stalled', 'running']);
  });

  it('fails a running source whose binlog row image turns minimal, with the settings in its details, until ALTER SOURCE ... RESTART after the fix', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, setup('CREATE SOURCE shop IN CLUSTER ingest FROM MYSQL CONNECTION my FOR TABLES (shop.orders AS orders)'));
    await eventually(async () => (await status(sql, 'shop')).status === 'running', 15_000);

    await db.sql("SET GLOBAL binlog_row_image = 'MINIMAL'");
    try {
      await p.reportHealth();
      const failed = await status(sql, 'shop');
      // Definite, as in Materialize: a source cannot read a binlog without full row images.
      expect(failed).toMatchObject({ status: 'failed', error: 'mysql: Invalid MySQL system replication settings' });
      expect(failed.details).toMatchObject({
        hints: ['Set the necessary MySQL database system settings.'],
        namespaced: { mysql: 'Invalid MySQL system replication settings: binlog_row_image: expected FULL, got MINIMAL' },
      });
    } finally {
      await db.sql("SET GLOBAL binlog_row_image = 'FULL'");
    }
    // Failed is sticky: the server being fixed changes nothing until the user acts.
    await p.reportHealth();
    expect((await status(sql, 'shop')).status).toBe('failed');
    expect(await ok(sql, 'ALTER SOURCE shop RESTART')).toEqual([{ ok: 'ALTER SOURCE', notices: [] }]);
    await eventually(async () => (await status(sql, 'shop')).status === 'running', 15_000);
    expect((await history(sql, 'shop')).slice(-3)).toEqual(['failed', 'starting', 'running']);
  });

  it('resolves FOR TABLES and FOR ALL TABLES against the upstream\'s tables, and answers Materialize\'s errors for tables that are not there, committing nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, [`CREATE SECRET mypass AS '${db.password}'`, connection('my', 'mypass'), `CREATE SECRET lonelypass AS 'lonely-pw'`, connection('lonely', 'lonelypass', 'lonely'), "CREATE CLUSTER ingest (SIZE = '25cc')"].join('; '));
    const before = await settledItems(tenant);
    const refusals: [string, string, string][] = [
      ['FROM MYSQL CONNECTION my FOR TABLES (shop.orders, shop.nope)', 'mysql: reference to shop.nope not found in source', 'The MySQL server has shop.items, shop.orders.'],
      ['FROM MYSQL CONNECTION my FOR TABLES (mysql.shop.nope)', 'mysql: reference to mysql.shop.nope not found in source', 'The MySQL server has shop.items, shop.orders.'],
      ['FROM MYSQL CONNECTION my FOR SCHEMAS (shop, nowhere)', 'mysql: no tables found in referenced schemas: "nowhere"', 'The MySQL server has shop.items, shop.orders.'],
      [
        'FROM MYSQL CONNECTION lonely FOR ALL TABLES',
        'mysql: MySQL source must ingest at least one table, but FOR ALL TABLES matched none',
        'No tables were found to replicate. This could be because the user does not have privileges on the intended tables.',
      ],
    ];
    for (const [from, message, hint] of refusals) {
      const r = await sql(`CREATE SOURCE shop IN CLUSTER ingest ${from}`);
      expect(r.status, from).toBe(400);
      expect(r.body.results.at(-1).error, from).toEqual({ code: '22023', message, hint, detail: 'The request runs as one transaction: no statement in it was committed.' });
    }
    expect(await tenantItems(p, tenant)).toEqual(before);

    // Three parts name Materialize's fake database for MySQL; a bare name is fine when only one schema has it.
    await ok(sql, 'CREATE SOURCE shop IN CLUSTER ingest FROM MYSQL CONNECTION my FOR TABLES (mysql.shop.orders AS orders, items)');
    await ok(sql, 'CREATE SOURCE everything IN CLUSTER ingest FROM MYSQL CONNECTION my FOR ALL TABLES');
    await ok(sql, 'CREATE SOURCE by_schema IN CLUSTER ingest FROM MYSQL CONNECTION my FOR SCHEMAS (shop)');
    expect((await rows(sql, "SELECT name FROM mz_sources WHERE type = 'mysql' ORDER BY name")).map((r) => r[0])).toEqual(['by_schema', 'everything', 'shop']);
  });
});
