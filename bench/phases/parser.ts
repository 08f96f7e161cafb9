/**
 * 6. Our parser against a well-known one: node-sql-parser (its PostgreSQL build, the one the DDL
 *    Lambda already loads for view bodies), on DDL statements both accept. Statements per second,
 *    single-threaded, after warm-up, over the same list in the same order.
 */
import * as nodeSqlParser from 'node-sql-parser/build/postgresql.js';
import { createRequire } from 'node:module';
import { parse } from '../../shared/sql/parser';
import { now } from '../lib/stats';

const CANDIDATES = [
  'CREATE TABLE t (a int, b text NOT NULL)',
  'CREATE TABLE IF NOT EXISTS s.orders (id bigint NOT NULL, price numeric(10,2), name varchar(20), created timestamp)',
  "CREATE TABLE t (a int DEFAULT 1, b text DEFAULT 'x')",
  'CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1',
  'CREATE VIEW v2 AS SELECT o.id, sum(l.price) AS total FROM orders o JOIN lines l ON l.order_id = o.id GROUP BY o.id',
  'CREATE OR REPLACE VIEW v AS SELECT * FROM t',
  'CREATE MATERIALIZED VIEW mv AS SELECT a, count(*) FROM t GROUP BY a',
  'CREATE INDEX i ON t (a)',
  'CREATE SCHEMA s',
  'CREATE SCHEMA IF NOT EXISTS s',
  'CREATE DATABASE d',
  'DROP TABLE t',
  'DROP TABLE IF EXISTS t CASCADE',
  'DROP VIEW v',
  'DROP VIEW IF EXISTS v, w',
  'DROP INDEX i',
  'DROP SCHEMA s CASCADE',
  'ALTER TABLE t RENAME TO u',
];

interface PeerApi {
  astify(sql: string, opt?: { database?: string }): unknown;
}

export interface ParserResult {
  readonly peer: string;
  readonly statements: readonly string[];
  /** Accepted by one parser only: left out. */
  readonly excluded: readonly { statement: string; oursAccepts: boolean; peerAccepts: boolean }[];
  readonly ours: { statementsPerSecond: number; meanUs: number };
  readonly theirs: { statementsPerSecond: number; meanUs: number };
  readonly speedup: number;
  readonly perStatementUs: { statement: string; ours: number; theirs: number }[];
}

function accepts(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

/** Statements per second: half a second of warm-up, then three timed windows; the median window counts. */
function rate(statements: readonly string[], run: (s: string) => unknown, ms: number): { statementsPerSecond: number; meanUs: number } {
  const window = (len: number) => {
    let n = 0;
    const t0 = now();
    while (now() - t0 < len) {
      for (const s of statements) run(s);
      n += statements.length;
    }
    return { n, dt: now() - t0 };
  };
  window(Math.min(500, ms));
  const ws = [window(ms / 3), window(ms / 3), window(ms / 3)].sort((a, b) => a.n / a.dt - b.n / b.dt);
  const { n, dt } = ws[1]!;
  return { statementsPerSecond: Math.round((n / dt) * 1000), meanUs: Math.round(((dt * 1000) / n) * 10) / 10 };
}

/** µs per parse of one statement: the median of five batches. */
function perStatement(s: string, run: (s: string) => unknown): number {
  for (let i = 0; i < 100; i++) run(s);
  const batches: number[] = [];
  for (let b = 0; b < 5; b++) {
    const reps = 100;
    const t0 = now();
    for (let i = 0; i < reps; i++) run(s);
    batches.push(((now() - t0) * 1000) / reps);
  }
  batches.sort((a, b) => a - b);
  return Math.round(batches[2]! * 10) / 10;
}

export function parserComparison(quick: boolean): ParserResult {
  const mod = nodeSqlParser as unknown as { Parser?: new () => PeerApi; default?: { Parser?: new () => PeerApi } };
  const Peer = mod.Parser ?? mod.default?.Parser;
  if (!Peer) throw new Error('node-sql-parser did not load');
  const peer = new Peer();
  const version = (createRequire(import.meta.url)('node-sql-parser/package.json') as { version: string }).version;
  const ours = (s: string) => parse(s);
  const theirs = (s: string) => peer.astify(s, { database: 'PostgresQL' });
  const statements: string[] = [];
  const excluded: ParserResult['excluded'][number][] = [];
  for (const s of CANDIDATES) {
    const a = accepts(() => ours(s));
    const b = accepts(() => theirs(s));
    if (a && b) statements.push(s);
    else excluded.push({ statement: s, oursAccepts: a, peerAccepts: b });
  }
  const ms = quick ? 300 : 2000;
  const o = rate(statements, ours, ms);
  const t = rate(statements, theirs, ms);
  return {
    peer: `node-sql-parser ${version} (build/postgresql.js, astify with database PostgresQL)`,
    statements,
    excluded,
    ours: o,
    theirs: t,
    speedup: Math.round((o.statementsPerSecond / t.statementsPerSecond) * 10) / 10,
    perStatementUs: statements.map((s) => ({ statement: s, ours: perStatement(s, ours), theirs: perStatement(s, theirs) })),
  };
}
