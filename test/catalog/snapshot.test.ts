/**
 * CatalogSnapshot.derive: a snapshot built from a root plus changes must answer every lookup
 * exactly as a snapshot built from scratch over the same objects — whatever the changes (new
 * objects, renames, moves between schemas and clusters, drops, changed references), however
 * many derivations are chained, and across compaction into a new root.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CatalogSnapshot, type CatalogObject, type ObjectKind } from '../../shared/catalog/model';

const NOW = '2026-01-01T00:00:00.000Z';
const base = { generation: 1, version: 1, dependents: 0, createdAt: NOW, updatedAt: NOW, owner: 'o' };

function db(id: string, name: string): CatalogObject {
  return { ...base, id, name, kind: 'database', dependsOn: [], spec: {} } as CatalogObject;
}
function schema(id: string, name: string, databaseId: string): CatalogObject {
  return { ...base, id, name, kind: 'schema', dependsOn: [databaseId], spec: { databaseId } } as CatalogObject;
}
function cluster(id: string, name: string): CatalogObject {
  return { ...base, id, name, kind: 'cluster', dependsOn: [], spec: { managed: true, size: '25cc', replicationFactor: 1, options: {} } } as CatalogObject;
}
function replica(id: string, name: string, clusterId: string): CatalogObject {
  return { ...base, id, name, kind: 'cluster_replica', dependsOn: [], spec: { size: '25cc', clusterId, managed: true, options: {} } } as CatalogObject;
}
function item(id: string, kind: 'table' | 'view', name: string, schemaId: string, refs: string[]): CatalogObject {
  return { ...base, id, name, kind, dependsOn: [schemaId, ...refs], spec: { schemaId, createSql: '', ...(kind === 'table' ? { columns: [] } : { query: 'SELECT 1' }) } } as CatalogObject;
}

/** Two databases, three schemas, two clusters: the fixed frame the random objects live in. */
const FRAME = [db('d1', 'materialize'), db('d2', 'other'), schema('s1', 'public', 'd1'), schema('s2', 'x', 'd1'), schema('s3', 'public', 'd2'), cluster('c1', 'quickstart'), cluster('c2', 'ingest')];
const SCHEMAS = ['s1', 's2', 's3'];
const CLUSTERS = ['c1', 'c2'];
const NAMES = ['a', 'b', 'c', 'r1', 'r2', 'z'];

type Op = { op: 'put'; id: number; kind: 'table' | 'view' | 'cluster_replica'; name: number; home: number; refs: number[] } | { op: 'drop'; id: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    id: fc.nat(11),
    kind: fc.constantFrom('table' as const, 'view' as const, 'cluster_replica' as const),
    name: fc.nat(NAMES.length - 1),
    home: fc.nat(5),
    refs: fc.array(fc.nat(11), { maxLength: 3 }),
  }),
  fc.record({ op: fc.constant('drop' as const), id: fc.nat(11) }),
);

/** Applies ops to a plain map of live objects (the model) and returns the changed objects in order. */
function apply(model: Map<string, CatalogObject>, ops: readonly Op[]): CatalogObject[] {
  const changed: CatalogObject[] = [];
  for (const o of ops) {
    const id = `o${o.id}`;
    if (o.op === 'drop') {
      const cur = model.get(id);
      if (!cur) continue;
      model.delete(id);
      changed.push({ ...cur, dropped: true } as CatalogObject);
      continue;
    }
    const name = NAMES[o.name]!;
    const obj =
      o.kind === 'cluster_replica'
        ? replica(id, name, CLUSTERS[o.home % CLUSTERS.length]!)
        : item(id, o.kind, name, SCHEMAS[o.home % SCHEMAS.length]!, [...new Set(o.refs.map((r) => `o${r}`).filter((r) => r !== id))]);
    // Names stay unique among live objects, as the planner keeps them.
    const clash = [...model.values()].some((x) => x.id !== id && x.name === obj.name && x.kind === 'cluster_replica' === (obj.kind === 'cluster_replica') && JSON.stringify(homeOf(x)) === JSON.stringify(homeOf(obj)));
    if (clash) continue;
    model.set(id, obj);
    changed.push(obj);
  }
  return changed;
}
const homeOf = (o: CatalogObject) => (o.kind === 'cluster_replica' ? o.spec.clusterId : (o.spec as { schemaId?: string }).schemaId);

const ids = (os: readonly CatalogObject[]) => os.map((o) => o.id);
const sortedIds = (os: readonly CatalogObject[]) => ids(os).sort();

/** Every lookup the planner and the system tables use, asked of both snapshots. */
function expectSameAnswers(derived: CatalogSnapshot, fresh: CatalogSnapshot): void {
  expect(sortedIds(derived.all())).toEqual(sortedIds(fresh.all()));
  expect(derived.size).toBe(fresh.size);
  for (const id of [...FRAME.map((o) => o.id), ...Array.from({ length: 12 }, (_, i) => `o${i}`)]) {
    expect(derived.get(id)).toEqual(fresh.get(id));
    expect(sortedIds(derived.dependentsOf(id))).toEqual(sortedIds(fresh.dependentsOf(id)));
  }
  for (const kind of ['database', 'schema', 'cluster', 'cluster_replica', 'table', 'view'] as ObjectKind[]) {
    expect(derived.ofKind(kind).map((o) => o.name)).toEqual(fresh.ofKind(kind).map((o) => o.name));
    expect(sortedIds(derived.ofKind(kind))).toEqual(sortedIds(fresh.ofKind(kind)));
  }
  expect(derived.items().map((o) => o.name)).toEqual(fresh.items().map((o) => o.name));
  for (const name of NAMES) {
    for (const s of SCHEMAS) expect(derived.item(s, name)?.id).toBe(fresh.item(s, name)?.id);
    for (const c of CLUSTERS) expect(sortedIds(derived.replicas(c))).toEqual(sortedIds(fresh.replicas(c)));
  }
  expect(derived.cluster('ingest')?.id).toBe('c2');
  expect(derived.database('other')?.id).toBe('d2');
  expect(derived.schema('d1', 'x')?.id).toBe('s2');
  expect(derived.schema('d2', 'x')).toBeUndefined();
}

describe('CatalogSnapshot.derive', () => {
  it('answers every lookup like a snapshot built from scratch, through chains of derivations', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 20 }), fc.array(fc.array(opArb, { maxLength: 8 }), { maxLength: 6 }), (initialOps, rounds) => {
        const model = new Map(FRAME.map((o) => [o.id, o]));
        apply(model, initialOps);
        let snap = new CatalogSnapshot('t', [...model.values()]);
        expectSameAnswers(snap, new CatalogSnapshot('t', [...model.values()]));
        for (const ops of rounds) {
          snap = CatalogSnapshot.derive(snap, apply(model, ops));
          expectSameAnswers(snap, new CatalogSnapshot('t', [...model.values()]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the catalog order: changed objects in place, new ones at the end', () => {
    const root = new CatalogSnapshot('t', FRAME);
    const renamed = { ...FRAME[5]!, name: 'zzz' } as CatalogObject;
    const added = cluster('c9', 'aaa');
    const d = CatalogSnapshot.derive(root, [renamed, added, { ...FRAME[1]!, dropped: true } as CatalogObject]);
    expect(ids(d.all())).toEqual(['d1', 's1', 's2', 's3', 'c1', 'c2', 'c9']);
    expect(d.orderOf('c9')).toBeGreaterThan(d.orderOf('c2'));
    expect(d.clusters().map((c) => c.name)).toEqual(['aaa', 'ingest', 'zzz']);
    expect(d.cluster('quickstart')).toBeUndefined();
    expect(d.cluster('zzz')?.id).toBe('c1');
    // The root is untouched.
    expect(root.cluster('quickstart')?.id).toBe('c1');
    expect(root.get('c9')).toBeUndefined();
  });

  it('compacts a long chain into a new root that answers the same', () => {
    let snap = new CatalogSnapshot('t', FRAME);
    const model = new Map(FRAME.map((o) => [o.id, o]));
    for (let i = 0; i < 600; i++) {
      const o = cluster(`n${i}`, `cl_${i}`);
      model.set(o.id, o);
      snap = CatalogSnapshot.derive(snap, [o]);
    }
    const fresh = new CatalogSnapshot('t', [...model.values()]);
    expect(snap.size).toBe(fresh.size);
    expect(snap.clusters().map((c) => c.name)).toEqual(fresh.clusters().map((c) => c.name));
    expect(snap.cluster('cl_599')?.id).toBe('n599');
  });
});
