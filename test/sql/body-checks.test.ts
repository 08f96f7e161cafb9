import { describe, expect, it } from 'vitest';
import { ambiguousAliasColumn, hasRecordWildcard, mixesGroupSizeHints } from '../../shared/sql/body-checks';

describe('view body checks that the tokens show', () => {
  it('finds a wildcard over a record, not a plain or qualified star', () => {
    expect(hasRecordWildcard('SELECT (mz_tables).* FROM mz_tables')).toBe(true);
    expect(hasRecordWildcard('SELECT (t).* FROM t')).toBe(true);
    expect(hasRecordWildcard('SELECT * FROM t')).toBe(false);
    expect(hasRecordWildcard('SELECT t.* FROM t')).toBe(false);
    expect(hasRecordWildcard("SELECT '(x).*' FROM t")).toBe(false);
  });

  it('names a column an alias list gives twice only when the body reads it', () => {
    expect(ambiguousAliasColumn('SELECT a FROM t AS t2 (a, a)')).toBe('a');
    expect(ambiguousAliasColumn('SELECT t2.a FROM t AS t2 (a, a)')).toBe('a');
    expect(ambiguousAliasColumn('SELECT b FROM t AS t2 (a, a, b)')).toBeUndefined();
    expect(ambiguousAliasColumn('SELECT a FROM t AS t2 (a, b)')).toBeUndefined();
    expect(ambiguousAliasColumn('SELECT a FROM t')).toBeUndefined();
  });

  it('refuses the old and the new group size hints together, each alone is fine', () => {
    expect(mixesGroupSizeHints('SELECT a, max(b) FROM t GROUP BY a OPTIONS (EXPECTED GROUP SIZE = 10, AGGREGATE INPUT GROUP SIZE = 10)')).toBe(true);
    expect(mixesGroupSizeHints('SELECT DISTINCT ON (a) a FROM t OPTIONS (DISTINCT ON INPUT GROUP SIZE = 5, EXPECTED GROUP SIZE = 5)')).toBe(true);
    expect(mixesGroupSizeHints('SELECT a, max(b) FROM t GROUP BY a OPTIONS (EXPECTED GROUP SIZE = 10)')).toBe(false);
    expect(mixesGroupSizeHints('SELECT a, max(b) FROM t GROUP BY a OPTIONS (AGGREGATE INPUT GROUP SIZE = 10, LIMIT INPUT GROUP SIZE = 3)')).toBe(false);
    expect(mixesGroupSizeHints('SELECT 1')).toBe(false);
  });
});
