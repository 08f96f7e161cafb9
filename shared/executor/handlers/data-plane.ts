/** Dataflows and collections: a data-plane resource made to match its object, or dropped. */
import { desiredSpec } from '../desired';
import type { ApplyResult, ResourceKind, ResourceOwner } from '../../dataplane/contract';
import type { CatalogObject } from '../../catalog/model';
import type { EffectRecord } from '../../effects/model';
import type { Desired, EffectContext, ResourceHandler } from './types';

/** Ensure (at the object's desired state) or drop the effect's resource, fenced by generation. */
export async function reconcileResource(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, { present, generation }: Desired): Promise<ApplyResult> {
  const kind = effect.kind as ResourceKind;
  const dp = x.deps.dataPlane;
  const owner: ResourceOwner = { tenant: effect.tenant, objectId: effect.objectId, objectKind: object?.kind ?? 'unknown', objectName: effect.objectName };
  if (!present) return dp.drop(kind, owner, generation);
  const lookup = (id: string) => x.getObject(effect.tenant, id);
  return dp.ensure(kind, owner, generation, await desiredSpec(kind, object!, lookup));
}

export const DATA_PLANE_RESOURCE: ResourceHandler = { shape: 'resource', reconcile: reconcileResource };
