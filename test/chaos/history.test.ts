/**
 * The chaos run's history checker (bench/chaos/history.ts): it must pass a clean history and
 * catch an answer the catalog later undid — a lost DROP, a resurrected object, a lost CREATE —
 * and answers no serial order can explain.
 */
import { describe, expect, it } from 'vitest';
import { checkHistory, parseStatement, type Answer, type Facts, type FinalCatalog, type HistoryEntry } from '../../bench/chaos/history';

let op = 0;
const ok = (...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: { committed: true } });
const err = (code: string, ...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: { committed: false, error: { index: statements.length - 1, code } } });
const unanswered = (...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: undefined });
const final = (f: Partial<FinalCatalog>): FinalCatalog => ({ clusters: [], schemas: [], items: {}, ...f });
const read = (rows: unknown[][], ...statements: string[]): HistoryEntry => ({ op: op++, tenant: 0, statements, answer: { committed: true, rows: statements.map((_, i) => (i === statements.length - 1 ? rows : undefined)) } as Answer });

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

  it("takes an item's indexes with it without CASCADE, as Materialize does: they do not make a DROP answer 2BP01", () => {
    const indexed = [...base, ok('CREATE INDEX idx1 IN CLUSTER c1 ON v1 (id)')];
    expect(checkHistory([...indexed, ok('DROP VIEW v1')], [final({ clusters: ['c1'], items: { t1: null, src1: 'c1', src1_users: null } })]).anomalies).toEqual([]);
    expect(checkHistory([...indexed, err('2BP01', 'DROP VIEW v1')], [final({ ...baseFinal, items: { ...baseFinal.items, idx1: 'c1' } })]).anomalies).toEqual([expect.stringMatching(/answered 2BP01 \(dependents\) though v1 had none/)]);
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

  it('reports the smallest difference when no order fits: not the one of an unanswered request tried the wrong way round', () => {
    const crashed = unanswered('CREATE SCHEMA big1', 'CREATE TABLE big1.t0 (id int NOT NULL, v text)', 'CREATE TABLE big1.t1 (id int NOT NULL, v text)');
    const r = checkHistory([...base, crashed, ok('DROP VIEW v1')], [final(baseFinal)]);
    expect(r.anomalies).toEqual([expect.stringMatching(/item v1 is in the final catalog/)]);
  });

  it('reads the workload statement forms', () => {
    expect(parseStatement('ALTER MATERIALIZED VIEW mv3 SET CLUSTER c2')).toEqual({ t: 'set-cluster', name: 'mv3', cluster: 'c2' });
    expect(parseStatement("CREATE SINK sink4 IN CLUSTER c1 FROM t1 INTO KAFKA CONNECTION conn2 (TOPIC 'topic_sink4') FORMAT JSON ENVELOPE DEBEZIUM")).toMatchObject({ t: 'create-item', deps: ['t1', 'conn2'], cluster: 'c1' });
    expect(parseStatement('DROP CLUSTER IF EXISTS c3 CASCADE')).toEqual({ t: 'drop-cluster', name: 'c3', cascade: true, ifExists: true });
    expect(parseStatement('SHOW SOURCES')).toEqual({ t: 'none' });
  });
});

describe('the history checker, on the facts the newer statement kinds set', () => {
  const kinds = [
    ok("CREATE CLUSTER c1 (SIZE = '25cc', REPLICATION FACTOR = 2)"),
    ok("CREATE CLUSTER c2 REPLICAS (r1 (SIZE = '25cc'))"),
    ok('CREATE TYPE ty1 AS LIST (ELEMENT TYPE = int4)'),
    ok("CREATE TABLE t1 (id int NOT NULL, amount numeric(10,2), tags ty1) WITH (RETAIN HISTORY FOR '2s')"),
    ok('ALTER TABLE t1 ADD COLUMN note text'),
    err('42701', 'ALTER TABLE t1 ADD COLUMN note text'),
    ok("COMMENT ON COLUMN t1.note IS 'why'"),
    ok("COMMENT ON TABLE t1 IS 'orders'"),
    ok("COMMENT ON CLUSTER c1 IS 'serving'"),
    ok("ALTER TABLE t1 SET (RETAIN HISTORY FOR '1h')"),
    ok("CREATE SECRET s1 AS 'x'"),
    ok("CREATE CONNECTION conn1 TO MYSQL (HOST 'mysql.internal', PORT 3306, USER 'mz', PASSWORD SECRET s1) WITH (VALIDATE = false)"),
    ok("ALTER CONNECTION conn1 SET (HOST = 'h2.internal') WITH (VALIDATE = false)"),
    ok('CREATE SOURCE src1 IN CLUSTER c1 FROM MYSQL CONNECTION conn1 FOR TABLES (shop.orders AS src1_orders)'),
    ok('ALTER SOURCE src1 ADD SUBSOURCE shop.items AS sub1'),
    err('42P07', 'ALTER SOURCE src1 ADD SUBSOURCE shop.orders AS sub2'),
    ok("ALTER SOURCE src1 SET (TIMESTAMP INTERVAL '1s')"),
    ok("ALTER CLUSTER c1 SET (SIZE = '50cc') WITH (WAIT UNTIL READY (TIMEOUT = '1s', ON TIMEOUT = 'ROLLBACK'))"),
    ok('ALTER CLUSTER c2 SET (MANAGED)'),
    read([['id', false, 'integer', ''], ['amount', true, 'numeric', ''], ['tags', true, 'ty1', ''], ['note', true, 'text', 'why']], 'SHOW COLUMNS FROM t1'),
    read([['src1_orders', 'subsource'], ['sub1', 'subsource']], 'SHOW SUBSOURCES ON src1'),
    err('2BP01', 'DROP TYPE ty1'),
  ];
  const table: Facts = { comment: 'orders', 'comment on column note': 'why', columns: 'id, amount, tags, note', 'retain history': '3600000', 'retain history in SHOW CREATE': '3600000' };
  const cluster = (size: string): Facts => ({ managed: 'true', size, 'replication factor': '2', schedule: 'manual', comment: 'serving' });
  const facts = (size: string, t: Facts = table) => ({
    clusters: { c1: cluster(size), c2: { managed: 'true', size: '25cc', 'replication factor': '1', schedule: 'manual' } },
    items: { ty1: {}, t1: t, s1: {}, conn1: { host: 'h2.internal' }, src1: { 'timestamp interval': '1s' }, src1_orders: {}, sub1: {} },
  });
  const names = { clusters: ['c1', 'c2'], items: { ty1: null, t1: null, s1: null, conn1: null, src1: 'c1', src1_orders: null, sub1: null } };

  it('passes when every fact the acknowledged requests set is in the final catalog; a ROLLBACK may leave either size', () => {
    expect(checkHistory(kinds, [final({ ...names, facts: facts('25cc') })]).anomalies).toEqual([]);
    expect(checkHistory(kinds, [final({ ...names, facts: facts('50cc') })]).anomalies).toEqual([]);
  });

  it('fails on a size no request asked for, a lost COMMENT, and a SHOW CREATE that still shows the old RETAIN HISTORY', () => {
    expect(checkHistory(kinds, [final({ ...names, facts: facts('100cc') })]).anomalies).toEqual([expect.stringMatching(/cluster c1: size is 100cc in the final catalog; the acknowledged requests leave 25cc or 50cc/)]);
    const { comment: _lost, ...uncommented } = table;
    expect(checkHistory(kinds, [final({ ...names, facts: facts('25cc', uncommented) })]).anomalies).toEqual([expect.stringMatching(/item t1: comment is not set in the final catalog; the acknowledged requests leave "orders"/)]);
    expect(checkHistory(kinds, [final({ ...names, facts: facts('25cc', { ...table, 'retain history in SHOW CREATE': '2000' }) })]).anomalies).toEqual([
      expect.stringMatching(/item t1: retain history in SHOW CREATE is "2000" in the final catalog; the acknowledged requests leave "3600000"/),
    ]);
  });

  it('fails on a read that does not show what the requests before it left, and on errors the catalog does not explain', () => {
    const stale = read([['id', false, 'integer', ''], ['amount', true, 'numeric', ''], ['tags', true, 'ty1', '']], 'SHOW COLUMNS FROM t1');
    expect(checkHistory([...kinds, stale], [final({ ...names, facts: facts('25cc') })]).anomalies).toEqual([expect.stringMatching(/SHOW COLUMNS FROM t1 answered columns \["id","amount","tags"\]/)]);
    expect(checkHistory([...kinds, err('42701', 'ALTER TABLE t1 ADD COLUMN region text')], [final({ ...names, facts: facts('25cc') })]).anomalies).toEqual([expect.stringMatching(/answered 42701/)]);
    expect(checkHistory([...kinds, ok('DROP CLUSTER REPLICA c1.r1')], [final({ ...names, facts: facts('25cc') })]).anomalies).toEqual([expect.stringMatching(/dropped by hand though the cluster is managed/)]);
  });

  it('reads the newer statement forms', () => {
    expect(parseStatement("ALTER CLUSTER c1 SET (SIZE = '50cc', REPLICATION FACTOR = 2) WITH (WAIT UNTIL READY (TIMEOUT = '1s', ON TIMEOUT = 'COMMIT'))")).toEqual({ t: 'alter-cluster', name: 'c1', size: '50cc', rf: 2, wait: 'commit' });
    expect(parseStatement("ALTER CLUSTER c1 SET (SIZE = '50cc') WITH (WAIT UNTIL READY (TIMEOUT = '1s', ON TIMEOUT = 'ROLLBACK'))")).toEqual({ t: 'alter-cluster', name: 'c1', size: '50cc', wait: 'rollback' });
    expect(parseStatement("ALTER CLUSTER c1 SET (SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour'))")).toEqual({ t: 'alter-cluster', name: 'c1', schedule: 'on refresh' });
    expect(parseStatement("ALTER CLUSTER c1 SET (SIZE = '50cc', SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour')) WITH (WAIT FOR '1s')")).toEqual({ t: 'alter-cluster', name: 'c1', size: '50cc', schedule: 'on refresh', wait: 'commit' });
    expect(parseStatement("ALTER CLUSTER c1 SET (MANAGED, SIZE = '25cc')")).toEqual({ t: 'alter-cluster', name: 'c1', managed: true, size: '25cc' });
    expect(parseStatement('ALTER CLUSTER c1 SET (MANAGED = false)')).toEqual({ t: 'alter-cluster', name: 'c1', managed: false });
    expect(parseStatement('ALTER CONNECTION conn1 RENAME TO conn_2')).toEqual({ t: 'rename-item', from: 'conn1', to: 'conn_2' });
    expect(parseStatement('ALTER CONNECTION conn1 ROTATE KEYS')).toEqual({ t: 'item-exists', name: 'conn1' });
    expect(parseStatement("COMMENT ON MATERIALIZED VIEW mv3 IS 'it''s'")).toEqual({ t: 'comment', on: { kind: 'item', name: 'mv3' }, value: "it's" });
    expect(parseStatement('ALTER INDEX idx4 RESET (RETAIN HISTORY)')).toEqual({ t: 'set-fact', name: 'idx4', fact: 'retain history', value: undefined });
    expect(parseStatement("CREATE MATERIALIZED VIEW mv5 IN CLUSTER c1 WITH (REFRESH AT CREATION, REFRESH EVERY '1 hour') AS SELECT count(*) FROM t1")).toMatchObject({ t: 'create-item', cluster: 'c1', deps: ['t1'], facts: { refresh: 'scheduled' } });
    expect(parseStatement("SELECT name, nullable FROM (SHOW COLUMNS FROM t1) ORDER BY name")).toEqual({ t: 'read-columns', name: 't1', sorted: true });
  });
});
