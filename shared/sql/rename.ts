/**
 * What a rename does to the definitions that name the renamed item: Materialize rewrites every
 * dependent's `create_sql` (its `create_stmt_rename_refs`, src/sql/src/ast/transform.rs), and
 * refuses the rename when a definition would become ambiguous. We keep a view's body as written,
 * so the same rules run over its tokens: where a name stands for an item (a FROM item), for a
 * column's qualifier (`t.a`, `t.*`), for a function, or alone (an alias, a column, a CTE).
 *
 * Materialize's checks, over its stored definition (where every item a body reads is written with
 * its database and schema, `materialize.public.t`):
 * - the new name may not appear anywhere in the body ("found reference to ...");
 * - the old name may appear only as an item, or as the qualifier of a column or wildcard, never
 *   as a column, an alias, a function, a database or a schema ("potentially used ambiguously");
 * - when the body reads two items of that name in different schemas (or databases), every column
 *   qualifier must name the schema (or database) too ("not sufficiently qualified").
 * Then the references are renamed: items by what they resolve to, qualifiers when their last
 * parts are the item's name qualified as much as the body needs.
 *
 * A schema rename (`create_stmt_rename_schema_refs`) renames the schema part of the names that
 * have one, and refuses a column qualified by schema and item but no database ("ambiguous
 * reference to schema named s").
 *
 * Pure: names resolve through the caller.
 */
import { ident } from './printer';
import { lex, type Token } from './lexer';
import type { ObjectName } from './ast';

/** An item's full name, as resolution gives it. */
export interface FullName {
  readonly database: string;
  readonly schema: string;
  readonly item: string;
}

export type Resolve = (name: ObjectName) => FullName | undefined;

/** Words that are keywords wherever they stand in a query (never a name, an alias or a column). */
const RESERVED = new Set([
  'all', 'and', 'any', 'array', 'as', 'asc', 'between', 'both', 'by', 'case', 'cast', 'collate', 'cross', 'current', 'desc', 'distinct',
  'else', 'end', 'escape', 'except', 'exists', 'false', 'fetch', 'filter', 'first', 'following', 'for', 'from', 'full', 'group', 'having',
  'ilike', 'in', 'inner', 'intersect', 'interval', 'is', 'isnull', 'join', 'last', 'lateral', 'leading', 'left', 'like', 'limit', 'mutually',
  'natural', 'not', 'notnull', 'null', 'nulls', 'offset', 'on', 'only', 'options', 'or', 'order', 'outer', 'over', 'partition',
  'preceding', 'range', 'recursive', 'right', 'row', 'rows', 'select', 'similar', 'some', 'then', 'trailing', 'true', 'unbounded',
  'union', 'using', 'values', 'when', 'where', 'window', 'with',
]);

/** Clause words after which a query stops listing FROM items. */
const ENDS_FROM = new Set(['where', 'group', 'having', 'window', 'order', 'limit', 'offset', 'fetch', 'union', 'intersect', 'except', 'select', 'options', 'on', 'using']);

type Role = 'item' | 'expr' | 'function' | 'bare';

interface Chain {
  readonly parts: readonly Token[];
  /** `t.*`: the parts qualify a wildcard. */
  readonly wildcard: boolean;
  readonly role: Role;
}

const isName = (t: Token | undefined): t is Token => !!t && ((t.kind === 'word' && !RESERVED.has(t.value)) || t.kind === 'quoted');
const isOp = (t: Token | undefined, op: string): boolean => !!t && t.kind === 'op' && t.value === op;
const isWord = (t: Token | undefined, w: string): boolean => !!t && t.kind === 'word' && t.value === w;

/** The name chains of a query and what each stands for (see the module's comment). */
export function nameChains(query: string): Chain[] {
  const tokens = lex(query).filter((t) => t.kind !== 'eof');
  const chains: Chain[] = [];
  // One frame per parenthesis level: is it listing FROM items, what does it expect next, does it
  // hold a list of bare names (an alias's column list, USING (...)), is it a WITH's CTE list?
  type Frame = { from: boolean; expect: 'factor' | 'alias' | 'none'; bareList: boolean; ctes: boolean };
  const frames: Frame[] = [{ from: false, expect: 'none', bareList: false, ctes: false }];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    const top = frames[frames.length - 1]!;
    if (t.kind === 'op') {
      if (t.value === '(') {
        const prev = tokens[k - 1];
        const bareList = (top.expect === 'alias' && isName(prev)) || isWord(prev, 'using') || (top.ctes && isName(prev) && !top.from);
        if (top.expect === 'factor') top.expect = 'alias';
        frames.push({ from: false, expect: 'none', bareList, ctes: false });
      } else if (t.value === ')') {
        if (frames.length > 1) frames.pop();
      } else if (t.value === ',' && top.from) {
        top.expect = 'factor';
      } else if (t.value !== '.' && top.expect === 'alias') {
        top.expect = 'none';
      }
      continue;
    }
    if (t.kind === 'word' && RESERVED.has(t.value)) {
      if (t.value === 'from' || t.value === 'join') {
        top.from = true;
        top.expect = 'factor';
      } else if (t.value === 'with') {
        top.ctes = true;
      } else if (ENDS_FROM.has(t.value)) {
        if (t.value !== 'on' && t.value !== 'using') top.from = false;
        top.expect = 'none';
        if (t.value === 'select') top.ctes = false;
      } else if (t.value !== 'as' && t.value !== 'lateral' && top.expect === 'alias') {
        top.expect = 'none';
      }
      continue;
    }
    if (!isName(t)) continue;
    // A chain: name (. name)* [. *]
    const first = k;
    const parts: Token[] = [t];
    let wildcard = false;
    while (isOp(tokens[k + 1], '.')) {
      const after = tokens[k + 2];
      if (isOp(after, '*')) {
        wildcard = true;
        k += 2;
        break;
      }
      if (!after || (after.kind !== 'word' && after.kind !== 'quoted')) break;
      parts.push(after);
      k += 2;
    }
    const prev = tokens[first - 1];
    const next = tokens[k + 1];
    // A type name (`x::t`) names no item we rename.
    if (isOp(prev, '::')) continue;
    let role: Role;
    if (top.bareList) role = 'bare';
    else if (isWord(prev, 'as')) role = 'bare';
    else if (top.ctes && !top.from && (isWord(next, 'as') || isOp(next, '('))) role = 'bare';
    else if (top.expect === 'factor' && !isOp(next, '(')) {
      role = 'item';
      top.expect = 'alias';
    } else if (top.expect === 'alias' && parts.length === 1) {
      role = 'bare';
    } else if (isOp(next, '(')) role = 'function';
    else role = 'expr';
    chains.push({ parts, wildcard, role });
  }
  return chains;
}

export type RenameResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

const q = (s: string) => `"${s.replace(/"/g, '\\"')}"`;

/**
 * Renames the item `from` to `to` in a query (create_stmt_rename_refs over a view's body), or
 * says why that would be ambiguous (the message AmbiguousRename wraps).
 */
export function renameItemInQuery(query: string, from: FullName, to: string, resolve: Resolve): RenameResult {
  const chains = nameChains(query);
  const value = (t: Token) => t.value;
  const resolved = new Map<Chain, FullName | undefined>();
  for (const c of chains) if (c.role === 'item') resolved.set(c, resolve(c.parts.map(value)));
  // Every identifier as Materialize's stored definition has it: items written in full.
  const idents = (c: Chain): string[] => {
    const r = resolved.get(c);
    return r ? [r.database, r.schema, r.item].filter((x) => x !== '') : c.parts.map(value);
  };
  for (const c of chains) {
    if (idents(c).includes(to)) return { ok: false, message: `found reference to ${q(to)}; cannot rename ${q(from.item)} to any identity used in any existing view definitions` };
  }
  const qualifiers = new Map<string, Set<string>>();
  let minDepth = Number.POSITIVE_INFINITY;
  const ambiguous = (what: string): RenameResult => ({ ok: false, message: `${q(from.item)} potentially used ambiguously as item and ${what}` });
  for (const c of chains) {
    const names = idents(c);
    const p = names.lastIndexOf(from.item);
    if (p < 0) continue;
    switch (c.role) {
      case 'bare':
        return ambiguous('alias or column');
      case 'function':
        return ambiguous('database, schema, or function');
      case 'item': {
        const r = resolved.get(c);
        if (!r || p !== names.length - 1 || names.length !== 3) return ambiguous('database, schema, or function');
        const dbs = qualifiers.get(r.schema) ?? new Set<string>();
        dbs.add(r.database);
        qualifiers.set(r.schema, dbs);
        minDepth = Math.min(minDepth, 3);
        break;
      }
      case 'expr':
        if (!c.wildcard && p === names.length - 1) return ambiguous('column');
        minDepth = Math.min(minDepth, p + 1);
        break;
    }
  }
  const depth = [...qualifiers.values()].some((d) => d.size > 1) ? 3 : qualifiers.size > 1 ? 2 : 1;
  if (minDepth < depth) return { ok: false, message: `${q(from.item)} is not sufficiently qualified to support renaming` };
  const suffix = [from.database, from.schema, from.item].slice(3 - depth);
  const edits: { start: number; end: number; text: string }[] = [];
  for (const c of chains) {
    if (c.role === 'item') {
      const r = resolved.get(c);
      if (r && r.database === from.database && r.schema === from.schema && r.item === from.item) edits.push({ start: c.parts.at(-1)!.start, end: c.parts.at(-1)!.end, text: ident(to) });
    } else if (c.role === 'expr') {
      const prefix = c.wildcard ? c.parts : c.parts.slice(0, -1);
      const names = prefix.map(value);
      if (names.length >= suffix.length && suffix.every((s, i) => names[names.length - suffix.length + i] === s)) {
        const last = prefix.at(-1)!;
        edits.push({ start: last.start, end: last.end, text: ident(to) });
      }
    }
  }
  return { ok: true, text: applyEdits(query, edits) };
}

/**
 * Renames schema `from` of database `database` to `to` in a query (create_stmt_rename_schema_refs),
 * or says why that would be ambiguous.
 */
export function renameSchemaInQuery(query: string, database: string, from: string, to: string, resolve: Resolve): RenameResult {
  const edits: { start: number; end: number; text: string }[] = [];
  for (const c of nameChains(query)) {
    if (c.role === 'item') {
      const r = resolve(c.parts.map((t) => t.value));
      if (!r || r.database !== database || r.schema !== from || c.parts.length < 2) continue;
      const schemaTok = c.parts[c.parts.length - 2]!;
      edits.push({ start: schemaTok.start, end: schemaTok.end, text: ident(to) });
    } else if (c.role === 'expr') {
      const prefix = c.wildcard ? c.parts : c.parts.slice(0, -1);
      const names = prefix.map((t) => t.value);
      if (names.length === 2 && names[0] === from) return { ok: false, message: `ambiguous reference to schema named ${from}` };
      if (names.length === 3 && names[0] === database && names[1] === from) edits.push({ start: prefix[1]!.start, end: prefix[1]!.end, text: ident(to) });
    }
  }
  return { ok: true, text: applyEdits(query, edits) };
}

function applyEdits(text: string, edits: readonly { start: number; end: number; text: string }[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
