/**
 * The planner's working copy of a tenant's catalog. Statements of one request change it in
 * memory; `diff()` then turns (initial, final) into the request's catalog writes and effects, so
 * each item is written at most once per transaction and a create-then-drop collapses to nothing.
 * Pure: no I/O.
 */
import { CatalogSnapshot, type CatalogObject } from '../catalog/model';
import { nameSk, type NameSpace } from '../catalog/keys';
import { deriveEffects } from '../effects/derive';
import type { EffectIntent } from '../effects/model';

export function nameSpaceOf(o: CatalogObject): NameSpace {
  switch (o.kind) {
    case 'cluster':
      return { ns: 'cluster', name: o.name };
    case 'cluster_replica':
      return { ns: 'replica', clusterId: o.spec.clusterId, name: o.name };
  }
}

/** One catalog write, in the order the transaction will carry it. */
export type CatalogWrite =
  | { readonly op: 'put_object'; readonly object: CatalogObject }
  | { readonly op: 'update_object'; readonly before: CatalogObject; readonly after: CatalogObject }
  | { readonly op: 'put_name'; readonly sk: string; readonly objectId: string; readonly replaces?: string }
  | { readonly op: 'delete_name'; readonly sk: string; readonly objectId: string };

export interface ChangeSet {
  readonly writes: readonly CatalogWrite[];
  readonly effects: readonly EffectIntent[];
}

export class Workspace {
  private readonly initial: ReadonlyMap<string, CatalogObject>;
  private readonly current = new Map<string, CatalogObject>();

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
  }

  drop(id: string): void {
    const o = this.current.get(id);
    if (!o || o.dropped) return;
    this.current.set(id, { ...o, dropped: true, droppedAt: this.now, generation: o.generation + 1, version: o.version + 1, updatedAt: this.now });
  }

  /** Bumps an object's version so that a concurrent statement that read it loses (invariant 5). */
  touch(id: string): void {
    const o = this.current.get(id);
    if (!o || o.dropped) return;
    const initial = this.initial.get(id);
    // One bump per request is enough to fence; created-in-this-request objects need none.
    if (!initial || o.version > initial.version) return;
    this.current.set(id, { ...o, version: o.version + 1, updatedAt: this.now });
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
        writes.push({ op: 'update_object', before, after });
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
