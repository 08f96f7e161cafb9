/** The REPL's pure parts: where a backslash command starts, and what each command stands for. */
import { describe, expect, it } from 'vitest';
import { META_HELP, nameParts, parseMeta, REPL_SUMMARY } from '../../cli/meta';
import { scan } from '../../cli/statements';

describe('scan finds a backslash command only outside quotes and comments', () => {
  it.each([
    ['SHOW CLUSTERS \\g', true],
    ["SELECT 'a\\b' \\p", true],
    ["SELECT E'\\'' \\p", true],
    ['SELECT 1 -- \\q\n\\d', true],
    ['SELECT "x\\y"', false],
    ['/* \\q */ SELECT 1;', false],
  ])('%j', (text, found) => {
    // The command, when there is one, is the last backslash of these texts.
    expect(scan(text).backslash).toBe(found ? text.lastIndexOf('\\') : undefined);
  });

  it('describes the SQL before the command', () => {
    expect(scan('SHOW CLUSTERS; \\d')).toMatchObject({ terminated: true, backslash: 15 });
    expect(scan('\\d')).toMatchObject({ empty: true, backslash: 0 });
  });
});

describe('parseMeta', () => {
  it('maps psql listings to SHOW statements, with patterns as LIKE', () => {
    expect(parseMeta('\\dt')).toEqual({ kind: 'query', sql: 'SHOW TABLES' });
    expect(parseMeta('\\l')).toEqual({ kind: 'query', sql: 'SHOW DATABASES' });
    expect(parseMeta('\\dn  ')).toEqual({ kind: 'query', sql: 'SHOW SCHEMAS' });
    expect(parseMeta("\\dv o'r*_?")).toEqual({ kind: 'query', sql: "SHOW VIEWS LIKE 'o''r%\\__'" });
    expect(parseMeta('\\d ord*')).toEqual({ kind: 'query', sql: "SHOW OBJECTS LIKE 'ord%'" });
    // Unquoted names fold to lower case, as PostgreSQL folds them.
    expect(parseMeta('\\dt ORD*')).toEqual({ kind: 'query', sql: "SHOW TABLES LIKE 'ord%'" });
  });

  it('lists in another schema with SCHEMA.PATTERN, as psql does', () => {
    expect(parseMeta('\\dt analytics.*')).toEqual({ kind: 'query', sql: 'SHOW TABLES FROM "analytics"' });
    expect(parseMeta('\\dm materialize.analytics.click*')).toEqual({ kind: 'query', sql: 'SHOW MATERIALIZED VIEWS FROM "materialize"."analytics" LIKE \'click%\'' });
    expect(parseMeta('\\d analytics.*')).toEqual({ kind: 'query', sql: 'SHOW OBJECTS FROM "analytics"' });
    expect(parseMeta('\\dn ana*')).toEqual({ kind: 'query', sql: "SHOW SCHEMAS LIKE 'ana%'" });
    expect(parseMeta('\\dn a.b')).toEqual({ kind: 'invalid', message: '\\dn: a.b: give one name or pattern, without dots' });
    expect(parseMeta('\\dt a*.b')).toEqual({ kind: 'invalid', message: '\\dt: a*.b: give the schema by its name (patterns match object names only)' });
  });

  it('\\d NAME looks the object up in its schema (public by default), then shows it and its indexes', () => {
    expect(parseMeta('\\d orders')).toEqual({ kind: 'describe', name: 'orders', lookup: "SHOW OBJECTS LIKE 'orders'", indexes: 'SHOW INDEXES ON orders' });
    expect(parseMeta('\\d analytics.events')).toEqual({
      kind: 'describe',
      name: 'analytics.events',
      lookup: "SHOW OBJECTS FROM \"analytics\" LIKE 'events'",
      indexes: 'SHOW INDEXES ON analytics.events',
    });
    // A quoted name keeps its case and spaces, and its LIKE wildcards match literally.
    expect(parseMeta('\\d "My_Big Table"')).toMatchObject({ kind: 'describe', name: '"My_Big Table"', lookup: "SHOW OBJECTS LIKE 'My\\_Big Table'" });
  });

  it('says what is wrong with an unknown command or extra arguments', () => {
    expect(parseMeta('\\x')).toEqual({ kind: 'invalid', message: 'invalid command \\x\nTry \\? for help.' });
    expect(parseMeta('\\dt a b')).toEqual({ kind: 'invalid', message: '\\dt: extra argument "b": give one name or pattern' });
  });

  it('escapes LIKE wildcards the user typed; only unquoted * and ? are wildcards', () => {
    expect(nameParts('a%b_c*')).toEqual([{ value: 'a%b_c*', like: 'a\\%b\\_c%', wild: true }]);
    expect(nameParts('"A*""b".X')).toEqual([
      { value: 'A*"b', like: 'A*"b', wild: false },
      { value: 'x', like: 'x', wild: false },
    ]);
    expect(nameParts('a.b.c.d')).toBe('a.b.c.d: improper qualified name (too many dotted names)');
    expect(nameParts('a..b')).toBe('a..b: a dotted name has an empty part');
    expect(nameParts('"open')).toBe('unterminated quoted name: "open');
  });
});

describe('the help says what the REPL does', () => {
  it('every backslash command that \\? and --help name is one the REPL knows', () => {
    const named = new Set([...`${META_HELP}\n${REPL_SUMMARY}`.matchAll(/\\[a-z?]+/g)].map((m) => m[0]));
    expect(named.size).toBeGreaterThan(10);
    for (const cmd of named) expect(parseMeta(cmd).kind, cmd).not.toBe('invalid');
  });
});
