/**
 * SHOW COLUMNS and SHOW SUBSOURCES over a catalog built by the planner: Materialize's columns,
 * type names and messages (shared/system/evaluate.ts).
 */
import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../shared/catalog/model';
import { ControlPlaneError } from '../../shared/errors';
import { typeDisplayName } from '../../shared/planner/types';
import type { Statement } from '../../shared/sql/ast';
import { parse } from '../../shared/sql/parser';
import { evaluateShow } from '../../shared/system/evaluate';
import { plannedCatalog as catalog } from '../helpers/planned-catalog';

function show(snapshot: CatalogSnapshot, sql: string) {
  const [ps] = parse(sql);
  const rel = evaluateShow(ps!.statement as Extract<Statement, { kind: 'show' }>, { snapshot, replicaStatuses: [], effects: [], connectorStatuses: [], history: [] });
  return { columns: rel.columns.map((c) => c.name), rows: rel.rows };
}

function error(snapshot: CatalogSnapshot, sql: string) {
  try {
    show(snapshot, sql);
  } catch (e) {
    if (!(e instanceof ControlPlaneError)) throw e;
    return { code: e.code, message: e.message, position: e.position };
  }
  throw new Error(`${sql} did not fail`);
}

const SETUP = [
  "CREATE CLUSTER c (SIZE = '25cc')",
  'CREATE TABLE t (a int NOT NULL, b text, c numeric(10,2)[], d timestamp with time zone, e double precision, f pg_catalog.int8)',
  "COMMENT ON COLUMN t.b IS 'free text'",
  'ALTER TABLE t ADD COLUMN g varchar(20)',
  'CREATE VIEW v AS SELECT a FROM t',
  'CREATE SOURCE a IN CLUSTER c FROM LOAD GENERATOR AUCTION FOR ALL TABLES',
  'CREATE SCHEMA other',
  'CREATE SOURCE other.m IN CLUSTER c FROM LOAD GENERATOR MARKETING FOR ALL TABLES',
  'CREATE SOURCE n IN CLUSTER c FROM LOAD GENERATOR COUNTER',
  "CREATE SECRET s AS 'x'",
].join('; ');

describe('SHOW COLUMNS', () => {
  const snapshot = catalog(SETUP);

  it("shows a table's columns in order: name, nullable, Materialize's type name, comment", () => {
    expect(show(snapshot, 'SHOW COLUMNS FROM t')).toEqual({
      columns: ['name', 'nullable', 'type', 'comment'],
      rows: [
        ['a', false, 'integer', ''],
        ['b', true, 'text', 'free text'],
        ['c', true, 'numeric[]', ''],
        ['d', true, 'timestamp with time zone', ''],
        ['e', true, 'double precision', ''],
        ['f', true, 'bigint', ''],
        ['g', true, 'character varying', ''],
      ],
    });
  });

  it('filters with LIKE and WHERE, and reads qualified names', () => {
    expect(show(snapshot, "SHOW COLUMNS IN materialize.public.t LIKE '_'").rows).toHaveLength(7);
    expect(show(snapshot, 'SHOW COLUMNS FROM public.t WHERE nullable = false').rows).toEqual([['a', false, 'integer', '']]);
  });

  it("answers Materialize's messages, pointing at the name", () => {
    expect(error(snapshot, 'SHOW COLUMNS FROM nope')).toEqual({ code: '42P01', message: "unknown catalog item 'nope'", position: 18 });
    expect(error(snapshot, 'SHOW COLUMNS FROM s')).toMatchObject({ code: 'XX000', message: 'materialize.public.s is a secret and so does not have columns' });
    expect(error(snapshot, 'SHOW COLUMNS FROM v')).toMatchObject({ code: '0A000', message: expect.stringContaining('SHOW COLUMNS of a view is not supported') });
    expect(error(snapshot, 'SHOW COLUMNS FROM mz_tables')).toMatchObject({ code: '0A000', message: expect.stringContaining('mz_catalog.mz_tables') });
    expect(error(snapshot, 'SHOW COLUMNS FROM pg_class')).toMatchObject({ code: '0A000', message: expect.stringContaining('pg_class') });
  });
});

describe('SHOW SUBSOURCES', () => {
  const snapshot = catalog(SETUP);

  it("lists the current schema's subsources, a source's, or another schema's", () => {
    const auction = show(snapshot, 'SHOW SUBSOURCES');
    expect(auction.columns).toEqual(['name', 'type']);
    expect(auction.rows.map((r) => r[0])).toEqual(['accounts', 'auctions', 'bids', 'organizations', 'users']);
    expect(auction.rows.every((r) => r[1] === 'subsource')).toBe(true);
    expect(show(snapshot, 'SHOW SUBSOURCES ON a').rows).toEqual(auction.rows);
    expect(show(snapshot, 'SHOW SUBSOURCES ON other.m').rows.length).toBeGreaterThan(0);
    expect(show(snapshot, 'SHOW SUBSOURCES FROM other').rows).toEqual(show(snapshot, 'SHOW SUBSOURCES ON other.m').rows);
    expect(show(snapshot, 'SHOW SUBSOURCES ON n').rows).toEqual([]);
    expect(show(snapshot, "SHOW SUBSOURCES ON a LIKE 'b%'").rows).toEqual([['bids', 'subsource']]);
  });

  it("answers Materialize's messages", () => {
    expect(error(snapshot, 'SHOW SUBSOURCES ON t')).toMatchObject({ code: 'XX000', message: 'cannot show subsources on materialize.public.t because it is a table' });
    expect(error(snapshot, 'SHOW SUBSOURCES ON nope')).toMatchObject({ code: '42P01', message: "unknown catalog item 'nope'" });
    expect(error(snapshot, 'SHOW SUBSOURCES FROM nope')).toMatchObject({ code: '3F000', message: "unknown schema 'nope'" });
  });
});

describe('typeDisplayName', () => {
  it.each([
    ['int', 'integer'],
    ['int4', 'integer'],
    ['integer[]', 'integer[]'],
    ['bool', 'boolean'],
    ['numeric(10,2)', 'numeric'],
    ['timestamp', 'timestamp without time zone'],
    ['character varying', 'character varying'],
    ['mz_catalog.mz_timestamp', 'mz_timestamp'],
    ['string[][]', 'text[][]'],
  ])('%s is shown as %s', (text, shown) => {
    expect(typeDisplayName(text)).toBe(shown);
  });
});
