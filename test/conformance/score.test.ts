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
    expect(judge({ line: 1, sql: 'INSERT INTO t VALUES (1)', expect: 'ok' }, { ok: false, code: '0A000', message: 'INSERT is outside the control plane: ...' })).toEqual({ bucket: 'outside', handled: true });
    expect(judge({ line: 1, sql: 'INSERT INTO t VALUES (1)', expect: 'ok' }, { ok: false, code: '0A000', message: 'INSERT is not supported' })).toEqual({ bucket: 'outside', handled: false });
    // A query that reads no user object, or a session command, answered as Materialize answers it.
    expect(judge({ line: 1, sql: 'SELECT 2 * 2', expect: 'ok' }, { ok: true })).toEqual({ bucket: 'outside', handled: true });
    expect(judge({ line: 1, sql: "SET cluster = 'c'", expect: 'ok' }, { ok: false, code: '42601', message: 'syntax error' })).toEqual({ bucket: 'outside', handled: false });
    const divide = { line: 1, sql: 'SELECT 1/0', expect: 'error' as const, message: 'division by zero', match: 'contains' as const };
    expect(judge(divide, { ok: false, code: '22012', message: 'division by zero' })).toEqual({ bucket: 'outside', handled: true });
    expect(judge(divide, { ok: false, code: '42883', message: 'operator does not exist' })).toEqual({ bucket: 'outside', handled: false });
    expect(judge(divide, { ok: true })).toEqual({ bucket: 'outside', handled: false });
    expect(messageMatches({ line: 1, sql: 'x', expect: 'error', message: 'index "materialize.public.i" already exists', match: 'contains' }, { ok: false, message: 'index "materialize.public.i" already exists' })).toBe(true);
    expect(kindOf('CREATE OR REPLACE MATERIALIZED VIEW v AS SELECT 1')).toBe('CREATE MATERIALIZED');
    expect(tally([{ bucket: 'counted', outcomeAgrees: true, messageAgrees: false }, { bucket: 'blocked', ddl: true }, { bucket: 'outside', handled: true }])).toMatchObject({
      counted: 1, outcomeAgreed: 1, expectedErrors: 1, messageAgreed: 0, blocked: 1, outside: 1, outsideHandled: 1,
    });
  });
});

describe('the DDL-inclusive outcome figure', () => {
  const refused = { ok: false, code: '0A000', message: 'CREATE ROLE is not supported by this control plane' };

  it('counts a refused DDL statement Materialize ran as a disagreement, by kind', () => {
    const verdicts = [
      judge({ line: 1, sql: 'CREATE TABLE t (a int)', expect: 'ok' }, { ok: true }),
      judge({ line: 2, sql: 'CREATE ROLE joe', expect: 'ok' }, refused),
      judge({ line: 3, sql: 'create role "Ann" INHERIT', expect: 'ok' }, refused),
      judge({ line: 4, sql: 'GRANT USAGE ON SCHEMA public TO joe', expect: 'ok' }, refused),
      judge({ line: 5, sql: 'GRANT joe TO ann', expect: 'ok' }, refused),
      judge({ line: 6, sql: 'SHOW ROLES', expect: 'ok' }, refused),
    ];
    const s = tally(verdicts);
    expect(s).toMatchObject({ counted: 1, outcomeAgreed: 1, unsupported: 5, refusedDdl: 5, countedWithRefused: 6 });
    expect([...s.refusedDdlKinds]).toEqual([['CREATE ROLE', 2], ['GRANT privileges', 1], ['GRANT role', 1], ['SHOW ROLES', 1]]);
  });

  it('leaves out refused SELECTs, refusals of what Materialize also refused, and data queries', () => {
    const s = tally([
      judge({ line: 1, sql: 'SELECT count(*) FROM mz_tables', expect: 'ok' }, { ok: false, code: '0A000', message: 'aggregates are not supported' }),
      judge({ line: 2, sql: '  (SELECT * FROM mz_roles)', expect: 'ok' }, { ok: false, code: '0A000', message: 'system table mz_catalog.mz_roles is not supported' }),
      judge({ line: 3, sql: 'CREATE ROLE joe SUPERUSER', expect: 'error', message: 'SUPERUSER' }, refused),
      judge({ line: 4, sql: 'INSERT INTO t VALUES (1)', expect: 'ok' }, { ok: false, code: '0A000', message: 'INSERT is outside the control plane' }),
      judge({ line: 5, sql: 'DROP TABLE t', expect: 'ok' }, { ok: true }),
    ]);
    expect(s).toMatchObject({ counted: 1, outcomeAgreed: 1, unsupported: 3, refusedDdl: 0, outside: 1, countedWithRefused: 1 });
    expect(s.refusedDdlKinds.size).toBe(0);
  });

  it('counts a statement blocked by a refused CREATE as a disagreement too, and lowers the figure where the first does not move', () => {
    const b = new Blocked();
    const verdicts = [
      b.judge({ line: 1, sql: 'CREATE TABLE t (a int)', expect: 'ok' }, { ok: true }),
      b.judge({ line: 2, sql: 'CREATE ROLE joe', expect: 'ok' }, refused),
      b.judge({ line: 3, sql: 'ALTER TABLE t OWNER TO joe', expect: 'ok' }, { ok: false, code: '42704', message: "unknown role 'joe'" }),
    ];
    expect(verdicts.map((v) => v.bucket)).toEqual(['counted', 'unsupported', 'blocked']);
    const s = tally(verdicts);
    expect(s.outcomeAgreed / s.counted).toBe(1);
    expect(s).toMatchObject({ blocked: 1, blockedDdl: 1, refusedDdl: 1, countedWithRefused: 3 });
  });

  it('names the kinds of privilege and role statements apart', () => {
    expect(kindOf('ALTER DEFAULT PRIVILEGES FOR ROLE joe GRANT SELECT ON TABLES TO ann')).toBe('ALTER DEFAULT PRIVILEGES');
    expect(kindOf('REVOKE CREATE ON DATABASE materialize FROM joe')).toBe('REVOKE privileges');
    expect(kindOf('REVOKE joe FROM ann')).toBe('REVOKE role');
    expect(kindOf('CREATE DEFAULT INDEX ON t')).toBe('CREATE INDEX');
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
