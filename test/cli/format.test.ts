/**
 * ddlctl's pure parts: byte positions to lines and columns (multi-byte text), the caret line,
 * when a REPL buffer is a complete statement, and the psql-style table.
 */
import { describe, expect, it } from 'vitest';
import { caretPadding, indexOfByte, locate } from '../../shared/sql/caret';
import { formatError, table } from '../../cli/render';
import { holdsSecretValue, scan } from '../../cli/statements';
import { groupEffects } from '../../cli/commands/effects';
import { buildProgram } from '../../cli/program';
import type { EffectRow } from '../../cli/wait';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** Colours are on when CI or FORCE_COLOR is set: compare the text. */
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('byte positions', () => {
  it('map to the character they start, for 1- to 4-byte characters', () => {
    const text = 'aé日🎉z';
    expect([0, 1, 3, 6, 10].map((b) => indexOfByte(text, b))).toEqual([0, 1, 2, 3, 5]);
    // Inside a multi-byte character: that character. Past the end: the end.
    expect(indexOfByte(text, 2)).toBe(1);
    expect(indexOfByte(text, 8)).toBe(3);
    expect(indexOfByte(text, 99)).toBe(text.length);
  });

  it('locate the line and the column in code points', () => {
    const q = "SELECT 1;\nCREATE CLUSTER ünïcødé (SIZE '1') FROBNICATE";
    const at = locate(q, bytes(q.slice(0, q.indexOf('FROBNICATE'))));
    expect(at).toMatchObject({ lineNumber: 2, line: "CREATE CLUSTER ünïcødé (SIZE '1') FROBNICATE", column: "CREATE CLUSTER ünïcødé (SIZE '1') ".length });
    expect(locate('abc', 0)).toMatchObject({ lineNumber: 1, column: 0, before: '' });
    expect(locate('a\r\nb', 3)).toMatchObject({ lineNumber: 2, line: 'b', column: 0 });
  });

  it('pad the caret by display width: wide characters take two columns, tabs stay tabs, combining marks none', () => {
    expect(caretPadding('ab')).toBe('  ');
    expect(caretPadding('日本')).toBe('    ');
    expect(caretPadding('🎉')).toBe('  ');
    expect(caretPadding('\tx')).toBe('\t ');
    expect(caretPadding('e\u0301')).toBe(' ');
  });
});

describe('formatError', () => {
  it('draws the line and a caret under the byte position, then DETAIL and HINT', () => {
    const q = "CREATE CLUSTER 日本 (SIZE = 'x'); FROBNICATE";
    const text = formatError({ message: 'Expected a statement, found FROBNICATE', code: '42601', position: bytes("CREATE CLUSTER 日本 (SIZE = 'x'); "), hint: 'Try CREATE.' }, q);
    expect(plain(text).split('\n')).toEqual([
      'ERROR:  Expected a statement, found FROBNICATE  (SQLSTATE 42601)',
      `LINE 1: ${q}`,
      `${' '.repeat(8 + "CREATE CLUSTER 日本 (SIZE = 'x'); ".length + 2)}^`,
      'HINT:  Try CREATE.',
    ]);
  });

  it('without a position: just the message', () => {
    expect(plain(formatError({ message: 'nope', code: '0A000' }, 'x'))).toBe('ERROR:  nope  (SQLSTATE 0A000)');
  });
});

describe('scan (is the REPL buffer a complete request?)', () => {
  it.each([
    ['SHOW CLUSTERS;', true],
    ['SHOW CLUSTERS', false],
    ['SHOW CLUSTERS; -- done', true],
    ["SELECT * FROM mz_clusters WHERE name = 'a;b'", false],
    ["SELECT * FROM mz_clusters WHERE name = 'it''s;'", false],
    ["SELECT * FROM mz_clusters WHERE name = 'it''s';", true],
    ["CREATE SECRET s AS E'a\\';b';", true],
    ['CREATE VIEW v AS SELECT $$;$$;', true],
    ['CREATE VIEW v AS SELECT $tag$ ; $$ ; $tag$', false],
    ['SELECT 1 /* ; /* nested ; */ still ; */', false],
    ['SELECT 1; /* open', false],
    ['SELECT "a;b" FROM x;', true],
  ])('%s → terminated %s', (text, terminated) => {
    expect(scan(text).terminated).toBe(terminated);
  });

  it('knows an open quote and an empty buffer', () => {
    expect(scan("SELECT 'abc").open).toBe(true);
    expect(scan('  -- only a comment\n').empty).toBe(true);
    expect(scan('$1;').terminated).toBe(true);
  });
});

describe('holdsSecretValue (what the REPL keeps out of its history)', () => {
  it.each([
    "CREATE SECRET pgpass AS 'hunter2';",
    "create secret if not exists pgpass as decode('aHVudGVyMg==', 'base64');",
    "CREATE OR REPLACE SECRET s AS 'x'",
    "ALTER SECRET pgpass AS 'hunter3';",
    "ALTER SECRET IF EXISTS pgpass AS\n  'hunter3';",
    "BEGIN; CREATE TABLE t (a int); CREATE SECRET s AS 'x'; COMMIT;",
    "EXPLAIN EFFECTS FOR CREATE SECRET s AS 'x';",
    "CREATE ROLE r WITH LOGIN PASSWORD 'hunter4';",
    "ALTER ROLE r PASSWORD 'hunter4';",
    "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092', SASL PASSWORD = 'hunter5');",
    "CREATE CONNECTION a TO AWS (ACCESS KEY ID = 'AKIA', SECRET ACCESS KEY = 'hunter6');",
    "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092', SSL KEY '-----BEGIN PRIVATE KEY-----', SSL CERTIFICATE 'cert');",
    // Unterminated: cannot be read, so kept out when it could hold one.
    "CREATE SECRET s AS 'hunter7",
  ])('keeps out %s', (text) => {
    expect(holdsSecretValue(text)).toBe(true);
  });

  it.each([
    "CREATE CONNECTION pgc TO POSTGRES (HOST 'h', USER 'u', PASSWORD SECRET pgpass, DATABASE 'd');",
    "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092', SASL PASSWORD = SECRET kpass);",
    "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092', SSL KEY = SECRET kkey, SSL CERTIFICATE 'cert');",
    'ALTER SECRET pgpass RENAME TO pgpass2;',
    'ALTER SECRET pgpass OWNER TO someone;',
    'DROP SECRET pgpass;',
    'SHOW SECRETS;',
    "SELECT name FROM mz_secrets WHERE name = 'pgpass';",
    "COMMENT ON SECRET pgpass IS 'the password of the shop database';",
    'ALTER ROLE r PASSWORD NULL;',
    "SELECT 'CREATE SECRET s AS x' AS text;",
    '-- CREATE SECRET s AS x\nSHOW SECRETS;',
    '\\d pgpass',
  ])('keeps %s', (text) => {
    expect(holdsSecretValue(text)).toBe(false);
  });
});

describe('table', () => {
  it('aligns like psql, NULL as empty, booleans as t/f, wide characters by width', () => {
    expect(plain(table(['name', 'managed', 'size'], [['日本', true, null], ['c', false, '25cc']]))).toBe(
      [' name | managed | size', '------+---------+------', ' 日本 | t       |', ' c    | f       | 25cc'].join('\n'),
    );
  });
});

describe('table without rows', () => {
  it('still draws the rule under the header', () => {
    expect(plain(table(['name', 'replicas'], []))).toBe(' name | replicas\n------+----------');
  });
});

describe('groupEffects', () => {
  const e = (state: 'pending' | 'failed', dead: boolean) => ({ effect_id: `${state}${dead}`, state, dead_lettered: dead }) as EffectRow;
  it('splits pending, failed and dead-lettered', () => {
    const g = groupEffects([e('pending', false), e('failed', false), e('pending', true)]);
    expect([g.pending.length, g.failed.length, g.deadLettered.length]).toEqual([1, 1, 1]);
  });
});

describe('the command tree', () => {
  it('has the documented commands and flags', () => {
    const program = buildProgram(() => undefined);
    const names = (c: typeof program): string[] => c.commands.flatMap((x) => [x.name(), ...names(x).map((n) => `${x.name()} ${n}`)]);
    expect(names(program)).toEqual(['sql', 'status', 'events', 'restart', 'effects', 'effects redrive', 'check', 'tenant', 'tenant create', 'password', 'password create']);
    const flags = (path: string[]) => {
      let c = program;
      for (const p of path) c = c.commands.find((x) => x.name() === p)!;
      return c.options.map((o) => o.long);
    };
    expect(flags([])).toEqual(['--url', '--data-dir', '--runtime']);
    expect(flags(['sql'])).toEqual(['--command', '--json', '--wait', '--timeout']);
    expect(flags(['status'])).toEqual(['--watch', '--interval', '--json']);
    expect(flags(['events'])).toEqual(['--follow', '--after', '--interval', '--json']);
    expect(flags(['restart'])).toEqual(['--source', '--sink']);
    expect(flags(['effects', 'redrive'])).toEqual(['--controller', '--queue-url', '--dlq-url', '--max', '--table', '--region']);
    expect(flags(['check'])).toEqual(['--dataplane-table', '--dataplane-url', '--tenant', '--grace', '--json', '--table', '--region']);
  });
});
