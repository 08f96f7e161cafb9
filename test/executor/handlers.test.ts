/**
 * The effect kinds' handlers (shared/executor/handlers), each alone, against fakes of the data
 * plane, the secret store and the status store: what a kind does between reading its effect and
 * settling it. The executor's shared steps around them are tested through the pipeline
 * (effects.test.ts, mark-starting.test.ts, executor-batch.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { CatalogObject } from '../../shared/catalog/model';
import type { StoredStatus } from '../../shared/catalog/status-store';
import type { ApplyResult, DataPlane, ResourceKind, ResourceOwner } from '../../shared/dataplane/contract';
import type { EffectRecord, ResourceEffectKind } from '../../shared/effects/model';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { DataPlaneError } from '../../shared/errors';
import { EFFECT_HANDLERS, type EffectContext, type ExecutorDeps } from '../../shared/executor/handlers';
import type { ResourceHandler, StepHandler } from '../../shared/executor/handlers/types';
import type { SecretStore } from '../../shared/secrets/store';

const NOW = new Date('2026-12-01T00:00:00.000Z');

const effect = (kind: ResourceEffectKind, over: Partial<EffectRecord> = {}): EffectRecord =>
  ({ pk: 'T#t', sk: 'EFF#x#1', type: 'effect', effectId: 'e1', tenant: 't', txnId: 'x', state: 'pending', attempts: 0, createdAt: '', updatedAt: '', controller: 'storage', kind, intent: 'ensure', objectId: 'u9', objectName: 'thing', generation: 2, ...over }) as EffectRecord;

const cluster: CatalogObject = { id: 'u1', kind: 'cluster', name: 'c', generation: 1, dependsOn: [], spec: { size: '25cc' } } as unknown as CatalogObject;
const replica: CatalogObject = { id: 'u9', kind: 'cluster_replica', name: 'r1', generation: 2, dependsOn: ['u1'], spec: { clusterId: 'u1', size: '25cc' } } as unknown as CatalogObject;
const source: CatalogObject = {
  id: 'u9',
  kind: 'source',
  name: 's',
  generation: 2,
  dependsOn: ['u1'],
  spec: { schemaId: 'u0', createSql: '', clusterId: 'u1', sourceType: 'load-generator', options: { GENERATOR: 'COUNTER' } },
} as unknown as CatalogObject;

interface Calls {
  dataPlane: string[];
  secrets: string[];
  statuses: { op: string; args: unknown[] }[];
}

function context(o: { objects?: CatalogObject[]; status?: StoredStatus; secretHas?: boolean; secrets?: boolean } = {}): { x: EffectContext; calls: Calls } {
  const calls: Calls = { dataPlane: [], secrets: [], statuses: [] };
  const result: ApplyResult = { changed: true, heldGeneration: 2 };
  const dataPlane = {
    ensure: async (kind: ResourceKind, owner: ResourceOwner, generation: number, spec: unknown) => (calls.dataPlane.push(`ensure ${kind} ${owner.objectId}@${generation} ${JSON.stringify(spec)}`), result),
    drop: async (kind: ResourceKind, owner: ResourceOwner, generation: number) => (calls.dataPlane.push(`drop ${kind} ${owner.objectId}@${generation}`), result),
  } as unknown as DataPlane;
  const secrets = {
    has: async (_t: string, id: string, g: number) => (calls.secrets.push(`has ${id}@${g}`), o.secretHas ?? true),
    prune: async (_t: string, id: string, keep?: number) => void calls.secrets.push(`prune ${id}${keep === undefined ? '' : ` keep ${keep}`}`),
  } as unknown as SecretStore;
  const statuses = {
    get: async (...args: unknown[]) => (calls.statuses.push({ op: 'get', args }), o.status),
    apply: async (...args: unknown[]) => (calls.statuses.push({ op: 'apply', args }), true),
    replicaStatusItem: (...args: unknown[]) => (calls.statuses.push({ op: 'replicaStatusItem', args }), { Put: { args } }),
    writeReplicaStatus: async (...args: unknown[]) => void calls.statuses.push({ op: 'writeReplicaStatus', args }),
  } as unknown as ExecutorDeps['statuses'];
  const objects = new Map((o.objects ?? []).map((x) => [x.id, x]));
  const deps: ExecutorDeps = {
    catalog: { getObject: async (_t, id) => objects.get(id) },
    outbox: {} as ExecutorDeps['outbox'],
    statuses,
    dataPlane,
    controller: 'storage',
    policy: RETRY_POLICIES['executor.storage'],
    ...(o.secrets === false ? {} : { secrets }),
  };
  const x: EffectContext = {
    deps,
    now: () => NOW,
    getObject: async (_t, id) => objects.get(id),
    settle: async () => undefined,
    recordAttempt: async () => undefined,
  };
  return { x, calls };
}

const resource = (kind: ResourceEffectKind) => EFFECT_HANDLERS[kind] as ResourceHandler;

describe('effect handlers', () => {
  it('every effect kind has one, and only the reconfiguration is a step', () => {
    expect(Object.keys(EFFECT_HANDLERS).sort()).toEqual(['collection', 'dataflow', 'export', 'ingestion', 'reconfiguration', 'replica', 'secret']);
    expect(Object.entries(EFFECT_HANDLERS).filter(([, h]) => h.shape === 'step').map(([k]) => k)).toEqual(['reconfiguration']);
  });

  it('a collection is ensured at its desired state, fenced by generation, and dropped when absent', async () => {
    const { x, calls } = context();
    const view = { ...source, kind: 'view' } as CatalogObject;
    await resource('collection').reconcile(x, effect('collection'), view, { present: true, generation: 3 });
    await resource('collection').reconcile(x, effect('collection', { intent: 'drop' }), undefined, { present: false, generation: 4 });
    expect(calls.dataPlane).toEqual(['ensure collection u9@3 {"objectKind":"view","readPolicy":{"kind":"lag","lagMs":1000}}', 'drop collection u9@4']);
  });

  it('a secret: the committed value must be in the store, older ones are pruned; a drop prunes them all', async () => {
    const { x, calls } = context();
    expect(await resource('secret').reconcile(x, effect('secret'), undefined, { present: true, generation: 2 })).toEqual({ changed: false, heldGeneration: 2 });
    expect(await resource('secret').reconcile(x, effect('secret'), undefined, { present: false, generation: 3 })).toEqual({ changed: true, heldGeneration: 3 });
    expect(calls.secrets).toEqual(['has u9@2', 'prune u9 keep 2', 'prune u9']);
    const missing = context({ secretHas: false });
    await expect(resource('secret').reconcile(missing.x, effect('secret'), undefined, { present: true, generation: 2 })).rejects.toMatchObject({ transient: false, message: expect.stringContaining('missing from the secret store') });
    const none = context({ secrets: false });
    await expect(resource('secret').reconcile(none.x, effect('secret'), undefined, { present: true, generation: 2 })).rejects.toBeInstanceOf(DataPlaneError);
  });

  it("a replica's status row goes with the settle (online, its cluster named) and after a terminal error (offline, the reason)", async () => {
    const { x, calls } = context({ objects: [cluster, replica] });
    const h = resource('replica');
    await h.statusWrite!(x, effect('replica'), replica, { online: true, reason: null }, 5);
    await h.failed!(x, effect('replica'), replica, 'no capacity');
    expect(calls.statuses.map((c) => c.op)).toEqual(['replicaStatusItem', 'replicaStatusItem', 'writeReplicaStatus']);
    expect(calls.statuses[0]!.args[2]).toMatchObject({ online: true, reason: null, generation: 5, present: true, name: 'thing', cluster: { id: 'u1', name: 'c' } });
    expect(calls.statuses[1]!.args[2]).toMatchObject({ online: false, reason: 'no capacity', generation: 2, present: true });
    expect(resource('dataflow').statusWrite).toBeUndefined();
  });

  it('a connector is marked starting at its new generation before the data plane is asked, and failed after a terminal error', async () => {
    const prev = { objectId: 'u9', kind: 'source', name: 's', status: 'running', generation: 1, error: null, details: null, lastStatusChangeAt: '2026-11-30T00:00:00.000Z', version: 4 } as unknown as StoredStatus;
    const { x, calls } = context({ objects: [source], status: prev });
    const h = resource('ingestion');
    await h.before!(x, effect('ingestion'), source);
    await h.failed!(x, effect('ingestion'), source, 'postgres: publication "p" does not exist');
    const applied = calls.statuses.filter((c) => c.op === 'apply').map((c) => c.args);
    expect(applied).toHaveLength(2);
    expect(applied[0]![2]).toMatchObject({ next: { status: 'starting', generation: 2 } });
    expect(applied[0]![3]).toBe(4);
    expect(applied[1]![2]).toMatchObject({ next: { status: 'failed', error: 'postgres: publication "p" does not exist' } });
    // Already seen at this generation (a redelivery): not marked again.
    const seen = context({ objects: [source], status: { ...prev, generation: 2 } as StoredStatus });
    await h.before!(seen.x, effect('ingestion'), source);
    expect(seen.calls.statuses.map((c) => c.op)).toEqual(['get']);
    expect(resource('export').before).toBe(h.before);
    expect(resource('collection').before).toBeUndefined();
  });

  it('a reconfiguration step needs the catalog commit to settle with: without it, a terminal error', async () => {
    const { x } = context();
    await expect((EFFECT_HANDLERS.reconfiguration as StepHandler).run(x, effect('reconfiguration', { controller: 'compute' } as Partial<EffectRecord>), 1)).rejects.toMatchObject({ transient: false });
  });
});
