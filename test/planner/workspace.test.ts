import { describe, expect, it } from 'vitest';
import { CatalogSnapshot, type CatalogObject } from '../../shared/catalog/model';
import { ControlPlaneError } from '../../shared/errors';
import { planStatement, type PlanContext } from '../../shared/planner/plan';
import { Workspace } from '../../shared/planner/workspace';
import { parse } from '../../shared/sql/parser';

const NOW = '2026-01-01T00:00:00.000Z';
function ctx(): PlanContext {
  let n = 0;
  return { principal: 'tester', now: NOW, newId: () => `u${++n}` };
}

/** Plans a request against a snapshot and returns the workspace's change set. */
function planRequest(sql: string, snapshot = new CatalogSnapshot('t', []), c = ctx()) {
  const ws = new Workspace(snapshot, NOW);
  for (const s of parse(sql)) planStatement(ws, s, c);
  return { ws, changes: ws.diff() };
}

describe('planner + workspace diff', () => {
  it('a managed cluster is one cluster item, one item per replica, name guards, and one ensure effect per replica', () => {
    const { changes } = planRequest("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
    expect(changes.ops.filter((w) => w.op === 'create_object').map((w) => (w.op === 'create_object' ? [w.object.kind, w.object.name] : []))).toEqual([
      ['cluster', 'c'],
      ['cluster_replica', 'r1'],
      ['cluster_replica', 'r2'],
    ]);
    expect(changes.ops.filter((w) => w.op === 'claim_name').map((w) => (w.op === 'claim_name' ? w.name : undefined))).toEqual([
      { ns: 'cluster', name: 'c' },
      { ns: 'replica', clusterId: 'u1', name: 'r1' },
      { ns: 'replica', clusterId: 'u1', name: 'r2' },
    ]);
    expect(changes.effects).toEqual([
      { controller: 'compute', kind: 'replica', intent: 'ensure', objectId: 'u2', objectName: 'r1', generation: 1 },
      { controller: 'compute', kind: 'replica', intent: 'ensure', objectId: 'u3', objectName: 'r2', generation: 1 },
    ]);
  });

  it('collapses a create followed by a drop in the same request to nothing', () => {
    const { changes } = planRequest("CREATE CLUSTER c (SIZE = '25cc'); DROP CLUSTER c");
    expect(changes).toEqual({ ops: [], effects: [] });
  });

  it('drops bump the generation, delete the guard, and derive a drop effect at the new generation', () => {
    const first = planRequest("CREATE CLUSTER c (SIZE = '25cc')");
    const snapshot = new CatalogSnapshot('t', [...first.ws.view().byId.values()]);
    const { changes } = planRequest('DROP CLUSTER c', snapshot);
    const drops = changes.ops.filter((w) => w.op === 'drop_object');
    expect(drops).toHaveLength(2);
    for (const u of drops) if (u.op === 'drop_object') expect(u.after).toMatchObject({ dropped: true, generation: 2, version: 2 });
    expect(changes.ops.filter((w) => w.op === 'update_object')).toEqual([]);
    expect(changes.ops.filter((w) => w.op === 'release_name')).toHaveLength(2);
    expect(changes.effects).toEqual([{ controller: 'compute', kind: 'replica', intent: 'drop', objectId: 'u2', objectName: 'r1', generation: 2 }]);
  });

  it('reusing a dropped name in one request rewrites the guard with a condition on the old owner', () => {
    const first = planRequest("CREATE CLUSTER c (SIZE = '25cc')");
    const snapshot = new CatalogSnapshot('t', [...first.ws.view().byId.values()]);
    let n = 100;
    const { changes } = planRequest("DROP CLUSTER c; CREATE CLUSTER c (SIZE = '50cc')", snapshot, { principal: 'p', now: NOW, newId: () => `u${++n}` });
    const guard = changes.ops.find((w) => w.op === 'claim_name' && w.name.ns === 'cluster');
    expect(guard).toEqual({ op: 'claim_name', name: { ns: 'cluster', name: 'c' }, objectId: 'u101', replaces: 'u1' });
  });

  it('creating a replica in an existing cluster fences the cluster with a version bump', () => {
    const first = planRequest('CREATE CLUSTER u REPLICAS ()');
    const snapshot = new CatalogSnapshot('t', [...first.ws.view().byId.values()]);
    const { changes } = planRequest("CREATE CLUSTER REPLICA u.r1 (SIZE = '25cc')", snapshot, { principal: 'p', now: NOW, newId: () => 'u9' });
    const touch = changes.ops.find((w) => w.op === 'update_object');
    expect(touch).toMatchObject({ before: { id: 'u1', version: 1 }, after: { id: 'u1', version: 2, generation: 1 } });
  });

  it.each([
    ["CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 33)", '22023'],
    ["CREATE CLUSTER c REPLICAS (a (SIZE = '25cc'), a (SIZE = '25cc'))", '42P07'],
    // Materialize's plan_create_cluster_inner refuses these unstructured (XX000).
    ["CREATE CLUSTER c REPLICAS (a (SIZE = '25cc')) (SIZE = '25cc')", 'XX000'],
    ['CREATE CLUSTER c', 'XX000'],
    ["CREATE CLUSTER \"" + 'x'.repeat(256) + "\" (SIZE = '25cc')", '42622'],
    ['DROP CLUSTER REPLICA u.r1', '42704'],
  ])('%s → %s', (sql, code) => {
    let caught: unknown;
    try {
      planRequest(sql);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ControlPlaneError);
    expect((caught as ControlPlaneError).code).toBe(code);
  });
});

describe('temporary items', () => {
  const base = { generation: 1, version: 1, dependents: 0, createdAt: NOW, updatedAt: NOW, owner: 'tester' };
  const db = { ...base, id: 'db', kind: 'database', name: 'materialize', dependsOn: [], spec: {} } as CatalogObject;
  const pub = { ...base, id: 'pub', kind: 'schema', name: 'public', dependsOn: ['db'], spec: { databaseId: 'db' } } as CatalogObject;
  const view = { ...base, id: 'v', kind: 'view', name: 'v', dependsOn: ['pub'], spec: { schemaId: 'pub', createSql: '', query: 'SELECT 1' } } as CatalogObject;
  const temp = { ...base, id: 'tv', kind: 'view', name: 'tv', dependsOn: ['pub', 'v'], spec: { schemaId: 'pub', createSql: '', query: 'SELECT * FROM v' } } as CatalogObject;

  it('are seen by the request, never in its change, and add to no dependents counter', () => {
    const ws = new Workspace(new CatalogSnapshot('t', [db, pub, view]), NOW);
    ws.createTemporary(temp);
    expect(ws.view().get('tv')?.name).toBe('tv');
    expect(ws.view().dependentsOf('v').map((o) => o.id)).toEqual(['tv']);
    expect(ws.get('v')?.dependents).toBe(0);
    expect(ws.isTemporary('tv')).toBe(true);
    expect(ws.diff()).toEqual({ ops: [], effects: [] });
  });

  it('are renamed and dropped in their own layer; ROLLBACK and fork carry them', () => {
    const ws = new Workspace(new CatalogSnapshot('t', [db, pub, view]), NOW);
    ws.createTemporary(temp);
    ws.begin();
    ws.update('tv', (o) => ({ ...o, name: 'tv2' }) as CatalogObject, true);
    expect(ws.view().get('tv')?.name).toBe('tv2');
    const copy = ws.fork();
    ws.drop('tv');
    expect(ws.view().get('tv')).toBeUndefined();
    expect(copy.view().get('tv')?.name).toBe('tv2');
    ws.rollback();
    expect(ws.view().get('tv')?.name).toBe('tv');
    expect(ws.diff()).toEqual({ ops: [], effects: [] });
  });
});
