/**
 * The full pass's pure diff: catalog, outbox, data-plane observation and stored secrets in, the
 * repairs out. No I/O; the integration test (full-pass.test.ts) applies them against the emulators.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogObject } from '../../shared/catalog/model';
import type { ObservedResource } from '../../shared/dataplane/contract';
import type { EffectRecord } from '../../shared/effects/model';
import { diffTenant, type Repair, type TenantObservation } from '../../shared/sweeper/full-pass';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const GRACE = 5 * 60_000;
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();

function object(id: string, kind: CatalogObject['kind'], o: Partial<CatalogObject> = {}): CatalogObject {
  return { id, kind, name: `n${id}`, generation: 1, version: 1, dependents: 0, dependsOn: [], spec: {}, createdAt: minutesAgo(60), updatedAt: minutesAgo(60), owner: 'u', ...o } as unknown as CatalogObject;
}

function resource(objectId: string, kind: ObservedResource['kind'], o: Partial<ObservedResource> = {}): ObservedResource {
  return {
    tenant: 't',
    kind,
    resourceId: objectId,
    owner: { tenant: 't', objectId, objectKind: 'table', objectName: `n${objectId}` },
    generation: 1,
    health: 'running',
    createdAt: minutesAgo(60),
    readPolicy: { kind: 'lag', lagMs: 1000 },
    spec: {},
    ...o,
  } as ObservedResource;
}

function effect(objectId: string, kind: EffectRecord['kind'], state: EffectRecord['state']): EffectRecord {
  return { objectId, kind, state, controller: kind === 'replica' ? 'compute' : 'storage', intent: 'ensure', objectName: `n${objectId}`, generation: 1 } as unknown as EffectRecord;
}

const observe = (o: Partial<TenantObservation>): TenantObservation => ({ tenant: 't', objects: [], effects: [], resources: [], ...o });
const kinds = (repairs: Repair[]) => repairs.map((r) => (r.repair === 'effect' ? `${r.effect.intent} ${r.effect.kind} ${r.effect.objectId}@${r.effect.generation}` : r.repair === 'collect_secret' ? `collect ${r.secretId}` : r.repair === 'read_policy' ? `read_policy ${r.owner.objectId}` : `untagged ${r.resource.resourceId}`));

describe('the full pass diff', () => {
  it('asks for nothing when the catalog and the data plane agree', () => {
    const repairs = diffTenant(observe({ objects: [object('a', 'table')], resources: [resource('a', 'collection')] }), NOW, GRACE);
    expect(repairs).toEqual([]);
  });

  it('collects an orphan past the grace period, fenced past the generation the data plane holds', () => {
    const tombstone = object('a', 'table', { dropped: true, generation: 1 } as Partial<CatalogObject>);
    const repairs = diffTenant(observe({ objects: [tombstone], resources: [resource('a', 'collection', { generation: 3 }), resource('gone', 'collection', { createdAt: minutesAgo(1) })] }), NOW, GRACE);
    expect(kinds(repairs)).toEqual(['drop collection a@4']);
  });

  it('leaves an orphan alone while a drop for it is still pending, and re-drives one whose drop failed', () => {
    const resources = [resource('a', 'collection'), resource('b', 'collection')];
    const repairs = diffTenant(observe({ resources, effects: [effect('a', 'collection', 'pending'), effect('b', 'collection', 'failed')] }), NOW, GRACE);
    expect(kinds(repairs)).toEqual(['drop collection b@2']);
  });

  it('re-drives a missing resource unless an effect for it is pending or failed, and never a secret', () => {
    const objects = [object('a', 'source'), object('r', 'cluster_replica', { generation: 2 } as Partial<CatalogObject>), object('s', 'secret'), object('b', 'table')];
    const repairs = diffTenant(observe({ objects, resources: [resource('a', 'collection')], effects: [effect('b', 'collection', 'failed')] }), NOW, GRACE);
    expect(kinds(repairs)).toEqual(['ensure ingestion a@1', 'ensure replica r@2']);
  });

  it('installs a missing read policy on a collection or an index arrangement only', () => {
    const objects = [object('a', 'table'), object('i', 'index'), object('v', 'materialized_view')];
    const resources = [
      resource('a', 'collection', { readPolicy: undefined }),
      resource('i', 'dataflow', { readPolicy: undefined, spec: { objectKind: 'index' } }),
      resource('v', 'dataflow', { readPolicy: undefined, spec: { objectKind: 'materialized_view' } }),
      resource('v', 'collection'),
    ];
    const repairs = diffTenant(observe({ objects, resources }), NOW, GRACE);
    expect(kinds(repairs)).toEqual(['read_policy a', 'read_policy i']);
  });

  it('reports a resource without our owner tag and does nothing else with it', () => {
    const repairs = diffTenant(observe({ resources: [resource('x', 'collection', { owner: undefined, createdAt: minutesAgo(600) })] }), NOW, GRACE);
    expect(repairs).toEqual([{ repair: 'report_untagged', resource: { tenant: 't', kind: 'collection', resourceId: 'x' } }]);
  });

  it('collects a stored secret no live catalog secret refers to, once its grace period has passed', () => {
    const objects = [object('live', 'secret'), object('dropped', 'secret', { dropped: true } as Partial<CatalogObject>)];
    const storedSecrets = [
      { secretId: 'live', generations: [1], changedAt: minutesAgo(60) },
      { secretId: 'dropped', generations: [1], changedAt: minutesAgo(60) },
      { secretId: 'fresh', generations: [1], changedAt: minutesAgo(1) },
      { secretId: 'undated', generations: [1] },
      { secretId: 'old', generations: [1, 2], changedAt: minutesAgo(6) },
    ];
    const repairs = diffTenant(observe({ objects, storedSecrets }), NOW, GRACE);
    expect(kinds(repairs)).toEqual(['collect dropped', 'collect old']);
  });
});
