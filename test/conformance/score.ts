/**
 * Scores our answers against Materialize's expected outcomes (pure: no I/O). A case counts when
 * it is a control plane's business (classify) and we do not answer it 0A000 "not supported" (the
 * kinds still missing are reported on their own); out-of-scope cases must be refused with 0A000
 * and a message that says they are outside the control plane, and are not scored.
 */
import { classify } from './classify';
import type { ConformanceCase } from './extract';

export interface OurAnswer {
  readonly ok: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly detail?: string;
  readonly hint?: string;
}

export type Verdict =
  | { readonly bucket: 'outside'; readonly refusedAsOutside: boolean }
  | { readonly bucket: 'unsupported'; readonly kind: string }
  | { readonly bucket: 'blocked' }
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
      return { bucket: 'blocked' };
    }
    return v;
  }
}
const UNKNOWN_OBJECT_CODES = new Set(['42P01', '42704', '3F000', '42883']);

export function judge(c: ConformanceCase, a: OurAnswer): Verdict {
  if (classify(c.sql) === 'outside') return { bucket: 'outside', refusedAsOutside: !a.ok && a.code === '0A000' && OUTSIDE_MESSAGE.test(a.message ?? '') };
  if (!a.ok && a.code === '0A000' && !OUTSIDE_MESSAGE.test(a.message ?? '')) return { bucket: 'unsupported', kind: kindOf(c.sql) };
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
  readonly outsideRefused: number;
}

export function tally(verdicts: readonly Verdict[]): Scores {
  const s = { counted: 0, outcomeAgreed: 0, expectedErrors: 0, messageAgreed: 0, unsupported: 0, blocked: 0, outside: 0, outsideRefused: 0 };
  for (const v of verdicts) {
    if (v.bucket === 'outside') {
      s.outside++;
      if (v.refusedAsOutside) s.outsideRefused++;
    } else if (v.bucket === 'unsupported') s.unsupported++;
    else if (v.bucket === 'blocked') s.blocked++;
    else {
      s.counted++;
      if (v.outcomeAgrees) s.outcomeAgreed++;
      if (v.messageAgrees !== undefined) {
        s.expectedErrors++;
        if (v.messageAgrees) s.messageAgreed++;
      }
    }
  }
  return s;
}
