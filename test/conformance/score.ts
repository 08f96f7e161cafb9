/**
 * Scores our answers against Materialize's expected outcomes (pure: no I/O). A case counts when
 * it is a control plane's business (classify) and we do not answer it 0A000 "not supported" (the
 * kinds still missing are reported on their own). Out-of-scope cases (data queries, session
 * commands) are not scored with them: each must be handled, either refused with 0A000 and a message
 * that says it is outside the control plane, or answered as Materialize answers it — a session
 * serves `SET` and `SHOW` of its variables, and the SQL engine answers a query that reads no user
 * object (`SELECT 2 * 2`, `SELECT 'int4'::regtype`): ok where Materialize is ok, its error where it
 * fails.
 *
 * Leaving refusals out means refusing can never lower that figure, so a second one counts every
 * DDL statement Materialize ran and we refused (or failed for want of a refused object) as a
 * disagreement: the measure of issue 18, which a new refusal lowers.
 */
import { classify, isQuery } from './classify';
import type { ConformanceCase } from './extract';

export interface OurAnswer {
  readonly ok: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly detail?: string;
  readonly hint?: string;
}

export type Verdict =
  /** `handled`: refused as outside the control plane, or answered with Materialize's outcome (and message). */
  | { readonly bucket: 'outside'; readonly handled: boolean }
  /**
   * `refusedDdl`: a DDL or SHOW statement (not a SELECT) that Materialize ran ok: a disagreement in
   * the DDL-inclusive figure. A refused SELECT is a query beyond our subset, and a refused statement
   * Materialize also failed says nothing either way; both stay out of that figure too.
   */
  | { readonly bucket: 'unsupported'; readonly kind: string; readonly refusedDdl: boolean }
  /** Only statements Materialize ran ok are blocked; `ddl` unless it is a SELECT. */
  | { readonly bucket: 'blocked'; readonly ddl: boolean }
  | { readonly bucket: 'counted'; readonly outcomeAgrees: boolean; readonly messageAgrees?: boolean };

/** Our refusal of what a control plane does not do (data queries, session state). */
export const OUTSIDE_MESSAGE = /outside (?:the|this) control plane/;

export function messageMatches(c: ConformanceCase, a: OurAnswer): boolean {
  const expected = c.message ?? '';
  if (expected === '') return true;
  const full = [
    `db error: ERROR: ${a.message ?? ''}`,
    a.detail ? `DETAIL: ${a.detail}` : '',
    a.hint ? `HINT: ${a.hint}` : '',
  ].filter(Boolean).join('\n');
  switch (c.match) {
    case 'contains':
      return full.includes(expected);
    case 'exact':
      return a.message === expected;
    default:
      try {
        return new RegExp(expected).test(full);
      } catch {
        return full.includes(expected);
      }
  }
}

/** The statement's kind in two words (`CREATE TABLE`, `ALTER CLUSTER`), for the unsupported report. */
export function kindOf(sql: string): string {
  const words = sql.replace(/--[^\n]*/g, ' ').trim().split(/\s+/).slice(0, 4).map((w) => w.toUpperCase().replace(/[^A-Z_]/g, ''));
  const skip = new Set(['OR', 'REPLACE', 'TEMP', 'TEMPORARY', 'IF', 'NOT', 'EXISTS', 'DEFAULT', 'UNIQUE']);
  const first = words[0] ?? '';
  if (first === 'ALTER' && words[1] === 'DEFAULT') return 'ALTER DEFAULT PRIVILEGES';
  // The word after GRANT is a privilege or a role's name: what the statement grants tells them apart.
  if (first === 'GRANT' || first === 'REVOKE') return `${first} ${/\bON\b/i.test(sql) ? 'privileges' : 'role'}`;
  const rest = words.slice(1).filter((w) => w && !skip.has(w));
  return ['CREATE', 'DROP', 'ALTER', 'SHOW', 'COMMENT', 'GRANT', 'REVOKE'].includes(first) ? `${first} ${rest[0] ?? ''}`.trim() : first;
}

const CREATE_WORDS = new Set([
  'create', 'or', 'replace', 'temp', 'temporary', 'default', 'materialized', 'view', 'table', 'source', 'sink', 'connection', 'secret', 'cluster',
  'replica', 'index', 'type', 'role', 'schema', 'database', 'continual', 'task', 'if', 'not', 'exists', 'user', 'network', 'policy',
]);

/** The name a CREATE statement gives its object (last part, folded like PostgreSQL), if any. */
export function createdName(sql: string): string | undefined {
  const words = sql.trim().match(/"(?:[^"]|"")*"|[^\s(;]+/g) ?? [];
  if (words[0]?.toLowerCase() !== 'create') return undefined;
  const name = words.find((w) => !CREATE_WORDS.has(w.toLowerCase()));
  if (!name || name.toLowerCase() === 'on' || name.toLowerCase() === 'in') return undefined;
  const last = name.match(/"(?:[^"]|"")*"|[^.]+/g)?.at(-1) ?? name;
  return last.startsWith('"') ? last.slice(1, -1).replace(/""/g, '"') : last.toLowerCase();
}

/** Whether `sql` names any of `names` (a word of the text, case folded). */
export function mentions(sql: string, names: ReadonlySet<string>): boolean {
  if (names.size === 0) return false;
  return (sql.match(/"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_$]*/g) ?? []).some((w) =>
    names.has(w.startsWith('"') ? w.slice(1, -1).replace(/""/g, '"') : w.toLowerCase()),
  );
}

/**
 * Objects whose creation we answered 0A000 "not supported" (and everything that failed for want of
 * them) block the statements that name them: those answers say nothing about the kinds we serve,
 * so they are counted apart, like the unsupported statements themselves.
 */
export class Blocked {
  readonly names = new Set<string>();
  judge(c: ConformanceCase, a: OurAnswer): Verdict {
    const v = judge(c, a);
    const name = createdName(c.sql);
    if (v.bucket === 'unsupported' && c.expect === 'ok' && name) this.names.add(name);
    if (v.bucket === 'counted' && !a.ok && UNKNOWN_OBJECT_CODES.has(a.code ?? '') && c.expect === 'ok' && mentions(c.sql, this.names)) {
      if (name) this.names.add(name);
      return { bucket: 'blocked', ddl: !isQuery(c.sql) };
    }
    return v;
  }
}
const UNKNOWN_OBJECT_CODES = new Set(['42P01', '42704', '3F000', '42883']);

export function judge(c: ConformanceCase, a: OurAnswer): Verdict {
  if (classify(c.sql) === 'outside') {
    const refused = !a.ok && a.code === '0A000' && OUTSIDE_MESSAGE.test(a.message ?? '');
    const asMaterialize = c.expect === 'ok' ? a.ok : !a.ok && messageMatches(c, a);
    return { bucket: 'outside', handled: refused || asMaterialize };
  }
  if (!a.ok && a.code === '0A000' && !OUTSIDE_MESSAGE.test(a.message ?? '')) {
    return { bucket: 'unsupported', kind: kindOf(c.sql), refusedDdl: c.expect === 'ok' && !isQuery(c.sql) };
  }
  const outcomeAgrees = a.ok === (c.expect === 'ok');
  if (c.expect === 'ok') return { bucket: 'counted', outcomeAgrees };
  return { bucket: 'counted', outcomeAgrees, messageAgrees: !a.ok && messageMatches(c, a) };
}

export interface Scores {
  readonly counted: number;
  readonly outcomeAgreed: number;
  readonly expectedErrors: number;
  readonly messageAgreed: number;
  readonly unsupported: number;
  readonly blocked: number;
  readonly outside: number;
  /** Out-of-scope statements refused as such or answered as Materialize answers them. */
  readonly outsideHandled: number;
  /** DDL statements Materialize ran that we refused with 0A000 "not supported", by kind. */
  readonly refusedDdl: number;
  readonly refusedDdlKinds: ReadonlyMap<string, number>;
  /** Blocked DDL statements (all of them ran in Materialize). */
  readonly blockedDdl: number;
  /**
   * The DDL-inclusive outcome figure's denominator: the counted statements, the refused DDL and the
   * blocked DDL; its numerator is `outcomeAgreed` (a refused or blocked statement never agrees).
   */
  readonly countedWithRefused: number;
}

export function tally(verdicts: readonly Verdict[]): Scores {
  const s = { counted: 0, outcomeAgreed: 0, expectedErrors: 0, messageAgreed: 0, unsupported: 0, blocked: 0, outside: 0, outsideHandled: 0, refusedDdl: 0, blockedDdl: 0 };
  const refusedDdlKinds = new Map<string, number>();
  for (const v of verdicts) {
    if (v.bucket === 'outside') {
      s.outside++;
      if (v.handled) s.outsideHandled++;
    } else if (v.bucket === 'unsupported') {
      s.unsupported++;
      if (v.refusedDdl) {
        s.refusedDdl++;
        refusedDdlKinds.set(v.kind, (refusedDdlKinds.get(v.kind) ?? 0) + 1);
      }
    } else if (v.bucket === 'blocked') {
      s.blocked++;
      if (v.ddl) s.blockedDdl++;
    } else {
      s.counted++;
      if (v.outcomeAgrees) s.outcomeAgreed++;
      if (v.messageAgrees !== undefined) {
        s.expectedErrors++;
        if (v.messageAgrees) s.messageAgreed++;
      }
    }
  }
  const byCount = new Map([...refusedDdlKinds].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
  return { ...s, refusedDdlKinds: byCount, countedWithRefused: s.counted + s.refusedDdl + s.blockedDdl };
}
