/**
 * Catalog operations: what a planned request changes in a tenant's catalog, as data (like
 * Materialize's `Op` list for `catalog_transact`). They name objects, names and namespaces, never
 * storage keys: the planner emits them, and the catalog store alone turns them into table items
 * (`./op-items.ts`). Pure: no I/O.
 */
import type { EffectIntent } from '../effects/model';
import { isItemKind, type CatalogObject } from './model';

/** Namespaces in which names must be unique, like Materialize's. */
export type NameSpace =
  | { readonly ns: 'cluster'; readonly name: string }
  | { readonly ns: 'replica'; readonly clusterId: string; readonly name: string }
  | { readonly ns: 'database'; readonly name: string }
  | { readonly ns: 'schema'; readonly databaseId: string; readonly name: string }
  /** Items (sources, tables, views, ...) share one namespace per schema; keyed by the schema's id so renames above don't move guards. */
  | { readonly ns: 'item'; readonly schemaId: string; readonly name: string }
  | { readonly ns: 'role'; readonly name: string }
  | { readonly ns: 'network_policy'; readonly name: string }
  | { readonly ns: 'system_parameter'; readonly name: string };

/** The namespace an object's name is unique in; none for memberships and default privileges, which have no name. */
export function nameSpaceOf(o: CatalogObject): NameSpace | undefined {
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
    case 'role':
      return { ns: 'role', name: o.name };
    case 'network_policy':
      return { ns: 'network_policy', name: o.name };
    case 'system_parameter':
      return { ns: 'system_parameter', name: o.name };
    case 'role_membership':
    case 'default_privilege':
      return undefined;
  }
}

/**
 * One catalog operation, in the order the commit carries them. `before` is the object as the plan
 * read it: the commit holds only if the catalog still has it so (invariant 5).
 */
export type CatalogOp =
  /** A new object (cluster, replica, database, schema or item). */
  | { readonly op: 'create_object'; readonly object: CatalogObject }
  /** Anything else that changes an object the plan read: rename, owner, options, a new generation, a version fence. */
  | { readonly op: 'update_object'; readonly before: CatalogObject; readonly after: CatalogObject }
  /** The object becomes a tombstone (`after.dropped`) at a new generation. */
  | { readonly op: 'drop_object'; readonly before: CatalogObject; readonly after: CatalogObject }
  /** Only the dependents counter moves: an addition that does not conflict with other creators of dependents. */
  | { readonly op: 'adjust_dependents'; readonly id: string; readonly delta: number; readonly before: CatalogObject }
  /** `name` in its namespace now belongs to `objectId` (taken over from `replaces` when that object gave it up in this request). */
  | { readonly op: 'claim_name'; readonly name: NameSpace; readonly objectId: string; readonly replaces?: string }
  /** `name` in its namespace is free again. */
  | { readonly op: 'release_name'; readonly name: NameSpace; readonly objectId: string };

/** A request's whole change: the catalog operations and the effects derived from them (one commit). */
export interface ChangeSet {
  readonly ops: readonly CatalogOp[];
  readonly effects: readonly EffectIntent[];
}

/**
 * The objects a change leaves behind, as the catalog then holds them (dropped ones included). A
 * counter-only change is the object with its new count, or what `adjusted` makes of it.
 */
export function objectsAfter(changes: ChangeSet): CatalogObject[];
export function objectsAfter<T>(changes: ChangeSet, adjusted: (before: CatalogObject, dependents: number) => T): (CatalogObject | T)[];
export function objectsAfter<T>(changes: ChangeSet, adjusted?: (before: CatalogObject, dependents: number) => T): (CatalogObject | T)[] {
  const out: (CatalogObject | T)[] = [];
  for (const op of changes.ops) {
    switch (op.op) {
      case 'create_object':
        out.push(op.object);
        break;
      case 'update_object':
      case 'drop_object':
        out.push(op.after);
        break;
      case 'adjust_dependents': {
        const dependents = op.before.dependents + op.delta;
        out.push(adjusted ? adjusted(op.before, dependents) : { ...op.before, dependents });
        break;
      }
      case 'claim_name':
      case 'release_name':
        break;
    }
  }
  return out;
}
