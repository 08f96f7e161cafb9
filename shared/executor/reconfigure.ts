/**
 * The reconfiguration step of the compute executor: settles a cluster's graceful reconfiguration
 * (shared/planner/reconfigure.ts) once the data plane reports its pending replicas hydrated, or
 * its deadline passed. Level-based like every effect: it decides on the catalog and the data
 * plane as they are now, and the settle is ONE catalog commit (the old or the new replicas
 * dropped, their drop effects in the outbox, the cluster's new spec), so a crash before it leaves
 * the reconfiguration as it was, and a crash after it leaves a redelivery nothing to do.
 */
import type { CatalogStore } from '../catalog/store';
import type { ClusterObject, ReplicaObject } from '../catalog/model';
import type { OutboxStore } from '../catalog/outbox-store';
import type { DataPlane } from '../dataplane/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { EffectRecord } from '../effects/model';
import { newTxnId } from '../catalog/ids';
import { reconfigurationOutcome, settleReconfiguration } from '../planner/reconfigure';
import { Workspace } from '../planner/workspace';

/** What the step needs of the catalog: a fresh snapshot to decide on, and a commit. */
export type ReconfigurationCatalog = Pick<CatalogStore, 'loadSnapshot' | 'commit'>;

export interface ReconfigurationStepDeps {
  readonly catalog: ReconfigurationCatalog;
  /** The effects committed with the step: whether a pending replica's provisioning failed for good. */
  readonly effects: Pick<OutboxStore, 'effectsOfTxn'>;
  readonly dataPlane: Pick<DataPlane, 'observe'>;
  readonly faults?: FaultInjector;
}

export type StepResult =
  /** Settled now, or found settled (by an earlier delivery that died before its ack). */
  | { readonly outcome: 'applied'; readonly note?: string }
  /** The cluster moved on (dropped): nothing to settle. */
  | { readonly outcome: 'superseded' }
  /** Not hydrated before the deadline, or past it with a new replica not yet running: the effect stays pending and is replayed. */
  | { readonly outcome: 'waiting'; readonly note: string };

export async function runReconfigurationStep(deps: ReconfigurationStepDeps, effect: EffectRecord, now: Date): Promise<StepResult> {
  const snapshot = await deps.catalog.loadSnapshot(effect.tenant);
  const found = snapshot.get(effect.objectId);
  const cluster = found?.kind === 'cluster' && !found.dropped ? (found as ClusterObject) : undefined;
  const r = cluster?.spec.reconfiguration;
  if (!cluster || !r) return found && found.generation > effect.generation ? { outcome: 'superseded' } : { outcome: 'applied' };
  const pending = snapshot.replicas(cluster.id).filter((x) => x.spec.pending);
  // WAIT FOR looks at the data plane only once its wait is over: to see that the new replicas run.
  const past = now.getTime() >= Date.parse(r.deadline);
  const observed = r.strategy === 'until_ready' || past ? await deps.dataPlane.observe(effect.tenant) : [];
  let decision = reconfigurationOutcome(r, pending, observed, now);
  if (decision.outcome === 'wait' && past) {
    // Past the deadline a commit waits for the new replicas to run: unless one can never run.
    decision = reconfigurationOutcome(r, pending, observed, now, await lostReplicas(deps.effects, effect, pending));
  }
  if (decision.outcome === 'wait') return { outcome: 'waiting', note: `waiting for ${decision.reason}${past ? '' : ` (deadline ${r.deadline})`}` };
  const ws = new Workspace(snapshot, now.toISOString());
  settleReconfiguration(ws, cluster.id, decision.outcome);
  deps.faults?.point('reconfigure.before-commit');
  await deps.catalog.commit(effect.tenant, ws.diff(), {
    txnId: newTxnId(now),
    principal: 'system:reconfiguration',
    statements: [`-- ${decision.outcome} the reconfiguration of cluster ${cluster.name}: ${decision.reason}`],
    tags: ['ALTER CLUSTER'],
    createdAt: now.toISOString(),
  });
  deps.faults?.point('reconfigure.after-commit');
  return decision.outcome === 'rollback' ? { outcome: 'applied', note: decision.reason } : { outcome: 'applied' };
}

/**
 * The pending replicas whose provisioning failed for good: their ensure effects, committed with
 * this step by the ALTER CLUSTER that started the reconfiguration, ended `failed`.
 */
async function lostReplicas(effects: ReconfigurationStepDeps['effects'], step: EffectRecord, pending: readonly ReplicaObject[]): Promise<Set<string>> {
  const ids = new Set(pending.map((x) => x.id));
  const siblings = await effects.effectsOfTxn(step.tenant, step.txnId);
  return new Set(siblings.filter((e) => e.kind === 'replica' && e.intent === 'ensure' && e.state === 'failed' && ids.has(e.objectId)).map((e) => e.objectId));
}
