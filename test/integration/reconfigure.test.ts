/**
 * Graceful reconfiguration through the local pipeline (`ALTER CLUSTER ... WITH (WAIT ...)`): the
 * pending replicas come up beside the current ones, the reconfiguration step waits for the data
 * plane to report them hydrated (or for the deadline), then ONE commit keeps either the old or the
 * new replica set. The crash matrix kills the router, the executor and the sweeper at each step:
 * after a restart and a few sweeps exactly one replica set runs — never none, never both.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import type { ReplicaObject } from '../../shared/catalog/model';
import { tableStores } from '../../shared/catalog/stores';
import { Checker, isClean } from '../../shared/checker/checker';
import { FaultInjector, type FaultKind } from '../../shared/dataplane/faults';
import { timestampOf } from '../../shared/api/timestamps';
import { SimulatedCrash } from '../../shared/errors';
import { dataPlaneReplicas, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, uniquePrefix, type SqlClient, ok } from '../helpers/pipeline';

let running: Pipeline | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function boot(prefix: string, faults: FaultInjector, o: { workers?: boolean } = {}): Promise<Pipeline> {
  await running?.stop();
  running = await testPipeline('reconf', { prefix, faults, visibilityTimeoutSeconds: 1, ...o });
  return running;
}


const rows = async (sql: SqlClient, query: string): Promise<any[][]> => (await ok(sql, query))[0].rows;

/**
 * Sweeps until no effect is pending. Each sweep runs further ahead than the last (a sweep's replay
 * claim moves the effect's last activity to that sweep's time), so every replay window is open.
 */
let sweepAhead = 0;
async function quiesce(p: Pipeline, tenant: string): Promise<void> {
  await eventually(async () => {
    sweepAhead += 1;
    await p.sweeper.sweep(new Date(Date.now() + sweepAhead * 700_000), { fullPass: false });
    return (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending');
  }, 60_000, 300);
}

/** The replicas the catalog holds for cluster `c` (live only). */
async function catalogReplicas(p: Pipeline, tenant: string): Promise<ReplicaObject[]> {
  const objects = await tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }).catalog.listObjects(tenant);
  return objects.filter((o): o is ReplicaObject => o.kind === 'cluster_replica' && !o.dropped);
}

/** Exactly one replica set runs, in the catalog and on the data plane, and nothing else is out of step. */
async function expectOneSet(p: Pipeline, tenant: string, size: string, factor: number): Promise<void> {
  const replicas = await catalogReplicas(p, tenant);
  expect(replicas.map((r) => [r.name, r.spec.size, Boolean(r.spec.pending)]).sort()).toEqual(
    Array.from({ length: factor }, (_, i) => [`r${i + 1}`, size, false]),
  );
  const running = await dataPlaneReplicas(p, tenant);
  expect(running.map((r) => [r.owner!.objectId, (r.spec as { size?: string }).size]).sort()).toEqual(replicas.map((r) => [r.id, size]).sort());
  const report = await new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane).check([tenant]);
  expect(report.problems).toEqual([]);
  expect(isClean(report.counts)).toBe(true);
}

/** A pipeline with cluster `c` (25cc, one replica) running on the data plane. */
async function clusterRunning(faults: FaultInjector): Promise<{ p: Pipeline; sql: SqlClient; tenant: string }> {
  const p = await boot(uniquePrefix('reconf'), faults);
  const { sql, tenant } = await sqlClient(p);
  await ok(sql, "CREATE CLUSTER c (SIZE = '25cc')");
  await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 1);
  return { p, sql, tenant };
}

/**
 * A pipeline with cluster `c` (25cc, `factor` replicas) running, then restarted without workers
 * nor router: the queued messages are lost and nothing moves until the test says so.
 */
async function clusterThenStill(faults: FaultInjector, factor: number): Promise<{ prefix: string; p: Pipeline; sql: SqlClient; tenant: string }> {
  const prefix = uniquePrefix('reconf');
  const first = await boot(prefix, faults);
  const { sql, tenant } = await sqlClient(first);
  await ok(sql, `CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = ${factor})`);
  await eventually(async () => (await dataPlaneReplicas(first, tenant)).length === factor);
  const p = await boot(prefix, faults, { workers: false });
  return { prefix, p, tenant, sql: (await sqlClient(p, tenant)).sql };
}

describe('graceful reconfiguration', () => {
  it("a commit at the deadline keeps the current replicas until the new ones run: WAIT FOR '0s' with a pending replica's first provisioning attempt failing", async () => {
    const faults = new FaultInjector();
    const { p, sql, tenant } = await clusterRunning(faults);
    const old = (await dataPlaneReplicas(p, tenant)).map((r) => r.owner!.objectId);
    const logged = (await p.dataPlane.actionLog(tenant)).length;
    // The deadline is past at once; the new replica comes up only on its retry, a second later.
    faults.failNext(1, 'transient', 'no capacity for 50cc yet');
    await ok(sql, "ALTER CLUSTER c SET (SIZE = '50cc') WITH (WAIT FOR '0s')");
    await quiesce(p, tenant);
    await expectOneSet(p, tenant, '50cc', 1);
    expectAlwaysServing(await replicaHistory(p, tenant, logged, old), old, 1);
  });

  it('WAIT UNTIL READY: the pending replicas replace the current ones once hydrated; the view shows the deadline meanwhile', async () => {
    // Nothing moves until the pollers start, so the pending state can be read as it stands.
    const { p, sql, tenant } = await clusterThenStill(new FaultInjector(), 2);
    const [altered] = await ok(sql, "ALTER CLUSTER c SET (SIZE = '50cc') WITH (WAIT UNTIL READY (TIMEOUT = '10m', ON TIMEOUT = 'ROLLBACK'))");
    expect(altered.ok).toBe('ALTER CLUSTER');
    expect(JSON.stringify(altered.notices)).toContain('r1-pending, r2-pending');
    const pending = await rows(sql, 'SELECT cluster_name, size, replication_factor, strategy, on_timeout, pending_replicas, deadline FROM mz_internal.mz_pending_cluster_reconfigurations');
    expect(pending).toHaveLength(1);
    expect(pending[0]!.slice(0, 6)).toEqual(['c', '50cc', '2', 'wait until ready', 'rollback', 'r1-pending, r2-pending']);
    expect(timestampOf(pending[0]![6])!.getTime() - Date.now()).toBeGreaterThan(5 * 60_000);
    const deadline = pending[0]![6];
    // mz_cluster_replicas keeps Materialize's columns; the pending ones are its `-pending` names and mz_pending_cluster_replicas.
    const [replicas] = await ok(sql, 'SELECT * FROM mz_cluster_replicas ORDER BY name');
    expect(replicas.desc.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'name', 'cluster_id', 'size', 'availability_zone', 'owner_id', 'disk']);
    expect(replicas.rows.map((r: unknown[]) => r[1])).toEqual(['r1', 'r1-pending', 'r2', 'r2-pending']);
    const pendingIds = (await rows(sql, 'SELECT id FROM mz_internal.mz_pending_cluster_replicas')).flat();
    expect(pendingIds.sort()).toEqual(replicas.rows.filter((r: unknown[]) => String(r[1]).endsWith('-pending')).map((r: unknown[]) => r[0]).sort());
    // Each replica's part in the reconfiguration and its deadline, by replica id.
    const parts = await rows(sql, 'SELECT replica_id, replica_name, role, strategy, on_timeout, deadline FROM mz_internal.mz_cluster_replica_reconfigurations ORDER BY replica_name');
    expect(parts).toEqual(replicas.rows.map((r: unknown[]) => [r[0], r[1], String(r[1]).endsWith('-pending') ? 'pending' : 'current', 'wait until ready', 'rollback', deadline]));
    // SHOW CLUSTER REPLICAS keeps Materialize's columns too, and says it in a notice.
    const [shown] = await ok(sql, 'SHOW CLUSTER REPLICAS');
    expect(shown.desc.columns.map((c: { name: string }) => c.name)).toEqual(['cluster', 'replica', 'size', 'ready', 'comment']);
    expect(shown.notices).toEqual([{ severity: 'notice', message: altered.notices[0].message }]);
    // The notice writes the deadline as ISO text; the relation as Materialize's HTTP API writes a timestamptz.
    expect(shown.notices[0].message).toContain(timestampOf(deadline)!.toISOString());
    // Another reconfiguration is refused while this one runs, as in Materialize.
    const again = await sql("ALTER CLUSTER c SET (SIZE = '100cc') WITH (WAIT FOR '1s')");
    expect(again.body.results[0].error).toMatchObject({ code: '55006', message: 'cannot alter clusters with pending updates' });

    for (const c of ['compute', 'storage', 'secrets'] as const) p.pollers[c].start();
    await quiesce(p, tenant);
    await expectOneSet(p, tenant, '50cc', 2);
    expect(await rows(sql, 'SELECT * FROM mz_internal.mz_pending_cluster_reconfigurations')).toEqual([]);
    expect(await rows(sql, 'SELECT * FROM mz_internal.mz_cluster_replica_reconfigurations')).toEqual([]);
    expect((await ok(sql, 'SHOW CLUSTER REPLICAS'))[0].notices).toEqual([]);
    expect(await rows(sql, "SELECT size, replication_factor FROM mz_clusters WHERE name = 'c'")).toEqual([['50cc', '2']]);
  });

  it('ON TIMEOUT = ROLLBACK: replicas that never hydrate are dropped at the deadline and the old ones stay', async () => {
    const faults = new FaultInjector();
    const { p, sql, tenant } = await clusterRunning(faults);
    // The pending replica's one data-plane call fails for good: it never comes up.
    faults.failNext(1, 'terminal', 'no capacity for 50cc');
    await ok(sql, "ALTER CLUSTER c SET (SIZE = '50cc') WITH (WAIT UNTIL READY (TIMEOUT = '2s', ON TIMEOUT = 'ROLLBACK'))");
    await quiesce(p, tenant);
    await expectOneSet(p, tenant, '25cc', 1);
    expect(await rows(sql, "SELECT size FROM mz_clusters WHERE name = 'c'")).toEqual([['25cc']]);
    expect(await rows(sql, 'SELECT * FROM mz_internal.mz_pending_cluster_reconfigurations')).toEqual([]);
  });

  it("ON TIMEOUT = 'COMMIT' with a replica that can never run: rolled back at the deadline, so the old ones keep serving", async () => {
    const faults = new FaultInjector();
    const { p, sql, tenant } = await clusterRunning(faults);
    faults.failNext(1, 'terminal', 'no capacity for 50cc');
    await ok(sql, "ALTER CLUSTER c SET (SIZE = '50cc') WITH (WAIT UNTIL READY (TIMEOUT = '0s', ON TIMEOUT = 'COMMIT'))");
    await quiesce(p, tenant);
    await expectOneSet(p, tenant, '25cc', 1);
    expect(await rows(sql, "SELECT size FROM mz_clusters WHERE name = 'c'")).toEqual([['25cc']]);
    const step = (await tenantItems(p, tenant)).find((i) => i.type === 'effect' && i.kind === 'reconfiguration');
    expect(step).toMatchObject({ state: 'applied', lastError: expect.stringContaining('r1-pending could not be provisioned') });
  });

  it("WAIT FOR '0s': cuts over at once", async () => {
    const p = await boot(uniquePrefix('reconf'), new FaultInjector());
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc')");
    await ok(sql, "ALTER CLUSTER c SET (SIZE = '50cc', REPLICATION FACTOR = 2) WITH (WAIT FOR '0s')");
    await quiesce(p, tenant);
    await expectOneSet(p, tenant, '50cc', 2);
  });
});

/** Points in the executor and the router on the way of a graceful reconfiguration. */
const POINTS = [
  'router.before-send',
  'router.after-send',
  'executor.before-dataplane',
  'executor.after-dataplane',
  'reconfigure.before-commit',
  'reconfigure.after-commit',
  'executor.before-ack',
  // After a batch settled effects, before it sends the tenant's next pending ones: the sweeper sends them.
  'executor.before-next',
] as const;

/**
 * How a reconfiguration of the crash matrix settles: its WITH clause, what its pending replicas'
 * first data-plane calls meet, and the reason the settling commit records (its transaction's statement).
 */
interface Settling {
  readonly wait: string;
  readonly outcome: 'commit' | 'rollback';
  readonly pendingFault?: FaultKind;
  readonly reason: RegExp;
}

const SETTLINGS = {
  hydrated: { wait: "WAIT UNTIL READY (TIMEOUT = '10m', ON TIMEOUT = 'ROLLBACK')", outcome: 'commit', reason: /the pending replicas are hydrated/ },
  // The pending replicas come up but never hydrate: the deadline commits them all the same.
  'ON TIMEOUT = COMMIT': { wait: "WAIT UNTIL READY (TIMEOUT = '0s', ON TIMEOUT = 'COMMIT')", outcome: 'commit', pendingFault: 'apply-unhealthy', reason: /timeout lapsed .*ON TIMEOUT = COMMIT/ },
  // The pending replicas never come up: the deadline drops them and the current ones stay.
  'ON TIMEOUT = ROLLBACK': { wait: "WAIT UNTIL READY (TIMEOUT = '0s', ON TIMEOUT = 'ROLLBACK')", outcome: 'rollback', pendingFault: 'terminal', reason: /timeout lapsed .*ON TIMEOUT = ROLLBACK/ },
  // Cut over at the end of the wait, hydrated or not.
  'WAIT FOR': { wait: "WAIT FOR '1s'", outcome: 'commit', reason: /the wait of the reconfiguration ended/ },
} as const satisfies Record<string, Settling>;

/** The reasons the reconfiguration's settling commits recorded since `since` (ISO), oldest first. */
async function settleReasons(p: Pipeline, tenant: string, since: string): Promise<string[]> {
  return (await tenantItems(p, tenant))
    .filter((i) => i.type === 'txn' && i.principal === 'system:reconfiguration' && i.createdAt >= since)
    .sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)))
    .flatMap((i) => i.statements as string[]);
}

/**
 * Replays the data plane's action log from `from` on (the entries after the ALTER), starting with
 * the `old` replicas running, and returns every replica set that ran along the way.
 */
async function replicaHistory(p: Pipeline, tenant: string, from: number, old: readonly string[]): Promise<string[][]> {
  const running = new Set(old);
  const history = [[...running].sort()];
  for (const e of (await p.dataPlane.actionLog(tenant)).slice(from)) {
    if (e.kind !== 'replica' || (e.action !== 'create' && e.action !== 'drop')) continue;
    if (e.action === 'create') running.add(e.resourceId);
    else running.delete(e.resourceId);
    history.push([...running].sort());
  }
  return history;
}

/** At every moment the old replica set, or a whole new one, was running: never none, never half. */
function expectAlwaysServing(history: readonly string[][], old: readonly string[], factor: number): void {
  for (const running of history) {
    const oldUp = old.every((id) => running.includes(id));
    const newUp = running.filter((id) => !old.includes(id)).length >= factor;
    expect(oldUp || newUp, `replicas running: ${JSON.stringify(running)} (old: ${JSON.stringify(old)})`).toBe(true);
  }
}

/**
 * One crash-matrix run per step: the n-th pass of `point` dies, for n = 1, 2, ... until a
 * reconfiguration passes `point` fewer than n times (every step it passes has then died once).
 * Each run alters cluster `c` to the other size, drives it until the process died, restarts the
 * process, lets it settle, and checks the history of running replicas, the end state and the
 * reason the settle recorded. A rollback keeps the size (the pending replicas ask for 100cc).
 * `o.stillRouter`: the router stays off, so every message after the ALTER is a sweep's replay.
 */
async function everyStep(point: string, factor: number, settling: Settling, o: { stillRouter?: boolean } = {}): Promise<number> {
  const faults = new FaultInjector();
  const start = async (prefix: string) => {
    const p = await boot(prefix, faults, o.stillRouter ? { workers: false } : {});
    if (o.stillRouter) for (const c of ['compute', 'storage', 'secrets'] as const) p.pollers[c].start();
    return p;
  };
  const still = await clusterThenStill(faults, factor);
  const { prefix, tenant } = still;
  let p = await start(prefix);
  let size = '25cc';
  let died = 0;
  const rollback = settling.outcome === 'rollback';
  for (let n = 1; ; n++) {
    const { sql } = await sqlClient(p, tenant);
    const old = (await dataPlaneReplicas(p, tenant)).map((r) => r.owner!.objectId).sort();
    expect(old).toHaveLength(factor);
    const logged = (await p.dataPlane.actionLog(tenant)).length;
    const next = rollback ? size : size === '25cc' ? '50cc' : '25cc';
    const since = new Date().toISOString();
    if (settling.pendingFault) faults.failNext(factor, settling.pendingFault, `no capacity for ${rollback ? '100cc' : next}`);
    faults.crashAt(point, 1, n - 1);
    await ok(sql, `ALTER CLUSTER c SET (SIZE = '${rollback ? '100cc' : next}') WITH (${settling.wait})`);
    // Drive it (the points past the first decision are reached on a replay) until it died or settled.
    let settled = false;
    await eventually(async () => {
      if (faults.pendingCrashes() === 0) return true;
      sweepAhead += 1;
      await p.sweeper.sweep(new Date(Date.now() + sweepAhead * 700_000), { fullPass: false }).catch((err) => {
        if (!(err instanceof SimulatedCrash)) throw err;
      });
      settled = faults.pendingCrashes() > 0 && (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending');
      return faults.pendingCrashes() === 0 || settled;
    }, 60_000, 300);
    const passedFewer = faults.pendingCrashes() > 0;
    if (passedFewer) faults.clear();
    else {
      died++;
      p = await start(prefix);
      await quiesce(p, tenant);
    }
    await expectOneSet(p, tenant, next, factor);
    expectAlwaysServing(await replicaHistory(p, tenant, logged, old), old, factor);
    const reasons = await settleReasons(p, tenant, since);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(settling.reason);
    // This reconfiguration passed `point` fewer than n times: every step has died once.
    if (passedFewer) return died;
    size = next;
  }
}

describe('crash matrix: graceful reconfiguration', () => {
  it.each(POINTS)('dying at every pass of %s: never none serving, and after restart and sweeps one replica set alone runs', async (point) => {
    const died = await everyStep(point, 2, SETTLINGS.hydrated);
    expect(died).toBeGreaterThanOrEqual(1);
  });

  it.each(['commit', 'rollback'] as const)('the sweeper dying at every claim between claiming a step and sending it (%s): never none serving; the next sweeps settle it', async (outcome) => {
    // The router stays off: every step of the reconfiguration after the ALTER is a sweep's replay.
    const died = await everyStep('sweeper.after-claim', 1, outcome === 'commit' ? SETTLINGS.hydrated : SETTLINGS['ON TIMEOUT = ROLLBACK'], { stillRouter: true });
    // How many steps the sweeper sends depends on timing: an executor that settles one of the
    // tenant's effects admits and sends the next pending one itself (shared/router/admission.ts),
    // so some steps never reach a sweeper claim (2 or 3 of them did here). Every claim there is
    // dies once, and everyStep checks the serving history after each.
    expect(died).toBeGreaterThanOrEqual(1);
  });
});

/**
 * The other ways a reconfiguration settles differ from the hydrated one only in the step's
 * decision: their matrix dies at the step's own points and at the ack every effect passes (the
 * router's and the data-plane call's points are the same for all four, above).
 */
const STEP_POINTS = ['reconfigure.before-commit', 'reconfigure.after-commit', 'executor.before-ack'] as const;

describe.each(['WAIT FOR', 'ON TIMEOUT = COMMIT', 'ON TIMEOUT = ROLLBACK'] as const)('crash matrix: a reconfiguration settled by %s', (way) => {
  it.each(STEP_POINTS)('dying at every pass of %s: never none serving, the settle records why, and one replica set alone runs', async (point) => {
    const died = await everyStep(point, 1, SETTLINGS[way]);
    expect(died).toBeGreaterThanOrEqual(1);
  });
});

describe('managed / unmanaged conversion', () => {
  it('a managed cluster becomes unmanaged, takes a replica by hand, and becomes managed again with no data-plane change but the new replica', async () => {
    const p = await boot(uniquePrefix('reconf'), new FaultInjector());
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
    await ok(sql, 'ALTER CLUSTER c SET (MANAGED = false)');
    expect(await rows(sql, "SELECT managed, size, replication_factor FROM mz_clusters WHERE name = 'c'")).toEqual([[false, null, null]]);
    await ok(sql, "CREATE CLUSTER REPLICA c.r3 (SIZE = '25cc')");
    const refused = await sql("ALTER CLUSTER c SET (MANAGED, SIZE = '50cc')");
    expect(refused.body.results[0].error).toMatchObject({ code: '22023', message: 'Cluster replicas of size 25cc do not match expected SIZE 50cc' });
    await ok(sql, 'ALTER CLUSTER c SET (MANAGED)');
    expect(await rows(sql, "SELECT managed, size, replication_factor FROM mz_clusters WHERE name = 'c'")).toEqual([[true, '25cc', '3']]);
    await quiesce(p, tenant);
    await expectOneSet(p, tenant, '25cc', 3);
    // Managed again: its replicas are the cluster's to change.
    const manual = await sql("CREATE CLUSTER REPLICA c.r4 (SIZE = '25cc')");
    expect(manual.body.results[0].error.message).toBe('cannot modify managed cluster c');
  });
});
