/**
 * The crash matrix for the source kinds that have no case in crash-matrix.test.ts: MySQL, SQL
 * Server and webhook sources (with a CHECK that reads a secret). Each case dies at one point on
 * the way of the CREATE SOURCE, restarts, and checks catalog and data plane agree; then dies at
 * the same point on the way of the DROP SOURCE ... CASCADE, restarts and checks again. One boot
 * per point and kind holds both phases.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { FaultInjector } from '../../shared/dataplane/faults';
import { CRASH_POINTS, CrashHarness } from '../helpers/crash-matrix';
import { eventually, sqlClient, uniquePrefix } from '../helpers/pipeline';

const h = new CrashHarness('crashsrc');
afterEach(() => h.stop());

/** The resources each source owns on the data plane, by owner name, sorted. */
async function owned(p: Pipeline, tenant: string): Promise<string[]> {
  return (await p.dataPlane.observe(tenant))
    .filter((r) => r.kind !== 'replica')
    .map((r) => `${r.owner?.objectName}:${r.kind}`)
    .sort();
}

const KINDS = [
  {
    kind: 'MySQL',
    setup: "CREATE CONNECTION up TO MYSQL (HOST 'mysql.internal', USER 'mz') WITH (VALIDATE = false)",
    create: 'CREATE SOURCE shop IN CLUSTER c FROM MYSQL CONNECTION up (TEXT COLUMNS (shop.orders.note)) FOR TABLES (shop.orders AS orders)',
    resources: ['orders:collection', 'shop:collection', 'shop:ingestion'],
  },
  {
    kind: 'SQL Server',
    setup: "CREATE CONNECTION up TO SQL SERVER (HOST 'sql.internal', USER 'sa', DATABASE 'shop') WITH (VALIDATE = false)",
    create: 'CREATE SOURCE shop IN CLUSTER c FROM SQL SERVER CONNECTION up FOR TABLES (dbo.orders AS orders)',
    resources: ['orders:collection', 'shop:collection', 'shop:ingestion'],
  },
  {
    kind: 'webhook',
    setup: "CREATE SECRET hook_key AS 'k'",
    create: "CREATE SOURCE shop IN CLUSTER c FROM WEBHOOK BODY FORMAT JSON INCLUDE HEADERS CHECK (WITH (HEADERS, SECRET hook_key) headers->'x-key' = hook_key)",
    resources: ['shop:collection', 'shop:ingestion'],
  },
] as const;

describe.each(KINDS)('crash during CREATE and DROP of a $kind source', ({ setup, create, resources }) => {
  it.each(CRASH_POINTS)('dying at %s: after each restart and ≤ 2 sweeps, catalog and data plane agree', async (point) => {
    const prefix = uniquePrefix('crashsrc');
    const faults = new FaultInjector();
    let p = await h.boot(prefix, faults);
    const { sql, tenant } = await sqlClient(p);
    const ready = await sql(`CREATE CLUSTER c (SIZE = '25cc'); ${setup}`);
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    await eventually(async () => (await p.dataPlane.observe(tenant)).length === 1);

    p = await h.crashRestartCheck(prefix, faults, point, sql, create, tenant);
    expect(await owned(p, tenant)).toEqual(resources);

    // The restarted process listens on a new port.
    const { sql: again } = await sqlClient(p, tenant);
    p = await h.crashRestartCheck(prefix, faults, point, again, 'DROP SOURCE shop CASCADE', tenant);
    expect(await owned(p, tenant)).toEqual([]);
    expect((await p.dataPlane.observe(tenant)).map((r) => r.kind)).toEqual(['replica']);
  });
});
