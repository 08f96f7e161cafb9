/**
 * A staged commit (a request larger than one DynamoDB transaction) keeps every answer true while
 * other processes race it: a slow reader rolling it forward never undoes later commits, a reader
 * that decides to roll it back (its clock far ahead) never deletes a change the holder committed
 * meanwhile, and the connectors it creates get their statuses like any others. The races are
 * ordered with pause points in the code under test, not with sleeps.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { readCatalogVersion } from '../../shared/catalog/staged';
import { CatalogStore } from '../../shared/catalog/store';
import { FaultInjector } from '../../shared/dataplane/faults';
import { partitionItems } from '../helpers/catalog';
import { eventually, testPipeline } from '../helpers/pipeline';

const CLUSTERS = 60;
let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('stagedrace', { fullPass: false });
});
afterAll(async () => {
  await p.stop();
});

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });
/** A lease long in real time: the pipeline's own sweeper (real clock) must not end it mid-test. */
const LEASE_MS = 600_000;

/** A DDL "process": its own store, its own faults, its own clock. */
function apiProcess(o: { faults?: FaultInjector; skewMs?: number } = {}) {
  const clock = () => new Date(Date.now() + (o.skewMs ?? 0));
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable, { leaseMs: LEASE_MS, clock, ...(o.faults ? { faults: o.faults } : {}) });
  return new SqlApi({ store, logger, clock });
}

async function run(api: SqlApi, tenant: string, query: string) {
  return api.handle(tenant, 'tester', JSON.stringify({ query }), 'application/json');
}

async function newTenant(): Promise<string> {
  const tenant = `race${Math.random().toString(36).slice(2, 8)}`;
  await p.passwords.create(tenant);
  return tenant;
}

async function clusterNames(tenant: string): Promise<string[]> {
  const r = await run(apiProcess(), tenant, "SELECT name FROM mz_clusters WHERE name LIKE 'c%'");
  return ((r.body as any).results[0].rows as string[][]).map((row) => row[0]!).sort();
}

async function leftovers(tenant: string) {
  return (await partitionItems(p, `T#${tenant}`)).filter((i) => ['stage', 'staging', 'lock'].includes(i.type));
}

const manyClusters = Array.from({ length: CLUSTERS }, (_, i) => `CREATE CLUSTER c${i} (SIZE = '25cc')`).join('; ');

describe('a staged commit raced by other processes', () => {
  it('a slow roll-forward resumed after the holder finished does not undo a later DROP or move the catalog version back', async () => {
    const tenant = await newTenant();
    const holderFaults = new FaultInjector();
    const holderPaused = holderFaults.pauseAt('staged.after-commit-point');
    const holder = run(apiProcess({ faults: holderFaults }), tenant, manyClusters);
    await holderPaused.reached;

    // A reader finds the committed change and starts rolling it forward, then stalls.
    const readerFaults = new FaultInjector();
    const readerPaused = readerFaults.pauseAt('staged.mid-apply');
    const reader = run(apiProcess({ faults: readerFaults }), tenant, 'SHOW CLUSTERS');
    await readerPaused.reached;

    holderPaused.resume();
    expect((await holder).status).toBe(200);
    const afterCreate = await readCatalogVersion(p.clients.doc, p.config.catalogTable, tenant);
    // The last cluster's items are the last the slow reader still has to write.
    const drop = await run(apiProcess(), tenant, `DROP CLUSTER c${CLUSTERS - 1}`);
    expect(drop.status).toBe(200);
    expect(await readCatalogVersion(p.clients.doc, p.config.catalogTable, tenant)).toBe(afterCreate + 1);

    readerPaused.resume();
    expect((await reader).status).toBe(200);

    expect(await readCatalogVersion(p.clients.doc, p.config.catalogTable, tenant)).toBe(afterCreate + 1);
    const names = await clusterNames(tenant);
    expect(names).toHaveLength(CLUSTERS - 1);
    expect(names).not.toContain(`c${CLUSTERS - 1}`);
    expect(await leftovers(tenant)).toEqual([]);
  });

  it('a reader whose clock says the lease ran out cannot roll back a change the holder commits while it is paused', async () => {
    const tenant = await newTenant();
    const holderFaults = new FaultInjector();
    const beforePoint = holderFaults.pauseAt('staged.before-commit-point');
    const afterPoint = holderFaults.pauseAt('staged.after-commit-point');
    const holder = run(apiProcess({ faults: holderFaults }), tenant, manyClusters);
    await beforePoint.reached;

    // Its clock runs ahead by more than the lease: to it, the holder is dead.
    const readerFaults = new FaultInjector();
    const rollback = readerFaults.pauseAt('staged.rollback');
    const reader = run(apiProcess({ faults: readerFaults, skewMs: LEASE_MS + 30_000 }), tenant, 'SHOW CLUSTERS');
    await rollback.reached;

    // The holder reaches its commit point in between.
    beforePoint.resume();
    await afterPoint.reached;
    rollback.resume();
    expect((await reader).status).toBe(200);
    afterPoint.resume();
    expect((await holder).status).toBe(200);

    expect(await clusterNames(tenant)).toHaveLength(CLUSTERS);
    expect(await leftovers(tenant)).toEqual([]);
  });

  it('a lease that runs out while the holder is still writing: the holder cannot commit on top of a change made meanwhile', async () => {
    const tenant = await newTenant();
    const holderFaults = new FaultInjector();
    const beforePoint = holderFaults.pauseAt('staged.before-commit-point');
    const holder = run(apiProcess({ faults: holderFaults }), tenant, manyClusters);
    await beforePoint.reached;

    // Another instance (clock ahead) takes the catalog back and commits its own change.
    const other = await run(apiProcess({ skewMs: LEASE_MS + 30_000 }), tenant, "CREATE CLUSTER other (SIZE = '25cc')");
    expect(other.status).toBe(200);

    // The holder's commit point fails; the API replans on the catalog as it is now and commits.
    beforePoint.resume();
    expect((await holder).status).toBe(200);
    expect(await clusterNames(tenant)).toHaveLength(CLUSTERS);
    expect(((await run(apiProcess(), tenant, "SELECT name FROM mz_clusters WHERE name = 'other'")).body as any).results[0].rows).toEqual([['other']]);
    expect(await leftovers(tenant)).toEqual([]);
  });
});

describe('connectors created by a staged commit', () => {
  it('get a status and reach running through the pipeline', async () => {
    const tenant = await newTenant();
    const api = apiProcess();
    expect((await run(api, tenant, "CREATE CLUSTER c (SIZE = '25cc')")).status).toBe(200);
    const sources = Array.from({ length: 30 }, (_, i) => `CREATE SOURCE s${i} IN CLUSTER c FROM LOAD GENERATOR COUNTER`).join('; ');
    expect((await run(api, tenant, sources)).status).toBe(200);

    const statuses = async () => ((await run(api, tenant, 'SELECT name, status FROM mz_internal.mz_source_statuses')).body as any).results[0].rows as string[][];
    expect(await statuses()).toHaveLength(30);
    await eventually(async () => (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 60_000);
    // The data plane reports each ingestion once it applied it; the reports reach the statuses
    // through the status queue, after the effect settled — so wait for them, not for a sweep.
    await eventually(async () => (await statuses()).every((r) => r[1] === 'running'), 60_000).catch(async (err) => {
      throw new Error(`${(err as Error).message}; not running: ${JSON.stringify((await statuses()).filter((r) => r[1] !== 'running'))}`);
    });
    const rows = await statuses();
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r[1] !== 'running')).toEqual([]);
    // Each went created → starting → running, and nothing else in between.
    const history = ((await run(api, tenant, 'SELECT source_id, status FROM mz_internal.mz_source_status_history ORDER BY occurred_at')).body as any).results[0].rows as string[][];
    const bySource = new Map<string, string[]>();
    for (const [id, status] of history) bySource.set(id!, [...(bySource.get(id!) ?? []), status!]);
    expect(bySource.size).toBe(30);
    for (const statuses of bySource.values()) {
      expect(statuses.slice(0, 2)).toEqual(['created', 'starting']);
      expect(statuses.at(-1)).toBe('running');
      expect(statuses.filter((s) => s === 'stalled' || s === 'failed')).toEqual([]);
    }
  });
});
