/** Tokens as Materialize's parser errors name them (the Display of its lexer's Token, src/sql-lexer/src/lexer.rs). */
import { describe, expect, it } from 'vitest';
import { SqlSyntaxError } from '../../shared/errors';
import { lex } from '../../shared/sql/lexer';
import { parse } from '../../shared/sql/parser';
import { describeToken } from '../../shared/sql/tokens';

const first = (text: string, secrets = false) => describeToken(lex(text)[0]!, secrets);
const errorOf = (sql: string): string => {
  try {
    parse(sql);
  } catch (e) {
    return (e as SqlSyntaxError).message;
  }
  throw new Error(`parsed: ${sql}`);
};

describe('token names', () => {
  it('names a keyword by itself, upper case, and any other word as an identifier, folded', () => {
    expect(first('from')).toBe('FROM');
    expect(first('MySql')).toBe('MYSQL');
    expect(first('Gus')).toBe('identifier "gus"');
    expect(first('"Gus"')).toBe('identifier "Gus"');
    expect(first('"a""b"')).toBe('identifier "a\\"b"');
  });

  it('names literals, operators and punctuation', () => {
    expect(first('5.')).toBe('number "5."');
    expect(first("'x'")).toBe('string literal "x"');
    expect(first('&')).toBe('operator "&"');
    expect(first('=')).toBe('equals sign');
    expect(first('(')).toBe('left parenthesis');
    expect(first('::')).toBe('double colon');
    expect(first('$1')).toBe('parameter "$1"');
    expect(lex('').map((t) => describeToken(t, false))).toEqual(['EOF']);
  });

  it('never echoes a string literal where a statement may hold a secret', () => {
    expect(first("'hunter2'", true)).toBe('a string literal');
    expect(errorOf("CREATE SECRET s 'hunter2'")).toBe('Expected AS, found a string literal');
    expect(errorOf("CREATE TABLE 'x'")).toBe('Expected identifier, found string literal "x"');
  });
});

describe('parser errors in Materialize words', () => {
  it('a statement that starts with no statement keyword', () => {
    expect(errorOf('FROBNICATE')).toBe('Expected a keyword at the beginning of a statement, found identifier "frobnicate"');
    expect(errorOf('INTERVAL 1')).toBe('Unexpected keyword INTERVAL at the beginning of a statement');
  });

  it('a missing token, and the end of the text', () => {
    expect(errorOf('DROP CLUSTER')).toBe('Expected identifier, found EOF');
    expect(errorOf('CREATE INDEX i ON t')).toBe('Expected left parenthesis, found EOF');
  });

  it('the words an ALTER takes, per object type', () => {
    expect(errorOf('ALTER DATABASE d RENAME TO e')).toBe('Expected OWNER, found RENAME');
    expect(errorOf('ALTER TABLE t SWAP WITH u')).toBe('Expected one of SET or RENAME or OWNER or RESET or ADD, found SWAP');
    expect(errorOf('ALTER SECRET s FROB')).toBe('Expected one of AS or RENAME or OWNER, found identifier "frob"');
  });

  it('a zero-length quoted identifier where a name stands', () => {
    expect(errorOf('CREATE TABLE "" (a int)')).toBe('zero-length delimited identifier');
  });
});
