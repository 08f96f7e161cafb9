/**
 * The planner's working copy of a tenant's catalog. Statements of one request change it in
 * memory; `diff()` then turns (initial, final) into the request's catalog writes and effects, so
 * each item is written at most once per transaction and a create-then-drop collapses to nothing.
 * Pure: no I/O.
 *
 * Concurrency (invariant 5) rests on conditions over the items two statements share:
 * - a new name is a guard item put only if absent;
 * - a new reference adds to the referenced object's `dependents` counter, on condition that it is
 *   not dropped (creators of dependents do not conflict with each other);
 * - a drop or change of an object rewrites it on condition that its `version` and `dependents`
 *   are what the plan saw — so a dependent created meanwhile makes the drop replan (and fail with
 *   2BP01 or cascade to it).
 *
 * Temporary items (`CREATE TEMPORARY VIEW`) live in a layer of their own: the statements after
 * them see them (names, dependencies, system tables), `diff()` never does, so they are never
 * committed and cause no effect. They belong to the session: a pgwire connection's statements
 * start from the ones its earlier statements left (`initialTemporaries`), an HTTP request is a
 * session of its own and they vanish with it. They add nothing to the dependents counters of what they read: those fence
 * concurrent commits, and a temporary item is in no commit.
 */
import { CatalogSnapshot, type CatalogObject } from '../catalog/model';
import { nameSpaceOf, type CatalogOp, type ChangeSet, type NameSpace } from '../catalog/ops';
import { deriveEffects } from '../catalog/derive';
import type { EffectIntent } from '../effects/model';

export type { CatalogOp, ChangeSet };

/**
 * The working copy: the snapshot it started from plus the objects this request changed. Every
 * operation costs what the request touches, not the catalog's size.
 */
export class Workspace {
  /** Every object this request touched, as it is now (dropped ones included). */
  private changes = new Map<string, CatalogObject>();
  /** The request's temporary items, as they are now (dropped ones included). */
  private temporaries = new Map<string, CatalogObject>();
  private savepoint: { changes: Map<string, CatalogObject>; temporaries: Map<string, CatalogObject> } | undefined;
  private cachedView: CatalogSnapshot | undefined;

  constructor(
    readonly snapshot: CatalogSnapshot,
    readonly now: string,
    initialTemporaries: readonly CatalogObject[] = [],
  ) {
    for (const o of liveTemporaries(snapshot, initialTemporaries)) this.temporaries.set(o.id, o);
  }

  /** The temporary items as the statements left them, without the dropped ones (the session keeps them). */
  temporaryItems(): CatalogObject[] {
    return [...this.temporaries.values()].filter((o) => !o.dropped);
  }

  /** The live objects as of the statements applied so far. */
  view(): CatalogSnapshot {
    return (this.cachedView ??=
      this.changes.size === 0 && this.temporaries.size === 0 ? this.snapshot : CatalogSnapshot.derive(this.snapshot, [...this.changes.values(), ...this.temporaries.values()]));
  }

  /** Whether `id` is one of this request's temporary items. */
  isTemporary(id: string): boolean {
    return this.temporaries.has(id);
  }

  /** A temporary item: visible to the request's later statements, never part of its commit. */
  createTemporary(o: CatalogObject): void {
    this.temporaries.set(o.id, o);
    this.cachedView = undefined;
  }

  get(id: string): CatalogObject | undefined {
    const o = this.current(id);
    return o && !o.dropped ? o : undefined;
  }

  create(o: CatalogObject): void {
    this.set(o);
    for (const ref of o.dependsOn) this.adjustDependents(ref, +1);
  }

  drop(id: string): void {
    const o = this.current(id);
    if (!o || o.dropped) return;
    if (this.temporaries.has(id)) return this.setTemporary({ ...o, dropped: true, droppedAt: this.now });
    this.set({ ...o, dropped: true, droppedAt: this.now, generation: o.generation + 1, version: this.nextVersion(o), updatedAt: this.now });
    for (const ref of o.dependsOn) this.adjustDependents(ref, -1);
  }

  /** Replaces an object's fields; `desired` says whether the data plane's view of it changes (a new generation). */
  update(id: string, change: (o: CatalogObject) => CatalogObject, desired: boolean): void {
    const o = this.current(id);
    if (!o || o.dropped) return;
    const next = change(o);
    if (this.temporaries.has(id)) return this.setTemporary({ ...next, updatedAt: this.now } as CatalogObject);
    for (const ref of o.dependsOn) if (!next.dependsOn.includes(ref)) this.adjustDependents(ref, -1);
    for (const ref of next.dependsOn) if (!o.dependsOn.includes(ref)) this.adjustDependents(ref, +1);
    // One new generation per request; objects created in this request stay at generation 1.
    const generation = desired && this.snapshot.get(id)?.generation === o.generation ? o.generation + 1 : o.generation;
    this.set({ ...next, generation, version: this.nextVersion(o), updatedAt: this.now } as CatalogObject);
  }

  /** Bumps an object's version so that a concurrent statement that read it loses (invariant 5). */
  touch(id: string): void {
    const o = this.current(id);
    if (!o || o.dropped || this.temporaries.has(id)) return;
    this.set({ ...o, version: this.nextVersion(o), updatedAt: this.now });
  }

  /** A copy to plan on without touching this one (EXPLAIN EFFECTS). */
  fork(): Workspace {
    const w = new Workspace(this.snapshot, this.now);
    w.changes = new Map(this.changes);
    w.temporaries = new Map(this.temporaries);
    return w;
  }

  /** BEGIN: remember the state; ROLLBACK returns to it. */
  begin(): void {
    this.savepoint = { changes: new Map(this.changes), temporaries: new Map(this.temporaries) };
  }
  rollback(): void {
    this.changes = this.savepoint?.changes ?? new Map();
    this.temporaries = this.savepoint?.temporaries ?? new Map();
    this.savepoint = undefined;
    this.cachedView = undefined;
  }

  private current(id: string): CatalogObject | undefined {
    return this.changes.get(id) ?? this.temporaries.get(id) ?? this.snapshot.get(id);
  }

  private set(o: CatalogObject): void {
    this.changes.set(o.id, o);
    this.cachedView = undefined;
  }

  private setTemporary(o: CatalogObject): void {
    this.temporaries.set(o.id, o);
    this.cachedView = undefined;
  }

  /** One version bump per request is enough to fence; objects created in this request need none. */
  private nextVersion(o: CatalogObject): number {
    const initial = this.snapshot.get(o.id);
    return initial && o.version === initial.version ? o.version + 1 : o.version;
  }

  private adjustDependents(id: string, delta: number): void {
    const o = this.current(id);
    if (!o || this.temporaries.has(id)) return;
    this.set({ ...o, dependents: o.dependents + delta } as CatalogObject);
  }

  /** The request's change as catalog operations, and the effects they imply. */
  diff(): ChangeSet {
    const ops: CatalogOp[] = [];
    const effects: EffectIntent[] = [];
    // Keyed by the namespace's JSON: one key per (namespace, name), with nothing to escape.
    const namesBefore = new Map<string, { name: NameSpace; objectId: string }>();
    const namesAfter = new Map<string, { name: NameSpace; objectId: string }>();
    // The catalog's order (objects that existed first, then new ones as created): deterministic output.
    const changed = [...this.changes.values()]
      .map((after, i) => {
        const before = this.snapshot.get(after.id);
        return { after, before, rank: before ? this.snapshot.orderOf(after.id) : Number.MAX_SAFE_INTEGER, i };
      })
      .sort((a, b) => a.rank - b.rank || a.i - b.i);
    // Names are unique among live objects, so only the changed objects' names can move.
    const remember = (names: typeof namesBefore, o: CatalogObject) => {
      const name = nameSpaceOf(o);
      if (name) names.set(JSON.stringify(name), { name, objectId: o.id });
    };
    for (const { before, after } of changed) {
      if (before) remember(namesBefore, before);
      if (!after.dropped) remember(namesAfter, after);
    }

    for (const { before, after } of changed) {
      const id = after.id;
      if (!before) {
        if (after.dropped) continue; // created and dropped in one request: nothing happened
        ops.push({ op: 'create_object', object: after });
      } else if (after !== before) {
        if (after.version === before.version) {
          // Only the dependents counter moved: an ADD that does not conflict with other creators.
          if (after.dependents !== before.dependents) ops.push({ op: 'adjust_dependents', id, delta: after.dependents - before.dependents, before });
        } else {
          ops.push({ op: after.dropped ? 'drop_object' : 'update_object', before, after });
        }
      }
      effects.push(...deriveEffects(before, after));
    }
    for (const [key, { name, objectId }] of namesAfter) {
      const previous = namesBefore.get(key)?.objectId;
      if (previous === objectId) continue;
      ops.push(previous ? { op: 'claim_name', name, objectId, replaces: previous } : { op: 'claim_name', name, objectId });
    }
    for (const [key, { name, objectId }] of namesBefore) {
      if (!namesAfter.has(key)) ops.push({ op: 'release_name', name, objectId });
    }
    return { ops, effects };
  }
}

/**
 * A session's temporary items that still stand on the catalog: one whose reference was dropped
 * since (by another session: this one's own drop would have needed CASCADE) goes, and so does what
 * was built on it.
 */
function liveTemporaries(snapshot: CatalogSnapshot, items: readonly CatalogObject[]): CatalogObject[] {
  const kept = new Map(items.filter((o) => !o.dropped).map((o) => [o.id, o]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, o] of kept) {
      if (o.dependsOn.every((ref) => kept.has(ref) || snapshot.get(ref) !== undefined)) continue;
      kept.delete(id);
      changed = true;
    }
  }
  return [...kept.values()];
}
