/**
 * The crash matrix: the process dies at each step of a CREATE and of a DROP — in the router
 * before and after it sends, in the executor before and after the data-plane call and before the
 * ack, and in the sweeper between claiming a replay and sending it. After a restart and at most
 * two sweeps, the invariant checker finds catalog and data plane in agreement.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FaultInjector } from '../../shared/dataplane/faults';
import { SimulatedCrash } from '../../shared/errors';
import { CRASH_POINTS as POINTS, CrashHarness } from '../helpers/crash-matrix';
import { eventually, sqlClient, uniquePrefix } from '../helpers/pipeline';

const h = new CrashHarness('crash');
afterEach(() => h.stop());
const boot = h.boot.bind(h);
const quietThenCheck = h.quietThenCheck.bind(h);
const crashRestartCheck = h.crashRestartCheck.bind(h);

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
    // The effects' messages are lost (router off, as after an SQS emulator restart).
    let p = await boot(prefix, faults, { workers: false });
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
    faults.crashAt('sweeper.after-claim', 1);
    await expect(p.sweeper.sweep(new Date(Date.now() + 60_000))).rejects.toBeInstanceOf(SimulatedCrash);

    // Restart with workers, but still without the router (the stream records stay unread).
    p = await boot(prefix, faults, { workers: false });
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
