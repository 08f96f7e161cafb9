/**
 * Graceful reconfiguration of a managed cluster (`ALTER CLUSTER ... SET (SIZE ...) WITH (WAIT ...)`),
 * as Materialize does it: new replicas `r1-pending`, ... run beside the current ones; once they are
 * hydrated (or at the deadline) ONE catalog commit either drops the current replicas and makes the
 * pending ones current (commit) or drops the pending ones (rollback). Everything here is pure: the
 * planner starts a reconfiguration, and the compute executor's reconfiguration step
 * (shared/executor/reconfigure.ts) decides and settles it on a fresh snapshot.
 */
import type { ClusterObject, Reconfiguration, ReplicaObject } from '../catalog/model';
import type { ObservedResource } from '../dataplane/contract';
import { PlanError, SQLSTATE } from '../errors';
import type { ClusterAlterWait } from '../sql/ast';
import type { Workspace } from './workspace';

/** Materialize's suffix for the replicas of a reconfiguration not yet settled. */
export const PENDING_REPLICA_SUFFIX = '-pending';

/** Materialize's default for `ON TIMEOUT`. */
const DEFAULT_ON_TIMEOUT = 'commit';

const UNIT_MS: Readonly<Record<string, number>> = {
  us: 0.001, microsecond: 0.001, microseconds: 0.001,
  ms: 1, millisecond: 1, milliseconds: 1,
  s: 1_000, sec: 1_000, secs: 1_000, second: 1_000, seconds: 1_000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
};

/**
 * A duration as Materialize reads one for these options (an interval: `'10m'`, `'0s'`, `'10ms'`,
 * `'1 hour 30 minutes'`; a bare number is seconds), in milliseconds; undefined when it is not one
 * or is negative.
 */
export function durationMs(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1_000;
  let total = 0;
  let rest = t;
  while (rest.length) {
    const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)\s*/.exec(rest);
    const unit = m ? UNIT_MS[m[2]!] : undefined;
    if (!m || unit === undefined) return undefined;
    total += Number(m[1]) * unit;
    rest = rest.slice(m[0].length);
  }
  return Math.round(total);
}

function durationOption(option: string, text: string, position: number): number {
  const ms = durationMs(text);
  if (ms === undefined) {
    throw new PlanError(`invalid ${option} option value: invalid input syntax for type interval: "${text}"`, {
      code: SQLSTATE.invalidParameterValue,
      position,
      hint: "Give a duration such as '10m', '30s' or '500ms'.",
    });
  }
  return ms;
}

/** The reconfiguration a `WITH (WAIT ...)` clause asks for, with Materialize's validations and messages. */
export function reconfigurationOf(wait: ClusterAlterWait, target: Pick<Reconfiguration, 'size' | 'replicationFactor' | 'schedule'>, now: string): Reconfiguration {
  let strategy: Reconfiguration['strategy'];
  let onTimeout: Reconfiguration['onTimeout'] = DEFAULT_ON_TIMEOUT;
  let ms: number;
  if (wait.kind === 'for') {
    strategy = 'for';
    ms = durationOption('WAIT', wait.duration, wait.position);
  } else {
    strategy = 'until_ready';
    if (wait.timeout === undefined) {
      throw new PlanError('TIMEOUT=<duration> option is required for ALTER CLUSTER ... WITH (WAIT UNTIL READY ( ... ))', { code: SQLSTATE.invalidParameterValue, position: wait.position });
    }
    ms = durationOption('TIMEOUT', wait.timeout, wait.position);
    if (wait.onTimeout !== undefined) {
      const v = wait.onTimeout.toLowerCase();
      if (v !== 'commit' && v !== 'rollback') {
        throw new PlanError('invalid ON TIMEOUT option value: Valid options are COMMIT, ROLLBACK', { code: SQLSTATE.invalidParameterValue, position: wait.position });
      }
      onTimeout = v;
    }
  }
  return { ...target, strategy, onTimeout, startedAt: now, deadline: new Date(Date.parse(now) + ms).toISOString() };
}

export function pendingReplicaName(current: string): string {
  return `${current}${PENDING_REPLICA_SUFFIX}`;
}

/** What a reconfiguration's step does now: settle it one way or the other, or wait (and why). */
export type ReconfigurationDecision = { readonly outcome: 'commit' | 'rollback' | 'wait'; readonly reason: string };

/**
 * Which way a reconfiguration settles now. A commit drops the current replicas, so it waits until
 * every pending one runs on the data plane, hydrated or not (the deadline of WAIT FOR and of ON
 * TIMEOUT = 'COMMIT' decides whether to wait for hydration, not whether the new replicas exist):
 * the cluster is never left with none. `lost`: the pending replicas whose provisioning failed for
 * good, which never will run; a commit that would keep them rolls back instead.
 */
export function reconfigurationOutcome(
  r: Reconfiguration,
  pending: readonly ReplicaObject[],
  observed: readonly ObservedResource[],
  now: Date,
  lost: ReadonlySet<string> = new Set(),
): ReconfigurationDecision {
  const names = (rs: readonly ReplicaObject[]) => rs.map((x) => x.name).join(', ');
  if (r.strategy === 'until_ready' && allHydrated(pending, observed)) return { outcome: 'commit', reason: 'the pending replicas are hydrated' };
  if (now.getTime() < Date.parse(r.deadline)) {
    return { outcome: 'wait', reason: r.strategy === 'for' ? 'the end of the wait' : `replicas ${names(pending)} to be hydrated` };
  }
  if (r.strategy === 'until_ready' && r.onTimeout === 'rollback') {
    return { outcome: 'rollback', reason: `canceling statement, provided timeout lapsed (deadline ${r.deadline}; ON TIMEOUT = ROLLBACK)` };
  }
  const absent = pending.filter((x) => !running(x, observed));
  const failed = absent.filter((x) => lost.has(x.id));
  if (failed.length) return { outcome: 'rollback', reason: `replicas ${names(failed)} could not be provisioned, so the current replicas stay (deadline ${r.deadline})` };
  if (absent.length) return { outcome: 'wait', reason: `replicas ${names(absent)} to run before the current ones are dropped (deadline ${r.deadline} passed)` };
  if (r.strategy === 'for') return { outcome: 'commit', reason: `the wait of the reconfiguration ended at ${r.deadline}` };
  return { outcome: 'commit', reason: `canceling statement, provided timeout lapsed (deadline ${r.deadline}; ON TIMEOUT = COMMIT)` };
}

/** The replica as the data plane runs it at (at least) its catalog generation, healthy or not; undefined when it does not. */
function running(replica: ReplicaObject, observed: readonly ObservedResource[]): ObservedResource | undefined {
  return observed.find((o) => o.kind === 'replica' && o.owner?.objectId === replica.id && o.generation >= replica.generation);
}

/**
 * A pending replica is hydrated when the data plane reports it present, at (at least) its catalog
 * generation, and healthy; a cluster with no pending replica (REPLICATION FACTOR 0) is ready at once.
 */
export function allHydrated(pending: readonly ReplicaObject[], observed: readonly ObservedResource[]): boolean {
  return pending.every((r) => running(r, observed)?.health === 'healthy');
}

/**
 * Settles the cluster's reconfiguration in the workspace: `commit` drops the current replicas and
 * renames the pending ones to the names they replace; `rollback` drops the pending ones. Either
 * way the cluster's spec says what it now is and no longer carries the reconfiguration. False
 * (nothing changed) when there is no reconfiguration to settle: it was settled already, or the
 * cluster is gone.
 */
export function settleReconfiguration(ws: Workspace, clusterId: string, outcome: 'commit' | 'rollback'): boolean {
  const cluster = ws.get(clusterId) as ClusterObject | undefined;
  const r = cluster?.kind === 'cluster' ? cluster.spec.reconfiguration : undefined;
  if (!cluster || !r) return false;
  const replicas = ws.view().replicas(clusterId);
  for (const replica of replicas) if (Boolean(replica.spec.pending) !== (outcome === 'commit')) ws.drop(replica.id);
  if (outcome === 'commit') {
    for (const replica of replicas.filter((x) => x.spec.pending)) {
      // The data plane's spec (cluster, size) stays: only the name and the mark change, no new generation.
      ws.update(replica.id, (o) => {
        const { pending: _pending, ...spec } = (o as ReplicaObject).spec;
        return { ...o, name: o.name.slice(0, -PENDING_REPLICA_SUFFIX.length), spec } as ReplicaObject;
      }, false);
    }
  }
  ws.update(clusterId, (o) => {
    const { reconfiguration: _r, ...spec } = (o as ClusterObject).spec;
    if (outcome === 'rollback') return { ...o, spec } as ClusterObject;
    const { schedule, ...rest } = spec;
    // The target's schedule is the one its (now current) replicas run on.
    const next = r.schedule === undefined ? schedule : (r.schedule ?? undefined);
    return { ...o, spec: { ...rest, size: r.size, replicationFactor: r.replicationFactor, ...(next ? { schedule: next } : {}) } } as ClusterObject;
  }, false);
  return true;
}

/**
 * What a reconfiguration under way does, in words: the ALTER CLUSTER that starts it says it, and
 * SHOW CLUSTER REPLICAS says it again while it runs (Materialize's columns carry no deadline).
 */
export function reconfigurationNotice(cluster: string, r: Reconfiguration, pending: readonly string[]): string {
  const until = r.strategy === 'for' ? `until ${r.deadline}` : `until they are hydrated (ON TIMEOUT = ${r.onTimeout.toUpperCase()} at ${r.deadline})`;
  const what = pending.length ? `replicas ${pending.join(', ')} run beside the current ones ${until}` : `the cluster has no replica to wait for and is settled at once`;
  return `cluster "${cluster}" is being reconfigured to SIZE '${r.size}', REPLICATION FACTOR ${r.replicationFactor}: ${what}; see mz_internal.mz_pending_cluster_reconfigurations`;
}

/** The steps of a cluster's reconfiguration, in words (EXPLAIN EFFECTS). */
export function describeReconfiguration(r: Reconfiguration, replicas: readonly ReplicaObject[]): string {
  const pending = replicas.filter((x) => x.spec.pending).map((x) => x.name);
  const current = replicas.filter((x) => !x.spec.pending).map((x) => x.name);
  const list = (names: readonly string[]) => (names.length ? names.join(', ') : 'none');
  const wait = r.strategy === 'for' ? `wait until ${r.deadline}` : `wait until ${list(pending)} are hydrated, at most until ${r.deadline}`;
  const onTimeout = r.strategy === 'for' ? '' : `; on timeout: ${r.onTimeout === 'commit' ? 'the same' : `drop ${list(pending)} and keep ${list(current)}`}`;
  return `1. create ${list(pending)}; 2. ${wait}; 3. drop ${list(current)} and rename ${list(pending)} to ${list(pending.map((n) => n.slice(0, -PENDING_REPLICA_SUFFIX.length)))}${onTimeout}`;
}
