/**
 * Unit tests for what golden files cannot show well: exact AST shapes that other modules consume,
 * byte positions, error classes and SQLSTATEs, limits, redaction and speed.
 */
import { describe, expect, it } from 'vitest';
import { NotSupportedError, SQLSTATE, SqlSyntaxError } from '../../shared/errors';
import type { Statement } from '../../shared/sql/ast';
import { stripPositions } from '../../shared/sql/compare';
import { MAX_NESTING_DEPTH, parse, Parser } from '../../shared/sql/parser';
import { print } from '../../shared/sql/printer';
import { budget } from '../helpers/budget';

const one = (sql: string): Statement => {
  const parsed = parse(sql);
  expect(parsed).toHaveLength(1);
  return parsed[0]!.statement;
};

function errorOf(sql: string): SqlSyntaxError | NotSupportedError {
  try {
    parse(sql);
  } catch (e) {
    if (e instanceof SqlSyntaxError || e instanceof NotSupportedError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(sql)} to fail`);
}

describe('AST shapes consumed elsewhere (compatibility)', () => {
  it('create_cluster: managed options with name, value and byte position', () => {
    // Prepare / Act
    const s = one(`CREATE CLUSTER c (SIZE = '100cc', REPLICATION FACTOR 2, DISK)`);
    // Assess
    expect(s).toEqual({
      kind: 'create_cluster',
      name: 'c',
      options: [
        { name: 'SIZE', value: { kind: 'string', value: '100cc' }, position: 18 },
        { name: 'REPLICATION FACTOR', value: { kind: 'number', value: '2' }, position: 34 },
        { name: 'DISK', value: { kind: 'none' }, position: 56 },
      ],
    });
    expect('replicas' in s).toBe(false);
  });

  it('create_cluster: unmanaged replicas, from either spelling', () => {
    const expected = {
      kind: 'create_cluster',
      name: 'c',
      replicas: [{ name: 'r1', options: [{ name: 'SIZE', value: { kind: 'string', value: '1' }, position: 0 }] }],
      options: [],
    };
    expect(stripPositions(one(`CREATE CLUSTER c REPLICAS (r1 (SIZE '1'))`))).toEqual(stripPositions(expected));
    expect(stripPositions(one(`CREATE CLUSTER c (REPLICAS (r1 (SIZE '1')))`))).toEqual(stripPositions(expected));
  });

  it('create_cluster_replica, drop, show and select keep their fields', () => {
    expect(stripPositions(one(`CREATE CLUSTER REPLICA c.r (SIZE = SECRET s.x)`))).toEqual({
      kind: 'create_cluster_replica',
      cluster: 'c',
      name: 'r',
      options: [{ name: 'SIZE', value: { kind: 'secret', name: ['s', 'x'] } }],
    });
    expect(one('DROP CLUSTER REPLICA IF EXISTS c.r, c.s CASCADE')).toEqual({
      kind: 'drop',
      objectType: 'cluster replica',
      ifExists: true,
      names: [['c', 'r'], ['c', 's']],
      cascade: true,
      restrict: false,
    });
    expect(one(`SHOW CLUSTER REPLICAS LIKE 'a%'`)).toEqual({ kind: 'show', what: 'cluster replicas', filter: { kind: 'like', pattern: 'a%' } });
    expect(one('SHOW MATERIALIZED VIEWS IN CLUSTER c')).toEqual({ kind: 'show', what: 'materialized views', inCluster: 'c' });
    // A query is PostgreSQL's: its text goes whole to the catalog SQL engine, with its byte position.
    expect(one('SELECT a FROM mz_internal.x WHERE a IS NULL LIMIT 2')).toEqual({
      kind: 'query',
      text: 'SELECT a FROM mz_internal.x WHERE a IS NULL LIMIT 2',
      position: 0,
    });
    // Materialize's `SELECT ... FROM (SHOW ...)` keeps its own evaluator and fields.
    expect(one('SELECT name FROM (SHOW CLUSTERS) WHERE name IS NULL LIMIT 2')).toMatchObject({
      kind: 'select',
      columns: ['name'],
      limit: 2,
    });
  });

  it('identifiers are lowercased unless quoted', () => {
    expect(one('CREATE DATABASE Sales')).toEqual({ kind: 'create_database', name: 'sales', ifNotExists: false });
    expect(one('CREATE DATABASE "Sales"')).toEqual({ kind: 'create_database', name: 'Sales', ifNotExists: false });
  });

  it('the generic option list reader is still available to callers', () => {
    const options = new Parser(`(ANY NAME 'x', OTHER)`).parseOptionList();
    expect(options.map((o) => o.name)).toEqual(['ANY NAME', 'OTHER']);
  });
});

describe('byte positions', () => {
  it('statement spans and text are byte offsets into the request', () => {
    const text = `CREATE DATABASE "é"; DROP DATABASE "é"`;
    const parsed = parse(text);
    expect(parsed.map((p) => [p.start, p.end, p.text])).toEqual([
      [0, 20, 'CREATE DATABASE "é"'],
      [22, 40, 'DROP DATABASE "é"'],
    ]);
  });

  it('raw spans keep the text as typed and where it starts', () => {
    const text = `CREATE VIEW "ü" AS SELECT  a->>'k'  FROM t ; CREATE INDEX i ON t (lower(a), (b + 1))`;
    const [view, index] = parse(text).map((p) => p.statement);
    expect(view).toMatchObject({ kind: 'create_view', query: `SELECT  a->>'k'  FROM t`, queryPosition: 20 });
    expect(Buffer.from(text).subarray(20, 20 + Buffer.byteLength(`SELECT  a->>'k'  FROM t`)).toString()).toBe(`SELECT  a->>'k'  FROM t`);
    expect(index).toMatchObject({ kind: 'create_index', keyParts: [{ text: 'lower(a)' }, { text: '(b + 1)' }] });
  });

  it('error positions are byte offsets', () => {
    const e = errorOf(`CREATE CLUSTER "ü" (BOGUS 1)`);
    expect(e.position).toBe(21);
  });
});

describe('errors', () => {
  it('syntax errors are SqlSyntaxError 42601 reading "Expected X, found Y"', () => {
    const e = errorOf('DROP CLUSTER');
    expect(e).toBeInstanceOf(SqlSyntaxError);
    expect(e.code).toBe(SQLSTATE.syntaxError);
    expect(e.message).toBe('Expected identifier, found EOF');
    expect(e.position).toBe(12);
  });

  it('statements Materialize has and we do not are NotSupportedError 0A000 with a position', () => {
    for (const [sql, position] of [
      ['INSERT INTO t VALUES (1)', 0],
      ['CREATE CONTINUAL TASK ct ON INPUT t AS (INSERT INTO ct SELECT * FROM t)', 7],
      ['CREATE SOURCE s FROM YUGABYTE CONNECTION m', 21],
      ['ALTER SOURCE s DROP SUBSOURCE t', 15],
    ] as const) {
      const e = errorOf(sql);
      expect(e, sql).toBeInstanceOf(NotSupportedError);
      expect(e.code).toBe(SQLSTATE.featureNotSupported);
      expect(e.position).toBe(position);
    }
  });

  it('identifiers over 255 bytes are refused with 42622', () => {
    expect(one(`CREATE DATABASE ${'a'.repeat(255)}`)).toMatchObject({ kind: 'create_database' });
    const long = errorOf(`CREATE DATABASE ${'a'.repeat(256)}`);
    expect(long).toBeInstanceOf(SqlSyntaxError);
    expect(long.code).toBe(SQLSTATE.nameTooLong);
    expect(long.position).toBe(16);
    expect(long.message).toBe('identifier length exceeds 255 bytes');
    // Counted in bytes: 128 two-byte characters are 256 bytes.
    const quoted = errorOf(`DROP DATABASE x, "${'é'.repeat(128)}"`);
    expect(quoted.code).toBe(SQLSTATE.nameTooLong);
    expect(quoted.position).toBe(17);
  });

  it('NUL bytes are refused with their position', () => {
    const e = errorOf(`CREATE DATABASE "é\u0000"`);
    expect(e).toBeInstanceOf(SqlSyntaxError);
    expect(e.code).toBe(SQLSTATE.characterNotInRepertoire);
    expect(e.position).toBe(19);
    expect(e.message).toMatch(/NUL/);
  });

  it('duplicated options name the option', () => {
    const e = errorOf(`CREATE CONNECTION p TO POSTGRES (HOST 'a', PORT 1, host 'b')`);
    expect(e.message).toBe('HOST specified more than once');
    expect(e.position).toBe(51);
  });

  it('unknown options list the valid ones for that statement', () => {
    const e = errorOf(`CREATE CLUSTER c (SIZE '1', COLOR 'blue')`);
    expect(e.message).toBe(
      'Expected one of AVAILABILITY ZONES or DISK or INTROSPECTION DEBUGGING or INTROSPECTION INTERVAL or MANAGED or REPLICAS or REPLICATION FACTOR or SCHEDULE or SIZE or WORKLOAD CLASS, found identifier "color"',
    );
    expect(e.position).toBe(28);
    // Connection options: any type's names read (the planner refuses the ones the type does not take); Materialize lists first words.
    expect(errorOf(`CREATE CONNECTION s TO SSH TUNNEL (HOST 'h', TOPIC 't')`).message).toMatch(/^Expected one of ACCESS or ASSUME or .* or WAREHOUSE, found TOPIC$/);
  });

  it('nesting deeper than the limit is a clear error, not a stack overflow', () => {
    const ok = `SELECT * FROM (SHOW CLUSTERS) WHERE ${'('.repeat(MAX_NESTING_DEPTH - 1)}name = 'a'${')'.repeat(MAX_NESTING_DEPTH - 1)}`;
    expect(one(ok)).toMatchObject({ kind: 'select' });
    const e = errorOf(`SELECT * FROM (SHOW CLUSTERS) WHERE ${'('.repeat(1_000_000)}`);
    expect(e).toBeInstanceOf(SqlSyntaxError);
    expect(e.code).toBe(SQLSTATE.statementTooComplex);
    expect(e.message).toBe(`statement exceeds nested expression limit of ${MAX_NESTING_DEPTH}`);
  });
});

describe('printer', () => {
  it('redacts secret values on request', () => {
    expect(print(one(`CREATE SECRET s AS 'hunter2'`), { redacted: true })).toBe(`CREATE SECRET s AS '********'`);
    expect(print(one(`ALTER SECRET s AS decode('aGk=', 'base64')`), { redacted: true })).toBe(`ALTER SECRET s AS '********'`);
    expect(print(one(`EXPLAIN EFFECTS FOR CREATE SECRET s AS 'x'`), { redacted: true })).toBe(`EXPLAIN EFFECTS FOR CREATE SECRET s AS '********'`);
  });

  it('quotes identifiers that would read back as keywords or differently', () => {
    expect(print(one(`CREATE INDEX "in" IN CLUSTER "Compute" ON "select"."My T" (a)`))).toBe(`CREATE INDEX "in" IN CLUSTER "Compute" ON "select"."My T" (a)`);
    expect(print(one(`SELECT "null", "a""b" FROM t WHERE "not" = 1`))).toBe(`SELECT "null", "a""b" FROM t WHERE "not" = 1`);
  });

  it('parses and prints a typical statement in well under 0.2 ms', () => {
    const typical = [
      `CREATE CLUSTER c (SIZE = '100cc', REPLICATION FACTOR = 2)`,
      `CREATE CONNECTION pg TO POSTGRES (HOST 'pg.example.com', PORT 5432, USER 'materialize', PASSWORD SECRET pw, DATABASE 'postgres', SSL MODE 'require')`,
      `CREATE SOURCE s IN CLUSTER ingest FROM KAFKA CONNECTION k (TOPIC 'orders') KEY FORMAT TEXT VALUE FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr INCLUDE KEY ENVELOPE UPSERT`,
      `CREATE MATERIALIZED VIEW mv IN CLUSTER c AS SELECT a, count(*) FROM t JOIN u ON t.id = u.id WHERE a > 1 GROUP BY a`,
      `CREATE TABLE t (id bigint NOT NULL, price numeric(10,2), name varchar(20), tags text[])`,
      `DROP SOURCE IF EXISTS a, b CASCADE`,
      `SELECT name, status FROM mz_internal.mz_source_statuses WHERE status <> 'running' ORDER BY name LIMIT 10`,
    ];
    const roundOnce = () => {
      for (const sql of typical) print(parse(sql)[0]!.statement);
    };
    for (let k = 0; k < 500; k++) roundOnce();
    const runs = 2000;
    const t0 = performance.now();
    for (let k = 0; k < runs; k++) roundOnce();
    const msPerStatement = (performance.now() - t0) / (runs * typical.length);
    expect(msPerStatement).toBeLessThan(budget(0.2));
  });
});
