import { describe, expect, it } from 'vitest';
import type { CatalogObject } from '../../shared/catalog/model';
import { checkTenant, isClean, type TenantState } from '../../shared/checker/checker';
import type { ObservedResource } from '../../shared/dataplane/contract';

const obj = (id: string, kind: CatalogObject['kind'], extra: Partial<CatalogObject> = {}): CatalogObject =>
  ({ id, kind, name: id, generation: 1, version: 1, dependents: 0, dependsOn: [], createdAt: '', updatedAt: '', owner: 'o', spec: { schemaId: 's', clusterId: 'c' }, ...extra }) as CatalogObject;
const res = (id: string, kind: ObservedResource['kind'], extra: Partial<ObservedResource> = {}): ObservedResource => ({
  tenant: 't',
  kind,
  resourceId: id,
  owner: { tenant: 't', objectId: id, objectKind: 'x', objectName: id },
  generation: 1,
  health: 'healthy',
  createdAt: '',
  spec: {},
  ...extra,
});
const state = (s: Partial<TenantState>): TenantState => ({ tenant: 't', objects: [], effects: [], resources: [], actions: [], ...s });

describe('checkTenant', () => {
  it('finds a quiet, consistent tenant clean', () => {
    const r = checkTenant(
      state({
        objects: [obj('r1', 'cluster_replica'), obj('t1', 'table')],
        resources: [res('r1', 'replica'), res('t1', 'collection', { readPolicy: { kind: 'lag', lagMs: 1000 } })],
        actions: [{ tenant: 't', action: 'create', kind: 'replica', resourceId: 'r1', generation: 1, at: '' }],
      }),
    );
    expect(r.problems).toEqual([]);
    expect(isClean(r.counts)).toBe(true);
  });

  it.each([
    ['an orphan', { objects: [obj('r1', 'cluster_replica', { dropped: true })], resources: [res('r1', 'replica')] }, 'orphans'],
    ['a missing resource', { objects: [obj('r1', 'cluster_replica')] }, 'missing'],
    ['a collection without read policy', { objects: [obj('t1', 'table')], resources: [res('t1', 'collection')] }, 'collectionsWithoutReadPolicy'],
    ['an index arrangement without read policy', { objects: [obj('i1', 'index')], resources: [res('i1', 'dataflow', { spec: { objectKind: 'index' } })] }, 'collectionsWithoutReadPolicy'],
    ['a lost effect', { effects: [{ effectId: 'e', state: 'pending', attempts: 0, objectId: 'x', kind: 'replica' } as never] }, 'lostEffects'],
    ['a pending effect without reason', { effects: [{ effectId: 'e', state: 'pending', attempts: 2, objectId: 'x', kind: 'replica' } as never] }, 'pendingWithoutReason'],
    [
      'a double-applied change',
      {
        actions: [
          { tenant: 't', action: 'create', kind: 'replica', resourceId: 'r1', generation: 1, at: '' },
          { tenant: 't', action: 'create', kind: 'replica', resourceId: 'r1', generation: 1, at: '' },
        ],
      },
      'doubleApplied',
    ],
    ['a reference to a dropped object', { objects: [obj('v', 'view', { dependsOn: ['t'] }), obj('t', 'table', { dropped: true, dependents: 0 })] }, 'dependencyViolations'],
    ['a wrong dependents counter', { objects: [obj('t', 'view', { dependents: 3 })] }, 'dependencyViolations'],
    ['a status at a generation its object never had', { objects: [obj('s', 'source', { generation: 2 })], statuses: [{ objectId: 's', status: 'failed', generation: 1000 }] }, 'statusesAhead'],
    ['a status whose last report is from a generation its object never had', { objects: [obj('s', 'source', { generation: 2 })], statuses: [{ objectId: 's', status: 'running', generation: 2, reportGeneration: 9 }] }, 'statusesAhead'],
  ] as const)('counts %s', (_name, s, key) => {
    const r = checkTenant(state(s as Partial<TenantState>));
    expect(r.counts[key]).toBeGreaterThan(0);
  });

  it('lets pending and failed effects explain a difference, and never counts untagged resources', () => {
    const r = checkTenant(
      state({
        objects: [obj('r1', 'cluster_replica')],
        effects: [{ effectId: 'e', state: 'failed', attempts: 1, objectId: 'r1', kind: 'replica' } as never],
        resources: [res('foreign', 'replica', { owner: undefined } as never)],
      }),
    );
    expect(r.counts.missing).toBe(0);
    expect(r.counts.orphans).toBe(0);
  });

  it('finds a status at or behind its object, or of a dropped object, no problem', () => {
    const r = checkTenant(
      state({
        objects: [obj('t1', 'table'), obj('a', 'view', { generation: 3 }), obj('d', 'view', { generation: 1, dropped: true })],
        resources: [res('t1', 'collection', { readPolicy: { kind: 'lag', lagMs: 1000 } })],
        statuses: [
          { objectId: 'a', status: 'running', generation: 3, reportGeneration: 3 },
          { objectId: 't1', status: 'starting', generation: 1 },
          { objectId: 'd', status: 'dropped', generation: 1 },
        ],
      }),
    );
    expect(r.problems).toEqual([]);
  });
});
