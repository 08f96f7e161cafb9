/**
 * The chaos run's history checker (bench/chaos/history.ts): it must pass a clean history and
 * catch an answer the catalog later undid — a lost DROP, a resurrected object, a lost CREATE —
 * and answers no serial order can explain.
 */
import { describe, expect, it } from 'vitest';
import { checkHistory, parseStatement, type FinalCatalog, type HistoryEntry } from '../../bench/chaos/history';

let op = 0;
const ok = (...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: { committed: true } });
const err = (code: string, ...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: { committed: false, error: { index: statements.length - 1, code } } });
const unanswered = (...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: undefined });
const final = (f: Partial<FinalCatalog>): FinalCatalog => ({ clusters: [], schemas: [], items: {}, ...f });

const base = [
  ok("CREATE CLUSTER c1 (SIZE = '25cc', REPLICATION FACTOR = 1)"),
  ok('CREATE TABLE t1 (id int NOT NULL, amount numeric(10,2))'),
  ok('CREATE VIEW v1 AS SELECT * FROM t1'),
  ok('CREATE SOURCE src1 IN CLUSTER c1 FROM LOAD GENERATOR AUCTION FOR TABLES (users AS src1_users)'),
  err('2BP01', 'DROP TABLE t1'),
  err('2BP01', 'DROP SOURCE src1_users'),
  err('42P07', 'CREATE TABLE v1 (id int NOT NULL, amount numeric(10,2))'),
  err('42P01', 'DROP TABLE nope1'),
];
const baseFinal = { clusters: ['c1'], items: { t1: null, v1: null, src1: 'c1', src1_users: null } };

describe('the history checker', () => {
  it('passes a clean history with drops, cascades, renames and refusals that fit', () => {
    const history = [
      ...base,
      ok('ALTER TABLE t1 RENAME TO t_2'),
      ok('DROP CLUSTER c1 CASCADE'),
      err('42704', "CREATE SOURCE src3 IN CLUSTER c1 FROM LOAD GENERATOR COUNTER"),
      ok('CREATE SCHEMA big1', 'CREATE TABLE big1.t0 (id int NOT NULL, v text)'),
      ok('DROP TABLE t_2 CASCADE'),
    ];
    const r = checkHistory(history, [final({ schemas: ['big1'], items: { 'big1.t0': null } })]);
    expect(r.anomalies).toEqual([]);
    expect(r.acknowledged).toBe(history.length);
  });

  it('fails on a lost DROP: the DROP answered 200, the object is still there', () => {
    const r = checkHistory([...base, ok('DROP VIEW v1')], [final(baseFinal)]);
    expect(r.anomalies).toEqual([expect.stringMatching(/item v1 is in the final catalog, though no acknowledged request leaves it there/)]);
  });

  it('fails on a resurrected object: dropped with 200, then refused as existing with no CREATE in between', () => {
    const r = checkHistory([...base, ok('DROP VIEW v1'), err('42P07', 'CREATE VIEW v1 AS SELECT * FROM t1')], [final(baseFinal)]);
    expect(r.anomalies).toEqual([expect.stringMatching(/answered 42P07 \(already exists\) though the name was free: CREATE VIEW v1/)]);
  });

  it('fails on a lost CREATE and on a CASCADE the catalog did not follow', () => {
    expect(checkHistory([...base, ok('CREATE TABLE t9 (id int NOT NULL, amount numeric(10,2))')], [final(baseFinal)]).anomalies).toEqual([expect.stringMatching(/item t9 is missing/)]);
    expect(checkHistory([...base, ok('DROP TABLE t1 CASCADE')], [final(baseFinal)]).anomalies).toEqual([expect.stringMatching(/item t1 is in the final catalog/), expect.stringMatching(/item v1 is in the final catalog/)]);
  });

  it('fails on answers no serial order explains: a DROP without CASCADE answered 200 while a dependent existed', () => {
    const r = checkHistory([...base, ok('DROP TABLE t1')], [final({ clusters: ['c1'], items: { src1: 'c1', src1_users: null } })]);
    expect(r.anomalies).toEqual([expect.stringMatching(/dropped without CASCADE though v1 depends on it/)]);
  });

  it('tries every order of requests in flight at once, and an unanswered request both ways', () => {
    const a = { ...ok('DROP VIEW v1'), group: 1 };
    const b = { ...err('42P07', 'CREATE VIEW v1 AS SELECT * FROM t1'), group: 1 };
    expect(checkHistory([...base, a, b], [final({ ...baseFinal, items: { t1: null, src1: 'c1', src1_users: null } })]).anomalies).toEqual([]);
    const lost = unanswered('DROP VIEW v1');
    expect(checkHistory([...base, lost], [final(baseFinal)]).anomalies).toEqual([]);
    expect(checkHistory([...base, lost], [final({ ...baseFinal, items: { t1: null, src1: 'c1', src1_users: null } })]).anomalies).toEqual([]);
  });

  it('reads the workload statement forms', () => {
    expect(parseStatement('ALTER MATERIALIZED VIEW mv3 SET CLUSTER c2')).toEqual({ t: 'set-cluster', name: 'mv3', cluster: 'c2' });
    expect(parseStatement("CREATE SINK sink4 IN CLUSTER c1 FROM t1 INTO KAFKA CONNECTION conn2 (TOPIC 'topic_sink4') FORMAT JSON ENVELOPE DEBEZIUM")).toMatchObject({ t: 'create-item', deps: ['t1', 'conn2'], cluster: 'c1' });
    expect(parseStatement('DROP CLUSTER IF EXISTS c3 CASCADE')).toEqual({ t: 'drop-cluster', name: 'c3', cascade: true, ifExists: true });
    expect(parseStatement('SHOW SOURCES')).toEqual({ t: 'none' });
  });
});
