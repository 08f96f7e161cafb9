/**
 * The chaos run's checks after quiescence (pure, no I/O: the engine reads the catalog, the data
 * plane and the outbox and passes them in), beside the invariant checker's (which counts what is
 * missing or orphaned, not what is out of date):
 *
 * - one replica set per cluster, the acceptance of graceful reconfiguration ("never both after
 *   quiescence");
 * - every resource of a live object is what the catalog says it should be now: held at the
 *   object's generation and with the spec the executor would ensure (desiredSpec) — so an
 *   acknowledged ALTER that never reached the data plane, or that changed what a dependent's
 *   resource is built from without ensuring it again, shows.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CatalogObject, ClusterObject, ReplicaObject } from '../../shared/catalog/model';
import type { ObservedResource } from '../../shared/dataplane/contract';
import { resourcesOf } from '../../shared/catalog/derive';
import { desiredSpec } from '../../shared/executor/desired';

/** An effect record as the checks need it. */
export interface EffectSeen {
  readonly objectId: string;
  readonly generation: number;
  readonly state: string;
  readonly kind?: unknown;
}

/** The last effect on each (object, resource kind): a resource whose last effect failed for good is out of step on purpose. */
function lastEffects(effects: readonly EffectSeen[]): Map<string, EffectSeen> {
  const last = new Map<string, EffectSeen>();
  for (const e of effects) {
    const k = `${e.objectId}/${String(e.kind)}`;
    const seen = last.get(k);
    if (!seen || e.generation >= seen.generation) last.set(k, e);
  }
  return last;
}

/**
 * After quiescence, one replica set per cluster (the acceptance of graceful reconfiguration:
 * "never both after quiescence"): a managed cluster has no reconfiguration left and its replicas
 * are r1..rN, none pending, at its size and schedule; and the data plane runs exactly the
 * catalog's replicas of each cluster, at their size, schedule and (at least) generation. A replica
 * whose last effect failed for good is left out of the data-plane side: that failure is visible
 * on purpose (its status and mz_pending_effects say so).
 */
export function checkReplicaSets(
  tenant: string,
  objects: readonly CatalogObject[],
  observed: readonly ObservedResource[],
  effects: readonly EffectSeen[],
): { clusters: number; problems: string[] } {
  const problems: string[] = [];
  const clusters = objects.filter((o): o is ClusterObject => o.kind === 'cluster' && !o.dropped);
  const replicas = objects.filter((o): o is ReplicaObject => o.kind === 'cluster_replica' && !o.dropped);
  const last = lastEffects(effects);
  const schedule = (x: { schedule?: unknown } | undefined) => JSON.stringify(x?.schedule ?? null);
  const running = observed.filter((r) => r.kind === 'replica' && r.owner);
  for (const c of clusters) {
    const mine = replicas.filter((r) => r.spec.clusterId === c.id);
    const say = (what: string) => problems.push(`${tenant}: cluster ${c.name} (${c.id}): ${what}`);
    if (c.spec.reconfiguration) say(`still has a reconfiguration to ${c.spec.reconfiguration.size} (deadline ${c.spec.reconfiguration.deadline})`);
    if (c.spec.managed) {
      const want = Array.from({ length: c.spec.replicationFactor ?? 0 }, (_, i) => `r${i + 1}`);
      const names = mine.map((r) => r.name).sort();
      if (JSON.stringify(names) !== JSON.stringify(want.sort())) say(`has replicas ${names.join(', ') || 'none'}; a managed cluster of REPLICATION FACTOR ${c.spec.replicationFactor} has ${want.join(', ') || 'none'}`);
      for (const r of mine) {
        if (r.spec.pending) say(`replica ${r.name} is still pending`);
        if (r.spec.size !== c.spec.size) say(`replica ${r.name} is of size ${r.spec.size}; the cluster's is ${c.spec.size}`);
        if (schedule(r.spec) !== schedule(c.spec)) say(`replica ${r.name} has schedule ${schedule(r.spec)}; the cluster's is ${schedule(c.spec)}`);
      }
    }
    const served = new Map(running.filter((x) => (x.spec as { clusterId?: string }).clusterId === c.id).map((x) => [x.owner!.objectId, x]));
    for (const r of mine) {
      const seen = last.get(`${r.id}/replica`);
      if (seen?.state === 'failed' && seen.generation >= r.generation) {
        served.delete(r.id);
        continue;
      }
      const dp = served.get(r.id);
      served.delete(r.id);
      if (!dp) {
        say(`replica ${r.name} (${r.id}) does not run on the data plane`);
        continue;
      }
      const spec = dp.spec as { size?: string; schedule?: unknown };
      if (spec.size !== r.spec.size) say(`replica ${r.name} runs at size ${String(spec.size)} on the data plane; the catalog says ${r.spec.size}`);
      if (schedule(spec) !== schedule(r.spec)) say(`replica ${r.name} runs with schedule ${schedule(spec)} on the data plane; the catalog says ${schedule(r.spec)}`);
      if (dp.generation < r.generation) say(`replica ${r.name} runs generation ${dp.generation} on the data plane; the catalog is at ${r.generation}`);
    }
    for (const [id, x] of served) say(`the data plane runs replica ${id} (${x.owner!.objectName}), which the catalog does not list`);
  }
  return { clusters: clusters.length, problems };
}

/**
 * Every resource of every live object, as the data plane holds it, against what the executor would
 * ensure from the catalog now. A resource that is absent is the invariant checker's (`missing`);
 * one whose last effect failed for good is left out (visible on purpose).
 */
export async function checkResources(
  tenant: string,
  objects: readonly CatalogObject[],
  observed: readonly ObservedResource[],
  effects: readonly EffectSeen[],
): Promise<{ resources: number; problems: string[] }> {
  const problems: string[] = [];
  const byId = new Map(objects.map((o) => [o.id, o]));
  const lookup = async (id: string) => byId.get(id);
  const held = new Map(observed.filter((r) => r.owner).map((r) => [`${r.owner!.objectId}/${r.kind}`, r]));
  const last = lastEffects(effects);
  let resources = 0;
  for (const o of objects) {
    if (o.dropped) continue;
    for (const res of resourcesOf(o)) {
      if (res.kind === 'secret') continue;
      const kind = res.kind;
      const key = `${o.id}/${kind}`;
      const dp = held.get(key);
      const seen = last.get(key);
      if (!dp || (seen?.state === 'failed' && seen.generation >= o.generation)) continue;
      resources++;
      const say = (what: string) => problems.push(`${tenant}: ${o.kind} ${o.name} (${o.id}): its ${res.kind} ${what}`);
      if (dp.generation < o.generation) {
        say(`is held at generation ${dp.generation} on the data plane; the catalog is at ${o.generation}`);
        continue;
      }
      let want: unknown;
      try {
        want = JSON.parse(JSON.stringify(await desiredSpec(kind, o, lookup)));
      } catch (err) {
        say(`has no desired spec: ${(err as Error).message}`);
        continue;
      }
      if (!isDeepStrictEqual(dp.spec, want)) say(`is ${JSON.stringify(dp.spec)} on the data plane; the catalog says ${JSON.stringify(want)}`);
    }
  }
  return { resources, problems };
}
