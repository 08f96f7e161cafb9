/** The REPL's pure parts: where a backslash command starts, and what each command stands for. */
import { describe, expect, it } from 'vitest';
import { likePattern, parseMeta } from '../../cli/meta';
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
    expect(parseMeta('\\d orders')).toEqual({ kind: 'describe', name: 'orders' });
    expect(parseMeta('\\d ord*')).toEqual({ kind: 'query', sql: "SHOW OBJECTS LIKE 'ord%'" });
  });

  it('says what is wrong with an unknown command or extra arguments', () => {
    expect(parseMeta('\\x')).toEqual({ kind: 'invalid', message: 'invalid command \\x\nTry \\? for help.' });
    expect(parseMeta('\\dt a b')).toEqual({ kind: 'invalid', message: '\\dt: extra argument "b": give one name or pattern' });
  });

  it('escapes LIKE wildcards the user typed', () => {
    expect(likePattern('a%b_c*')).toBe('a\\%b\\_c%');
  });
});
