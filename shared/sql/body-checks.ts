/**
 * Checks of a view body that Materialize's query planner makes and that the tokens show, without
 * planning the query: a wildcard over a record (`(mz_tables).*`), a column reference made ambiguous
 * by a table alias's column list (`FROM t AS t(a, a)`), and `OPTIONS (...)` mixing the two group
 * size hint syntaxes. Pure.
 */
import { lex, type Token } from './lexer';
import { nameChains } from './rename';

const isOp = (t: Token | undefined, op: string) => !!t && t.kind === 'op' && t.value === op;
const isName = (t: Token | undefined) => !!t && (t.kind === 'word' || t.kind === 'quoted');

/** `(expr).*`: expands a record's fields, a wildcard like `*` (the planner's "wildcard expansions"). */
export function hasRecordWildcard(query: string): boolean {
  const tokens = lex(query);
  return tokens.some((t, k) => isOp(t, ')') && isOp(tokens[k + 1], '.') && isOp(tokens[k + 2], '*'));
}

/**
 * A column the body reads without a qualifier that a table alias's column list names twice
 * (Materialize's AmbiguousColumn, `column reference "a" is ambiguous`).
 */
export function ambiguousAliasColumn(query: string): string | undefined {
  const tokens = lex(query);
  const twice = new Set<string>();
  for (let k = 2; k < tokens.length; k++) {
    // `... AS alias (` or `... table alias (`: a FROM item's alias with its column list.
    if (!isOp(tokens[k], '(') || !isName(tokens[k - 1]) || !(tokens[k - 2]?.kind === 'word' && tokens[k - 2]!.value === 'as')) continue;
    const names: string[] = [];
    let j = k + 1;
    for (; j < tokens.length && isName(tokens[j]); j += 2) {
      names.push(tokens[j]!.value);
      if (!isOp(tokens[j + 1], ',')) break;
    }
    if (!isOp(tokens[j + 1], ')')) continue;
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) twice.add(n);
      seen.add(n);
    }
  }
  if (twice.size === 0) return undefined;
  for (const c of nameChains(query)) if (c.role === 'expr' && c.parts.length <= 2 && twice.has(c.parts.at(-1)!.value)) return c.parts.at(-1)!.value;
  return undefined;
}

/**
 * An `OPTIONS (...)` hint list that gives `EXPECTED GROUP SIZE` with any of `AGGREGATE INPUT GROUP
 * SIZE`, `DISTINCT ON INPUT GROUP SIZE` or `LIMIT INPUT GROUP SIZE` (Materialize's
 * InvalidGroupSizeHints: the old syntax and the new one do not mix).
 */
export function mixesGroupSizeHints(query: string): boolean {
  if (!/options/i.test(query)) return false;
  const tokens = lex(query);
  for (let k = 0; k < tokens.length; k++) {
    if (!(tokens[k]!.kind === 'word' && tokens[k]!.value === 'options' && isOp(tokens[k + 1], '('))) continue;
    let depth = 0;
    const words: string[] = [];
    for (let j = k + 1; j < tokens.length; j++) {
      const t = tokens[j]!;
      if (isOp(t, '(')) depth++;
      else if (isOp(t, ')') && --depth === 0) break;
      else if (t.kind === 'word') words.push(t.value);
    }
    const text = ` ${words.join(' ')} `;
    if (text.includes(' expected group size ') && / (aggregate|limit) input group size | distinct on input group size /.test(text)) return true;
  }
  return false;
}
