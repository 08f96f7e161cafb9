/**
 * Many API instances on one tenant, as many warm Lambdas run: each with its own snapshot cache
 * and no in-process queue shared with the others. Concurrent commits race on the catalog
 * version; every loser catches its snapshot up from the transaction records newer than it
 * (reading only the objects they changed) instead of reading the whole catalog again.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('instances', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });
const N = 4;
const COMMITS_EACH = 5;

function instance(tenant: string) {
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable);
  const api = new SqlApi({ store, logger, secrets: p.secrets });
  const run = async (query: string) => {
    const r = await api.handle(tenant, 'tester', JSON.stringify({ query }), 'application/json');
    return { status: r.status, body: r.body as { results: any[] } };
  };
  return { store, run };
}

describe(`${N} independent API instances on one tenant`, () => {
  it('all commit, none answers 40001, and conflicts catch up instead of reading the whole catalog', async () => {
    // Prepare: a tenant with 40 objects; every instance warm (one whole read each).
    const tenant = `inst${Math.random().toString(36).slice(2, 8)}`;
    await p.passwords.create(tenant);
    const seed = instance(tenant);
    expect((await seed.run(Array.from({ length: 40 }, (_, i) => `CREATE TABLE base${i} (a int)`).join(';'))).status).toBe(200);
    const instances = Array.from({ length: N }, () => instance(tenant));
    for (const i of instances) expect((await i.run('SHOW TABLES')).status).toBe(200);
    const warm = instances.map((i) => i.store.fullLoads);

    // Act: every instance commits at the same time, several times.
    const answers = await Promise.all(
      instances.map(async (inst, n) => {
        const out: number[] = [];
        for (let k = 0; k < COMMITS_EACH; k++) out.push((await inst.run(`CREATE TABLE i${n}_${k} (a int)`)).status);
        return out;
      }),
    );

    // Assess: every commit landed once; every instance sees them all.
    expect(answers.flat().join(" ")).toBe(Array(N * COMMITS_EACH).fill(200).join(" "));
    for (const inst of instances) {
      const rows = (await inst.run('SHOW TABLES')).body.results[0].rows as string[][];
      expect(rows).toHaveLength(40 + N * COMMITS_EACH);
    }
    // The races happened, and were settled by catching up: no instance read the whole catalog again.
    expect(instances.reduce((n, i) => n + i.store.catchUps, 0)).toBeGreaterThan(0);
    expect(instances.map((i) => i.store.fullLoads)).toEqual(warm);
  });

  it('a loser that backed off while more commits landed than its first read of the transaction records holds still catches up, reading older pages', async () => {
    // Prepare: A is warm; B moves the catalog 10 versions on (past what the version item's log holds).
    const tenant = `lag${Math.random().toString(36).slice(2, 8)}`;
    await p.passwords.create(tenant);
    const b = instance(tenant);
    expect((await b.run('CREATE TABLE seed (a int)')).status).toBe(200);
    let landedMeanwhile = false;
    /** A's store: after its first refused commit (the "backoff"), 60 more commits land before it catches up. */
    class Lagging extends CatalogStore {
      override async commit(...args: Parameters<CatalogStore['commit']>): ReturnType<CatalogStore['commit']> {
        try {
          return await super.commit(...args);
        } catch (err) {
          if (!landedMeanwhile) {
            landedMeanwhile = true;
            for (let i = 0; i < 60; i++) expect((await b.run(`CREATE TABLE late${i} (a int)`)).status).toBe(200);
          }
          throw err;
        }
      }
    }
    const store = new Lagging(p.clients.doc, p.config.catalogTable);
    const api = new SqlApi({ store, logger, secrets: p.secrets });
    const run = async (query: string) => (await api.handle(tenant, 'tester', JSON.stringify({ query }), 'application/json')).status;
    expect(await run('SHOW TABLES')).toBe(200);
    const warm = store.fullLoads;
    for (let i = 0; i < 10; i++) expect((await b.run(`CREATE TABLE early${i} (a int)`)).status).toBe(200);

    // Act: A commits on its stale snapshot: refused, 60 commits land, it catches up and commits.
    const status = await run('CREATE TABLE by_a (a int)');

    // Assess: committed, caught up without reading the whole catalog, and its snapshot holds every table.
    expect(status).toBe(200);
    expect(landedMeanwhile).toBe(true);
    expect(store.fullLoads).toBe(warm);
    expect(store.catchUps).toBeGreaterThanOrEqual(1);
    const shown = await api.handle(tenant, 'tester', JSON.stringify({ query: 'SHOW TABLES' }), 'application/json');
    expect((shown.body as { results: { rows: unknown[][] }[] }).results[0]!.rows).toHaveLength(1 + 60 + 10 + 1);
  });
});
