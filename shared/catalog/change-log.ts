/**
 * The bounded change log on the catalog-version item. Every commit on a basis moves the version
 * item (`CATVER`) anyway; it also writes there what the last few commits changed, newest inline
 * (the objects as they left them), older ones by id only, as much as fits in the item's first
 * kilobyte — one write unit, the same as the bare version. A commit that loses its race gets that
 * item back with the refusal (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), so the loser
 * replays the log onto the snapshot it planned on and plans again without reading anything: two
 * round trips for a lost race (the refused commit, the commit), not four (with the transaction
 * records and the changed objects read in between).
 *
 * Each entry names the version its commit made, so the log is a list of facts that stay true: a
 * commit that writes no entry (a staged commit, one without a basis) leaves a hole, and a loser
 * whose gap crosses a hole (or reaches past the oldest entry) catches up the long way
 * (`CatalogStore.catchUp`). Pure: no I/O.
 */
import type { CatalogObject, CatalogSnapshot } from './model';
import { objectsAfter, type ChangeSet } from './ops';

/** An object whose only change was its dependents counter: the new count (the rest is as the version before left it). */
export interface DependentsChange {
  readonly id: string;
  readonly dependents: number;
}

/** What one commit changed, in the order its plan applied it. */
export type LoggedChange = CatalogObject | DependentsChange;

export interface ChangeLogEntry {
  /** The catalog version the commit made. */
  readonly v: number;
  /** Inline: the objects as the commit left them (dropped ones as tombstones), in order. */
  readonly changes?: readonly LoggedChange[];
  /** By id only (too large to hold inline): the objects to read again. */
  readonly ids?: readonly string[];
}

/** Oldest first; versions ascending and contiguous. */
export type ChangeLog = readonly ChangeLogEntry[];

/**
 * The version item stays within one write unit (1 KB) with the log on it; our measure (the JSON
 * length) runs above DynamoDB's own (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
 */
export const VERSION_ITEM_BYTES = 1000;

const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x), 'utf8');

/** The room left for the log on a version item with these other attributes. */
export function logBudget(itemWithoutLog: Record<string, unknown>): number {
  return Math.max(0, VERSION_ITEM_BYTES - bytes({ ...itemWithoutLog, log: [] }));
}

const isObject = (c: LoggedChange): c is CatalogObject => 'kind' in c;

/**
 * The entry of a commit that makes `version` on `basis`: what `objectsAfter(changes)` holds, a
 * counter-only change written as its new count when the plan read the object as the basis holds it.
 */
export function logEntry(version: number, changes: ChangeSet, basis: CatalogSnapshot): ChangeLogEntry {
  // Exact only when the rest of the object is the basis's: else the whole object.
  const changed: LoggedChange[] = objectsAfter(changes, (before, dependents) => (basis.get(before.id) === before ? { id: before.id, dependents } : { ...before, dependents }));
  return { v: version, changes: changed };
}

function idsOnly(e: ChangeLogEntry): ChangeLogEntry {
  if (!e.changes) return e;
  return { v: e.v, ids: [...new Set(e.changes.map((c) => c.id))] };
}

/**
 * The log after `entry`: `previous` is the log as the item held it at the version before (unknown:
 * start afresh). Newest first into `budget` bytes: inline while it fits, else by id, and the
 * older entries that fit neither way are dropped.
 */
export function appendToLog(previous: ChangeLog | undefined, entry: ChangeLogEntry, budget: number): ChangeLog {
  // Only the entries that run up to this one without a hole can ever be replayed with it.
  const prior: ChangeLogEntry[] = [];
  for (let i = (previous?.length ?? 0) - 1, want = entry.v - 1; i >= 0; i--, want--) {
    if (previous![i]!.v !== want) break;
    prior.push(previous![i]!);
  }
  const kept: ChangeLogEntry[] = [];
  // The brackets and the commas: one byte per entry and one over.
  let room = budget - 1;
  for (const e of [entry, ...prior]) {
    const inline = bytes(e) + 1;
    if (inline <= room) {
      kept.push(e);
      room -= inline;
      continue;
    }
    const byId = idsOnly(e);
    const small = bytes(byId) + 1;
    if (small > room) break;
    kept.push(byId);
    room -= small;
  }
  return kept.reverse();
}

/** The log a version item holds (as the document client reads it), if any. */
export function logOf(item: Record<string, unknown> | undefined): ChangeLog | undefined {
  const log = item?.log;
  return Array.isArray(log) ? (log as ChangeLog) : undefined;
}

/**
 * The changes that take a snapshot at `from.version` to `target`, from the log: the objects as
 * they are at `target` (dropped ones as tombstones) and the ids to read again (entries held by id,
 * and counters whose object the replay does not have). Undefined when the log does not cover every
 * version in between: catch up from the transaction records instead.
 */
export function replay(from: { readonly snapshot: CatalogSnapshot; readonly version: number }, target: number, log: ChangeLog | undefined): { objects: CatalogObject[]; read: string[] } | undefined {
  if (target < from.version) return undefined;
  const byVersion = new Map((log ?? []).map((e) => [e.v, e]));
  const state = new Map<string, CatalogObject>();
  const read = new Set<string>();
  for (let v = from.version + 1; v <= target; v++) {
    const e = byVersion.get(v);
    if (!e) return undefined;
    for (const id of e.ids ?? []) read.add(id);
    for (const c of e.changes ?? []) {
      if (isObject(c)) {
        state.set(c.id, c);
        continue;
      }
      const base = state.get(c.id) ?? from.snapshot.get(c.id);
      if (base) state.set(c.id, { ...base, dependents: c.dependents });
      else read.add(c.id);
    }
  }
  // What is read again is read as the table holds it now: newer than anything in the log.
  return { objects: [...state.values()].filter((o) => !read.has(o.id)), read: [...read] };
}
