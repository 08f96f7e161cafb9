/**
 * Tokens as Materialize's parser names them in its errors (the `Display` of its lexer's `Token`,
 * src/sql-lexer/src/lexer.rs): `Expected left parenthesis, found identifier "gus"`, `found FROM`,
 * `found number "5."`, `found operator "&"`, `found EOF`.
 */
import { SqlSyntaxError } from '../errors';
import { quoted } from '../mz-errors';
import type { Token } from './lexer';
import { MZ_KEYWORDS } from './mz-keywords';

const PUNCTUATION: Readonly<Record<string, string>> = {
  '*': 'star',
  '=': 'equals sign',
  '(': 'left parenthesis',
  ')': 'right parenthesis',
  '[': 'left square bracket',
  ']': 'right square bracket',
  '.': 'dot',
  ',': 'comma',
  ':': 'colon',
  '::': 'double colon',
  ';': 'semicolon',
  '=>': 'arrow',
};

/** An operator or punctuation token, named as Materialize names it. */
export function describeOp(op: string): string {
  if (/^\$\d+$/.test(op)) return `parameter "${op}"`;
  return PUNCTUATION[op] ?? `operator ${quoted(op)}`;
}

/**
 * A token as Materialize's errors name it. `secrets`: the statement may hold a secret value, so a
 * string literal is named without its text (Materialize echoes it; we never echo a secret).
 */
export function describeToken(t: Token, secrets: boolean): string {
  switch (t.kind) {
    case 'eof':
      return 'EOF';
    case 'word':
      return MZ_KEYWORDS.has(t.value) ? t.value.toUpperCase() : `identifier ${quoted(t.value)}`;
    case 'quoted':
      return `identifier ${quoted(t.value)}`;
    case 'string':
      if (secrets) return 'a string literal';
      return /^[xX]'/.test(t.raw) ? `hex string literal ${quoted(t.value)}` : `string literal ${quoted(t.value)}`;
    case 'number':
      return `number "${t.value}"`;
    case 'op':
      return describeOp(t.value);
  }
}

/** Materialize's ParserError of an unexpected token: `Expected X, found Y`, at its byte position. */
export function parserExpected(expected: string, found: string, position: number): SqlSyntaxError {
  return new SqlSyntaxError(`Expected ${expected}, found ${found}`, position);
}
