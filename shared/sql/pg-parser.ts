/**
 * PostgreSQL's own parser (libpg-query, compiled to WebAssembly) as the second reader of view
 * bodies: node-sql-parser reads most bodies in microseconds and stays the first reader; what it
 * rejects (`VALUES`, `DISTINCT ON`, `LATERAL`, `OPERATOR(...)`, parenthesised queries, ...) is
 * read again here before the statement is refused. Loaded lazily, once per process, and only by a
 * request whose view body the first reader rejected: measured on the loaded 2-core test machine, a
 * cold process imports it in ~320 ms and instantiates the WebAssembly module in ~90 ms (75 ms in
 * all in the bench, `npm run bench -- --only parse`); a body it reads then plans in ~120 µs.
 */
import { PgSyntaxError } from '../errors';
import type { ObjectName } from './ast';

interface PgQueryApi {
  loadModule(): Promise<void>;
  parseSync(query: string): { stmts?: { stmt?: Record<string, unknown> }[] };
  scanSync(query: string): { tokens: { start: number; end: number; text: string; tokenName: string; keywordKind: number }[] };
}

let api: PgQueryApi | undefined;
let loading: Promise<PgQueryApi | undefined> | undefined;

/** Loads the parser (once); `undefined` when it cannot load here (e.g. a bundle without the .wasm file). */
export function loadPgParser(): Promise<PgQueryApi | undefined> {
  loading ??= (async () => {
    try {
      const m = (await import('libpg-query')) as unknown as PgQueryApi;
      await m.loadModule();
      api = m;
      return m;
    } catch {
      return undefined;
    }
  })();
  return loading;
}

export function pgParserLoaded(): boolean {
  return api !== undefined;
}


type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object';

/**
 * The relations a query reads, by PostgreSQL's grammar (it folds unquoted names itself), CTE
 * names excluded. Throws PgSyntaxError when PostgreSQL does not read it as one query either.
 * Call only after loadPgParser() resolved to a parser.
 */
export function pgRelations(query: string): ObjectName[] {
  if (!api) throw new Error('libpg-query is not loaded');
  let result;
  try {
    result = api.parseSync(query);
  } catch (e) {
    const details = (e as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    throw new PgSyntaxError((e as Error).message, details?.cursorPosition);
  }
  const stmts = result.stmts ?? [];
  if (stmts.length !== 1 || !isNode(stmts[0]?.stmt) || !('SelectStmt' in stmts[0].stmt)) {
    throw new PgSyntaxError('expected a single query', undefined);
  }
  const found = new Map<string, ObjectName>();
  // A WITH list scopes its CTE names over the query it belongs to (and, recursive or not, over
  // its own CTE bodies: a body naming a later CTE is an error PostgreSQL's analyser would raise).
  const walk = (n: unknown, scope: ReadonlySet<string>): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x, scope);
      return;
    }
    if (!isNode(n)) return;
    let inner = scope;
    // The tree nests a SelectStmt's WITH list as `withClause: { ctes }`.
    const withClause = isNode(n.withClause) ? (isNode(n.withClause.WithClause) ? n.withClause.WithClause : n.withClause) : undefined;
    if (withClause && Array.isArray(withClause.ctes)) {
      const names = withClause.ctes.map((c) => (isNode(c) && isNode(c.CommonTableExpr) ? c.CommonTableExpr.ctename : undefined));
      inner = new Set([...scope, ...names.filter((x): x is string => typeof x === 'string')]);
    }
    for (const [k, v] of Object.entries(n)) {
      if (k === 'RangeVar' && isNode(v)) {
        const name = [v.catalogname, v.schemaname, v.relname].filter((p): p is string => typeof p === 'string');
        if (!(name.length === 1 && inner.has(name[0]!))) found.set(JSON.stringify(name), name);
        continue;
      }
      walk(v, inner);
    }
  };
  walk(stmts[0].stmt, new Set());
  return [...found.values()];
}
