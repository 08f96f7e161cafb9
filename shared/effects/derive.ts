/**
 * Which side effects a catalog change implies: a pure function of (before, after) per object.
 * Reconciliation collapses history: an object created and dropped in one request is nothing.
 */
import type { CatalogObject, ObjectKind } from '../catalog/model';
import type { EffectIntent, EffectKind, Intent } from './model';

type Resource = Pick<EffectKind, 'controller' | 'kind'>;

/** The data-plane resources each kind of object owns, in creation order. */
export const RESOURCES_OF: Readonly<Record<ObjectKind, readonly Resource[]>> = {
  database: [],
  schema: [],
  // A cluster is a catalog concept; its replicas are what the data plane runs.
  cluster: [],
  cluster_replica: [{ controller: 'compute', kind: 'replica' }],
  secret: [{ controller: 'secrets', kind: 'secret' }],
  connection: [],
  // The collection (with its read policy) comes first, then what writes into it.
  source: [
    { controller: 'storage', kind: 'collection' },
    { controller: 'storage', kind: 'ingestion' },
  ],
  subsource: [{ controller: 'storage', kind: 'collection' }],
  sink: [{ controller: 'storage', kind: 'export' }],
  table: [{ controller: 'storage', kind: 'collection' }],
  view: [],
  materialized_view: [
    { controller: 'storage', kind: 'collection' },
    { controller: 'compute', kind: 'dataflow' },
  ],
  index: [{ controller: 'compute', kind: 'dataflow' }],
};

export function deriveEffects(before: CatalogObject | undefined, after: CatalogObject | undefined): EffectIntent[] {
  const subject = after ?? before;
  if (!subject) return [];
  const existedBefore = before !== undefined && !before.dropped;
  const existsAfter = after !== undefined && !after.dropped;
  if (!existedBefore && !existsAfter) return [];
  if (existedBefore && existsAfter && before!.generation === after!.generation) return [];
  const intent: Intent = existsAfter ? 'ensure' : 'drop';
  const generation = after?.generation ?? before!.generation;
  // Drops go in reverse: stop what writes into a collection before the collection goes.
  const resources = intent === 'ensure' ? RESOURCES_OF[subject.kind] : [...RESOURCES_OF[subject.kind]].reverse();
  return resources.map((r) => ({ ...r, intent, objectId: subject.id, objectName: subject.name, generation }) as EffectIntent);
}
