import { describe, expect, it } from 'vitest';
import { CatalogSnapshot, DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogObject } from '../../shared/catalog/model';
import { evaluateShow } from '../../shared/system/evaluate';
import { parse } from '../../shared/sql/parser';

const NOW = '2026-01-01T00:00:00.000Z';
const base = { generation: 1, version: 1, dependents: 0, createdAt: NOW, updatedAt: NOW, owner: 'system' };
const snapshot = new CatalogSnapshot('t', [
  { ...base, id: 'd', kind: 'database', name: DEFAULT_DATABASE, dependsOn: [], spec: {} },
  { ...base, id: 's', kind: 'schema', name: DEFAULT_SCHEMA, dependsOn: ['d'], spec: { databaseId: 'd' } },
  { ...base, id: 'c', kind: 'cluster', name: 'quickstart', dependsOn: [], spec: { managed: true, size: '25cc', replicationFactor: 1, options: {} } },
  { ...base, id: 't', kind: 'table', name: 't', dependsOn: ['s'], spec: { schemaId: 's', createSql: '', columns: [{ name: 'a', type: 'int', notNull: false }] } },
  { ...base, id: 'i', kind: 'index', name: 'i', dependsOn: ['s', 't', 'c'], spec: { schemaId: 's', createSql: '', onId: 't', clusterId: 'c', keyParts: ['a'] } },
] as unknown as CatalogObject[]);

const show = (sql: string) => {
  const [s] = parse(sql).map((p) => p.statement);
  return evaluateShow(s as Extract<typeof s, { kind: 'show' }>, { snapshot, replicaStatuses: [], effects: [], connectorStatuses: [], history: [] });
};

describe('SHOW INDEXES ON', () => {
  it('lists the indexes of the relation it names', () => {
    expect(show('SHOW INDEXES ON t').rows.map((r) => r[0])).toEqual(['i']);
    expect(show('SHOW INDEXES ON materialize.public.t').rows.map((r) => r[0])).toEqual(['i']);
  });
  it("answers Materialize's unknown catalog item for a relation that does not exist", () => {
    expect(() => show('SHOW INDEXES ON nope')).toThrow(expect.objectContaining({ code: '42P01', message: "unknown catalog item 'nope'" }));
  });
  it('finds no index on a system relation', () => {
    expect(show('SHOW INDEXES ON mz_tables').rows).toEqual([]);
  });
});
