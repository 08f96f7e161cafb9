/**
 * The scalar-expression reader (shared/sql/scalar.ts): PostgreSQL's precedence, its special call
 * forms, subqueries recognised and skipped, and errors with byte positions in the request.
 */
import { describe, expect, it } from 'vitest';
import { SqlSyntaxError } from '../../shared/errors';
import { parseScalar } from '../../shared/sql/parser';
import { MAX_NESTING_DEPTH, type ScalarExpr } from '../../shared/sql/scalar';

const read = (text: string, position = 0) => parseScalar({ text, position });

/** The tree as a parenthesized string: operators and calls with their operands, leaves as written. */
function shape(e: ScalarExpr): string {
  switch (e.kind) {
    case 'column':
      return e.name.join('.');
    case 'string':
      return `'${e.value}'`;
    case 'number':
      return e.value;
    case 'boolean':
      return String(e.value);
    case 'null':
      return 'null';
    case 'op':
      return `(${e.args.length === 1 ? `${e.op}${shape(e.args[0]!)}` : `${shape(e.args[0]!)} ${e.op} ${shape(e.args[1]!)}`})`;
    case 'not':
      return `(not ${shape(e.expr)})`;
    case 'and':
    case 'or':
      return `(${shape(e.left)} ${e.kind} ${shape(e.right)})`;
    case 'is':
      return `(${shape(e.expr)} is${e.negated ? ' not' : ''} ${e.test}${e.other ? ` ${shape(e.other)}` : ''})`;
    case 'like':
      return `(${shape(e.expr)}${e.negated ? ' not' : ''} like ${shape(e.pattern)})`;
    case 'between':
      return `(${shape(e.expr)} between ${shape(e.low)} and ${shape(e.high)})`;
    case 'in':
      return `(${shape(e.expr)} in [${e.list.map(shape).join(', ')}])`;
    case 'cast':
      return `(${shape(e.expr)}::${e.type.name.join('.')})`;
    case 'call':
      return `${e.name.join('.')}(${e.star ? '*' : e.args.map(shape).join(', ')})`;
    case 'subquery':
      return 'subquery';
    case 'typed_string':
      return `${e.type} '${e.value}'`;
    default:
      return e.kind;
  }
}

describe('scalar expressions', () => {
  it("reads PostgreSQL's precedence", () => {
    expect(shape(read('a OR b AND NOT c = d'))).toBe('(a or (b and (not (c = d))))');
    expect(shape(read('a = b IS NULL'))).toBe('((a = b) is null)');
    expect(shape(read('-2 ^ 2 * 3 + 1'))).toBe('((((-2) ^ 2) * 3) + 1)');
    expect(shape(read("headers->'a' || '.' || body = x"))).toBe("((((headers -> 'a') || '.') || body) = x)");
    expect(shape(read('a BETWEEN 1 AND 2 AND b'))).toBe('((a between 1 and 2) and b)');
    expect(shape(read("x NOT LIKE 'a%' OR y NOT IN (1, 2)"))).toBe("((x not like 'a%') or (y in [1, 2]))");
    expect(shape(read('-x::int'))).toBe('(-(x::int))');
  });

  it("reads special call forms, typed literals and bare calls", () => {
    expect(shape(read("position('x' IN body) > 0"))).toBe("(position('x', body) > 0)");
    expect(shape(read('extract(epoch FROM ts)'))).toBe("extract('epoch', ts)");
    expect(shape(read('substring(b FROM 1 FOR 2)'))).toBe('substring(b, 1, 2)');
    expect(shape(read("trim(both 'x' FROM y)"))).toBe("trim('x', y)");
    expect(shape(read('count(*)'))).toBe('count(*)');
    expect(shape(read("INTERVAL '30s' + now()"))).toBe("(interval '30s' + now())");
    expect(shape(read('current_timestamp'))).toBe('current_timestamp()');
    expect(shape(read('CAST(a AS text) IS DISTINCT FROM b'))).toBe('((a::text) is distinct b)');
  });

  it('recognises subqueries without reading them', () => {
    expect(shape(read('x IN (SELECT * FROM t WHERE (a = 1))'))).toBe('(x in [subquery])');
    expect(shape(read('EXISTS (VALUES (1)) AND ((SELECT 1)) = 1'))).toBe('(subquery and (subquery = 1))');
  });

  it('points errors at the byte in the request', () => {
    const at = (text: string, position = 0) => {
      try {
        read(text, position);
      } catch (e) {
        expect(e).toBeInstanceOf(SqlSyntaxError);
        return [(e as SqlSyntaxError).message, (e as SqlSyntaxError).position];
      }
      throw new Error(`read ${text}`);
    };
    expect(at('a = ', 100)).toEqual(['Expected an expression, found EOF', 104]);
    expect(at("'é' = )", 10)).toEqual(['Expected an expression, found right parenthesis', 17]);
    expect(at('a b')).toEqual(['Expected end of expression, found identifier "b"', 2]);
    expect(at('CASE WHEN a THEN b')).toEqual(['Expected END, found EOF', 18]);
    expect(at('(' .repeat(MAX_NESTING_DEPTH + 1) + 'a' + ')'.repeat(MAX_NESTING_DEPTH + 1))[0]).toBe(`statement exceeds nested expression limit of ${MAX_NESTING_DEPTH}`);
  });
});
