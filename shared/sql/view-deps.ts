/**
 * The relations a view or materialized view body reads, found with a real SQL parser
 * (node-sql-parser's PostgreSQL grammar), not with patterns over the text.
 *
 * Why this library: it reads three-part names (`materialize.public.t`, which Materialize's own
 * `SHOW CREATE` output and dbt emit) and the set operations and window frames that
 * pgsql-ast-parser rejects. Its cost: ~326 KB minified (the PostgreSQL build, 302 KB, plus its
 * `big-integer` dependency); pgsql-ast-parser would cost ~252 KB. Either is most of the DDL
 * Lambda's 400 KiB budget.
 * It does not say whether a name was quoted, so before parsing, unquoted words are lowercased with
 * our own lexer (PostgreSQL folds unquoted identifiers to lower case; keywords are case-blind):
 * a name still in upper case afterwards can only have been quoted, and is kept as typed.
 *
 * A CTE is not a dependency: an unqualified name that matches a CTE in scope is skipped. Names
 * are returned as written (1 to 3 parts), unresolved, without repeats, in the order the syntax tree
 * lists them (close to the order of the text).
 *
 * Known gap of the library, guarded: it reads `a JOIN b ON cond, c` as `ON (cond, c)`, which would
 * silently lose `c`; such a query is refused (0A000) rather than answered with a missing dependency.
 */
import * as nodeSqlParser from 'node-sql-parser/build/postgresql.js';
import { NotSupportedError, PgSyntaxError, SQLSTATE, SqlSyntaxError, UnreadableViewBody } from '../errors';
import type { ObjectName } from './ast';
import { byteOffset, lex, type Token } from './lexer';
import { describeToken } from './tokens';
import { pgParserLoaded, pgRelations } from './pg-parser';

interface SqlParserApi {
  astify(sql: string, opt?: { database?: string }): unknown;
}
type ParserCtor = new () => SqlParserApi;

// The package is CommonJS: bundlers expose `Parser` on the namespace, Node's ESM loader on `default`.
const mod = nodeSqlParser as unknown as { Parser?: ParserCtor; default?: { Parser?: ParserCtor } };
const SqlParser = mod.Parser ?? mod.default?.Parser;

let parser: SqlParserApi | undefined;
function sqlParser(): SqlParserApi {
  if (!SqlParser) throw new Error('node-sql-parser did not load');
  parser ??= new SqlParser();
  return parser;
}

export interface RelationsOptions {
  /** Byte offset of `queryText` in the request (e.g. a view's `queryPosition`), added to error positions. */
  readonly basePosition?: number;
}

/** The relations `queryText` (a query: SELECT, WITH ..., set operations) reads, CTEs excluded. */
export function relationsReferenced(queryText: string, options: RelationsOptions = {}): ObjectName[] {
  const base = options.basePosition ?? 0;
  guardNesting(queryText, base);
  checkQualifiedOperators(queryText, base);
  const readable = blankQueryHints(queryText);
  const { text, toOriginal } = foldUnquoted(readable, base);
  let ast: unknown;
  try {
    ast = sqlParser().astify(text, { database: 'PostgresQL' });
  } catch (e) {
    if (e instanceof RangeError) throw tooDeep(base, e);
    const pg = readWithPostgres(readable);
    if (pg) return pg;
    const offset = (e as { location?: { start?: { offset?: number } } }).location?.start?.offset;
    const at = toOriginal(typeof offset === 'number' ? offset : 0);
    throw new UnreadableViewBody(`Expected a valid query, found ${describeAt(queryText, at)}`, base + byteOffset(queryText, at), {
      detail: 'A view body is one query: SELECT, WITH ..., VALUES, or a set operation of them.',
      cause: e,
    }, pgParserLoaded());
  }
  const statements = Array.isArray(ast) ? ast : [ast];
  const first = statements[0] as { type?: unknown } | undefined;
  if (statements.length !== 1 || first?.type !== 'select') {
    throw new SqlSyntaxError(`Expected a single query, found ${statements.length === 1 ? String(first?.type ?? 'nothing').toUpperCase() : `${statements.length} statements`}`, base, {});
  }
  lastShape = { text: queryText, shape: shapeOf(first as Node) };
  const found = new Map<string, ObjectName>();
  try {
    walk(first, new Set(), found);
  } catch (e) {
    if (e instanceof RangeError) throw tooDeep(base, e);
    if (e instanceof NotSupportedError) {
      const pg = readWithPostgres(readable);
      if (pg) return pg;
      e.position = base;
    }
    throw e;
  }
  return [...found.values()];
}

/**
 * `OPERATOR(schema.op)`, read as Materialize's parse_operator (src/sql-parser/src/parser.rs) reads
 * it: names each followed by a dot, then an operator (or `*`), then `)`. Anything else is its
 * syntax error at the token that does not fit (`Expected operator, found number "5."`), which
 * neither parser library says.
 */
function checkQualifiedOperators(queryText: string, base: number): void {
  if (!/operator/i.test(queryText)) return;
  let tokens;
  try {
    tokens = lex(queryText);
  } catch {
    return;
  }
  const isOp = (t: Token, v: string) => t.kind === 'op' && t.value === v;
  const fail = (t: Token, what: string): never => {
    throw new SqlSyntaxError(`Expected ${what}, found ${describeToken(t, false)}`, base + byteOffset(queryText, t.start));
  };
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (!(tokens[k]!.kind === 'word' && tokens[k]!.value === 'operator' && isOp(tokens[k + 1]!, '('))) continue;
    let j = k + 2;
    for (;;) {
      const t = tokens[j++]!;
      if (t.kind === 'word' || t.kind === 'quoted') {
        if (!isOp(tokens[j]!, '.')) fail(tokens[j]!, 'dot');
        j++;
        continue;
      }
      if (t.kind === 'op' && OPERATOR_CHARS.test(t.value)) break;
      fail(t, 'operator');
    }
    if (!isOp(tokens[j]!, ')')) fail(tokens[j]!, 'right parenthesis');
  }
}
/** Materialize's operator tokens (its lexer's `Op`, and `*`). */
const OPERATOR_CHARS = /^[+\-*/<>=~!@#%^&|`?]+$/;

/**
 * Materialize's query hints, `OPTIONS (AGGREGATE INPUT GROUP SIZE = 1000, ...)` after a FROM item,
 * GROUP BY list or LIMIT, name no relation and neither parser reads them: they are blanked out
 * with spaces (positions stay). A function called `options(...)` follows `(`, `,`, an operator or
 * SELECT, never a name, number or `)`, so it is left alone.
 */
export function blankQueryHints(queryText: string): string {
  if (!/options/i.test(queryText)) return queryText;
  let tokens;
  try {
    tokens = lex(queryText);
  } catch {
    return queryText;
  }
  let out = queryText;
  for (let k = 1; k + 1 < tokens.length; k++) {
    const t = tokens[k]!;
    const prev = tokens[k - 1]!;
    if (t.kind !== 'word' || t.value !== 'options' || !(tokens[k + 1]!.kind === 'op' && tokens[k + 1]!.value === '(')) continue;
    const afterOperand = (prev.kind === 'word' && prev.value !== 'select') || prev.kind === 'quoted' || prev.kind === 'number' || (prev.kind === 'op' && prev.value === ')');
    if (!afterOperand) continue;
    let depth = 0;
    let end = k + 1;
    for (; end < tokens.length; end++) {
      const x = tokens[end]!;
      if (x.kind === 'op' && x.value === '(') depth++;
      if (x.kind === 'op' && x.value === ')' && --depth === 0) break;
    }
    if (end >= tokens.length) break;
    const from = t.start;
    const to = tokens[end]!.end;
    out = out.slice(0, from) + ' '.repeat(to - from) + out.slice(to);
    k = end;
  }
  return out;
}

/** What the planner checks of a body's output, as far as the first reader's tree shows it. */
export interface ViewShape {
  /** A `*` or `t.*` in the select list (its columns are only known with the inputs' columns). */
  readonly wildcard: boolean;
  /** Output column names in order; `undefined` for an expression whose name we do not derive. */
  readonly columns: readonly (string | undefined)[];
  /**
   * For a body that reads one relation and nothing else (no join, subquery, CTE or set operation):
   * the relation and every column name the body uses, so the planner can resolve them.
   */
  readonly singleRelation?: SingleRelationBody;
}

export interface SingleRelationBody {
  readonly relation: ObjectName;
  /** The name the relation goes by in the body (its alias, else its last name part). */
  readonly rangeName: string;
  /** Column references, as written (qualifier and name), in the order the tree lists them. */
  readonly columnRefs: readonly { readonly qualifier?: string; readonly column: string }[];
  /** Output names the select list gives (ORDER BY and GROUP BY may use them). */
  readonly outputAliases: readonly string[];
}

/** SQL's functions written without parentheses, which the library reads as column references. */
const NILADIC = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp', 'current_user', 'session_user', 'user', 'current_role', 'current_schema', 'current_catalog']);

function singleRelationOf(select: Node): SingleRelationBody | undefined {
  if (select.with || select._next || !Array.isArray(select.from) || select.from.length !== 1) return undefined;
  const item = select.from[0];
  if (!isNode(item) || typeof item.table !== 'string' || item.expr !== undefined || item.join !== undefined) return undefined;
  const db = typeof item.db === 'string' ? item.db : undefined;
  const schema = typeof item.schema === 'string' ? item.schema : undefined;
  const relation: string[] = schema !== undefined && db !== undefined ? [db, schema, item.table] : db !== undefined ? [db, item.table] : [item.table];
  const columnRefs: { qualifier?: string; column: string }[] = [];
  let nested = false;
  const visit = (n: unknown, root: boolean): void => {
    if (nested) return;
    if (Array.isArray(n)) {
      for (const x of n) visit(x, false);
      return;
    }
    if (!isNode(n)) return;
    if (!root && (n.type === 'select' || 'ast' in n || n.type === 'values')) {
      nested = true;
      return;
    }
    if (n.type === 'column_ref') {
      const col = isNode(n.column) && isNode(n.column.expr) ? n.column.expr.value : n.column;
      if (typeof col !== 'string' || col === '*') return;
      const qualifier = typeof n.table === 'string' ? n.table : undefined;
      if (qualifier === undefined && NILADIC.has(col)) return;
      columnRefs.push(qualifier !== undefined ? { qualifier, column: col } : { column: col });
      return;
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'from') visit(v, false);
  };
  visit(select, true);
  if (nested) return undefined;
  const outputAliases = (Array.isArray(select.columns) ? select.columns : []).flatMap((c) => (isNode(c) && typeof c.as === 'string' ? [c.as] : []));
  return { relation, rangeName: typeof item.as === 'string' ? item.as : item.table, columnRefs, outputAliases };
}

let lastShape: { text: string; shape: ViewShape } | undefined;

/** The shape of the body `relationsReferenced` last read, if it was this one (no second parse). */
export function viewShape(queryText: string): ViewShape | undefined {
  return lastShape?.text === queryText ? lastShape.shape : undefined;
}

/** Output names as PostgreSQL and Materialize derive them: the alias, a column's name, `?column?` for a literal. */
function shapeOf(select: Node): ViewShape {
  const list = Array.isArray(select.columns) ? select.columns : [];
  let wildcard = select.columns === '*';
  const columns = list.map((c): string | undefined => {
    if (!isNode(c)) return undefined;
    if (typeof c.as === 'string') return c.as;
    const e = c.expr;
    if (!isNode(e)) return undefined;
    if (e.type === 'column_ref') {
      if (e.column === '*') {
        wildcard = true;
        return undefined;
      }
      const col = isNode(e.column) && isNode(e.column.expr) ? e.column.expr.value : e.column;
      return typeof col === 'string' ? col : undefined;
    }
    if (e.type === 'number' || e.type === 'single_quote_string' || e.type === 'bool' || e.type === 'null') return '?column?';
    return undefined;
  });
  // The library reads `a NATURAL JOIN b` as `a AS natural JOIN b` (NATURAL is reserved, so no
  // alias can be spelled so unquoted): a natural join expands columns implicitly, like `*`.
  if (Array.isArray(select.from) && select.from.some((f) => isNode(f) && typeof f.as === 'string' && f.as.toLowerCase() === 'natural')) wildcard = true;
  const single = singleRelationOf(select);
  return { wildcard, columns, ...(single ? { singleRelation: single } : {}) };
}


/** The relations by PostgreSQL's parser, if it is loaded and reads the body as one query. */
function readWithPostgres(queryText: string): ObjectName[] | undefined {
  if (!pgParserLoaded()) return undefined;
  try {
    return pgRelations(queryText);
  } catch (e) {
    if (e instanceof PgSyntaxError) return undefined;
    throw e;
  }
}

/** The library's recursive-descent parser (or our walk of its tree) ran out of stack. */
/**
 * The library's parser backtracks exponentially on a syntax error inside nested parentheses
 * (measured: 1 s at 10 levels, 2 s at 11, an aborted process at 20), so a 45-byte request could
 * take a Lambda down. Deeper nesting than this is refused before the library sees it.
 */
export const MAX_VIEW_PAREN_DEPTH = 8;

function guardNesting(queryText: string, base: number): void {
  let depth = 0;
  for (const t of lex(queryText)) {
    if (t.kind !== 'op') continue;
    if (t.value === '(' && ++depth > MAX_VIEW_PAREN_DEPTH) {
      throw new SqlSyntaxError(`view definition nests parentheses more than ${MAX_VIEW_PAREN_DEPTH} levels deep`, base + byteOffset(queryText, t.start), {
        code: SQLSTATE.statementTooComplex,
        hint: 'Move inner parts into views of their own.',
      });
    }
    if (t.value === ')') depth = Math.max(0, depth - 1);
  }
}

function tooDeep(base: number, cause: unknown): SqlSyntaxError {
  return new SqlSyntaxError('query is nested too deeply to read for dependencies', base, { code: SQLSTATE.statementTooComplex, cause });
}

/**
 * Lowercases unquoted words (identifiers and keywords) and leaves strings, quoted identifiers and
 * comments alone; `toOriginal` maps an index in the result back to one in the input.
 */
function foldUnquoted(queryText: string, base: number): { text: string; toOriginal: (i: number) => number } {
  let tokens;
  try {
    tokens = lex(queryText);
  } catch (e) {
    if (e instanceof SqlSyntaxError && e.position !== undefined) e.position += base;
    throw e;
  }
  const pieces: string[] = [];
  const starts: { folded: number; original: number }[] = [];
  let last = 0;
  let length = 0;
  for (const t of tokens) {
    if (t.kind !== 'word' || t.value === t.raw) continue;
    const between = queryText.slice(last, t.start);
    pieces.push(between, t.value);
    length += between.length;
    starts.push({ folded: length, original: t.start });
    length += t.value.length;
    starts.push({ folded: length, original: t.end });
    last = t.end;
  }
  pieces.push(queryText.slice(last));
  const toOriginal = (i: number): number => {
    let shift = 0;
    for (const s of starts) {
      if (s.folded > i) break;
      shift = s.original - s.folded;
    }
    return Math.max(0, Math.min(queryText.length, i + shift));
  };
  return { text: pieces.join(''), toOriginal };
}

function describeAt(text: string, at: number): string {
  if (at >= text.length) return 'EOF';
  try {
    const t = lex(text.slice(at))[0];
    // Named as Materialize's parser names tokens (a view body holds no secret value).
    if (t && t.kind !== 'eof') return describeToken(t, false);
  } catch {
    // Fall through to the raw character.
  }
  return JSON.stringify(text.slice(at, at + 1));
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object';

/** Names of the CTEs a `WITH` list brings into scope, walking each CTE body in its own scope. */
function withScope(withList: unknown, scope: ReadonlySet<string>, found: Map<string, ObjectName>): Set<string> {
  const inner = new Set(scope);
  if (!Array.isArray(withList)) return inner;
  const names = withList.map((w) => (isNode(w) && isNode(w.name) && typeof w.name.value === 'string' ? w.name.value : undefined));
  const recursive = withList.some((w) => isNode(w) && w.recursive === true);
  // In WITH RECURSIVE every CTE sees every other; otherwise each sees the ones before it.
  if (recursive) for (const n of names) if (n !== undefined) inner.add(n);
  withList.forEach((w, k) => {
    if (!isNode(w)) return;
    walk(w.stmt, inner, found);
    const n = names[k];
    if (n !== undefined) inner.add(n);
  });
  return inner;
}

function walk(node: unknown, scope: ReadonlySet<string>, found: Map<string, ObjectName>): void {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, scope, found);
    return;
  }
  if (!isNode(node)) return;
  let current = scope;
  if (Array.isArray(node.with)) current = withScope(node.with, scope, found);
  // A parenthesized join, `FROM (a JOIN b ON ...)`, is a nested FROM list.
  const fromList = node.type === 'tables' ? 'expr' : 'from';
  for (const [key, value] of Object.entries(node)) {
    if (key === 'with') continue;
    if (key === fromList && Array.isArray(value)) {
      for (const item of value) {
        if (isNode(item)) {
          checkJoinCondition(item);
          addRelation(item, current, found);
        }
        walk(item, current, found);
      }
      continue;
    }
    walk(value, current, found);
  }
}

/** `ON` read as a list is the library's misreading of `JOIN b ON cond, c` (a list is never a join condition). */
function checkJoinCondition(item: Node): void {
  const on = item.on;
  if (isNode(on) && on.type === 'expr_list' && Array.isArray(on.value) && on.value.length > 1) {
    throw new NotSupportedError('A comma-separated FROM item after JOIN ... ON cannot be read for dependencies by this control plane', {
      hint: 'Write it as CROSS JOIN, or move it before the JOIN.',
    });
  }
}

function addRelation(item: Node, scope: ReadonlySet<string>, found: Map<string, ObjectName>): void {
  // Subqueries, VALUES and table functions carry `expr`; base relations carry a `table` name.
  if (typeof item.table !== 'string' || item.expr !== undefined) return;
  const db = typeof item.db === 'string' ? item.db : undefined;
  const schema = typeof item.schema === 'string' ? item.schema : undefined;
  const name: string[] = schema !== undefined && db !== undefined ? [db, schema, item.table] : db !== undefined ? [db, item.table] : [item.table];
  if (name.length === 1 && scope.has(item.table)) return;
  const key = JSON.stringify(name);
  if (!found.has(key)) found.set(key, name);
}

