/**
 * A cluster replica: the data-plane resource, and its row in mz_cluster_replica_statuses, written
 * with the settle in one transaction (`online`) or after a terminal error (`offline`, the reason).
 */
import type { CatalogObject } from '../../catalog/model';
import type { EffectRecord } from '../../effects/model';
import { reconcileResource } from './data-plane';
import type { EffectContext, ResourceHandler, StatusWrite } from './types';

/**
 * The replica's cluster as the catalog has it (one read: the row's event names the cluster, as two
 * clusters may each have an `r1`); none for a replica dropped or gone (its row is removed then, and
 * says nothing). Read once per delivery, started before the data plane is asked ({@link REPLICA}'s
 * `before`), so the read runs alongside the apply instead of after it: one round trip less on the
 * way to the settle.
 */
const clusters = new WeakMap<EffectRecord, Promise<CatalogObject | undefined>>();
function clusterOf(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined): Promise<CatalogObject | undefined> {
  let read = clusters.get(effect);
  if (!read) {
    const present = object !== undefined && !object.dropped;
    const clusterId = object?.kind === 'cluster_replica' ? object.spec.clusterId : undefined;
    read = present && clusterId ? x.getObject(effect.tenant, clusterId) : Promise.resolve(undefined);
    // A failed read fails the status write that awaits it, as it did when read there; never unhandled meanwhile.
    read.catch(() => undefined);
    clusters.set(effect, read);
  }
  return read;
}

/** The write of the replica's row (only by a newer-or-equal generation), with its cluster's name ({@link clusterOf}). */
async function statusWrite(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, s: { readonly online: boolean; readonly reason: string | null }, held?: number): Promise<StatusWrite> {
  const present = object !== undefined && !object.dropped;
  const generation = held ?? object?.generation ?? effect.generation;
  const cluster = await clusterOf(x, effect, object);
  return x.deps.statuses.replicaStatusItem(effect.tenant, effect.objectId, { ...s, generation, present, now: x.now(), name: effect.objectName, ...(cluster ? { cluster: { id: cluster.id, name: cluster.name } } : {}) });
}

export const REPLICA: ResourceHandler = {
  shape: 'resource',
  // Not awaited: the cluster is read while the data plane applies the replica.
  async before(x, effect, object) {
    void clusterOf(x, effect, object);
  },
  reconcile: reconcileResource,
  statusWrite,
  async failed(x, effect, object, message) {
    await x.deps.statuses.writeReplicaStatus(await statusWrite(x, effect, object, { online: false, reason: message }));
  },
};
