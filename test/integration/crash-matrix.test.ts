/**
 * The crash matrix: the process dies at each step of a CREATE and of a DROP — in the router
 * before and after it sends, in the executor before and after the data-plane call and before the
 * ack, and in the sweeper between claiming a replay and sending it. After a restart and at most
 * two sweeps, the invariant checker finds catalog and data plane in agreement.
 */
import { tableStores } from '../../shared/catalog/stores';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { Checker, isClean } from '../../shared/checker/checker';
import { FaultInjector } from '../../shared/dataplane/faults';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { SimulatedCrash } from '../../shared/errors';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, uniquePrefix } from '../helpers/pipeline';

let running: Pipeline | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** Starts (or restarts, on the same tables and queues) the pipeline. */
async function boot(prefix: string, faults: FaultInjector): Promise<Pipeline> {
  await running?.stop();
  running = await testPipeline('crash', { prefix, faults, visibilityTimeoutSeconds: 1 });
  return running;
}

async function quietThenCheck(p: Pipeline, tenant: string) {
  const replay = RETRY_POLICIES['sweeper.replay'];
  // At most two sweeps, far enough ahead that every replay window is open.
  for (let sweeps = 1; sweeps <= 2; sweeps++) {
    await p.sweeper.sweep(new Date(Date.now() + sweeps * replay.capMs));
    const settled = async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending');
    try {
      await eventually(settled, 8_000);
      break;
    } catch (err) {
      if (sweeps === 2) throw err;
    }
  }
  return new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane).check([tenant]);
}

/**
 * Runs `statement` with a crash armed at `point`, lets the crash happen, restarts the process on
 * the same state and checks that, once quiet, catalog and data plane agree. Returns the new pipeline.
 */
async function crashRestartCheck(prefix: string, faults: FaultInjector, point: string, sql: (q: string) => Promise<{ status: number }>, statement: string, tenant: string): Promise<Pipeline> {
  faults.crashAt(point, 1);
  const r = await sql(statement);
  expect(r.status).toBe(200);
  // Let the crash happen, then restart the process on the same state.
  await eventually(async () => faults.pendingCrashes() === 0, 10_000);
  const p = await boot(prefix, faults);
  const report = await quietThenCheck(p, tenant);
  expect(report.problems).toEqual([]);
  expect(isClean(report.counts)).toBe(true);
  return p;
}

const POINTS = ['router.before-send', 'router.after-send', 'executor.before-dataplane', 'executor.after-dataplane', 'executor.before-ack'] as const;

describe.each(['create', 'drop'] as const)('crash during %s', (phase) => {
  it.each(POINTS)('dying at %s: after restart and ≤ 2 sweeps, catalog and data plane agree', async (point) => {
    const prefix = uniquePrefix('crash');
    const faults = new FaultInjector();
    let p = await boot(prefix, faults);
    const { sql, tenant } = await sqlClient(p);
    if (phase === 'drop') {
      await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
      await eventually(async () => (await p.dataPlane.observe(tenant)).length === 2);
    }
    p = await crashRestartCheck(prefix, faults, point, sql, phase === 'create' ? "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)" : 'DROP CLUSTER c', tenant);
    expect(await p.dataPlane.observe(tenant)).toHaveLength(phase === 'create' ? 2 : 0);
  });
});

describe('crash mid-sweep', () => {
  it('between claiming a replay and sending it: the next sweeps still replay', async () => {
    const prefix = uniquePrefix('crash');
    const faults = new FaultInjector();
    let p = await boot(prefix, faults);
    // The effects' messages are lost (router off, as after an SQS emulator restart).
    await p.stop();
    running = await testPipeline('crash', { prefix, faults, workers: false, visibilityTimeoutSeconds: 1 });
    p = running;
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
    faults.crashAt('sweeper.after-claim', 1);
    await expect(p.sweeper.sweep(new Date(Date.now() + 60_000))).rejects.toBeInstanceOf(SimulatedCrash);

    // Restart with workers, but still without the router (the stream records stay unread).
    await p.stop();
    running = await testPipeline('crash', { prefix, faults, workers: false, visibilityTimeoutSeconds: 1 });
    p = running;
    for (const c of ['compute', 'storage', 'secrets'] as const) p.pollers[c].start();
    const report = await quietThenCheck(p, tenant);
    expect(report.problems).toEqual([]);
    expect(await p.dataPlane.observe(tenant)).toHaveLength(2);
  });
});

describe.each(['create', 'drop'] as const)('crash during a %s of a table fed by a source', (phase) => {
  it.each(POINTS)('dying at %s: the table\'s collection and ingestion export end up exactly as the catalog says', async (point) => {
    const prefix = uniquePrefix('crash');
    const faults = new FaultInjector();
    let p = await boot(prefix, faults);
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE counter IN CLUSTER c FROM LOAD GENERATOR COUNTER");
    if (phase === 'drop') await sql('CREATE TABLE counter_tbl FROM SOURCE counter');
    // The replica, the source's collection and ingestion (and the table's two resources before a drop).
    const ready = phase === 'create' ? 3 : 5;
    await eventually(async () => (await p.dataPlane.observe(tenant)).length === ready);
    p = await crashRestartCheck(prefix, faults, point, sql, phase === 'create' ? 'CREATE TABLE counter_tbl FROM SOURCE counter' : 'DROP TABLE counter_tbl', tenant);
    const tableResources = (await p.dataPlane.observe(tenant)).filter((x) => x.owner?.objectName === 'counter_tbl').map((x) => x.kind).sort();
    expect(tableResources).toEqual(phase === 'create' ? ['collection', 'ingestion'] : []);
  });
});

describe('crash while a cluster is scheduled ON REFRESH and a REFRESH EVERY view is created', () => {
  it.each(POINTS)('dying at %s: the replica carries its schedule and the dataflow its refresh schedule', async (point) => {
    const prefix = uniquePrefix('crash');
    const faults = new FaultInjector();
    let p = await boot(prefix, faults);
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc')");
    await eventually(async () => (await p.dataPlane.observe(tenant)).length === 1);
    p = await crashRestartCheck(
      prefix,
      faults,
      point,
      sql,
      "ALTER CLUSTER c SET (SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '5 minutes')); CREATE MATERIALIZED VIEW mv IN CLUSTER c WITH (REFRESH EVERY '1 day' ALIGNED TO '2026-01-01') AS SELECT 1",
      tenant,
    );
    const resources = await p.dataPlane.observe(tenant);
    expect(resources.find((r) => r.kind === 'replica')?.spec.schedule).toEqual({ kind: 'on_refresh', hydrationTimeEstimateMs: 300_000 });
    expect(resources.find((r) => r.kind === 'dataflow')?.spec.refresh).toEqual({ ats: [], everies: [{ intervalMs: 86_400_000, alignedToMs: Date.parse('2026-01-01T00:00:00Z') }] });
  });
});

describe('crash during ALTER SOURCE ... ADD SUBSOURCE', () => {
  it.each(POINTS)('dying at %s: the new subsource\'s collection and the source\'s new ingestion generation end up as the catalog says', async (point) => {
    const prefix = uniquePrefix('crash');
    const faults = new FaultInjector();
    let p = await boot(prefix, faults);
    const { sql, tenant } = await sqlClient(p);
    await sql(
      "CREATE CLUSTER c (SIZE = '25cc'); CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', USER 'u') WITH (VALIDATE = false); CREATE SOURCE pg_src IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR TABLES (public.orders AS orders)",
    );
    // The replica, the source's collection and ingestion, and the subsource's collection.
    await eventually(async () => (await p.dataPlane.observe(tenant)).length === 4);
    p = await crashRestartCheck(prefix, faults, point, sql, 'ALTER SOURCE pg_src ADD SUBSOURCE public.items AS items', tenant);
    const resources = await p.dataPlane.observe(tenant);
    expect(resources.filter((x) => x.owner?.objectName === 'items').map((x) => x.kind)).toEqual(['collection']);
    expect(resources.find((x) => x.kind === 'ingestion')?.generation).toBe(2);
  });
});

describe('crash during ALTER CONNECTION', () => {
  it.each(POINTS)("dying at %s: the connection's source ends up running its new generation with the new settings", async (point) => {
    const prefix = uniquePrefix('crash');
    const faults = new FaultInjector();
    let p = await boot(prefix, faults);
    const { sql, tenant } = await sqlClient(p);
    await sql(
      "CREATE CLUSTER c (SIZE = '25cc'); CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', USER 'u') WITH (VALIDATE = false); CREATE SOURCE pg_src IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR ALL TABLES",
    );
    // The replica, the source's collection and ingestion.
    await eventually(async () => (await p.dataPlane.observe(tenant)).length === 3);
    p = await crashRestartCheck(prefix, faults, point, sql, "ALTER CONNECTION pg SET (HOST = 'db2.internal') WITH (VALIDATE = false)", tenant);
    const ingestion = (await p.dataPlane.observe(tenant)).find((x) => x.kind === 'ingestion');
    expect(ingestion?.generation).toBe(2);
    expect(ingestion?.spec).toMatchObject({ connector: { options: { HOST: 'db2.internal' } } });
  });
});
