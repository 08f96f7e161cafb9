/**
 * `SELECT ... FROM (SHOW ...)` (shared/system/evaluate.ts): the SHOW's output is the relation
 * read, so the SELECT's columns, WHERE, ORDER BY, LIMIT and OFFSET apply to the SHOW's columns,
 * as in Materialize; SHOW CREATE there answers 0A000 at parse time.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogSnapshot } from '../../shared/catalog/model';
import type { ReplicaStatusRecord } from '../../shared/catalog/status-store';
import { ControlPlaneError } from '../../shared/errors';
import type { Statement } from '../../shared/sql/ast';
import { parse } from '../../shared/sql/parser';
import { evaluateSelect } from '../../shared/system/evaluate';
import { plannedCatalog } from '../helpers/planned-catalog';

const snapshot = plannedCatalog(
  [
    "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)",
    "CREATE CLUSTER d (SIZE = '50cc')",
    'CREATE TABLE t (a int NOT NULL, b text, c bigint)',
    'CREATE SOURCE auction IN CLUSTER c FROM LOAD GENERATOR AUCTION FOR ALL TABLES',
    "COMMENT ON CLUSTER d IS 'the other one'",
  ].join('; '),
);

function select(sql: string, o: { snapshot?: CatalogSnapshot; replicaStatuses?: ReplicaStatusRecord[] } = {}) {
  const [ps] = parse(sql);
  const rel = evaluateSelect(ps!.statement as Extract<Statement, { kind: 'select' }>, {
    snapshot: o.snapshot ?? snapshot,
    replicaStatuses: o.replicaStatuses ?? [],
    effects: [],
    connectorStatuses: [],
    history: [],
  });
  return { columns: rel.columns.map((c) => c.name), rows: rel.rows, notices: rel.notices ?? [] };
}

function failure(sql: string) {
  try {
    select(sql);
  } catch (e) {
    if (!(e instanceof ControlPlaneError)) throw e;
    return { code: e.code, message: e.message, position: e.position };
  }
  throw new Error(`${sql} did not fail`);
}

describe('SELECT ... FROM (SHOW ...)', () => {
  it("reads the SHOW's columns: all of them with *, or the ones named, in the order named", () => {
    expect(select('SELECT * FROM (SHOW CLUSTERS)')).toEqual({
      columns: ['name', 'replicas', 'comment'],
      rows: [
        ['c', 'r1 (25cc), r2 (25cc)', ''],
        ['d', 'r1 (50cc)', 'the other one'],
      ],
      notices: [],
    });
    expect(select('SELECT comment, name FROM (SHOW CLUSTERS)').rows).toEqual([
      ['', 'c'],
      ['the other one', 'd'],
    ]);
  });

  it("filters with WHERE on the SHOW's columns, after the SHOW's own LIKE or WHERE", () => {
    expect(select('SELECT name FROM (SHOW COLUMNS FROM t) WHERE nullable = true').rows).toEqual([['b'], ['c']]);
    expect(select("SELECT name, type FROM (SHOW COLUMNS FROM t WHERE name <> 'b') WHERE nullable = true").rows).toEqual([['c', 'bigint']]);
    expect(select("SELECT name FROM (SHOW SOURCES LIKE 'a%') WHERE type <> 'subsource'").rows).toEqual([['auction']]);
    expect(select("SELECT replica FROM (SHOW CLUSTER REPLICAS IN CLUSTER c) WHERE replica IN ('r2', 'r9')").rows).toEqual([['r2']]);
  });

  it('orders, limits and offsets the rows', () => {
    const subsources = select("SELECT name FROM (SHOW SOURCES) WHERE type = 'subsource' ORDER BY name").rows.flat();
    expect(subsources).toEqual([...subsources].sort());
    expect(subsources.length).toBeGreaterThan(3);
    expect(select("SELECT name FROM (SHOW SOURCES) WHERE type = 'subsource' ORDER BY name DESC LIMIT 2").rows.flat()).toEqual(subsources.slice(-2).reverse());
    expect(select("SELECT name FROM (SHOW SOURCES) WHERE type = 'subsource' ORDER BY name LIMIT 2 OFFSET 1").rows.flat()).toEqual(subsources.slice(1, 3));
    expect(select('SELECT cluster, replica FROM (SHOW CLUSTER REPLICAS) ORDER BY cluster DESC, replica DESC').rows).toEqual([
      ['d', 'r1'],
      ['c', 'r2'],
      ['c', 'r1'],
    ]);
  });

  it("reads the SHOW's statuses: ready is a replica being online", () => {
    const [r1] = snapshot.replicas(snapshot.clusters().find((c) => c.name === 'c')!.id);
    const online: ReplicaStatusRecord = { replicaId: r1!.id, status: 'online', reason: null, generation: 1, updatedAt: '2026-01-01T00:00:01.000Z' };
    expect(select("SELECT replica FROM (SHOW CLUSTER REPLICAS) WHERE ready = true", { replicaStatuses: [online] }).rows).toEqual([['r1']]);
  });

  it('keeps the notices of the SHOW it reads (a reconfiguration under way)', () => {
    const reconfiguring = plannedCatalog("CREATE CLUSTER c (SIZE = '25cc'); ALTER CLUSTER c SET (SIZE = '50cc') WITH (WAIT FOR '10m')");
    const { rows, notices } = select("SELECT replica, size FROM (SHOW CLUSTER REPLICAS) WHERE size = '50cc'", { snapshot: reconfiguring });
    expect(rows).toEqual([['r1-pending', '50cc']]);
    expect(notices).toEqual([`cluster "c" is being reconfigured to SIZE '50cc', REPLICATION FACTOR 1: replicas r1-pending run beside the current ones until 2026-01-01T00:10:00.000Z; see mz_internal.mz_pending_cluster_reconfigurations`]);
  });

  it('answers 42703 for a column the SHOW does not have, naming the ones it has', () => {
    expect(failure('SELECT size FROM (SHOW CLUSTERS)')).toMatchObject({ code: '42703', message: 'column "size" does not exist' });
    expect(failure("SELECT name FROM (SHOW CLUSTERS) WHERE managed = true")).toMatchObject({ code: '42703', message: 'column "managed" does not exist' });
    expect(failure('SELECT name FROM (SHOW CLUSTERS) ORDER BY size')).toMatchObject({ code: '42703' });
  });

  it('answers 0A000 for SHOW CREATE there, pointing at the SHOW', () => {
    const sql = 'SELECT create_sql FROM (SHOW CREATE TABLE t)';
    expect(failure(sql)).toEqual({ code: '0A000', message: 'SHOW CREATE in a subquery is not supported by this control plane', position: sql.indexOf('SHOW') });
  });

  it('answers 0A000 for a variable there (a name that is no listing SHOW reads as one), pointing at it', () => {
    // Found by the SQL text fuzz: this crashed the evaluator with a TypeError.
    for (const sql of ['SELECT name FROM (SHOW CLURS)', 'SELECT * FROM (SHOW search_path)']) {
      const name = sql.slice(sql.indexOf('SHOW') + 5, -1);
      expect(failure(sql)).toMatchObject({ code: '0A000', message: `SHOW ${name.toLowerCase()} in a subquery is not supported by this control plane`, position: sql.indexOf(name) });
    }
  });
});
