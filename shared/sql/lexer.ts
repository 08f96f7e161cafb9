/**
 * SQL lexer. Positions are UTF-16 indices into the text while lexing (cheap); errors convert
 * them to byte offsets at the edge (see `byteOffset`).
 *
 * It reads every token PostgreSQL's scanner reads (operators such as `->>` or `@>`, dollar-quoted
 * strings, `$1` parameters) because view bodies are kept as raw text spans and must be delimited
 * correctly even when our grammar does not read what is inside them.
 */
import { SQLSTATE, SqlSyntaxError } from '../errors';

export type TokenKind =
  | 'word' // unquoted identifier or keyword, lowercased in `value`
  | 'quoted' // "quoted identifier", exact in `value`
  | 'string' // 'string literal', E'...', $$...$$: unescaped in `value`
  | 'number'
  | 'op' // punctuation, operators, `$1` parameters
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  /** The text as typed (for messages). */
  readonly raw: string;
  readonly start: number;
  readonly end: number;
}

/** Materialize's limit (PostgreSQL truncates at 63 bytes instead; Materialize refuses). */
export const MAX_IDENTIFIER_BYTES = 255;

const CH_TAB = 9;
const CH_LF = 10;
const CH_VT = 11;
const CH_FF = 12;
const CH_CR = 13;
const CH_SPACE = 32;
const CH_DQUOTE = 34;
const CH_DOLLAR = 36;
const CH_SQUOTE = 39;
const CH_STAR = 42;
const CH_PLUS = 43;
const CH_MINUS = 45;
const CH_DOT = 46;
const CH_SLASH = 47;
const CH_0 = 48;
const CH_9 = 57;
const CH_COLON = 58;
const CH_UPPER_E = 69;
const CH_LOWER_E = 101;
const CH_BACKSLASH = 92;
const CH_UNDERSCORE = 95;

function isDigit(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}
function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === CH_UNDERSCORE || c >= 0x80;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c) || c === CH_DOLLAR;
}
/** PostgreSQL's operator characters (`op_chars` in scan.l). */
function isOpChar(c: number): boolean {
  switch (c) {
    case 43: // +
    case 45: // -
    case 42: // *
    case 47: // /
    case 60: // <
    case 62: // >
    case 61: // =
    case 126: // ~
    case 33: // !
    case 64: // @
    case 35: // #
    case 37: // %
    case 94: // ^
    case 38: // &
    case 124: // |
    case 96: // `
    case 63: // ?
      return true;
    default:
      return false;
  }
}
/** Operator characters that let a multi-character operator end in `+` or `-` (scan.l's rule). */
function isSpecialOpChar(c: number): boolean {
  return c === 126 || c === 33 || c === 64 || c === 35 || c === 37 || c === 94 || c === 38 || c === 124 || c === 96 || c === 63;
}
const SINGLE_PUNCT = new Set(['(', ')', ',', ';', '.', '[', ']', ':']);

let asciiCache: { text: string; ascii: boolean } | undefined;
function isAscii(text: string): boolean {
  if (asciiCache?.text === text) return asciiCache.ascii;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) {
      ascii = false;
      break;
    }
  }
  asciiCache = { text, ascii };
  return ascii;
}

/** The byte offset (UTF-8) of UTF-16 index `index` in `text`. */
/** Byte offset of every UTF-16 index of `text` (null when the text is ASCII: the identity). */
export function byteOffsets(text: string): Uint32Array | null {
  if (isAscii(text)) return null;
  const table = new Uint32Array(text.length + 1);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    table[i] = bytes;
    const c = text.charCodeAt(i);
    const pairHigh = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const pairLow = c >= 0xdc00 && c <= 0xdfff && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    // A surrogate pair is one 4-byte character (2 to each half); a lone surrogate encodes as U+FFFD, 3 bytes.
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : pairHigh || pairLow ? 2 : 3;
  }
  table[text.length] = bytes;
  return table;
}

export function byteOffset(text: string, index: number): number {
  if (isAscii(text)) return index;
  return Buffer.byteLength(text.slice(0, index), 'utf8');
}

/** The UTF-16 index of byte offset `byte` in `text` (the inverse of `byteOffset`). */
export function charIndex(text: string, byte: number): number {
  if (isAscii(text)) return Math.min(byte, text.length);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    if (bytes >= byte) return i;
    const c = text.codePointAt(i)!;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (c >= 0x10000) i++;
  }
  return text.length;
}

export function lex(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = text.length;
  const fail = (msg: string, at: number, code?: string, detail?: string): never => {
    throw new SqlSyntaxError(msg, byteOffset(text, at), { ...(code === undefined ? {} : { code }), ...(detail === undefined ? {} : { detail }) });
  };
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    fail('NUL bytes (0x00) are not allowed in SQL text', nul, SQLSTATE.characterNotInRepertoire);
  }
  const checkIdentLength = (value: string, at: number): void => {
    // Only long words can be over the limit; skip the byte count for the common case.
    if (value.length * 3 <= MAX_IDENTIFIER_BYTES && value.length <= MAX_IDENTIFIER_BYTES) return;
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MAX_IDENTIFIER_BYTES) {
      // Materialize's wording; the size goes in the detail.
      fail(`identifier length exceeds ${MAX_IDENTIFIER_BYTES} bytes`, at, SQLSTATE.nameTooLong, `The identifier is ${bytes} bytes long.`);
    }
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === CH_SPACE || c === CH_TAB || c === CH_LF || c === CH_CR || c === CH_FF || c === CH_VT) {
      i++;
      continue;
    }
    if (c === CH_MINUS && text.charCodeAt(i + 1) === CH_MINUS) {
      while (i < n && text.charCodeAt(i) !== CH_LF) i++;
      continue;
    }
    if (c === CH_SLASH && text.charCodeAt(i + 1) === CH_STAR) {
      i = skipBlockComment(text, i, fail);
      continue;
    }
    const start = i;
    if ((c === CH_UPPER_E || c === CH_LOWER_E) && text.charCodeAt(i + 1) === CH_SQUOTE) {
      const s = readString(text, i + 1, true, fail);
      tokens.push({ kind: 'string', value: s.value, raw: text.slice(start, s.end), start, end: s.end });
      i = s.end;
      continue;
    }
    if (c === CH_SQUOTE) {
      const s = readString(text, i, false, fail);
      tokens.push({ kind: 'string', value: s.value, raw: text.slice(start, s.end), start, end: s.end });
      i = s.end;
      continue;
    }
    if (c === CH_DQUOTE) {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return fail('Unterminated quoted identifier', start);
        value += text.slice(i, q);
        if (text.charCodeAt(q + 1) === CH_DQUOTE) {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      // `""` reads as an (empty) identifier, as in Materialize's lexer: where a name stands, the
      // parser refuses it ("zero-length delimited identifier"); elsewhere it is an unexpected token.
      // Materialize refuses these two as names (they would read as path steps).
      if (value === '.' || value === '..') fail(`invalid identifier: "${value}"`, start);
      checkIdentLength(value, start);
      tokens.push({ kind: 'quoted', value, raw: text.slice(start, i), start, end: i });
      continue;
    }
    if (isDigit(c) || (c === CH_DOT && isDigit(text.charCodeAt(i + 1)))) {
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === CH_DOT && isDigit(text.charCodeAt(i + 1))) {
        i++;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      } else if (text.charCodeAt(i) === CH_DOT && text.charCodeAt(i + 1) !== CH_DOT && !isIdentStart(text.charCodeAt(i + 1))) {
        i++;
      }
      const e = text.charCodeAt(i);
      if (e === CH_UPPER_E || e === CH_LOWER_E) {
        const s = text.charCodeAt(i + 1);
        if (isDigit(s) || ((s === CH_PLUS || s === CH_MINUS) && isDigit(text.charCodeAt(i + 2)))) {
          i += 2;
          while (i < n && isDigit(text.charCodeAt(i))) i++;
        }
      }
      const raw = text.slice(start, i);
      tokens.push({ kind: 'number', value: raw, raw, start, end: i });
      continue;
    }
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      const raw = text.slice(start, i);
      const value = raw.toLowerCase();
      checkIdentLength(value, start);
      tokens.push({ kind: 'word', value, raw, start, end: i });
      continue;
    }
    if (c === CH_DOLLAR) {
      if (isDigit(text.charCodeAt(i + 1))) {
        i++;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
        const raw = text.slice(start, i);
        tokens.push({ kind: 'op', value: raw, raw, start, end: i });
        continue;
      }
      // Dollar-quoted string: $tag$ ... $tag$ (the tag is empty or an identifier without `$`).
      let j = i + 1;
      if (isIdentStart(text.charCodeAt(j))) {
        j++;
        while (j < n && isIdentPart(text.charCodeAt(j)) && text.charCodeAt(j) !== CH_DOLLAR) j++;
      }
      if (text.charCodeAt(j) === CH_DOLLAR) {
        const delimiter = text.slice(i, j + 1);
        const close = text.indexOf(delimiter, j + 1);
        if (close < 0) return fail('Unterminated dollar-quoted string', start);
        const end = close + delimiter.length;
        tokens.push({ kind: 'string', value: text.slice(j + 1, close), raw: text.slice(start, end), start, end });
        i = end;
        continue;
      }
      return fail(`Unexpected character "$"`, i);
    }
    if (c === CH_COLON && text.charCodeAt(i + 1) === CH_COLON) {
      i += 2;
      tokens.push({ kind: 'op', value: '::', raw: '::', start, end: i });
      continue;
    }
    const ch = text[i]!;
    if (SINGLE_PUNCT.has(ch)) {
      i++;
      tokens.push({ kind: 'op', value: ch, raw: ch, start, end: i });
      continue;
    }
    if (isOpChar(c)) {
      let j = i;
      while (j < n && isOpChar(text.charCodeAt(j))) {
        // A comment start ends the operator (`a+--x` is `a +` and a comment).
        if (j > i && ((text.charCodeAt(j) === CH_MINUS && text.charCodeAt(j + 1) === CH_MINUS) || (text.charCodeAt(j) === CH_SLASH && text.charCodeAt(j + 1) === CH_STAR))) break;
        j++;
      }
      if (j - i > 1) {
        let special = false;
        for (let k = i; k < j; k++) if (isSpecialOpChar(text.charCodeAt(k))) special = true;
        // `=-1` is `=` then `-1`: an operator ends in + or - only if it has a special character.
        if (!special) {
          while (j - i > 1 && (text.charCodeAt(j - 1) === CH_PLUS || text.charCodeAt(j - 1) === CH_MINUS)) j--;
        }
      }
      const raw = text.slice(i, j);
      tokens.push({ kind: 'op', value: raw, raw, start, end: j });
      i = j;
      continue;
    }
    const cp = text.codePointAt(i)!;
    return fail(`Unexpected character ${JSON.stringify(String.fromCodePoint(cp))}`, i);
  }
  tokens.push({ kind: 'eof', value: '', raw: '', start: n, end: n });
  return tokens;
}

function skipBlockComment(text: string, from: number, fail: (msg: string, at: number) => never): number {
  let i = from;
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === CH_SLASH && text.charCodeAt(i + 1) === CH_STAR) {
      depth++;
      i += 2;
    } else if (c === CH_STAR && text.charCodeAt(i + 1) === CH_SLASH) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return fail('Unterminated block comment', from);
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '\\': '\\', "'": "'" };

function readString(
  text: string,
  quoteAt: number,
  escapes: boolean,
  fail: (msg: string, at: number) => never,
): { value: string; end: number } {
  let i = quoteAt + 1;
  let value = '';
  for (;;) {
    // Copy runs of ordinary characters in one go.
    let j = i;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === CH_SQUOTE || (escapes && c === CH_BACKSLASH)) break;
      j++;
    }
    value += text.slice(i, j);
    i = j;
    if (i >= text.length) return fail('Unterminated string literal', quoteAt);
    const c = text.charCodeAt(i);
    if (c === CH_SQUOTE) {
      if (text.charCodeAt(i + 1) === CH_SQUOTE) {
        value += "'";
        i += 2;
        continue;
      }
      return { value, end: i + 1 };
    }
    // A backslash escape in an E'' string.
    const e = text[i + 1];
    if (e === undefined) return fail('Unterminated string literal', quoteAt);
    value += ESCAPES[e] ?? e;
    i += 2;
  }
}

/** Byte offset in `text` of the first use of the (folded) name `name`, 0 if none (or the text does not lex). */
export function nameOffset(text: string, name: string): number {
  try {
    const t = lex(text).find((x) => (x.kind === 'word' || x.kind === 'quoted') && x.value === name);
    return t ? byteOffset(text, t.start) : 0;
  } catch {
    return 0;
  }
}

/**
 * Byte offset in `text` of the name that follows the words `after` (`['registry', 'connection']`)
 * and starts with `first`; 0 when there is none.
 */
export function offsetAfterWords(text: string, after: readonly string[], first: string): number {
  try {
    const tokens = lex(text);
    for (let i = 0; i + after.length < tokens.length; i++) {
      if (!after.every((w, k) => tokens[i + k]!.kind === 'word' && tokens[i + k]!.value === w)) continue;
      const t = tokens[i + after.length]!;
      if ((t.kind === 'word' || t.kind === 'quoted') && t.value === first) return byteOffset(text, t.start);
    }
    return 0;
  } catch {
    return 0;
  }
}
