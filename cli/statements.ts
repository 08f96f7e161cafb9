/**
 * When is a REPL buffer a complete request? When its last token outside strings, quoted
 * identifiers and comments is `;` — the rule psql uses. Pure: a small scanner that knows
 * PostgreSQL's quoting ('...' with '' escapes, E'...' with backslashes, "...", $tag$...$tag$,
 * -- line comments and nested block comments), and where a psql backslash command starts.
 */

import { lex, type Token } from '../shared/sql/lexer';

export interface ScanState {
  /** The text ends inside a string, quoted identifier or block comment. */
  readonly open: boolean;
  /** The last significant character outside quotes and comments is `;`. */
  readonly terminated: boolean;
  /** Nothing but whitespace and comments. */
  readonly empty: boolean;
  /**
   * Where a backslash command starts (a `\` outside quotes and comments), as in psql: the text
   * before it is SQL, the rest of the line is the command. The other fields describe the text
   * before it.
   */
  readonly backslash?: number;
}

export function scan(text: string): ScanState {
  let i = 0;
  const n = text.length;
  let last = '';
  let open = false;
  while (i < n) {
    const c = text[i]!;
    if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (text[i] === '/' && text[i + 1] === '*') (depth++, (i += 2));
        else if (text[i] === '*' && text[i + 1] === '/') (depth--, (i += 2));
        else i++;
      }
      if (depth > 0) open = true;
      continue;
    }
    if (c === "'" || c === '"') {
      const backslashes = c === "'" && i > 0 && /[eE]/.test(text[i - 1]!) && !/[\w$]/.test(text[i - 2] ?? '');
      i++;
      let closed = false;
      while (i < n) {
        if (backslashes && text[i] === '\\') {
          i += 2;
          continue;
        }
        if (text[i] === c) {
          if (text[i + 1] === c) {
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        i++;
      }
      if (!closed) open = true;
      last = c;
      continue;
    }
    if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i));
      // `$1` is a parameter, and `a$b` an identifier: only a tag not glued to a word opens a string.
      if (m && !/[\w$]/.test(text[i - 1] ?? '')) {
        const close = text.indexOf(m[0], i + m[0].length);
        if (close < 0) {
          open = true;
          i = n;
        } else i = close + m[0].length;
        last = '$';
        continue;
      }
    }
    if (c === '\\') return { open, terminated: !open && last === ';', empty: !open && last === '', backslash: i };
    if (!/\s/.test(c)) last = c;
    i++;
  }
  return { open, terminated: !open && last === ';', empty: !open && last === '' };
}

/**
 * Whether REPL input holds a secret's value — `CREATE SECRET ... AS '...'`, `ALTER SECRET ... AS
 * ...`, a password or secret key given as a literal (`CREATE ROLE ... PASSWORD '...'`, `SASL
 * PASSWORD = '...'`, `SSL KEY '...'`, `SECRET ACCESS KEY = '...'`), anywhere in it (`EXPLAIN EFFECTS FOR`, a
 * block) — and so must stay out of the history file. A statement that only names a secret
 * (`PASSWORD SECRET pgpass`, `DROP SECRET pgpass`) holds none. Read with the SQL lexer, so a
 * string or comment that mentions SECRET is text; input it cannot read (an unterminated string)
 * is kept out when it mentions a secret, a password or a key at all.
 */
export function holdsSecretValue(text: string): boolean {
  const sql = text.slice(0, scan(text).backslash ?? text.length);
  let tokens: readonly Token[];
  try {
    tokens = lex(sql);
  } catch {
    return /\b(secret|password|key)\b/i.test(sql);
  }
  const word = (i: number, ...words: string[]) => words.every((w, k) => tokens[i + k]?.kind === 'word' && tokens[i + k]!.value === w);
  const op = (i: number, value: string) => tokens[i]?.kind === 'op' && tokens[i]!.value === value;
  /** A string literal at `i`, or after an `=` there. */
  const literal = (i: number) => tokens[op(i, '=') ? i + 1 : i]?.kind === 'string';
  for (let i = 0; i < tokens.length; i++) {
    if (word(i, 'create') && word(word(i + 1, 'or', 'replace') ? i + 3 : i + 1, 'secret')) return true;
    if (word(i, 'alter', 'secret')) {
      for (let j = i + 2; j < tokens.length && !op(j, ';'); j++) if (word(j, 'as')) return true;
    }
    if (word(i, 'password') && literal(i + 1)) return true;
    if (word(i, 'secret', 'access', 'key') && literal(i + 3)) return true;
    if (word(i, 'ssl', 'key') && literal(i + 2)) return true;
  }
  return false;
}
