import { describe, expect, it } from 'vitest';
import { expectationsOf, opItem, TOMBSTONE_TTL_SECONDS } from '../../shared/catalog/op-items';
import type { CatalogObject } from '../../shared/catalog/model';

const NOW = '2026-01-01T00:00:00.000Z';
const cluster = { id: 'u1', kind: 'cluster', name: 'c', generation: 1, version: 1, dependents: 0, dependsOn: [], createdAt: NOW, updatedAt: NOW, owner: 'p', spec: { managed: false, options: {} } } as unknown as CatalogObject;

describe('catalog operations as table items', () => {
  it('a claimed name becomes a guard item keyed by its namespace, put only if absent', () => {
    // Prepare / Act
    const item = opItem('tbl', 'T#t', { op: 'claim_name', name: { ns: 'cluster', name: 'c' }, objectId: 'u1' }, NOW);
    // Assess
    expect(item).toEqual({ Put: { TableName: 'tbl', Item: { pk: 'T#t', sk: 'NAME#cluster#c', type: 'name', objectId: 'u1' }, ConditionExpression: 'attribute_not_exists(pk)' } });
  });

  it('a name taken over from an object that gave it up is conditioned on that object still holding it', () => {
    const item = opItem('tbl', 'T#t', { op: 'claim_name', name: { ns: 'replica', clusterId: 'u1', name: 'r1' }, objectId: 'u9', replaces: 'u2' }, NOW);
    expect(item.Put).toMatchObject({ Item: { sk: 'NAME#replica#u1#r1', objectId: 'u9' }, ConditionExpression: 'objectId = :old', ExpressionAttributeValues: { ':old': 'u2' } });
  });

  it('names that would collide on a key once joined stay apart (key parts are escaped)', () => {
    const a = opItem('tbl', 'T#t', { op: 'release_name', name: { ns: 'item', schemaId: 'u2', name: 'a#b' }, objectId: 'u3' }, NOW);
    const b = opItem('tbl', 'T#t', { op: 'release_name', name: { ns: 'item', schemaId: 'u2#a', name: 'b' }, objectId: 'u3' }, NOW);
    expect(a.Delete!.Key).not.toEqual(b.Delete!.Key);
  });

  it('a dropped object is written as a tombstone with a TTL, on condition that the plan read its version', () => {
    const after = { ...cluster, dropped: true, generation: 2, version: 2 } as CatalogObject;
    const item = opItem('tbl', 'T#t', { op: 'drop_object', before: cluster, after }, NOW);
    expect(item.Put!.Item).toMatchObject({ sk: 'OBJ#u1', dropped: true, expiresAt: Date.parse(NOW) / 1000 + TOMBSTONE_TTL_SECONDS });
    expect(item.Put!.ExpressionAttributeValues).toEqual({ ':v': 1, ':d': 0, ':zero': 0 });
  });

  it('an updated object gets no TTL', () => {
    const item = opItem('tbl', 'T#t', { op: 'update_object', before: cluster, after: { ...cluster, name: 'd', version: 2 } as CatalogObject }, NOW);
    expect(item.Put!.Item).not.toHaveProperty('expiresAt');
  });

  it('a staged commit expects every item the plan read as it read it', () => {
    const expectations = expectationsOf({
      ops: [
        { op: 'create_object', object: cluster },
        { op: 'adjust_dependents', id: 'u5', delta: 1, before: { ...cluster, id: 'u5', version: 3, dependents: 2 } as CatalogObject },
        { op: 'claim_name', name: { ns: 'cluster', name: 'c' }, objectId: 'u1' },
        { op: 'release_name', name: { ns: 'database', name: 'd' }, objectId: 'u7' },
      ],
      effects: [],
    });
    expect(expectations).toEqual([
      { sk: 'OBJ#u1', absent: true },
      { sk: 'OBJ#u5', version: 3, dependents: 2 },
      { sk: 'NAME#cluster#c', absent: true },
      { sk: 'NAME#database#d', objectId: 'u7' },
    ]);
  });
});
