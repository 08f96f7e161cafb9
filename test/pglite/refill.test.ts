// A table refilled with a new snapshot's rows holds exactly those rows, whether the engine emptied
// it by DELETE (a small table) or by TRUNCATE (a large one): shared/pglite/host.ts `fill`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteHost, type Load } from '../../shared/pglite/host';
import { engineSchemaSql, engineTable, systemRelation } from '../../shared/system/registry';
import { engineRows } from '../helpers/engine';

const clusters = engineTable(systemRelation('mz_catalog', 'mz_clusters')!);
let host: PgliteHost;
beforeAll(async () => {
  host = await PgliteHost.open({ schemaSql: engineSchemaSql() });
}, 240_000);
afterAll(async () => {
  await host?.close();
});

const load = (key: string, count: number, prefix: string): Load => ({
  table: clusters,
  key,
  json: () => JSON.stringify(Array.from({ length: count }, (_, k) => ({ id: `u${k}`, name: `${prefix}${k}` }))),
});

/** The table's row count and how many rows carry `prefix`, as the engine answers. */
async function census(l: Load, prefix: string): Promise<[number, number]> {
  const [row] = await engineRows(host, `SELECT count(*)::int4, count(*) FILTER (WHERE name LIKE '${prefix}%')::int4 FROM ${clusters}`, [l], 1);
  return [Number(row![0]), Number(row![1])];
}

describe('refilling a system table', () => {
  it('replaces its rows exactly, small and large, through every change of size', async () => {
    const steps: [string, number, string][] = [
      ['k1', 2, 'a'], // into the template's empty table
      ['k2', 3, 'b'], // 2 rows before: emptied by DELETE
      ['k3', 1500, 'c'], // 3 rows before: DELETE, then many rows
      ['k4', 2, 'd'], // 1 500 rows before: TRUNCATE
      ['k5', 0, 'e'], // 2 before: DELETE, to nothing
      ['k6', 4, 'f'],
    ];
    for (const [key, count, prefix] of steps) expect([key, ...(await census(load(key, count, prefix), prefix))]).toEqual([key, count, count]);
  }, 120_000);
});

describe("the engine's settings", () => {
  it('runs with 16 MB of shared buffers (initdb writes 128 MB, zeroed at every start)', async () => {
    expect(await engineRows(host, "SELECT current_setting('shared_buffers')")).toEqual([['16MB']]);
  });
});
