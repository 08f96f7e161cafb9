/**
 * A cluster's `SCHEDULE = ON REFRESH` option and the interval literals of `REFRESH EVERY` and
 * `HYDRATION TIME ESTIMATE`, with Materialize's checks and messages (its `plan_cluster_schedule`).
 * Pure.
 */
import type { SqlOption } from '../sql/ast';
import type { ReplicaSchedule } from '../dataplane/contract';
import { PlanError, SQLSTATE } from '../errors';
import { intervalMicros } from './source-sink-checks';
import { formatInterval } from '../sql/interval';

export const xx = (message: string, position: number) => new PlanError(message, { code: SQLSTATE.internalError, position });

export const LARGER_THAN_DAYS = /\b(mon|mons|month|months|y|yr|yrs|year|years|decade|decades|century|centuries|millennium|millennia)\b/i;

/** `REFRESH EVERY '<interval>'` in ms, with Materialize's checks. */
/** `HYDRATION TIME ESTIMATE` of `SCHEDULE = ON REFRESH (...)` in ms, with Materialize's checks. */
export function hydrationTimeEstimateMs(text: string | undefined, position: number): number {
  if (text === undefined) return 0;
  const micros = interval(text, position);
  if (micros < 0) throw xx(`HYDRATION TIME ESTIMATE must be non-negative; got: ${formatInterval(micros)}`, position);
  if (LARGER_THAN_DAYS.test(text)) throw xx('HYDRATION TIME ESTIMATE must not involve units larger than days', position);
  return Math.round(micros / 1000);
}

/** An interval literal in microseconds: units (`'1 day'`, `'8sec'`, `'-1 minutes'`) or `[-]HH:MM[:SS]`. */
export function interval(text: string, position: number): number {
  const clock = /^\s*([+-])?(\d+):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?\s*$/.exec(text);
  if (clock) {
    const micros = (Number(clock[2]) * 3600 + Number(clock[3]) * 60 + Number(clock[4] ?? 0)) * 1e6;
    return clock[1] === '-' ? -micros : micros;
  }
  if (LARGER_THAN_DAYS.test(text)) return 1; // months and years: refused by the caller with Materialize's message
  const micros = intervalMicros({ kind: 'string', value: text });
  if (micros === undefined || !Number.isFinite(micros)) {
    const unit = /[a-z]+/i.exec(text.replace(/\b(us|usecs?|microseconds?|ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b/gi, ''));
    const why = unit ? `unknown units ${unit[0].toLowerCase()}: ` : '';
    throw new PlanError(`invalid input syntax for type interval: ${why}"${text}"`, { code: SQLSTATE.invalidTextRepresentation, position });
  }
  return micros;
}

/**
 * A cluster's `SCHEDULE` option: `MANUAL` (null) or `ON REFRESH [(HYDRATION TIME ESTIMATE = ...)]`;
 * undefined when the option is not given.
 */
export function clusterSchedule(o: SqlOption | undefined): ReplicaSchedule | null | undefined {
  if (!o) return undefined;
  if (o.value.kind === 'refresh_schedule') return { kind: 'on_refresh', hydrationTimeEstimateMs: hydrationTimeEstimateMs(o.value.hydrationTimeEstimate, o.position) };
  if ((o.value.kind === 'ident' || o.value.kind === 'string') && o.value.value.toLowerCase() === 'manual') return null;
  throw new PlanError('invalid SCHEDULE option value: expected MANUAL or ON REFRESH', { code: SQLSTATE.invalidParameterValue, position: o.position });
}

export const SCHEDULE_WITH_REPLICATION_FACTOR = 'REPLICATION FACTOR cannot be given together with any SCHEDULE other than MANUAL';
export const REPLICATION_FACTOR_OF_SCHEDULED = 'REPLICATION FACTOR cannot be set if the cluster SCHEDULE is anything other than MANUAL';
