/**
 * MySQL and SQL Server through the local pipeline with the real prober (mysql2, tedious). No
 * server of either kind runs here, so the upstream is a refused port: CREATE CONNECTION is
 * refused by purification with Materialize's namespaced error and nothing commits; with
 * VALIDATE = false the source commits and the data plane's own health check reports it stalled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { refusedPort } from '../probes/net';

let p: Pipeline;
let port: number;
beforeAll(async () => {
  port = await refusedPort();
  p = await testPipeline('mysqlsrv', { prober: realProber({ timeoutMs: 15_000, network: LOCAL_PROBE_POLICY }) });
});
afterAll(async () => {
  await p?.stop();
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
  it('refuses an unreachable upstream at CREATE CONNECTION, and a source on an unchecked connection goes stalled with the namespaced error', async () => {
    const { sql, tenant } = await sqlClient(p);
    const connection = `CREATE CONNECTION up TO ${type} (HOST '127.0.0.1', PORT ${port}, ${extra})`;
    const before = (await tenantItems(p, tenant)).filter((i) => i.type === 'object');

    const refused = await sql(connection);
    // The failed commit is the request's last answer.
    expect(refused.status).toBe(400);
    expect(refused.body.results.at(-1).error).toMatchObject({ code: '08001', message: `${namespace}: error connecting to server: Connection refused (os error 111)` });
    expect((await tenantItems(p, tenant)).filter((i) => i.type === 'object')).toEqual(before);

    const setup = await sql(
      [`${connection} WITH (VALIDATE = false)`, "CREATE CLUSTER ingest (SIZE = '25cc')", `CREATE SOURCE shop IN CLUSTER ingest FROM ${type} CONNECTION up FOR TABLES (${table} AS orders)`].join('; '),
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    await eventually(async () => (await status(sql, 'shop')).status === 'stalled', 20_000);
    expect(await status(sql, 'shop')).toEqual({ status: 'stalled', error: `${namespace}: error connecting to server: Connection refused (os error 111)` });
    expect((await sql('SHOW SOURCES')).body.results[0].rows.map((r: unknown[]) => r.slice(0, 2))).toEqual([
      ['orders', 'subsource'],
      ['shop', namespace],
    ]);
  });
});
