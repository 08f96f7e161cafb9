/**
 * The fast path for effects: the DDL function sends a commit's effects to their queues itself.
 * Without the router they still arrive; a crash between the commit and the send changes only
 * how soon they arrive (the stream and the router deliver them); the two copies of a message
 * never make two real changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

async function effects(tenant: string) {
  return (await tenantItems(p!, tenant)).filter((i) => i.type === 'effect');
}

/** Every effect applied, and the data plane's real changes: one create per replica. */
async function appliedOnce(tenant: string, replicas: number): Promise<void> {
  await eventually(async () => {
    const es = await effects(tenant);
    return es.length === replicas && es.every((e) => e.state === 'applied');
  }, 20_000);
  const creates = (await p!.dataPlane.actionLog(tenant)).filter((l) => l.action === 'create');
  expect(creates).toHaveLength(replicas);
  expect(new Set(creates.map((c) => c.resourceId)).size).toBe(replicas);
}

describe('fast path', () => {
  it("delivers a commit's effects with the router stopped", async () => {
    // Prepare: the stream is not read at all.
    p = await testPipeline('fastpath');
    await p.router.stop();
    const { sql, tenant } = await sqlClient(p);

    // Act
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)")).status).toBe(200);

    // Assess
    await appliedOnce(tenant, 2);
  });

  it('without it, effects wait for the router (the fast path is what delivered them above)', async () => {
    // Prepare
    p = await testPipeline('fastpath', { fastPath: false });
    await p.router.stop();
    const { sql, tenant } = await sqlClient(p);

    // Act
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)")).status).toBe(200);
    const compute = p.pollers.compute.invocations;

    // Assess: nothing reaches an executor until the router runs again (an absence: waited for, not polled).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(p.pollers.compute.invocations).toBe(compute);
    expect((await effects(tenant)).every((e) => e.state === 'pending')).toBe(true);
    p.router.start();
    await appliedOnce(tenant, 2);
  });

  it('a crash between the commit and the send changes only latency: the router delivers, the retry answers from the record', async () => {
    // Prepare
    p = await testPipeline('fastpath');
    const { sql, tenant } = await sqlClient(p);
    p.faults.crashAt('api.before-fast-path');
    const create = "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)";

    // Act: the function dies after its commit; the client retries with the same key.
    const first = await sql(create, { headers: { 'idempotency-key': 'k' } });
    const retry = await sql(create, { headers: { 'idempotency-key': 'k' } });

    // Assess
    expect(first.status).toBe(500);
    expect(retry.status).toBe(200);
    await appliedOnce(tenant, 2);
  });

  it('the fast copy and the router copy of each message make one real change', async () => {
    // Prepare: both paths on; several objects, one altered right after its create.
    p = await testPipeline('fastpath');
    const { sql, tenant } = await sqlClient(p);

    // Act
    for (let i = 0; i < 3; i++) expect((await sql(`CREATE CLUSTER c${i} (SIZE = '25cc', REPLICATION FACTOR = 2)`)).status).toBe(200);

    // Assess
    await appliedOnce(tenant, 6);
    // The router did route them too: the stream's copies reached the queues and were dropped or no-ops.
    expect(p.router.invocations).toBeGreaterThan(0);
  });
});
