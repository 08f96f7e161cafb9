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
 */
import { CatalogSnapshot, isItemKind, type CatalogObject } from '../catalog/model';
import { nameSk, type NameSpace } from '../catalog/keys';
import { deriveEffects } from '../effects/derive';
import type { EffectIntent } from '../effects/model';

export function nameSpaceOf(o: CatalogObject): NameSpace {
  if (isItemKind(o.kind)) return { ns: 'item', schemaId: (o.spec as { schemaId: string }).schemaId, name: o.name };
  switch (o.kind) {
    case 'cluster':
      return { ns: 'cluster', name: o.name };
    case 'cluster_replica':
      return { ns: 'replica', clusterId: o.spec.clusterId, name: o.name };
    case 'database':
      return { ns: 'database', name: o.name };
    case 'schema':
      return { ns: 'schema', databaseId: o.spec.databaseId, name: o.name };
  }
  throw new Error(`no namespace for ${o.kind}`);
}

/** One catalog write, in the order the transaction will carry it. */
export type CatalogWrite =
  | { readonly op: 'put_object'; readonly object: CatalogObject }
  | { readonly op: 'update_object'; readonly before: CatalogObject; readonly after: CatalogObject }
  | { readonly op: 'adjust_dependents'; readonly id: string; readonly delta: number; readonly before: CatalogObject }
  | { readonly op: 'put_name'; readonly sk: string; readonly objectId: string; readonly replaces?: string }
  | { readonly op: 'delete_name'; readonly sk: string; readonly objectId: string };

export interface ChangeSet {
  readonly writes: readonly CatalogWrite[];
  readonly effects: readonly EffectIntent[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class Workspace {
  private readonly initial: ReadonlyMap<string, CatalogObject>;
  private current = new Map<string, CatalogObject>();
  private savepoint: Map<string, CatalogObject> | undefined;

  constructor(
    readonly snapshot: CatalogSnapshot,
    readonly now: string,
  ) {
    this.initial = new Map(snapshot.byId);
    for (const [id, o] of snapshot.byId) this.current.set(id, o);
  }

  /** The live objects as of the statements applied so far. */
  view(): CatalogSnapshot {
    return new CatalogSnapshot(this.snapshot.tenant, [...this.current.values()]);
  }

  get(id: string): CatalogObject | undefined {
    const o = this.current.get(id);
    return o && !o.dropped ? o : undefined;
  }

  create(o: CatalogObject): void {
    this.current.set(o.id, o);
    for (const ref of o.dependsOn) this.adjustDependents(ref, +1);
  }

  drop(id: string): void {
    const o = this.current.get(id);
    if (!o || o.dropped) return;
    this.current.set(id, { ...o, dropped: true, droppedAt: this.now, generation: o.generation + 1, version: this.nextVersion(o), updatedAt: this.now });
    for (const ref of o.dependsOn) this.adjustDependents(ref, -1);
  }

  /** Replaces an object's fields; `desired` says whether the data plane's view of it changes (a new generation). */
  update(id: string, change: (o: CatalogObject) => CatalogObject, desired: boolean): void {
    const o = this.current.get(id);
    if (!o || o.dropped) return;
    const next = change(o);
    for (const ref of o.dependsOn) if (!next.dependsOn.includes(ref)) this.adjustDependents(ref, -1);
    for (const ref of next.dependsOn) if (!o.dependsOn.includes(ref)) this.adjustDependents(ref, +1);
    // One new generation per request; objects created in this request stay at generation 1.
    const generation = desired && this.initial.get(id)?.generation === o.generation ? o.generation + 1 : o.generation;
    this.current.set(id, { ...next, generation, version: this.nextVersion(o), updatedAt: this.now } as CatalogObject);
  }

  /** Bumps an object's version so that a concurrent statement that read it loses (invariant 5). */
  touch(id: string): void {
    const o = this.current.get(id);
    if (!o || o.dropped) return;
    this.current.set(id, { ...o, version: this.nextVersion(o), updatedAt: this.now });
  }

  /** A copy to plan on without touching this one (EXPLAIN EFFECTS). */
  fork(): Workspace {
    const w = new Workspace(this.snapshot, this.now);
    w.current = new Map(this.current);
    return w;
  }

  /** BEGIN: remember the state; ROLLBACK returns to it. */
  begin(): void {
    this.savepoint = new Map(this.current);
  }
  rollback(): void {
    this.current = this.savepoint ?? new Map(this.initial);
    this.savepoint = undefined;
  }

  /** One version bump per request is enough to fence; objects created in this request need none. */
  private nextVersion(o: CatalogObject): number {
    const initial = this.initial.get(o.id);
    return initial && o.version === initial.version ? o.version + 1 : o.version;
  }

  private adjustDependents(id: string, delta: number): void {
    const o = this.current.get(id);
    if (!o) return;
    (this.current as Map<string, Mutable<CatalogObject>>).set(id, { ...o, dependents: o.dependents + delta } as Mutable<CatalogObject>);
  }

  diff(): ChangeSet {
    const writes: CatalogWrite[] = [];
    const effects: EffectIntent[] = [];
    const namesBefore = new Map<string, string>();
    const namesAfter = new Map<string, string>();
    for (const o of this.initial.values()) namesBefore.set(nameSk(nameSpaceOf(o)), o.id);
    for (const o of this.current.values()) if (!o.dropped) namesAfter.set(nameSk(nameSpaceOf(o)), o.id);

    for (const [id, after] of this.current) {
      const before = this.initial.get(id);
      if (!before) {
        if (after.dropped) continue; // created and dropped in one request: nothing happened
        writes.push({ op: 'put_object', object: after });
      } else if (after !== before) {
        if (after.version === before.version) {
          // Only the dependents counter moved: an ADD that does not conflict with other creators.
          if (after.dependents !== before.dependents) writes.push({ op: 'adjust_dependents', id, delta: after.dependents - before.dependents, before });
        } else {
          writes.push({ op: 'update_object', before, after });
        }
      }
      effects.push(...deriveEffects(before, after));
    }
    for (const [sk, objectId] of namesAfter) {
      const previous = namesBefore.get(sk);
      if (previous === objectId) continue;
      writes.push(previous ? { op: 'put_name', sk, objectId, replaces: previous } : { op: 'put_name', sk, objectId });
    }
    for (const [sk, objectId] of namesBefore) {
      if (!namesAfter.has(sk)) writes.push({ op: 'delete_name', sk, objectId });
    }
    return { writes, effects };
  }
}
