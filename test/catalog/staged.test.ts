/**
 * A request larger than one DynamoDB transaction (100 items) stays atomic: a 500-table
 * DROP SCHEMA ... CASCADE with a crash injected before or after its commit point leaves either
 * none or all of it visible, and the next reader finishes or abandons it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDynamoLocal, type DynamoLocal } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { FaultInjector } from '../../shared/dataplane/faults';
import { SimulatedCrash } from '../../shared/errors';
import { partitionItems } from '../helpers/catalog';
import { testPipeline } from '../helpers/pipeline';

const TABLES = 500;
// Building four 500-table catalogs takes a few minutes on a quiet 2-core machine and up to 15 on a
// loaded one (819 s for this file, measured beside two busy loops). Nothing here waits on a
// condition that may never come: every step is a request that answers, so a long outer bound
// costs nothing when things go well.
vi.setConfig({ testTimeout: 1_800_000 });
let p: Pipeline;
let ddb: DynamoLocal;
beforeAll(async () => {
  // A DynamoDB Local of its own, as the conformance run has: on the worker's shared one, after the
  // files before it left their tables and stream records there, the first test took 155 s in a
  // quiet CI run against 26 s on a fresh emulator.
  ddb = await startDynamoLocal({ maxHeap: '1g' });
  // Workers off: this file is about the catalog commit, not the 1 000 effects it writes.
  // The full pass has nothing to say about commits and would diff 2 000 objects per sweep here.
  p = await testPipeline('staged', { dynamodbEndpoint: ddb.endpoint, workers: false, fullPass: false });
});
afterAll(async () => {
  await p?.stop();
  await ddb?.stop();
});

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });
/** A DDL "process": its own store, its own faults, its own clock. */
function apiProcess(o: { faults?: FaultInjector; leaseMs?: number; now?: () => Date } = {}) {
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable, { ...(o.faults ? { faults: o.faults } : {}), ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}), ...(o.now ? { clock: o.now } : {}) });
  return new SqlApi({ store, logger, ...(o.now ? { clock: o.now } : {}) });
}

async function run(api: SqlApi, tenant: string, query: string) {
  return api.handle(tenant, 'tester', JSON.stringify({ query }), 'application/json');
}

async function tableCount(tenant: string): Promise<number> {
  const r = await run(apiProcess(), tenant, "SELECT id FROM mz_tables");
  return ((r.body as any).results[0].rows as unknown[]).length;
}

async function tenantWith500Tables(): Promise<string> {
  const tenant = `staged${Math.random().toString(36).slice(2, 8)}`;
  await p.passwords.create(tenant);
  const api = apiProcess();
  expect((await run(api, tenant, 'CREATE SCHEMA big')).status).toBe(200);
  for (let i = 0; i < TABLES; i += 25) {
    const stmts = Array.from({ length: 25 }, (_, j) => `CREATE TABLE big.t${i + j} (id int)`);
    const r = await run(api, tenant, stmts.join('; '));
    expect(r.status).toBe(200);
  }
  expect(await tableCount(tenant)).toBe(TABLES);
  return tenant;
}

async function leftovers(tenant: string) {
  return (await partitionItems(p, `T#${tenant}`)).filter((i) => ['stage', 'staging', 'lock'].includes(i.type));
}

describe('a 500-object DROP SCHEMA ... CASCADE', () => {
  it('commits atomically when nothing fails', async () => {
    const tenant = await tenantWith500Tables();
    const r = await run(apiProcess(), tenant, 'DROP SCHEMA big CASCADE');
    expect(r.status).toBe(200);
    expect(await tableCount(tenant)).toBe(0);
    const effects = (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'effect' && i.intent === 'drop');
    expect(effects).toHaveLength(TABLES);
    expect(await leftovers(tenant)).toEqual([]);
  });

  it('crashing after the commit point, halfway through applying: the next reader sees all of it', async () => {
    const tenant = await tenantWith500Tables();
    const faults = new FaultInjector();
    faults.crashAt('staged.mid-apply');
    await expect(run(apiProcess({ faults }), tenant, 'DROP SCHEMA big CASCADE')).rejects.toBeInstanceOf(SimulatedCrash);
    // Part of the change is in place on disk, yet a reader (a new process) sees all of it.
    expect(await tableCount(tenant)).toBe(0);
    expect((await run(apiProcess(), tenant, 'SHOW SCHEMAS')).body).toMatchObject({ results: [{ rows: [['public', '']] }] });
    expect(await leftovers(tenant)).toEqual([]);
    // The catalog is usable again, and the outbox holds every drop effect.
    expect((await run(apiProcess(), tenant, 'CREATE SCHEMA big')).status).toBe(200);
    expect((await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'effect' && i.intent === 'drop')).toHaveLength(TABLES);
  });

  it('a crashed staged change nobody reads is finished by the sweeper', async () => {
    const tenant = await tenantWith500Tables();
    const faults = new FaultInjector();
    faults.crashAt('staged.mid-apply');
    await expect(run(apiProcess({ faults }), tenant, 'DROP SCHEMA big CASCADE')).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await leftovers(tenant)).not.toEqual([]);
    await p.sweeper.sweep(new Date(Date.now() + 60_000));
    expect(await leftovers(tenant)).toEqual([]);
    const rest = (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'object' && i.kind === 'table' && !i.dropped);
    expect(rest).toEqual([]);
  });

  it('crashing before the commit point: none of it is visible, and the lease lets the catalog go', async () => {
    const tenant = await tenantWith500Tables();
    const faults = new FaultInjector();
    faults.crashAt('staged.before-commit-point');
    let clock = Date.now();
    const now = () => new Date(clock);
    // A lease long in real time too: readers on the real clock (tableCount below, the pipeline's
    // sweeper) must not end it mid-test, even when writing 500 staged objects takes minutes on a
    // loaded machine (a two-minute lease ran out there before the first read).
    const leaseMs = 3_600_000;
    await expect(run(apiProcess({ faults, leaseMs, now }), tenant, 'DROP SCHEMA big CASCADE')).rejects.toBeInstanceOf(SimulatedCrash);

    expect(await tableCount(tenant)).toBe(TABLES);
    // While the dead process's lease runs, writers wait (and give up with 40001) …
    const blocked = await run(apiProcess({ now }), tenant, 'CREATE TABLE other (a int)');
    expect(blocked.status).toBe(409);
    expect((blocked.body as any).results[0].error.code).toBe('40001');
    // … and once it has run out, the next reader abandons the staged change.
    clock += leaseMs + 1_000;
    expect((await run(apiProcess({ now }), tenant, 'CREATE TABLE other (a int)')).status).toBe(200);
    expect(await leftovers(tenant)).toEqual([]);
    expect(await tableCount(tenant)).toBe(TABLES + 1);
    expect((await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'effect' && i.intent === 'drop')).toHaveLength(0);
  });
});
