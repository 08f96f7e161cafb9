/**
 * A cluster replica: the data-plane resource, and its row in mz_cluster_replica_statuses, written
 * with the settle in one transaction (`online`) or after a terminal error (`offline`, the reason).
 */
import type { CatalogObject } from '../../catalog/model';
import type { EffectRecord } from '../../effects/model';
import { reconcileResource } from './data-plane';
import type { EffectContext, ResourceHandler, StatusWrite } from './types';

/**
 * The write of the replica's row (only by a newer-or-equal generation), with its cluster's name as
 * the catalog has it now (one read: the row's event names the cluster, as two clusters may each have an `r1`).
 */
async function statusWrite(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, s: { readonly online: boolean; readonly reason: string | null }, held?: number): Promise<StatusWrite> {
  const present = object !== undefined && !object.dropped;
  const generation = held ?? object?.generation ?? effect.generation;
  const clusterId = object?.kind === 'cluster_replica' ? object.spec.clusterId : undefined;
  // Gone on a drop: the row is removed then, and says nothing.
  const cluster = present && clusterId ? await x.getObject(effect.tenant, clusterId) : undefined;
  return x.deps.statuses.replicaStatusItem(effect.tenant, effect.objectId, { ...s, generation, present, now: x.now(), name: effect.objectName, ...(cluster ? { cluster: { id: cluster.id, name: cluster.name } } : {}) });
}

export const REPLICA: ResourceHandler = {
  shape: 'resource',
  reconcile: reconcileResource,
  statusWrite,
  async failed(x, effect, object, message) {
    await x.deps.statuses.writeReplicaStatus(await statusWrite(x, effect, object, { online: false, reason: message }));
  },
};
