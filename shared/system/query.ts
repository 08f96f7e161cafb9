/**
 * A query over the system relations, read by PostgreSQL's own parser (libpg-query) and made ready
 * for the SQL engine: every relation it names resolved as Materialize resolves it (its CTEs, the
 * session's schemas, then mz_catalog and pg_catalog), each system relation rewritten to the
 * engine's table for it, and functions Materialize answers differently from PostgreSQL (`version()`,
 * `current_database()`, `pg_get_userbyid`, ...) pointed at the engine's stand-ins. Pure: the parser
 * is passed in loaded; positions in errors are 0-based byte offsets of the original text.
 */
import { ControlPlaneError, NotSupportedError, PlanError, SqlSyntaxError, SQLSTATE } from '../errors';
import type { ObjectName } from '../sql/ast';
import { ENGINE_SCHEMA, engineTable, standIn, type SystemRelation } from './registry';

/** libpg-query's API, as much of it as we use. */
export interface PgParser {
  parseSync(query: string): { stmts?: { stmt?: Record<string, unknown>; stmt_location?: number; stmt_len?: number }[] };
  scanSync(query: string): { tokens: readonly { start: number; end: number; text: string; tokenName: string; keywordKind: number }[] };
}

/** What a name in FROM resolves to. */
export type Resolved =
  | { readonly kind: 'system'; readonly relation: SystemRelation }
  | { readonly kind: 'user'; readonly id: string }
  /** A relation Materialize has and this control plane does not serve: the error to answer. */
  | { readonly kind: 'refused'; readonly error: PlanError }
  | { readonly kind: 'unknown' };

export interface AnalyzedQuery {
  /** The text the engine runs. */
  readonly sql: string;
  /** The system relations it reads (to load first). */
  readonly relations: readonly SystemRelation[];
  /** The names of the functions it calls (their last part), for the tables stand-ins read. */
  readonly functions: readonly string[];
  /** User objects it reads: answered by the caller (their rows are the data plane's). */
  readonly userReads: readonly { readonly id: string; readonly name: ObjectName; readonly position: number }[];
  /** Maps a 0-based byte offset of `sql` back to the original text. */
  originalOffset(rewrittenByte: number): number;
}


/** SQL's value functions the engine would answer for itself, by parse-tree op: the stand-in that answers for the session. */
const VALUE_FUNCTIONS: Readonly<Record<string, string>> = { SVFOP_SESSION_USER: 'session_user', SVFOP_CURRENT_CATALOG: 'current_catalog', SVFOP_CURRENT_SCHEMA: 'current_schema' };

/** The OID alias types the engine has stand-ins for (shared/system/functions.ts). */
const REG_TYPES: ReadonlySet<string> = new Set(['regclass', 'regtype', 'regproc']);

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const str = (n: unknown): string | undefined => (isNode(n) && isNode(n.String) && typeof n.String.sval === 'string' ? n.String.sval : undefined);

export interface AnalyzeOptions {
  readonly parser: PgParser;
  /** Resolves a relation name (`[name]`, `[schema, name]` or `[db, schema, name]`). */
  readonly resolve: (name: ObjectName) => Resolved;
}

/** Reads `text`, one query. Throws PlanError (42601, 42P01, 0A000) for what the engine should not run. */
export function analyzeQuery(text: string, o: AnalyzeOptions): AnalyzedQuery {
  let pre;
  try {
    return analyzeText(text, o);
  } catch (e) {
    if (!(e instanceof SqlSyntaxError) || !(pre = parenthesizeFieldSelections(text, o.parser))) throw e;
  }
  try {
    const a = analyzeText(pre.text, o);
    return { ...a, originalOffset: (rewritten) => pre.original(a.originalOffset(rewritten)) };
  } catch (e) {
    if (e instanceof ControlPlaneError && e.position !== undefined) e.position = pre.original(e.position);
    throw e;
  }
}

/**
 * Materialize reads a field of a function's result without parentheses around the call
 * (`mz_aclexplode(privileges).*`, as dbt-materialize's deploy macros write it); PostgreSQL wants
 * `(mz_aclexplode(privileges)).*`. Where PostgreSQL's parser stops at such a `.`, adds them, and
 * maps byte offsets of the new text back to the old. Undefined when there is nothing to add (the
 * text parses, or fails for another reason, which the caller reports as it stands).
 */
export function parenthesizeFieldSelections(text: string, parser: PgParser): { text: string; original(byte: number): number } | undefined {
  let current = text;
  /** Offsets in `current` of the bytes added so far. */
  let inserted: number[] = [];
  for (let round = 0; round < 32; round++) {
    let cursor: number | undefined;
    try {
      parser.parseSync(current);
      break;
    } catch (e) {
      cursor = (e as { sqlDetails?: { cursorPosition?: number } }).sqlDetails?.cursorPosition;
    }
    if (cursor === undefined) return undefined;
    let tokens;
    try {
      tokens = parser.scanSync(current).tokens;
    } catch {
      return undefined;
    }
    const at = charPositionToByte(current, cursor + 1);
    const dot = tokens.findIndex((t) => t.start === at);
    const call = dot > 0 && tokens[dot]!.text === '.' && tokens[dot - 1]!.text === ')' ? calledFunction(tokens, dot - 1) : undefined;
    if (!call) return undefined;
    const bytes = Buffer.from(current, 'utf8');
    current = Buffer.concat([bytes.subarray(0, call.start), Buffer.from('('), bytes.subarray(call.start, call.end), Buffer.from(')'), bytes.subarray(call.end)]).toString('utf8');
    inserted = [...inserted.map((p) => (p >= call.start ? p + 1 : p)).map((p) => (p >= call.end + 1 ? p + 1 : p)), call.start, call.end + 1].sort((a, b) => a - b);
  }
  if (!inserted.length) return undefined;
  const added = inserted;
  return { text: current, original: (byte) => byte - added.filter((p) => p < byte).length };
}

/** The byte span of the function call whose `)` is `tokens[close]` (`mz_internal.f(x)`), if it is one. */
function calledFunction(tokens: ReturnType<PgParser['scanSync']>['tokens'], close: number): { start: number; end: number } | undefined {
  let depth = 0;
  let open = close;
  for (; open >= 0; open--) {
    if (tokens[open]!.text === ')') depth++;
    else if (tokens[open]!.text === '(' && --depth === 0) break;
  }
  // A function's name: an identifier, or a keyword that is not reserved (`coalesce`, `left`).
  const isName = (k: number) => k >= 0 && /^[A-Za-z_"\u0080-\uffff]/.test(tokens[k]!.text) && tokens[k]!.keywordKind < 4;
  if (open <= 0 || !isName(open - 1)) return undefined;
  let first = open - 1;
  while (first >= 2 && tokens[first - 1]!.text === '.' && isName(first - 2)) first -= 2;
  return { start: tokens[first]!.start, end: tokens[close]!.end };
}

function analyzeText(text: string, o: AnalyzeOptions): AnalyzedQuery {
  let result;
  try {
    result = o.parser.parseSync(text);
  } catch (e) {
    const details = (e as { sqlDetails?: { cursorPosition?: number } }).sqlDetails;
    throw new SqlSyntaxError((e as Error).message, details?.cursorPosition !== undefined ? charPositionToByte(text, details.cursorPosition + 1) : 0);
  }
  const stmts = result.stmts ?? [];
  const stmt = stmts[0]?.stmt;
  if (stmts.length !== 1 || !isNode(stmt) || !isNode(stmt.SelectStmt)) throw new SqlSyntaxError('expected a single query', 0);
  const bytes = Buffer.from(text, 'utf8');
  const tokens = o.parser.scanSync(text).tokens;
  const tokenAt = new Map(tokens.map((t, k) => [t.start, k]));
  /** The byte span of a dotted name starting at `loc` with `parts` parts. */
  const nameSpan = (loc: number, parts: number): { start: number; end: number } | undefined => {
    let k = tokenAt.get(loc);
    if (k === undefined) return undefined;
    let end = tokens[k]!.end;
    for (let p = 1; p < parts; p++) {
      if (tokens[k + 1]?.text !== '.' || !tokens[k + 2]) return undefined;
      k += 2;
      end = tokens[k]!.end;
    }
    return { start: loc, end };
  };
  const edits: Edit[] = [];
  const relations = new Map<string, SystemRelation>();
  const userReads: { id: string; name: ObjectName; position: number }[] = [];
  const functions = new Set<string>();

  const walk = (n: unknown, ctes: ReadonlySet<string>): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x, ctes);
      return;
    }
    if (!isNode(n)) return;
    let scope = ctes;
    const wc = isNode(n.withClause) ? (isNode(n.withClause.WithClause) ? n.withClause.WithClause : n.withClause) : undefined;
    if (wc && Array.isArray(wc.ctes)) {
      const names = wc.ctes.map((c) => (isNode(c) && isNode(c.CommonTableExpr) ? c.CommonTableExpr.ctename : undefined));
      scope = new Set([...ctes, ...names.filter((x): x is string => typeof x === 'string')]);
    }
    if (n.intoClause) throw new NotSupportedError('SELECT ... INTO is not supported', { position: 0 });
    if (Array.isArray(n.lockingClause) && n.lockingClause.length) throw new NotSupportedError('SELECT ... FOR UPDATE is not supported', { position: 0 });
    for (const [k, v] of Object.entries(n)) {
      if (k === 'RangeVar' && isNode(v)) {
        visitRangeVar(v, scope);
        continue;
      }
      if (k === 'FuncCall' && isNode(v)) visitFunc(v);
      if (k === 'TypeCast' && isNode(v)) visitCast(v);
      if (k === 'SQLValueFunction' && isNode(v)) visitValueFunction(v);
      walk(v, scope);
    }
  };

  const visitRangeVar = (v: Node, ctes: ReadonlySet<string>) => {
    const name = [v.catalogname, v.schemaname, v.relname].filter((p): p is string => typeof p === 'string');
    const loc = typeof v.location === 'number' ? v.location : 0;
    if (name.length === 1 && ctes.has(name[0]!)) return;
    const r = o.resolve(name);
    switch (r.kind) {
      case 'system': {
        const span = nameSpan(loc, name.length);
        if (!span) throw new PlanError(`could not read the name at byte ${loc}`, { code: SQLSTATE.syntaxError, position: loc });
        relations.set(`${r.relation.schema}.${r.relation.name}`, r.relation);
        edits.push({ ...span, text: engineTable(r.relation) });
        return;
      }
      case 'user':
        userReads.push({ id: r.id, name, position: loc });
        return;
      case 'refused':
        throw withPosition(r.error, loc);
      case 'unknown':
        throw new PlanError(`unknown catalog item '${name.join('.')}'`, { code: SQLSTATE.undefinedTable, position: loc });
    }
  };

  const visitFunc = (f: Node) => {
    if (!Array.isArray(f.funcname)) return;
    const parts = f.funcname.map(str);
    const fname = parts[parts.length - 1];
    if (fname) functions.add(fname);
    // Only a pg_catalog stand-in is pointed at: `mz_catalog.mz_version()` is already where the engine has it.
    if (!fname || parts.length > 2 || !standIn(fname)?.sql.includes(`FUNCTION mzpg.${fname}(`)) return;
    if (parts.length === 1) return; // resolved through the engine's search path: its stand-ins first
    const schema = parts[0];
    if (schema !== 'pg_catalog' && schema !== 'mz_catalog' && schema !== 'mz_internal') return;
    const loc = typeof f.location === 'number' ? f.location : -1;
    const k = tokenAt.get(loc);
    if (k === undefined) return;
    edits.push({ start: tokens[k]!.start, end: tokens[k]!.end, text: ENGINE_SCHEMA.pg_catalog });
  };

  /**
   * A cast to `regclass`, `regtype` or `regproc`: the engine's stand-in type of that name (an
   * unqualified name finds it; `pg_catalog.regclass` is pointed at it), whose casts look names up in
   * the catalog. A string literal is read by the type's input function, which knows no names: it
   * becomes a call that resolves it (an OID when it starts with a digit, as in Materialize).
   */
  const visitCast = (c: Node) => {
    const tn = isNode(c.typeName) ? c.typeName : undefined;
    const names = tn && Array.isArray(tn.names) ? tn.names.map(str) : [];
    const type = names[names.length - 1];
    if (tn && type === 'json' && (names.length === 1 || names[0] === 'pg_catalog')) return castToJsonb(tn);
    if (!tn || !type || !REG_TYPES.has(type) || names.length > 2 || (names.length === 2 && names[0] !== 'pg_catalog') || tn.arrayBounds) return;
    functions.add(type);
    const typeLoc = typeof tn.location === 'number' ? tn.location : -1;
    const typeSpan = nameSpan(typeLoc, names.length);
    const lit = isNode(c.arg) && isNode(c.arg.A_Const) ? c.arg.A_Const : undefined;
    const litLoc = lit && typeof lit.location === 'number' ? lit.location : -1;
    const k = tokenAt.get(litLoc);
    const token = k === undefined ? undefined : tokens[k];
    const value = lit && isNode(lit.sval) && typeof lit.sval.sval === 'string' ? lit.sval.sval : undefined;
    if (value !== undefined && token?.tokenName === 'SCONST') {
      if (type === 'regclass') refuseUnserved(value, litLoc);
      const call = `mzfn.${type}_in(${bytes.subarray(token.start, token.end).toString('utf8')})`;
      // `regclass 'name'`: the type name and the literal become the call.
      if (typeSpan && typeSpan.start < token.start) {
        edits.push({ start: typeSpan.start, end: token.end, text: call });
        return;
      }
      edits.push({ start: token.start, end: token.end, text: call });
    }
    if (names.length === 2 && typeSpan) edits.push({ ...typeSpan, text: `${ENGINE_SCHEMA.pg_catalog}.${type}` });
  };

  /**
   * Materialize's `json` is its `jsonb` (one type, two names): a cast to json becomes one to jsonb,
   * or `COALESCE(jsonb_agg(...), '[]'::json)` (the Terraform provider's) would mix two types.
   */
  const castToJsonb = (tn: Node) => {
    let k = tokenAt.get(typeof tn.location === 'number' ? tn.location : -1);
    if (k === undefined) return;
    if (tokens[k]!.text.toLowerCase() === 'pg_catalog' && tokens[k + 1]?.text === '.') k += 2;
    const t = tokens[k];
    if (t && t.text.toLowerCase() === 'json') edits.push({ start: t.start, end: t.end, text: 'jsonb' });
  };

  /** A relation named in a regclass literal that Materialize has and we do not serve: the same 0A000 as in FROM. */
  const refuseUnserved = (value: string, loc: number) => {
    if (!/^[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*){0,2}$/i.test(value)) return;
    let r: Resolved;
    try {
      r = o.resolve(value.toLowerCase().split('.'));
    } catch {
      return;
    }
    if (r.kind === 'refused') throw withPosition(r.error, loc);
  };

  /** `session_user`, `current_catalog`, `current_schema`: the session's, not the engine's (the column keeps its name). */
  const visitValueFunction = (f: Node) => {
    const fn = VALUE_FUNCTIONS[String(f.op)];
    const loc = typeof f.location === 'number' ? f.location : -1;
    const k = tokenAt.get(loc);
    if (!fn || k === undefined) return;
    edits.push({ start: tokens[k]!.start, end: tokens[k]!.end, text: `${ENGINE_SCHEMA.pg_catalog}."${fn}"()` });
    functions.add(fn);
  };

  walk(stmt, new Set());
  edits.sort((a, b) => a.start - b.start);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    chunks.push(bytes.subarray(at, e.start), Buffer.from(e.text, 'utf8'));
    at = e.end;
  }
  chunks.push(bytes.subarray(at));
  const sql = Buffer.concat(chunks).toString('utf8');
  return {
    sql,
    relations: [...relations.values()],
    functions: [...functions],
    userReads,
    originalOffset(rewritten: number): number {
      let delta = 0;
      for (const e of edits) {
        const newStart = e.start + delta;
        const newEnd = newStart + Buffer.byteLength(e.text);
        if (rewritten < newStart) break;
        if (rewritten < newEnd) return e.start;
        delta += Buffer.byteLength(e.text) - (e.end - e.start);
      }
      return Math.max(0, rewritten - delta);
    },
  };
}

function withPosition(e: PlanError, position: number): PlanError {
  if (e.position !== undefined) return e;
  (e as { position?: number }).position = position;
  return e;
}

/** A 1-based character position in `text` (as PostgreSQL reports them) as a 0-based byte offset. */
export function charPositionToByte(text: string, position: number): number {
  return Buffer.byteLength(Array.from(text).slice(0, Math.max(0, position - 1)).join(''), 'utf8');
}
