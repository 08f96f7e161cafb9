/**
 * ALTER SOURCE ... ADD SUBSOURCE / REFRESH REFERENCES / SET (TIMESTAMP INTERVAL) through the local
 * pipeline: a new subsource gets its collection and the source's ingestion runs again (a new
 * generation) with the new export's options; REFRESH REFERENCES changes nothing; a refused
 * statement commits nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { settledDataPlane } from '../helpers/catalog';
import { rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('altersrc');
});
afterAll(async () => {
  await p?.stop();
});

const settled = (tenant: string) => settledDataPlane(p, tenant);

describe('ALTER SOURCE', () => {
  it('adds subsources as new exports of the ingestion, refreshes references without a change, and refuses what Materialize refuses', async () => {
    const { sql, tenant } = await sqlClient(p);
    const setup = await sql(
      [
        "CREATE CLUSTER c (SIZE = '25cc')",
        "CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', USER 'u', DATABASE 'shop') WITH (VALIDATE = false)",
        "CREATE SOURCE pg_src IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR TABLES (public.orders AS orders)",
      ].join('; '),
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    let resources = await settled(tenant);
    const ingestion = () => resources.find((r) => r.kind === 'ingestion' && r.owner?.objectName === 'pg_src')!;
    const before = ingestion().generation;

    expect((await sql('ALTER SOURCE pg_src ADD SUBSOURCE public.items AS items WITH (TEXT COLUMNS (public.items.price))')).status).toBe(200);
    resources = await settled(tenant);
    expect(resources.some((r) => r.kind === 'collection' && r.owner?.objectName === 'items')).toBe(true);
    expect(ingestion().generation).toBeGreaterThan(before);
    expect((ingestion().spec.connector as { options: Record<string, string> }).options['TEXT COLUMNS']).toBe('public.items.price');
    expect(await rows(sql, "SELECT name, type FROM mz_catalog.mz_sources WHERE type = 'subsource' ORDER BY name")).toEqual([
      ['items', 'subsource'],
      ['orders', 'subsource'],
    ]);

    const after = ingestion().generation;
    expect((await sql('ALTER SOURCE pg_src REFRESH REFERENCES')).status).toBe(200);
    resources = await settled(tenant);
    expect(ingestion().generation).toBe(after);

    const dup = await sql('ALTER SOURCE pg_src ADD SUBSOURCE public.orders AS orders_again');
    expect(dup.status).toBe(400);
    expect(dup.body.results.at(-1).error).toMatchObject({ code: '42P07', message: 'another subsource of source pg_src already refers to public.orders' });
    const interval = await sql("ALTER SOURCE pg_src SET (TIMESTAMP INTERVAL '5s')");
    expect(interval.body.results.at(-1).error).toMatchObject({ code: 'XX000', message: 'invalid timestamp interval of 5000ms, must be in the range [1000ms, 1000ms]' });
    expect(await rows(sql, "SELECT name FROM mz_catalog.mz_sources WHERE name = 'orders_again'")).toEqual([]);
  });
});
