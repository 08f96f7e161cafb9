/**
 * A reader of one scalar SQL expression (PostgreSQL's grammar, with Materialize's additions:
 * `LIST[...]`, `MAP[...]`, `map -> key`), into a tree whose meaning the planner works out. Used
 * where Materialize plans an expression itself instead of keeping it for the data plane: a
 * webhook source's `CHECK`. Pure; errors are "Expected X, found Y" at a byte position.
 *
 * Subqueries are recognised and skipped, not read: every place that reads a scalar here refuses
 * them. Operator precedence is PostgreSQL's (gram.y): OR < AND < NOT < IS < comparison <
 * BETWEEN / IN / LIKE < any other operator < + - < * / % < ^ < AT TIME ZONE < COLLATE < unary
 * minus < subscript < `::`.
 */
import { SQLSTATE, SqlSyntaxError } from '../errors';
import type { DataType } from './ast';
import type { Token } from './lexer';
import type { Parser } from './parser';

/** Deepest nesting of parentheses / NOT / option lists the parser (and this reader) follows. */
export const MAX_NESTING_DEPTH = 128;

export type ScalarExpr =
  | { readonly kind: 'column'; readonly name: readonly string[]; readonly position: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' }
  | { readonly kind: 'parameter'; readonly number: number; readonly position: number }
  /** `INTERVAL '30s'`, `DATE '2024-01-01'`: a literal of a named type. */
  | { readonly kind: 'typed_string'; readonly type: string; readonly value: string }
  /** An operator with its operands (one for a prefix operator, two for an infix one), as written (`||`, `->`, `+`). */
  | { readonly kind: 'op'; readonly op: string; readonly args: readonly ScalarExpr[]; readonly position: number }
  | { readonly kind: 'not'; readonly expr: ScalarExpr }
  | { readonly kind: 'and' | 'or'; readonly left: ScalarExpr; readonly right: ScalarExpr }
  /** `IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM x`, `ISNULL`, `NOTNULL`. */
  | { readonly kind: 'is'; readonly expr: ScalarExpr; readonly test: 'null' | 'true' | 'false' | 'unknown' | 'distinct'; readonly other?: ScalarExpr; readonly negated: boolean }
  /** `LIKE`, `ILIKE`, `SIMILAR TO` (each `[NOT]`, with an optional `ESCAPE`). */
  | { readonly kind: 'like'; readonly expr: ScalarExpr; readonly pattern: ScalarExpr; readonly escape?: ScalarExpr; readonly negated: boolean }
  | { readonly kind: 'between'; readonly expr: ScalarExpr; readonly low: ScalarExpr; readonly high: ScalarExpr; readonly negated: boolean }
  | { readonly kind: 'in'; readonly expr: ScalarExpr; readonly list: readonly ScalarExpr[]; readonly negated: boolean }
  /** `x op ANY | SOME | ALL (array)`. */
  | { readonly kind: 'quantified'; readonly left: ScalarExpr; readonly op: string; readonly right: ScalarExpr; readonly position: number }
  | { readonly kind: 'cast'; readonly expr: ScalarExpr; readonly type: DataType; readonly position: number }
  | {
      readonly kind: 'call';
      /** Lowercased unless quoted; `pg_catalog.now` has two parts. */
      readonly name: readonly string[];
      readonly args: readonly ScalarExpr[];
      readonly position: number;
      /** `count(*)`. */
      readonly star: boolean;
      /** `OVER (...)` or `OVER w` followed the call. */
      readonly window: boolean;
      /** Written without parentheses (`current_timestamp`, `localtimestamp`). */
      readonly bare: boolean;
    }
  | { readonly kind: 'case'; readonly operand?: ScalarExpr; readonly whens: readonly { readonly when: ScalarExpr; readonly then: ScalarExpr }[]; readonly else?: ScalarExpr }
  /** `(SELECT ...)`, `EXISTS (...)`, `x IN (SELECT ...)`, `ARRAY(SELECT ...)`: recognised, not read. */
  | { readonly kind: 'subquery'; readonly position: number }
  | { readonly kind: 'array' | 'list' | 'row'; readonly items: readonly ScalarExpr[] }
  | { readonly kind: 'map'; readonly entries: readonly { readonly key: ScalarExpr; readonly value: ScalarExpr }[] }
  | { readonly kind: 'subscript'; readonly expr: ScalarExpr; readonly indexes: readonly ScalarExpr[] }
  | { readonly kind: 'field'; readonly expr: ScalarExpr; readonly field: string };

/** SQL's functions called without parentheses. */
const NILADIC = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp', 'current_user', 'session_user', 'user', 'current_role', 'current_schema', 'current_catalog']);

/** Words that cannot start or continue an operand unquoted (PostgreSQL's reserved words that appear in expressions). */
const RESERVED = new Set([
  'all', 'and', 'any', 'array', 'as', 'asc', 'between', 'both', 'by', 'case', 'cast', 'collate', 'desc', 'distinct', 'else', 'end', 'escape', 'except',
  'exists', 'false', 'filter', 'for', 'from', 'group', 'having', 'ilike', 'in', 'intersect', 'is', 'isnull', 'leading', 'like', 'limit', 'not',
  'notnull', 'null', 'offset', 'on', 'or', 'order', 'over', 'placing', 'select', 'similar', 'some', 'symmetric', 'table', 'then', 'to', 'trailing',
  'true', 'union', 'values', 'when', 'where', 'window', 'with',
]);

const COMPARISON = new Set(['=', '<>', '!=', '<', '<=', '>', '>=']);
const INTERVAL_FIELDS = new Set(['year', 'month', 'day', 'hour', 'minute', 'second']);

const PREC = {
  or: 1,
  and: 2,
  not: 3,
  is: 4,
  comparison: 5,
  like: 6,
  other: 7,
  additive: 8,
  multiplicative: 9,
  exponent: 10,
  atTimeZone: 11,
  collate: 12,
  unary: 13,
  subscript: 14,
  cast: 15,
} as const;

class ScalarReader {
  private depth = 0;

  constructor(private readonly p: Parser) {}

  read(): ScalarExpr {
    return this.expr(0);
  }

  private nested<T>(f: () => T): T {
    if (this.depth >= MAX_NESTING_DEPTH) {
      throw new SqlSyntaxError(`statement exceeds nested expression limit of ${MAX_NESTING_DEPTH}`, this.at(this.p.peek()), { code: SQLSTATE.statementTooComplex });
    }
    this.depth++;
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private at(t: Token): number {
    return this.p.byte(t.start);
  }

  private expr(min: number): ScalarExpr {
    return this.nested(() => {
      let left = this.prefix();
      for (;;) {
        const next = this.infix(left, min);
        if (!next) return left;
        left = next;
      }
    });
  }

  private prefix(): ScalarExpr {
    const p = this.p;
    const t = p.peek();
    if (p.eatKeyword('not')) return { kind: 'not', expr: this.expr(PREC.not + 1) };
    if (t.kind === 'op' && (t.value === '-' || t.value === '+' || t.value === '~')) {
      p.next();
      return { kind: 'op', op: t.value, args: [this.expr(PREC.unary)], position: this.at(t) };
    }
    return this.postfix(this.primary());
  }

  /** Subscripts, field access and casts, which bind tighter than any operator. */
  private postfix(e: ScalarExpr): ScalarExpr {
    const p = this.p;
    for (;;) {
      const t = p.peek();
      if (p.eatOp('::')) {
        e = { kind: 'cast', expr: e, type: p.parseDataType(), position: this.at(t) };
      } else if (p.peekOp('[')) {
        p.next();
        const indexes: ScalarExpr[] = [];
        // `x[1]`, `x[1:2]`, `x[:2]`.
        if (!p.peekOp(':')) indexes.push(this.expr(0));
        if (p.eatOp(':') && !p.peekOp(']')) indexes.push(this.expr(0));
        p.expectOp(']');
        e = { kind: 'subscript', expr: e, indexes };
      } else if (p.peekOp('.') && (e.kind === 'row' || e.kind === 'subscript' || e.kind === 'field' || e.kind === 'call')) {
        p.next();
        e = { kind: 'field', expr: e, field: p.eatOp('*') ? '*' : p.parseIdent() };
      } else {
        return e;
      }
    }
  }

  private infix(left: ScalarExpr, min: number): ScalarExpr | undefined {
    const p = this.p;
    const t = p.peek();
    const word = t.kind === 'word' ? t.value : undefined;
    if (word === 'or' && PREC.or >= min) {
      p.next();
      return { kind: 'or', left, right: this.expr(PREC.or + 1) };
    }
    if (word === 'and' && PREC.and >= min) {
      p.next();
      return { kind: 'and', left, right: this.expr(PREC.and + 1) };
    }
    if ((word === 'is' || word === 'isnull' || word === 'notnull') && PREC.is >= min) return this.isTest(left);
    // `NOT` here continues a BETWEEN, IN, LIKE, ILIKE or SIMILAR TO.
    const negated = word === 'not' && ['between', 'in', 'like', 'ilike', 'similar'].includes(p.peek(1).value) && p.peek(1).kind === 'word';
    const w = negated ? p.peek(1).value : word;
    if (w !== undefined && ['between', 'in', 'like', 'ilike', 'similar'].includes(w) && PREC.like >= min) {
      if (negated) p.next();
      return this.likeFamily(left, w, negated);
    }
    if (word === 'at' && p.peekKeywords('at', 'time', 'zone') && PREC.atTimeZone >= min) {
      p.next();
      p.next();
      p.next();
      return { kind: 'op', op: 'AT TIME ZONE', args: [left, this.expr(PREC.atTimeZone + 1)], position: this.at(t) };
    }
    if (word === 'collate' && PREC.collate >= min) {
      p.next();
      return { kind: 'op', op: 'COLLATE', args: [left, { kind: 'string', value: p.parseObjectName().join('.') }], position: this.at(t) };
    }
    // `=>` separates a map literal's key from its value; it is no operator.
    if (t.kind !== 'op' || [',', ')', ']', ';', '(', '.', '[', '::', ':', '=>'].includes(t.value) || t.value.startsWith('$')) return undefined;
    const prec = COMPARISON.has(t.value)
      ? PREC.comparison
      : t.value === '+' || t.value === '-'
        ? PREC.additive
        : t.value === '*' || t.value === '/' || t.value === '%'
          ? PREC.multiplicative
          : t.value === '^'
            ? PREC.exponent
            : PREC.other;
    if (prec < min) return undefined;
    p.next();
    // `x = ANY (array)`, `x <> ALL (SELECT ...)`.
    const q = p.peek();
    if (q.kind === 'word' && (q.value === 'any' || q.value === 'some' || q.value === 'all') && p.peekOp('(', 1)) {
      p.next();
      return { kind: 'quantified', left, op: t.value, right: this.parenthesized(), position: this.at(t) };
    }
    return { kind: 'op', op: t.value, args: [left, this.expr(prec + 1)], position: this.at(t) };
  }

  private isTest(left: ScalarExpr): ScalarExpr {
    const p = this.p;
    if (p.eatKeyword('isnull')) return { kind: 'is', expr: left, test: 'null', negated: false };
    if (p.eatKeyword('notnull')) return { kind: 'is', expr: left, test: 'null', negated: true };
    p.expectKeyword('is');
    const negated = p.eatKeyword('not');
    for (const test of ['null', 'true', 'false', 'unknown'] as const) if (p.eatKeyword(test)) return { kind: 'is', expr: left, test, negated };
    if (p.eatKeywords('distinct', 'from')) return { kind: 'is', expr: left, test: 'distinct', other: this.expr(PREC.is + 1), negated };
    return p.fail('one of NULL or TRUE or FALSE or UNKNOWN or DISTINCT');
  }

  private likeFamily(left: ScalarExpr, word: string, negated: boolean): ScalarExpr {
    const p = this.p;
    p.next();
    if (word === 'between') {
      p.eatKeyword('symmetric');
      const low = this.expr(PREC.like + 1);
      p.expectKeyword('and');
      return { kind: 'between', expr: left, low, high: this.expr(PREC.like + 1), negated };
    }
    if (word === 'in') {
      if (this.startsSubquery()) return { kind: 'in', expr: left, list: [this.parenthesized()], negated };
      p.expectOp('(');
      const list: ScalarExpr[] = [];
      do list.push(this.expr(0));
      while (p.eatOp(','));
      p.expectOp(')');
      return { kind: 'in', expr: left, list, negated };
    }
    if (word === 'similar') p.expectKeyword('to');
    const pattern = this.expr(PREC.like + 1);
    const escape = p.eatKeyword('escape') ? this.expr(PREC.like + 1) : undefined;
    return { kind: 'like', expr: left, pattern, ...(escape ? { escape } : {}), negated };
  }

  /** Whether the next tokens open a subquery: `(SELECT`, `(WITH`, `(VALUES`, `(TABLE`, `((SELECT`. */
  private startsSubquery(): boolean {
    let k = 0;
    while (this.p.peekOp('(', k)) k++;
    const t = this.p.peek(k);
    return k > 0 && t.kind === 'word' && ['select', 'with', 'values', 'table'].includes(t.value);
  }

  /** `( expr )` or `( subquery )`. */
  private parenthesized(): ScalarExpr {
    const p = this.p;
    if (this.startsSubquery()) return this.skipParenthesized();
    p.expectOp('(');
    const e = this.expr(0);
    p.expectOp(')');
    return e;
  }

  /** Skips `( ... )` with balanced brackets: a subquery (or a window), which nothing here reads. */
  private skipParenthesized(): ScalarExpr {
    const p = this.p;
    const open = p.peek();
    p.expectOp('(');
    let depth = 1;
    while (depth > 0) {
      const t = p.next();
      if (t.kind === 'eof') return p.failAt(t, "')'");
      if (t.kind === 'op' && (t.value === '(' || t.value === '[')) depth++;
      else if (t.kind === 'op' && (t.value === ')' || t.value === ']')) depth--;
    }
    return { kind: 'subquery', position: this.at(open) };
  }

  private primary(): ScalarExpr {
    const p = this.p;
    const t = p.peek();
    switch (t.kind) {
      case 'string':
        p.next();
        return { kind: 'string', value: t.value };
      case 'number':
        p.next();
        return { kind: 'number', value: t.value };
      case 'quoted':
        return this.nameOrCall();
      case 'op':
        if (t.value === '(') {
          if (this.startsSubquery()) return this.skipParenthesized();
          p.next();
          const first = this.expr(0);
          if (!p.eatOp(',')) {
            p.expectOp(')');
            return first;
          }
          // `(a, b)`: a row.
          const items = [first];
          do items.push(this.expr(0));
          while (p.eatOp(','));
          p.expectOp(')');
          return { kind: 'row', items };
        }
        if (/^\$\d+$/.test(t.value)) {
          p.next();
          return { kind: 'parameter', number: Number(t.value.slice(1)), position: this.at(t) };
        }
        return p.fail('an expression');
      case 'word':
        return this.wordPrimary(t);
      default:
        return p.fail('an expression');
    }
  }

  private wordPrimary(t: Token): ScalarExpr {
    const p = this.p;
    switch (t.value) {
      case 'true':
      case 'false':
        p.next();
        return { kind: 'boolean', value: t.value === 'true' };
      case 'null':
        p.next();
        return { kind: 'null' };
      case 'case':
        p.next();
        return this.caseExpr();
      case 'cast': {
        p.next();
        p.expectOp('(');
        const expr = this.expr(0);
        p.expectKeyword('as');
        const type = p.parseDataType();
        p.expectOp(')');
        return { kind: 'cast', expr, type, position: this.at(t) };
      }
      case 'exists':
        p.next();
        if (!this.startsSubquery()) return p.fail("'('");
        return this.skipParenthesized();
      case 'array':
      case 'list':
        if (p.peekOp('[', 1)) {
          p.next();
          return { kind: t.value, items: this.bracketed() };
        }
        if (p.peekOp('(', 1)) {
          p.next();
          if (!this.startsSubquery()) return p.fail('SELECT, VALUES or WITH');
          return this.skipParenthesized();
        }
        break;
      case 'map':
        if (p.peekOp('[', 1)) {
          p.next();
          return this.mapLiteral();
        }
        if (p.peekOp('(', 1) && p.peek(2).kind === 'word' && ['select', 'with', 'values'].includes(p.peek(2).value)) {
          p.next();
          return this.skipParenthesized();
        }
        break;
      case 'row':
        if (p.peekOp('(', 1)) {
          p.next();
          p.expectOp('(');
          const items: ScalarExpr[] = [];
          if (!p.peekOp(')')) {
            do items.push(this.expr(0));
            while (p.eatOp(','));
          }
          p.expectOp(')');
          return { kind: 'row', items };
        }
        break;
      case 'interval':
        if (p.peek(1).kind === 'string') {
          p.next();
          const value = p.next().value;
          // `INTERVAL '1' MINUTE`, `INTERVAL '1-2' YEAR TO MONTH`.
          if (p.peek().kind === 'word' && INTERVAL_FIELDS.has(p.peek().value)) {
            p.next();
            if (p.eatKeyword('to')) {
              const f = p.peek();
              if (!(f.kind === 'word' && INTERVAL_FIELDS.has(f.value))) return p.fail('one of YEAR or MONTH or DAY or HOUR or MINUTE or SECOND');
              p.next();
            }
          }
          return { kind: 'typed_string', type: 'interval', value };
        }
        break;
    }
    if (RESERVED.has(t.value)) return p.fail('an expression');
    // `DATE '2024-01-01'`, `TIMESTAMPTZ '...'`, `TIMESTAMP WITH TIME ZONE '...'`: a literal of the named type.
    if (p.peek(1).kind === 'string') {
      p.next();
      return { kind: 'typed_string', type: t.value, value: p.next().value };
    }
    if ((t.value === 'timestamp' || t.value === 'time') && p.peek(4).kind === 'string' && (p.peekKeywords(t.value, 'with', 'time', 'zone') || p.peekKeywords(t.value, 'without', 'time', 'zone'))) {
      const zone = p.peek(1).value === 'with';
      for (let k = 0; k < 4; k++) p.next();
      return { kind: 'typed_string', type: zone ? `${t.value} with time zone` : t.value, value: p.next().value };
    }
    return this.nameOrCall();
  }

  /** A column (`a`, `t.a`) or a function call (`f(x)`, `pg_catalog.now()`, `current_timestamp`). */
  private nameOrCall(): ScalarExpr {
    const p = this.p;
    const first = p.peek();
    const name = [p.parseIdent()];
    while (p.peekOp('.') && (p.peek(1).kind === 'word' || p.peek(1).kind === 'quoted')) {
      p.next();
      name.push(p.parseIdent());
    }
    const position = this.at(first);
    if (!p.peekOp('(')) {
      if (name.length === 1 && first.kind === 'word' && NILADIC.has(first.value)) return { kind: 'call', name, args: [], position, star: false, window: false, bare: true };
      return { kind: 'column', name, position };
    }
    p.next();
    const fn = name[name.length - 1]!;
    const args = this.callArgs(first.kind === 'word' ? fn : '');
    const star = args === 'star';
    p.expectOp(')');
    if (p.eatKeyword('filter')) {
      p.expectOp('(');
      p.expectKeyword('where');
      this.expr(0);
      p.expectOp(')');
    }
    let window = false;
    if (p.eatKeyword('over')) {
      window = true;
      // A window specification matters nowhere here: skipped with balanced brackets.
      if (p.peekOp('(')) this.skipParenthesized();
      else p.parseIdent();
    }
    return { kind: 'call', name, args: star ? [] : args, position, star, window, bare: false };
  }

  /** A call's arguments, with the special forms of `extract`, `position`, `substring`, `trim` and `overlay`. */
  private callArgs(fn: string): ScalarExpr[] | 'star' {
    const p = this.p;
    if (p.peekOp(')')) return [];
    if (p.eatOp('*')) return 'star';
    const args: ScalarExpr[] = [];
    const field = p.peek();
    if (fn === 'extract' && field.kind !== 'op' && p.peek(1).kind === 'word' && p.peek(1).value === 'from') {
      p.next();
      p.next();
      return [{ kind: 'string', value: field.value }, this.expr(0)];
    }
    if (fn === 'trim') {
      const how = p.peek();
      if (how.kind === 'word' && ['both', 'leading', 'trailing'].includes(how.value)) p.next();
      if (p.eatKeyword('from')) return [this.expr(0)];
    }
    if (!p.eatKeyword('distinct')) p.eatKeyword('all');
    // `position(a IN b)`: the first argument ends before IN.
    args.push(this.expr(fn === 'position' ? PREC.like + 1 : 0));
    if (fn === 'position' && p.eatKeyword('in')) {
      args.push(this.expr(0));
      return args;
    }
    if (fn === 'overlay' && p.eatKeyword('placing')) {
      args.push(this.expr(0));
      p.expectKeyword('from');
      args.push(this.expr(0));
      if (p.eatKeyword('for')) args.push(this.expr(0));
      return args;
    }
    if (fn === 'substring' || fn === 'trim') {
      if (p.eatKeyword('from')) args.push(this.expr(0));
      if (fn === 'substring' && p.eatKeyword('for')) args.push(this.expr(0));
      if (args.length > 1) return args;
    }
    while (p.eatOp(',')) args.push(this.expr(0));
    if (p.eatKeywords('order', 'by')) {
      do {
        this.expr(0);
        if (!p.eatKeyword('asc')) p.eatKeyword('desc');
        if (p.eatKeyword('nulls') && !p.eatKeyword('first')) p.expectKeyword('last');
      } while (p.eatOp(','));
    }
    return args;
  }

  private caseExpr(): ScalarExpr {
    const p = this.p;
    const operand = p.peekKeyword('when') ? undefined : this.expr(0);
    const whens: { when: ScalarExpr; then: ScalarExpr }[] = [];
    while (p.eatKeyword('when')) {
      const when = this.expr(0);
      p.expectKeyword('then');
      whens.push({ when, then: this.expr(0) });
    }
    if (whens.length === 0) return p.fail('WHEN');
    const otherwise = p.eatKeyword('else') ? this.expr(0) : undefined;
    p.expectKeyword('end');
    return { kind: 'case', ...(operand ? { operand } : {}), whens, ...(otherwise ? { else: otherwise } : {}) };
  }

  /** `[a, b, ...]` after ARRAY or LIST. */
  private bracketed(): ScalarExpr[] {
    const p = this.p;
    p.expectOp('[');
    const items: ScalarExpr[] = [];
    if (!p.peekOp(']')) {
      do items.push(p.peekOp('[') ? { kind: 'array', items: this.bracketed() } : this.expr(0));
      while (p.eatOp(','));
    }
    p.expectOp(']');
    return items;
  }

  /** `[k => v, ...]` after MAP. */
  private mapLiteral(): ScalarExpr {
    const p = this.p;
    p.expectOp('[');
    const entries: { key: ScalarExpr; value: ScalarExpr }[] = [];
    if (!p.peekOp(']')) {
      do {
        // `=>` binds looser than any operator but `=`'s family, as in Materialize.
        const key = this.expr(PREC.other);
        p.expectOp('=>');
        entries.push({ key, value: this.expr(0) });
      } while (p.eatOp(','));
    }
    p.expectOp(']');
    return { kind: 'map', entries };
  }
}

/** Reads one scalar expression at the parser's position, leaving it after the expression. */
export function readScalar(p: Parser): ScalarExpr {
  return new ScalarReader(p).read();
}
