/**
 * The chaos run's checks after quiescence (bench/chaos/quiescence.ts): each cluster runs one
 * replica set, the one its catalog entry describes, and nothing else; every resource of a live
 * object is held at its generation with the spec the executor would ensure now.
 */
import { describe, expect, it } from 'vitest';
import { checkReplicaSets, checkResources } from '../../bench/chaos/quiescence';
import type { CatalogObject } from '../../shared/catalog/model';
import type { ObservedResource } from '../../shared/dataplane/contract';

const NOW = '2026-01-01T00:00:00.000Z';
const base = { version: 1, dependents: 0, dependsOn: [], owner: 'tester', createdAt: NOW, updatedAt: NOW };
const ON_REFRESH = { kind: 'on_refresh', hydrationTimeEstimateMs: 3_600_000 } as const;

function cluster(spec: Record<string, unknown>): CatalogObject {
  return { ...base, id: 'c1', kind: 'cluster', name: 'c', generation: 2, spec: { managed: true, size: '50cc', replicationFactor: 2, options: {}, ...spec } } as unknown as CatalogObject;
}
function replica(id: string, name: string, spec: Record<string, unknown> = {}, generation = 1): CatalogObject {
  return { ...base, id, kind: 'cluster_replica', name, generation, spec: { size: '50cc', clusterId: 'c1', managed: true, options: {}, ...spec } } as unknown as CatalogObject;
}
function running(id: string, spec: Record<string, unknown> = {}, generation = 1): ObservedResource {
  return {
    tenant: 't',
    kind: 'replica',
    resourceId: id,
    owner: { tenant: 't', objectId: id, objectKind: 'cluster_replica', objectName: id },
    generation,
    health: 'healthy',
    createdAt: NOW,
    spec: { clusterId: 'c1', size: '50cc', ...spec },
  };
}

describe('the replica-set check', () => {
  it('passes one replica set that matches its cluster, in the catalog and on the data plane', () => {
    const r = checkReplicaSets('t', [cluster({}), replica('r1', 'r1'), replica('r2', 'r2')], [running('r1'), running('r2')], []);
    expect(r).toEqual({ clusters: 1, problems: [] });
  });

  it('finds both sets after quiescence, a reconfiguration left over, a replica at the old size', () => {
    const both = checkReplicaSets('t', [cluster({}), replica('r1', 'r1'), replica('r2', 'r2'), replica('p1', 'r1-pending', { pending: true })], [running('r1'), running('r2'), running('p1')], []);
    expect(both.problems).toEqual([expect.stringMatching(/has replicas r1, r1-pending, r2; a managed cluster of REPLICATION FACTOR 2 has r1, r2/), expect.stringMatching(/replica r1-pending is still pending/)]);
    const left = checkReplicaSets('t', [cluster({ reconfiguration: { size: '100cc', deadline: NOW } }), replica('r1', 'r1'), replica('r2', 'r2')], [running('r1'), running('r2')], []);
    expect(left.problems).toEqual([expect.stringMatching(/still has a reconfiguration to 100cc/)]);
    const old = checkReplicaSets('t', [cluster({}), replica('r1', 'r1', { size: '25cc' }), replica('r2', 'r2')], [running('r1', { size: '25cc' }), running('r2')], []);
    expect(old.problems).toEqual([expect.stringMatching(/replica r1 is of size 25cc; the cluster's is 50cc/)]);
  });

  it("finds the replica of an ON REFRESH cluster running with no schedule (what a graceful reconfiguration left before its fix)", () => {
    const c = cluster({ replicationFactor: 1, schedule: ON_REFRESH });
    const r = checkReplicaSets('t', [c, replica('p1', 'r1')], [running('p1')], []);
    expect(r.problems).toEqual([expect.stringMatching(/replica r1 has schedule null; the cluster's is \{"kind":"on_refresh"/)]);
  });

  it('finds the data plane out of step (missing, extra, older generation), and leaves out a replica whose effect failed for good', () => {
    const r = checkReplicaSets('t', [cluster({}), replica('r1', 'r1', {}, 2), replica('r2', 'r2')], [running('r1', {}, 1), running('x9')], []);
    expect(r.problems).toEqual([
      expect.stringMatching(/replica r1 runs generation 1 on the data plane; the catalog is at 2/),
      expect.stringMatching(/replica r2 \(r2\) does not run on the data plane/),
      expect.stringMatching(/the data plane runs replica x9/),
    ]);
    const failed = checkReplicaSets('t', [cluster({}), replica('r1', 'r1'), replica('r2', 'r2')], [running('r1')], [{ objectId: 'r2', generation: 1, state: 'failed', kind: 'replica' }]);
    expect(failed.problems).toEqual([]);
  });
});

describe('the resource check', () => {
  const table = (generation: number, spec: Record<string, unknown> = {}): CatalogObject =>
    ({ ...base, id: 't1', kind: 'table', name: 't', generation, dependsOn: ['s1'], spec: { schemaId: 'sc', createSql: '', columns: [], ...spec } }) as unknown as CatalogObject;
  const source = { ...base, id: 's1', kind: 'source', name: 's', generation: 2, spec: { schemaId: 'sc', createSql: '', clusterId: 'c2', sourceType: 'load-generator', options: { GENERATOR: 'COUNTER' } } } as unknown as CatalogObject;
  const held = (kind: 'collection' | 'ingestion', objectId: string, generation: number, spec: Record<string, unknown>): ObservedResource => ({
    tenant: 't',
    kind,
    resourceId: objectId,
    owner: { tenant: 't', objectId, objectKind: 'table', objectName: objectId },
    generation,
    health: 'healthy',
    createdAt: NOW,
    spec,
  });
  const policy = (lagMs: number) => ({ objectKind: 'table', readPolicy: { kind: 'lag', lagMs } });

  it('passes a resource held at its generation with the spec the catalog gives', async () => {
    expect(await checkResources('t', [table(1)], [held('collection', 't1', 1, policy(1_000))], [])).toEqual({ resources: 1, problems: [] });
  });

  it('finds an acknowledged ALTER that never reached the data plane: an older generation, or the old read policy', async () => {
    const older = await checkResources('t', [table(2, { retainHistoryMs: 5_000 })], [held('collection', 't1', 1, policy(1_000))], []);
    expect(older.problems).toEqual([expect.stringMatching(/its collection is held at generation 1 on the data plane; the catalog is at 2/)]);
    const stale = await checkResources('t', [table(2, { retainHistoryMs: 5_000 })], [held('collection', 't1', 2, policy(1_000))], []);
    expect(stale.problems).toEqual([expect.stringMatching(/its collection is .*"lagMs":1000.* on the data plane; the catalog says .*"lagMs":5000/)]);
    // A failed ensure is visible on purpose (mz_pending_effects): not counted here.
    expect((await checkResources('t', [table(2, { retainHistoryMs: 5_000 })], [held('collection', 't1', 1, policy(1_000))], [{ objectId: 't1', generation: 2, state: 'failed', kind: 'collection' }])).problems).toEqual([]);
  });

  it("finds a source-fed table's export still on the cluster its source left (what ALTER SOURCE ... SET CLUSTER left before its fix)", async () => {
    const t = table(1, { fromSource: { sourceId: 's1', reference: '' } });
    const exported = held('ingestion', 't1', 1, { clusterId: 'c1', connector: { type: 'load-generator', options: { GENERATOR: 'COUNTER' }, secretRefs: {} } });
    const r = await checkResources('t', [source, t], [held('collection', 't1', 1, policy(1_000)), exported], []);
    expect(r.problems).toEqual([expect.stringMatching(/table t \(t1\): its ingestion is \{"clusterId":"c1".*the catalog says \{"clusterId":"c2"/)]);
  });
});
