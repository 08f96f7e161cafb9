import { describe, expect, it } from 'vitest';
import { checkSourceEncoding, intervalMicros } from '../../shared/planner/source-sink-checks';
import { parse } from '../../shared/sql/parser';
import { checkMaterializable } from '../../shared/planner/unmaterializable';

describe('intervalMicros', () => {
  it('reads the interval spellings of Materialize tests', () => {
    expect(intervalMicros({ kind: 'string', value: '1hr 1ms' })).toBe(3_600_001_000);
    expect(intervalMicros({ kind: 'string', value: '-30s' })).toBe(-30_000_000);
    expect(intervalMicros({ kind: 'string', value: '0.05s' })).toBe(50_000);
    expect(intervalMicros({ kind: 'string', value: '2147483647d' })).toBe(2147483647 * 86_400_000_000);
    expect(intervalMicros({ kind: 'number', value: '0.1' })).toBe(100_000);
  });
  it('leaves what it does not read to the data plane', () => {
    expect(intervalMicros({ kind: 'string', value: '1 fortnight' })).toBeUndefined();
    expect(intervalMicros({ kind: 'string', value: '' })).toBeUndefined();
    expect(intervalMicros({ kind: 'ident', value: 'x' })).toBeUndefined();
  });
});

describe('checkMaterializable', () => {
  const mv = { materialized: true, allowMzNow: true, basePosition: 10 };
  it('points at the first unmaterializable call, named as Materialize names it', () => {
    expect(() => checkMaterializable('SELECT 1 WHERE now() > 0', mv)).toThrow('cannot materialize call to current_timestamp');
    expect(() => checkMaterializable('SELECT 1 WHERE current_user = x', mv)).toThrow(expect.objectContaining({ position: 10 + 'SELECT 1 WHERE '.length }));
  });
  it('ignores names in strings, quoted names, qualified columns and aliases', () => {
    expect(() => checkMaterializable(`SELECT 'now()', "mz_version"(), t.now, a AS current_user FROM t WHERE mz_now() > 0`, mv)).not.toThrow();
  });
  it('refuses mz_now() in an index key, and checks only the rename in a plain view', () => {
    expect(() => checkMaterializable('mz_now()', { ...mv, allowMzNow: false })).toThrow('cannot materialize call to mz_now');
    expect(() => checkMaterializable('SELECT mz_version()', { ...mv, materialized: false })).not.toThrow();
    expect(() => checkMaterializable('SELECT mz_logical_timestamp()', { ...mv, materialized: false })).toThrow('has been renamed to mz_now()');
  });
});

describe('checkSourceEncoding', () => {
  const check = (clauses: string, keyValueGenerator = false) => () => {
    const s = parse(`CREATE TABLE t FROM SOURCE s (REFERENCE x) ${clauses}`)[0]!.statement as Parameters<typeof checkSourceEncoding>[0];
    checkSourceEncoding(s, keyValueGenerator, 7);
  };
  const schema = (...fields: string[]) => `'{"type":"record","name":"r","fields":[${fields.map((f) => `{"name":"${f}","type":"string"}`).join(',')}]}'`;
  it("answers Materialize's key and envelope errors, in its order", () => {
    expect(check(`FORMAT AVRO USING SCHEMA ${schema('a')} ENVELOPE UPSERT`)).toThrow('ENVELOPE [DEBEZIUM] UPSERT requires that KEY FORMAT be specified');
    expect(check(`FORMAT AVRO USING SCHEMA ${schema('a')} INCLUDE KEY`)).toThrow('INCLUDE KEY requires specifying KEY FORMAT .. VALUE FORMAT, got bare FORMAT');
    expect(check(`KEY FORMAT TEXT VALUE FORMAT AVRO USING SCHEMA ${schema('a')} INCLUDE KEY ENVELOPE DEBEZIUM`)).toThrow('Cannot use INCLUDE KEY with ENVELOPE DEBEZIUM: Debezium values include all keys.');
    expect(check('KEY FORMAT JSON VALUE FORMAT JSON ENVELOPE DEBEZIUM')).toThrow(expect.objectContaining({ message: 'ENVELOPE DEBEZIUM requires that VALUE FORMAT is set to AVRO', code: 'XX000', position: 7 }));
    // Materialize's bail_unsupported!: a PlanError, XX000 like every other.
    expect(check('FORMAT JSON ARRAY')).toThrow(expect.objectContaining({ message: 'JSON ARRAY format in sources not yet supported', code: 'XX000' }));
  });
  it('finds a column named twice among key, value, metadata and inline errors', () => {
    expect(check('KEY FORMAT TEXT VALUE FORMAT JSON INCLUDE KEY AS error ENVELOPE UPSERT (VALUE DECODING ERRORS = (INLINE))')).toThrow('column "error" specified more than once');
    expect(check(`KEY FORMAT TEXT VALUE FORMAT AVRO USING SCHEMA ${schema('headers')} INCLUDE HEADERS ENVELOPE UPSERT`)).toThrow('column "headers" specified more than once');
  });
  it('leaves to the registry what only it knows, and accepts the valid forms', () => {
    expect(check('FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr ENVELOPE UPSERT')).not.toThrow();
    expect(check('FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr INCLUDE KEY')).not.toThrow();
    expect(check('KEY FORMAT TEXT VALUE FORMAT JSON INCLUDE KEY, PARTITION ENVELOPE UPSERT (VALUE DECODING ERRORS = (INLINE))')).not.toThrow();
    expect(check('INCLUDE KEY ENVELOPE UPSERT', true)).not.toThrow();
  });
});
