/** `SHOW TABLES [FROM schema] ON source`: the tables a source feeds (Materialize's show_tables). */
import { describe, expect, it } from 'vitest';
import { CatalogSnapshot, DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogObject } from '../../shared/catalog/model';
import { evaluateShow } from '../../shared/system/evaluate';
import { parse } from '../../shared/sql/parser';
import { print } from '../../shared/sql/printer';

const NOW = '2026-01-01T00:00:00.000Z';
const base = { generation: 1, version: 1, dependents: 0, createdAt: NOW, updatedAt: NOW, owner: 'system' };
const table = (id: string, name: string, schemaId: string, sourceId?: string) => ({
  ...base,
  id,
  kind: 'table',
  name,
  dependsOn: [schemaId, ...(sourceId ? [sourceId] : [])],
  spec: { schemaId, createSql: '', columns: [], ...(sourceId ? { fromSource: { sourceId, reference: '' } } : {}) },
});
const snapshot = new CatalogSnapshot('t', [
  { ...base, id: 'd', kind: 'database', name: DEFAULT_DATABASE, dependsOn: [], spec: {} },
  { ...base, id: 's', kind: 'schema', name: DEFAULT_SCHEMA, dependsOn: ['d'], spec: { databaseId: 'd' } },
  { ...base, id: 'o', kind: 'schema', name: 'other', dependsOn: ['d'], spec: { databaseId: 'd' } },
  { ...base, id: 'c', kind: 'cluster', name: 'quickstart', dependsOn: [], spec: { managed: true, size: '25cc', replicationFactor: 1, options: {} } },
  { ...base, id: 'src', kind: 'source', name: 'counter', dependsOn: ['s', 'c'], spec: { schemaId: 's', createSql: '', clusterId: 'c', sourceType: 'load-generator', options: {} } },
  table('t1', 'counter_tbl', 's', 'src'),
  table('t2', 'plain', 's'),
  table('t3', 'elsewhere', 'o', 'src'),
] as unknown as CatalogObject[]);

const show = (sql: string) => {
  const [s] = parse(sql).map((p) => p.statement);
  return evaluateShow(s as Extract<typeof s, { kind: 'show' }>, { snapshot, replicaStatuses: [], effects: [], connectorStatuses: [], history: [] });
};

describe('SHOW TABLES ON', () => {
  it("lists the source's tables in the schema, ON written after FROM as Materialize writes it", () => {
    expect(show('SHOW TABLES ON counter').rows).toEqual([['counter_tbl', '']]);
    expect(show('SHOW TABLES FROM other ON counter').rows).toEqual([['elsewhere', '']]);
    expect(print(parse('SHOW TABLES FROM other ON counter')[0]!.statement)).toBe('SHOW TABLES FROM other ON counter');
  });
  it("answers Materialize's errors for what is not a source", () => {
    expect(() => show('SHOW TABLES ON nope')).toThrow(expect.objectContaining({ code: '42P01', message: "unknown catalog item 'nope'" }));
    expect(() => show('SHOW TABLES ON plain')).toThrow(expect.objectContaining({ code: 'XX000', message: 'cannot show tables on materialize.public.plain because it is a table' }));
  });
});
