import { describe, expect, it } from 'vitest';
import { intervalMicros } from '../../shared/planner/source-sink-checks';
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
