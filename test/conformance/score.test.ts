/** The conformance scoring rules (pure). */
import { describe, expect, it } from 'vitest';
import { Blocked, createdName, judge, kindOf, mentions, messageMatches, tally } from './score';

describe('conformance scoring', () => {
  it('reads the name a CREATE gives its object', () => {
    expect(createdName('CREATE TABLE t (a int)')).toBe('t');
    expect(createdName('CREATE OR REPLACE MATERIALIZED VIEW IF NOT EXISTS s.MV AS SELECT 1')).toBe('mv');
    expect(createdName('CREATE TABLE "Quoted" FROM SOURCE s')).toBe('Quoted');
    expect(createdName('CREATE INDEX ON t (a)')).toBeUndefined();
    expect(createdName('DROP TABLE t')).toBeUndefined();
  });

  it('finds names as whole words only', () => {
    expect(mentions('CREATE INDEX i ON src_tbl (a)', new Set(['src_tbl']))).toBe(true);
    expect(mentions('CREATE INDEX i ON src_tbl2 (a)', new Set(['src_tbl']))).toBe(false);
  });

  it('counts a statement apart when it fails for want of an object whose CREATE we do not support', () => {
    const b = new Blocked();
    expect(b.judge({ line: 1, sql: 'CREATE TABLE t FROM SOURCE s', expect: 'ok' }, { ok: false, code: '0A000', message: 'CREATE TABLE ... FROM SOURCE is not supported by this control plane' }).bucket).toBe('unsupported');
    expect(b.judge({ line: 2, sql: 'CREATE VIEW v AS SELECT * FROM t', expect: 'ok' }, { ok: false, code: '42P01', message: "unknown catalog item 't'" }).bucket).toBe('blocked');
    // Transitively: v was never created either.
    expect(b.judge({ line: 3, sql: 'CREATE INDEX ON v (a)', expect: 'ok' }, { ok: false, code: '42P01', message: "unknown catalog item 'v'" }).bucket).toBe('blocked');
    // An unrelated failure still counts.
    expect(b.judge({ line: 4, sql: 'CREATE INDEX ON u (a)', expect: 'ok' }, { ok: false, code: '42P01', message: "unknown catalog item 'u'" })).toEqual({ bucket: 'counted', outcomeAgrees: false });
  });

  it('scores outcome and message, and keeps out-of-scope statements out of both', () => {
    const err = { line: 1, sql: 'DROP TABLE t', expect: 'error' as const, message: 'unknown catalog item .t.', match: 'regex' as const };
    expect(judge(err, { ok: false, code: '42P01', message: "unknown catalog item 't'" })).toEqual({ bucket: 'counted', outcomeAgrees: true, messageAgrees: true });
    expect(judge(err, { ok: false, code: '42P01', message: 'no such table' })).toEqual({ bucket: 'counted', outcomeAgrees: true, messageAgrees: false });
    expect(judge({ line: 1, sql: 'INSERT INTO t VALUES (1)', expect: 'ok' }, { ok: false, code: '0A000', message: 'INSERT is outside the control plane: ...' })).toEqual({ bucket: 'outside', refusedAsOutside: true });
    expect(judge({ line: 1, sql: 'INSERT INTO t VALUES (1)', expect: 'ok' }, { ok: false, code: '0A000', message: 'INSERT is not supported' })).toEqual({ bucket: 'outside', refusedAsOutside: false });
    expect(messageMatches({ line: 1, sql: 'x', expect: 'error', message: 'index "materialize.public.i" already exists', match: 'contains' }, { ok: false, message: 'index "materialize.public.i" already exists' })).toBe(true);
    expect(kindOf('CREATE OR REPLACE MATERIALIZED VIEW v AS SELECT 1')).toBe('CREATE MATERIALIZED');
    expect(tally([{ bucket: 'counted', outcomeAgrees: true, messageAgrees: false }, { bucket: 'blocked' }, { bucket: 'outside', refusedAsOutside: true }])).toMatchObject({
      counted: 1, outcomeAgreed: 1, expectedErrors: 1, messageAgreed: 0, blocked: 1, outside: 1, outsideRefused: 1,
    });
  });
});

describe('classify', () => {
  it('reads SELECT ... FROM (SHOW ...) as what the SHOW reads', async () => {
    const { classify } = await import('./classify');
    expect(classify('SELECT name FROM (SHOW CLUSTERS)')).toBe('catalog_read');
    expect(classify('SELECT * FROM (SHOW search_path)')).toBe('outside');
    expect(classify('SELECT * FROM (SELECT 1)')).toBe('outside');
  });
});
