/**
 * The REPL's backslash commands, psql's names mapped onto our SHOW statements. Pure: a command
 * line in, what to do out; the REPL does the I/O.
 */

export type Meta =
  | { readonly kind: 'quit' }
  | { readonly kind: 'help' }
  | { readonly kind: 'toggle'; readonly setting: 'wait' | 'json' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'print' }
  | { readonly kind: 'send' }
  /** Run this SQL and print its result. */
  | { readonly kind: 'query'; readonly sql: string }
  /**
   * `\d name`: look the object up (`lookup` answers its name and type, or no row), then show its
   * definition (SHOW CREATE of `name`) and, for a relation, its indexes (`indexes`).
   */
  | { readonly kind: 'describe'; readonly name: string; readonly lookup: string; readonly indexes: string }
  | { readonly kind: 'invalid'; readonly message: string };

/** psql's listing commands and the SHOW statement each one stands for. */
const LISTS: Readonly<Record<string, string>> = {
  '\\d': 'SHOW OBJECTS',
  '\\dt': 'SHOW TABLES',
  '\\dv': 'SHOW VIEWS',
  '\\dm': 'SHOW MATERIALIZED VIEWS',
  '\\di': 'SHOW INDEXES',
  '\\dn': 'SHOW SCHEMAS',
  '\\l': 'SHOW DATABASES',
  '\\list': 'SHOW DATABASES',
};

export const META_HELP = `
  statements end with ;   (several in one request run as one transaction)
  \\d [NAME]    list objects, or show how NAME is defined (and its indexes)
  \\dt \\dv \\dm \\di [PATTERN]   list tables, views, materialized views, indexes
  \\dn          list schemas
  \\l           list databases
  \\g           send the statement typed so far (as if it ended with ;)
  \\p           show the statement typed so far
  \\r           clear the statement typed so far
  \\wait        toggle waiting for each statement's effects (now: %wait)
  \\json        toggle raw JSON output (now: %json)
  \\?           this help
  \\q           quit (or Ctrl-D)
  Ctrl-C       clear the line and the statement being typed (or stop waiting for effects)
  PATTERN is a psql pattern: * any characters, ? one character; SCHEMA.PATTERN lists in
  another schema than public (\\dt analytics.*), and NAME may be SCHEMA.NAME too.
`;

/** What `ddlctl sql --help` says of the REPL (META_HELP is its \\? in full). */
export const REPL_SUMMARY = [
  'In the REPL: statements end with ; and may span lines; Up recalls a whole statement.',
  "psql's \\d [NAME], \\dt \\dv \\dm \\di [PATTERN], \\dn, \\l, \\g, \\p, \\r, \\q work, also on a",
  'continuation line (\\? lists them). Ctrl-C clears the line and the statement being typed,',
  'or, while a statement waits for its effects, stops the wait (the statement stays committed).',
].join('\n');

/** A SQL string literal. */
export function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** One dotted part of a psql name or pattern: its value (folded or unquoted) and as a LIKE pattern. */
interface NamePart {
  readonly value: string;
  readonly like: string;
  /** An unquoted `*` or `?` made it a pattern. */
  readonly wild: boolean;
}

/**
 * psql's names and patterns (`ord*`, `analytics.a?c`, `"My Table"`): split at dots outside
 * double quotes; unquoted letters fold to lower case as PostgreSQL folds names, and only unquoted
 * `*` and `?` are wildcards. LIKE's own wildcards typed by the user match literally. A string is
 * what is wrong with it.
 */
export function nameParts(arg: string): NamePart[] | string {
  const parts: NamePart[] = [];
  let part = { value: '', like: '', wild: false };
  let quoted = false;
  for (let i = 0; i < arg.length; i++) {
    const c = arg[i]!;
    if (c === '"' && !(quoted && arg[i + 1] === '"')) {
      quoted = !quoted;
      continue;
    }
    if (c === '"') i++; // "" inside quotes is one "
    if (!quoted && c === '.') {
      parts.push(part);
      part = { value: '', like: '', wild: false };
    } else if (!quoted && (c === '*' || c === '?')) part = { value: part.value + c, like: part.like + (c === '*' ? '%' : '_'), wild: true };
    else {
      const ch = quoted ? c : c.toLowerCase();
      part = { ...part, value: part.value + ch, like: part.like + (/[\\%_]/.test(ch) ? `\\${ch}` : ch) };
    }
  }
  parts.push(part);
  if (quoted) return `unterminated quoted name: ${arg}`;
  if (parts.length > 3) return `${arg}: improper qualified name (too many dotted names)`;
  if (parts.some((p) => p.value === '')) return `${arg}: a dotted name has an empty part`;
  if (parts.slice(0, -1).some((p) => p.wild)) return `${arg}: give the schema by its name (patterns match object names only)`;
  return parts;
}

/** A quoted identifier for SQL text. */
const ident = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** The words of a command line; double-quoted names may hold spaces. */
function words(text: string): string[] {
  return text.trim().match(/(?:[^\s"]+|"(?:[^"]|"")*"?)+/g) ?? [];
}

/** Reads one backslash command (`\dt ord*`); `text` starts at the backslash. */
export function parseMeta(text: string): Meta {
  const [cmd = '', ...args] = words(text);
  const arg = args[0];
  if (args.length > 1) return { kind: 'invalid', message: `${cmd}: extra argument "${args[1]}": give one name or pattern` };
  switch (cmd) {
    case '\\q':
    case '\\quit':
      return { kind: 'quit' };
    case '\\?':
    case '\\h':
    case '\\help':
      return { kind: 'help' };
    case '\\wait':
      return { kind: 'toggle', setting: 'wait' };
    case '\\json':
      return { kind: 'toggle', setting: 'json' };
    case '\\r':
    case '\\reset':
      return { kind: 'reset' };
    case '\\p':
    case '\\print':
      return { kind: 'print' };
    case '\\g':
      return { kind: 'send' };
  }
  const list = LISTS[cmd];
  if (list === undefined) return { kind: 'invalid', message: `invalid command ${cmd}\nTry \\? for help.` };
  if (arg === undefined) return { kind: 'query', sql: list };
  const parts = nameParts(arg);
  if (typeof parts === 'string') return { kind: 'invalid', message: `${cmd}: ${parts}` };
  const last = parts[parts.length - 1]!;
  // Schemas and databases are not inside a schema: their patterns are one name.
  const perSchema = list !== 'SHOW SCHEMAS' && list !== 'SHOW DATABASES';
  if (!perSchema && parts.length > 1) return { kind: 'invalid', message: `${cmd}: ${arg}: give one name or pattern, without dots` };
  // `analytics.ord*` lists in schema analytics; without one, SHOW's default schema (public), which
  // is also where SHOW CREATE resolves a bare name.
  const from = parts.length > 1 ? ` FROM ${parts.slice(0, -1).map((p) => ident(p.value)).join('.')}` : '';
  if (cmd === '\\d' && !last.wild) {
    // The ON name carries its schema; Materialize refuses SHOW INDEXES with both FROM and ON.
    return { kind: 'describe', name: arg, lookup: `SHOW OBJECTS${from} LIKE ${literal(last.like)}`, indexes: `SHOW INDEXES ON ${arg}` };
  }
  // SHOW SCHEMAS and SHOW DATABASES take LIKE too: every listing filters the same way.
  return { kind: 'query', sql: `${list}${from}${last.like === '%' ? '' : ` LIKE ${literal(last.like)}`}` };
}

/** mz_objects.type → the words SHOW CREATE takes. */
export function showCreateType(mzType: string): string {
  return mzType.replace(/-/g, ' ').toUpperCase();
}
