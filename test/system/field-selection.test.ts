/**
 * A field of a function's result read without parentheses around the call, as Materialize reads it
 * (`mz_aclexplode(privileges).*`, dbt-materialize's deploy macros) and PostgreSQL does not
 * (shared/system/query.ts): parentheses are added only where PostgreSQL's parser stops.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPgParser } from '../../shared/sql/pg-parser';
import { parenthesizeFieldSelections, type PgParser } from '../../shared/system/query';

let parser: PgParser;
beforeAll(async () => {
  parser = (await loadPgParser())!;
});

describe('a field of a call', () => {
  it.each([
    ['SELECT mz_internal.mz_aclexplode(s.privileges).* FROM mz_schemas s', 'SELECT (mz_internal.mz_aclexplode(s.privileges)).* FROM mz_schemas s'],
    ['SELECT i.key, unnest(headers).key AS k, unnest(headers).value FROM t i', 'SELECT i.key, (unnest(headers)).key AS k, (unnest(headers)).value FROM t i'],
    ['SELECT g(f(x).a).b FROM t', 'SELECT (g((f(x)).a)).b FROM t'],
    ['SELECT "F"(1).x, coalesce(a).b FROM t', 'SELECT ("F"(1)).x, (coalesce(a)).b FROM t'],
  ])('%s', (query, rewritten) => {
    const r = parenthesizeFieldSelections(query, parser)!;
    expect(r.text).toBe(rewritten);
    // Offsets in the new text map back to the same spot of the old.
    expect(r.original(Buffer.from(r.text).indexOf('FROM'))).toBe(query.indexOf('FROM'));
  });

  it.each([
    'SELECT (f(x)).a, count(*) FROM t',
    // PostgreSQL reads these itself: nothing is added, even where a keyword stands before a parenthesis.
    'SELECT map_agg((headers).key, v ORDER BY (headers).value DESC) FROM t',
    'SELECT (SELECT 1 AS x).x',
    // Another syntax error is left for the caller to report as it stands.
    'SELEC 1',
    'SELECT f(x).',
  ])('leaves %s', (query) => {
    expect(parenthesizeFieldSelections(query, parser)).toBeUndefined();
  });
});
