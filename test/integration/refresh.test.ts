/**
 * REFRESH options of materialized views and `SCHEDULE = ON REFRESH` clusters through the local
 * pipeline: the purified schedule reaches the data plane with the view's dataflow, the cluster's
 * replica carries its schedule (the data plane runs it only around refreshes), the system relations
 * and SHOW CREATE show them, and a bad option commits nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { settledDataPlane } from '../helpers/catalog';
import { rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('refresh');
});
afterAll(async () => {
  await p?.stop();
});

const settled = (tenant: string) => settledDataPlane(p, tenant);

describe('REFRESH options and SCHEDULE = ON REFRESH', () => {
  it('sends the refresh schedule and the replica schedule to the data plane and shows them', async () => {
    const { sql, tenant } = await sqlClient(p);
    const before = Date.now();
    const setup = await sql(
      [
        "CREATE CLUSTER sched (SIZE = '25cc', SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '10 minutes'))",
        'CREATE TABLE t (a int)',
        "CREATE MATERIALIZED VIEW mv IN CLUSTER sched WITH (REFRESH EVERY '1 day', REFRESH AT '3000-01-01 23:59') AS SELECT a FROM t",
        'CREATE MATERIALIZED VIEW plain IN CLUSTER sched AS SELECT a FROM t',
      ].join('; '),
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const after = Date.now();
    let resources = await settled(tenant);
    const byName = (kind: string, name: string) => resources.find((r) => r.kind === kind && r.owner?.objectName === name)!;
    const refresh = byName('dataflow', 'mv').spec.refresh as { ats: number[]; everies: { intervalMs: number; alignedToMs: number }[] };
    expect(refresh.ats).toEqual([Date.parse('3000-01-01T23:59:00Z')]);
    expect(refresh.everies).toHaveLength(1);
    expect(refresh.everies[0]!.intervalMs).toBe(86_400_000);
    // ALIGNED TO defaults to the statement's time (Materialize's purification).
    expect(refresh.everies[0]!.alignedToMs).toBeGreaterThanOrEqual(before - 1000);
    expect(refresh.everies[0]!.alignedToMs).toBeLessThanOrEqual(after + 1000);
    expect(byName('dataflow', 'plain').spec.refresh).toBeUndefined();
    expect(byName('replica', 'r1').spec.schedule).toEqual({ kind: 'on_refresh', hydrationTimeEstimateMs: 600_000 });

    const createSql = (await rows(sql, 'SHOW CREATE MATERIALIZED VIEW mv'))[0]![1];
    expect(createSql).toContain(`REFRESH = EVERY '1 day' ALIGNED TO '${refresh.everies[0]!.alignedToMs}'::mz_timestamp`);
    const strategies = await rows(sql, 'SELECT type, interval, aligned_to, at FROM mz_internal.mz_materialized_view_refresh_strategies ORDER BY type');
    expect(strategies).toEqual([
      // timestamptz, as Materialize's HTTP API writes it: epoch milliseconds, a dot, the microseconds beyond them.
      ['at', null, null, `${Date.parse('3000-01-01T23:59:00Z')}.000`],
      ['every', '1 day', `${refresh.everies[0]!.alignedToMs}.000`, null],
      ['on-commit', null, null, null],
    ]);
    expect(await rows(sql, 'SELECT type, refresh_hydration_time_estimate FROM mz_internal.mz_cluster_schedules')).toEqual([['on-refresh', '00:10:00']]);

    // Back to MANUAL: the replica is ensured again (a new generation) without the schedule.
    const gen = byName('replica', 'r1').generation;
    expect((await sql('ALTER CLUSTER sched RESET (SCHEDULE)')).status).toBe(200);
    resources = await settled(tenant);
    expect(byName('replica', 'r1').generation).toBeGreaterThan(gen);
    expect(byName('replica', 'r1').spec.schedule).toBeUndefined();
    expect(await rows(sql, 'SELECT type, refresh_hydration_time_estimate FROM mz_internal.mz_cluster_schedules')).toEqual([['manual', null]]);
  });

  it('answers a bad REFRESH option with its SQLSTATE and position, committing nothing', async () => {
    const { sql } = await sqlClient(p);
    const text = "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE MATERIALIZED VIEW bad WITH (REFRESH EVERY '1 month') AS SELECT 1";
    const r = await sql(text);
    expect(r.status).toBe(400);
    expect(r.body.results.at(-1).error).toMatchObject({ code: 'XX000', message: 'REFRESH interval must not involve units larger than days' });
    expect(await rows(sql, "SELECT name FROM mz_catalog.mz_clusters WHERE name = 'quickstart'")).toEqual([]);
  });
});
