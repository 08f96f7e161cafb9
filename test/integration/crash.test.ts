/**
 * The executor dies after the data-plane call and before the ack: SQS redelivers the message
 * after its visibility timeout, the retry is a no-op on the data plane (generation fencing), and
 * the data plane ends with exactly one replica per catalog replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { dataPlaneReplicas, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('crash', { visibilityTimeoutSeconds: 1 });
});
afterAll(async () => {
  await p.stop();
});

describe('executor crash', () => {
  it.each(['executor.after-dataplane', 'executor.before-ack'])('dying at %s converges with no duplicate', async (point) => {
    // Prepare: the next two deliveries die at the crash point.
    const { sql, tenant } = await sqlClient(p);
    p.faults.crashAt(point, 2);
    const invocationsBefore = p.pollers.compute.invocations;
    const callsBefore = p.faults.calls;

    // Act
    const r = await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
    expect(r.status).toBe(200);

    // Assess: both effects end applied, after at least one redelivery.
    const effects = await eventually(async () => {
      const es = (await tenantItems(p, tenant)).filter((i) => i.type === 'effect');
      return es.length === 2 && es.every((e) => e.state === 'applied') && es;
    }, 15_000);
    // The crashed invocation's messages came back: more deliveries and data-plane calls than effects.
    expect(p.pollers.compute.invocations - invocationsBefore).toBeGreaterThanOrEqual(2);
    expect(p.faults.calls - callsBefore).toBeGreaterThan(2);
    const catalogReplicas = (await tenantItems(p, tenant)).filter((i) => i.type === 'object' && i.kind === 'cluster_replica');
    const replicas = await dataPlaneReplicas(p, tenant);
    expect(replicas.map((x) => x.resourceId).sort()).toEqual(catalogReplicas.map((x) => x.id).sort());
    // One real change per replica, although the data-plane call ran more than once.
    const creates = (await p.dataPlane.actionLog(tenant)).filter((l) => l.action === 'create');
    expect(creates).toHaveLength(2);
    expect(new Set(creates.map((c) => c.resourceId)).size).toBe(2);
    expect(effects.map((e) => e.objectId).sort()).toEqual(catalogReplicas.map((x) => x.id).sort());
  });
});
