/**
 * MySQL and SQL Server through the local pipeline with the real prober (mysql2, tedious), on
 * upstreams that do not answer: a refused port (CREATE CONNECTION is refused by purification
 * with Materialize's namespaced error and nothing commits; with VALIDATE = false the connection
 * commits and a source on it is refused the same way, as Materialize's purification connects) and a port that accepts and
 * never answers (the probe's timeout). A real MySQL-protocol server is in mysql-source.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { refusedPort, silentServer, type SilentServer } from '../probes/net';

/** What the silent-port case waits: every other upstream here answers (refuses) at once. */
const PROBE_TIMEOUT_MS = 3_000;

let p: Pipeline;
let port: number;
let silent: SilentServer;
beforeAll(async () => {
  port = await refusedPort();
  silent = await silentServer();
  p = await testPipeline('mysqlsrv', { prober: realProber({ timeoutMs: PROBE_TIMEOUT_MS, network: LOCAL_PROBE_POLICY }) });
});
afterAll(async () => {
  await p?.stop();
  await silent?.close();
});

async function status(sql: SqlClient, name: string): Promise<{ status: string; error: string | null }> {
  const r = await sql(`SELECT status, error FROM mz_internal.mz_source_statuses WHERE name = '${name}'`);
  const row = r.body.results[0].rows[0] ?? [];
  return { status: row[0], error: row[1] };
}

describe.each([
  ['MYSQL', 'mysql', 'USER \'mz\'', 'shop.orders'],
  ['SQL SERVER', 'sql-server', "USER 'sa', DATABASE 'shop'", 'dbo.orders'],
] as const)('%s', (type, namespace, extra, table) => {
  it('refuses an unreachable upstream at CREATE CONNECTION, and at CREATE SOURCE even on a connection made WITH (VALIDATE = false)', async () => {
    const { sql, tenant } = await sqlClient(p);
    const connection = `CREATE CONNECTION up TO ${type} (HOST '127.0.0.1', PORT ${port}, ${extra})`;
    const before = (await tenantItems(p, tenant)).filter((i) => i.type === 'object');

    const refused = await sql(connection);
    // The failed commit is the request's last answer.
    expect(refused.status).toBe(400);
    expect(refused.body.results.at(-1).error).toMatchObject({ code: '08001', message: `${namespace}: error connecting to server: Connection refused (os error 111)` });
    expect((await tenantItems(p, tenant)).filter((i) => i.type === 'object')).toEqual(before);

    const setup = await sql([`${connection} WITH (VALIDATE = false)`, "CREATE CLUSTER ingest (SIZE = '25cc')"].join('; '));
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    // Materialize's purification connects to read the tables a source names, whatever VALIDATE said.
    const source = await sql(`CREATE SOURCE shop IN CLUSTER ingest FROM ${type} CONNECTION up FOR TABLES (${table} AS orders)`);
    expect(source.status).toBe(400);
    expect(source.body.results.at(-1).error).toMatchObject({ code: '08001', message: `${namespace}: error connecting to server: Connection refused (os error 111)` });
    expect((await sql('SHOW SOURCES')).body.results[0].rows).toEqual([]);
    expect(await status(sql, 'shop')).toEqual({ status: undefined, error: undefined });
  });

  it('answers a timeout at CREATE CONNECTION for a port that accepts and never answers, and commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    const before = (await tenantItems(p, tenant)).filter((i) => i.type === 'object');
    const accepted = silent.accepted;

    const r = await sql(`CREATE CONNECTION up TO ${type} (HOST '127.0.0.1', PORT ${silent.port}, ${extra})`);
    expect(r.status).toBe(400);
    // Transient (08001): a server that is slow to answer may answer later.
    expect(r.body.results.at(-1).error).toMatchObject({ code: '08001', message: `${namespace}: timed out connecting to 127.0.0.1:${silent.port}` });
    expect(silent.accepted).toBeGreaterThan(accepted);
    expect((await tenantItems(p, tenant)).filter((i) => i.type === 'object')).toEqual(before);
  });
});
