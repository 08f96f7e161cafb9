/**
 * `REFRESH` options of materialized views, with Materialize's purification, validations and
 * messages (its `plan_create_materialized_view` and `purify_create_materialized_view_options`);
 * a cluster's `SCHEDULE` is in ./schedule.ts. Loaded by the statements that need it
 * (./occasional.ts). Pure.
 *
 * Materialize evaluates `REFRESH AT <expr>` and `ALIGNED TO <expr>` with its full expression
 * planner; we read the constant expressions its documentation and tests use: timestamp or
 * number literals, `mz_now()` (the statement's time), casts (`::text`, `::string`, `::int8`,
 * `::mz_timestamp`, ...), `+ - * /` and parentheses. Anything else answers 0A000 at its position.
 */
import type { RefreshOptionValue, SqlOption } from '../sql/ast';
import type { RefreshSchedule } from '../catalog/model';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import { interval, LARGER_THAN_DAYS, xx } from './schedule';
import { formatInterval } from '../sql/interval';

/** What `REFRESH` options plan to: the schedule (absent for ON COMMIT) and the options as SHOW CREATE shows them. */
export interface PlannedRefresh {
  readonly schedule?: RefreshSchedule;
  /** The `WITH` options with `AT CREATION`, a missing `ALIGNED TO` and `mz_now()` replaced by the statement's time. */
  readonly options: readonly SqlOption[];
}


/** `mz_now()` as purification writes it: the statement's time as an `mz_timestamp` literal. */
function mzTimestampLiteral(ms: number): string {
  return `'${ms}'::mz_timestamp`;
}

const MZ_NOW = /\bmz_now\s*\(\s*\)/gi;

/**
 * Plans a materialized view's `REFRESH` options: purifies them as Materialize does (`AT CREATION`
 * becomes `AT <now>`, `EVERY` without `ALIGNED TO` is aligned to now, `mz_now()` is now) and
 * validates and evaluates them.
 */
export function planRefresh(options: readonly SqlOption[], nowMs: number): PlannedRefresh {
  const now = mzTimestampLiteral(nowMs);
  const purified = options.map((o): SqlOption => {
    if (o.value.kind !== 'refresh') return o;
    const r = o.value.refresh;
    const at = (text: string, position: number) => ({ text: text.replace(MZ_NOW, now), position });
    let refresh: RefreshOptionValue = r;
    if (r.kind === 'at_creation') refresh = { kind: 'at', time: { text: now, position: o.position } };
    else if (r.kind === 'at') refresh = { kind: 'at', time: at(r.time.text, r.time.position) };
    else if (r.kind === 'every') refresh = { kind: 'every', interval: r.interval, alignedTo: r.alignedTo ? at(r.alignedTo.text, r.alignedTo.position) : { text: now, position: o.position } };
    return { ...o, value: { kind: 'refresh', refresh } };
  });
  const ats: number[] = [];
  const everies: { intervalMs: number; alignedToMs: number }[] = [];
  let onCommits = 0;
  let last = 0;
  for (const o of purified) {
    if (o.value.kind !== 'refresh') continue;
    last = o.position;
    const r = o.value.refresh;
    if (r.kind === 'on_commit') onCommits++;
    else if (r.kind === 'at') ats.push(evaluateMzTimestamp(r.time.text, r.time.position, 'REFRESH AT'));
    else if (r.kind === 'every') {
      const intervalMs = refreshInterval(r.interval, o.position);
      everies.push({ intervalMs, alignedToMs: evaluateMzTimestamp(r.alignedTo!.text, r.alignedTo!.position, 'REFRESH EVERY ... ALIGNED TO') });
    }
  }
  if (onCommits > 1) throw xx('REFRESH ON COMMIT cannot be specified multiple times', last);
  if (onCommits > 0 && ats.length + everies.length > 0) throw xx('REFRESH ON COMMIT is not compatible with any of the other REFRESH options', last);
  const schedule = ats.length + everies.length > 0 ? { ats, everies } : undefined;
  return { ...(schedule ? { schedule } : {}), options: purified };
}

function refreshInterval(text: string, position: number): number {
  const micros = interval(text, position);
  if (micros <= 0) throw xx(`REFRESH interval must be positive; got: ${formatInterval(micros)}`, position);
  if (LARGER_THAN_DAYS.test(text)) throw xx('REFRESH interval must not involve units larger than days', position);
  return Math.round(micros / 1000);
}

// ---- constant expressions of type mz_timestamp -------------------------------------------------

type Value = { readonly t: 'num'; readonly v: number } | { readonly t: 'text'; readonly v: string } | { readonly t: 'ts'; readonly v: number };

interface Tok {
  readonly kind: 'num' | 'str' | 'word' | 'op';
  readonly text: string;
  /** Offset in the expression's text. */
  readonly at: number;
}

const TOKEN = /\s*(?:('(?:[^']|'')*')|(\d+(?:\.\d+)?)|([a-z_][a-z0-9_$]*(?:\.[a-z_][a-z0-9_$]*)*)|(::|[-+*/(),]))/iy;

function tokenize(text: string, base: number, what: string): Tok[] {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  let i = 0;
  while (i < text.length && text.slice(i).trim() !== '') {
    TOKEN.lastIndex = i;
    const m = TOKEN.exec(text);
    if (!m) throw new NotSupportedError(`${what} expression ${text.slice(i).trim()} is not supported by this control plane`, { position: base + i });
    const at = m.index + m[0].length - m[0].trimStart().length;
    if (m[1]) out.push({ kind: 'str', text: m[1].slice(1, -1).replace(/''/g, "'"), at });
    else if (m[2]) out.push({ kind: 'num', text: m[2], at });
    else if (m[3]) out.push({ kind: 'word', text: m[3].toLowerCase(), at });
    else out.push({ kind: 'op', text: m[4]!, at });
    i = TOKEN.lastIndex;
  }
  return out;
}

const TEXT_TYPES = new Set(['text', 'string', 'varchar', 'pg_catalog.text']);
const INT_TYPES = new Set(['int8', 'bigint', 'int4', 'int', 'integer', 'int2', 'smallint', 'numeric', 'uint8']);
const TS_TYPES = new Set(['mz_timestamp', 'mz_catalog.mz_timestamp']);
const TIMESTAMP = /^\s*(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(z|utc|[+-]\d{2}(?::?\d{2})?)?\s*$/i;

/** A text as `mz_timestamp` reads it: milliseconds since the epoch, or a timestamp (UTC unless it says otherwise). */
function textToMs(text: string): number | undefined {
  if (/^\s*\d+\s*$/.test(text)) return Number(text);
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  let zone = (m[3] ?? 'Z').toUpperCase();
  if (zone === 'UTC') zone = 'Z';
  else if (zone !== 'Z' && !zone.includes(':') && zone.length > 3) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  else if (zone !== 'Z' && zone.length === 3) zone = `${zone}:00`;
  const time = m[2] ? (m[2].length < 5 || m[2].indexOf(':') === 1 ? `0${m[2]}` : m[2]) : '00:00';
  const ms = Date.parse(`${m[1]}T${time}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Evaluates a purified `REFRESH AT` / `ALIGNED TO` expression to an `mz_timestamp` (ms since the
 * epoch), with Materialize's messages where it has one.
 */
export function evaluateMzTimestamp(text: string, position: number, what: string): number {
  const notConstant = () => xx(`${what} argument must be an expression that can be simplified and/or cast to a constant whose type is mz_timestamp`, position);
  const toks = tokenize(text, position, what);
  let k = 0;
  const peek = () => toks[k];
  const eat = (op: string) => (peek()?.kind === 'op' && peek()!.text === op ? (k++, true) : false);
  const unsupported = (t: Tok | undefined) =>
    new NotSupportedError(`${what} expression ${text.slice(t?.at ?? 0).trim()} is not supported by this control plane`, { position: position + (t?.at ?? 0) });
  const num = (x: Value): number => {
    if (x.t === 'num') return x.v;
    if (x.t === 'text' && /^\s*-?\d+(\.\d+)?\s*$/.test(x.v)) return Number(x.v);
    throw notConstant();
  };
  const cast = (x: Value, type: string, t: Tok): Value => {
    if (TEXT_TYPES.has(type)) return { t: 'text', v: x.t === 'text' ? x.v : String(x.v) };
    if (INT_TYPES.has(type)) {
      if (x.t === 'text' && !/^\s*-?\d+\s*$/.test(x.v)) throw new PlanError(`invalid input syntax for type bigint: invalid digit found in string: "${x.v}"`, { code: SQLSTATE.invalidTextRepresentation, position: position + t.at });
      return { t: 'num', v: num(x) };
    }
    if (TS_TYPES.has(type)) {
      const ms = x.t === 'text' ? textToMs(x.v) : x.v;
      if (ms === undefined || ms < 0 || !Number.isInteger(ms)) throw notConstant();
      return { t: 'ts', v: ms };
    }
    throw unsupported(t);
  };
  const primary = (): Value => {
    const t = peek();
    if (!t) throw notConstant();
    k++;
    if (t.kind === 'num') return { t: 'num', v: Number(t.text) };
    if (t.kind === 'str') return { t: 'text', v: t.text };
    if (t.kind === 'op' && t.text === '(') {
      if (peek()?.kind === 'word' && peek()!.text === 'select') throw xx(`${what} does not allow subqueries`, position + t.at);
      const v = sum();
      if (!eat(')')) throw unsupported(peek());
      return v;
    }
    if (t.kind === 'op' && t.text === '-') {
      const v = postfix(primary());
      return { t: 'num', v: -num(v) };
    }
    if (t.kind === 'word') {
      if (!eat('(')) throw new PlanError(`column "${t.text}" does not exist`, { code: SQLSTATE.undefinedColumn, position: position + t.at });
      // Only mz_now() is a constant here (purified to a literal before this); now() and friends are not.
      if (['now', 'current_timestamp', 'localtimestamp', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp'].includes(t.text.replace(/^.*\./, ''))) throw notConstant();
      if (['sum', 'count', 'min', 'max', 'avg'].includes(t.text)) throw xx(`aggregate functions are not allowed in ${what} (function pg_catalog.${t.text})`, position + t.at);
      throw unsupported(t);
    }
    throw unsupported(t);
  };
  const postfix = (v: Value): Value => {
    let x = v;
    while (eat('::')) {
      const t = peek();
      if (t?.kind !== 'word') throw unsupported(t);
      k++;
      x = cast(x, t.text, t);
    }
    return x;
  };
  const product = (): Value => {
    let x = postfix(primary());
    while (peek()?.kind === 'op' && (peek()!.text === '*' || peek()!.text === '/')) {
      const op = toks[k++]!.text;
      const y = postfix(primary());
      x = { t: 'num', v: op === '*' ? num(x) * num(y) : Math.trunc(num(x) / num(y)) };
    }
    return x;
  };
  const sum = (): Value => {
    let x = product();
    while (peek()?.kind === 'op' && (peek()!.text === '+' || peek()!.text === '-')) {
      const op = toks[k++]!.text;
      const y = product();
      x = { t: 'num', v: op === '+' ? num(x) + num(y) : num(x) - num(y) };
    }
    return x;
  };
  const v = sum();
  if (k < toks.length) throw unsupported(peek());
  const ms = v.t === 'ts' ? v.v : v.t === 'num' ? v.v : textToMs(v.v);
  if (ms === undefined || !Number.isInteger(ms) || ms < 0) throw notConstant();
  return ms;
}

