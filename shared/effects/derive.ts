/**
 * Which side effects a catalog change implies: a pure function of (before, after) per object.
 * Reconciliation collapses history: an object created and dropped in one request is nothing.
 */
import type { CatalogObject } from '../catalog/model';
import type { EffectIntent } from './model';

export function deriveEffects(before: CatalogObject | undefined, after: CatalogObject | undefined): EffectIntent[] {
  const subject = after ?? before;
  if (!subject) return [];
  const existedBefore = before !== undefined && !before.dropped;
  const existsAfter = after !== undefined && !after.dropped;
  if (!existedBefore && !existsAfter) return [];
  if (existedBefore && existsAfter && before!.generation === after!.generation) return [];
  const generation = after?.generation ?? before!.generation;
  const base = { objectId: subject.id, objectName: subject.name, generation };
  switch (subject.kind) {
    case 'cluster':
      // A cluster is a catalog concept; its replicas are what the data plane runs.
      return [];
    case 'cluster_replica':
      return [{ ...base, controller: 'compute', kind: 'replica', intent: existsAfter ? 'ensure' : 'drop' }];
  }
}
