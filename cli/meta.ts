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
  /** `\d name`: look the object up, then show its definition. */
  | { readonly kind: 'describe'; readonly name: string }
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
  Ctrl-C       clear the line and the statement being typed
  PATTERN is a psql pattern: * any characters, ? one character.
`;

/** A SQL string literal. */
export function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** psql's name patterns (`ord*`, `a?c`) as a LIKE pattern; LIKE's own wildcards match literally. */
export function likePattern(p: string): string {
  return p.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%').replace(/\?/g, '_');
}

/** Reads one backslash command (`\dt ord*`); `text` starts at the backslash. */
export function parseMeta(text: string): Meta {
  const [cmd = '', ...args] = text.trim().split(/\s+/);
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
  if (cmd === '\\d' && !/[*?]/.test(arg)) return { kind: 'describe', name: arg };
  // SHOW SCHEMAS and SHOW DATABASES take LIKE too: every listing filters the same way.
  return { kind: 'query', sql: `${list} LIKE ${literal(likePattern(arg))}` };
}

/** mz_objects.type → the words SHOW CREATE takes. */
export function showCreateType(mzType: string): string {
  return mzType.replace(/-/g, ' ').toUpperCase();
}
