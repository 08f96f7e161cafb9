/** The pure parts of a graceful reconfiguration: durations, the decision, and the settle. */
import { describe, expect, it } from 'vitest';
import { CatalogSnapshot, type CatalogObject, type ClusterObject, type Reconfiguration, type ReplicaObject } from '../../shared/catalog/model';
import type { ObservedResource } from '../../shared/dataplane/contract';
import { allHydrated, durationMs, reconfigurationOf, reconfigurationOutcome, settleReconfiguration } from '../../shared/planner/reconfigure';
import { Workspace } from '../../shared/planner/workspace';

const NOW = '2026-01-01T00:00:00.000Z';
const base = { generation: 1, version: 1, dependents: 0, dependsOn: [], owner: 'tester', createdAt: NOW, updatedAt: NOW };
const target: Reconfiguration = { size: '50cc', replicationFactor: 1, strategy: 'until_ready', onTimeout: 'rollback', startedAt: NOW, deadline: '2026-01-01T00:10:00.000Z' };
const cluster = { ...base, id: 'c1', kind: 'cluster', name: 'c', spec: { managed: true, size: '25cc', replicationFactor: 1, options: {}, reconfiguration: target } } as unknown as ClusterObject;
const old = { ...base, id: 'r1', kind: 'cluster_replica', name: 'r1', spec: { size: '25cc', clusterId: 'c1', managed: true, options: {} } } as unknown as ReplicaObject;
const fresh = { ...base, id: 'r2', kind: 'cluster_replica', name: 'r1-pending', spec: { size: '50cc', clusterId: 'c1', managed: true, options: {}, pending: true } } as unknown as ReplicaObject;
const observed = (health: 'healthy' | 'unhealthy', generation = 1): ObservedResource =>
  ({ tenant: 't', kind: 'replica', resourceId: 'r2', owner: { tenant: 't', objectId: 'r2', objectKind: 'cluster_replica', objectName: 'r1-pending' }, generation, health, createdAt: NOW, spec: {} }) as ObservedResource;

describe('durationMs', () => {
  it.each([
    ['10m', 600_000],
    ['0s', 0],
    ['10ms', 10],
    ['1 hour 30 minutes', 5_400_000],
    ['1h30m', 5_400_000],
    ['90', 90_000],
  ])('%s is %d ms', (text, ms) => expect(durationMs(text)).toBe(ms));
  it.each(['', 'soon', '10 parsecs', '-1s', 'm'])('%j is not a duration', (text) => expect(durationMs(text)).toBeUndefined());
});

describe('reconfigurationOf', () => {
  it('defaults ON TIMEOUT to COMMIT and puts the deadline TIMEOUT ahead', () => {
    expect(reconfigurationOf({ kind: 'until_ready', timeout: '10m', position: 0 }, { size: '50cc', replicationFactor: 2 }, NOW)).toEqual({
      size: '50cc', replicationFactor: 2, strategy: 'until_ready', onTimeout: 'commit', startedAt: NOW, deadline: '2026-01-01T00:10:00.000Z',
    });
  });
  it('reads ON TIMEOUT in any case', () => {
    expect(reconfigurationOf({ kind: 'until_ready', timeout: '1s', onTimeout: 'Rollback', position: 0 }, { size: '50cc', replicationFactor: 1 }, NOW).onTimeout).toBe('rollback');
  });
});

describe('reconfigurationOutcome', () => {
  const before = new Date('2026-01-01T00:05:00.000Z');
  const after = new Date('2026-01-01T00:10:00.000Z');
  const outcome = (r: Reconfiguration, seen: readonly ObservedResource[], at: Date, lost?: ReadonlySet<string>) => reconfigurationOutcome(r, [fresh], seen, at, lost).outcome;
  it('commits once every pending replica is present, current and healthy', () => {
    expect(outcome(target, [observed('healthy')], before)).toBe('commit');
  });
  it('waits for an unhealthy, older or absent replica until the deadline, then applies ON TIMEOUT = ROLLBACK', () => {
    for (const seen of [[observed('unhealthy')], [observed('healthy', 0)], []]) {
      expect(reconfigurationOutcome(target, [fresh], seen, before)).toEqual({ outcome: 'wait', reason: 'replicas r1-pending to be hydrated' });
      expect(reconfigurationOutcome(target, [fresh], seen, after)).toMatchObject({ outcome: 'rollback', reason: expect.stringContaining('timeout lapsed') });
    }
  });
  it('WAIT FOR commits at the deadline and not before, hydrated or not', () => {
    const forWait: Reconfiguration = { ...target, strategy: 'for', onTimeout: 'commit' };
    expect(outcome(forWait, [observed('healthy')], before)).toBe('wait');
    expect(outcome(forWait, [observed('unhealthy')], after)).toBe('commit');
  });
  describe.each([
    ['WAIT FOR', { ...target, strategy: 'for', onTimeout: 'commit' } as Reconfiguration],
    ["ON TIMEOUT = 'COMMIT'", { ...target, onTimeout: 'commit' } as Reconfiguration],
  ])('a commit at the deadline (%s)', (_, r) => {
    it('waits for the new replicas to run, hydrated or not, before it drops the current ones', () => {
      for (const seen of [[], [observed('healthy', 0)]]) {
        expect(reconfigurationOutcome(r, [fresh], seen, after)).toEqual({ outcome: 'wait', reason: `replicas r1-pending to run before the current ones are dropped (deadline ${r.deadline} passed)` });
      }
      expect(outcome(r, [observed('unhealthy')], after)).toBe('commit');
    });
    it('rolls back when a new replica can never run (its provisioning failed for good)', () => {
      expect(reconfigurationOutcome(r, [fresh], [], after, new Set(['r2']))).toEqual({
        outcome: 'rollback',
        reason: `replicas r1-pending could not be provisioned, so the current replicas stay (deadline ${r.deadline})`,
      });
      // One that runs after all is no longer lost.
      expect(outcome(r, [observed('unhealthy')], after, new Set(['r2']))).toBe('commit');
    });
  });
  it('a cluster with nothing pending (REPLICATION FACTOR 0) is ready at once', () => {
    expect(allHydrated([], [])).toBe(true);
    expect(reconfigurationOutcome({ ...target, strategy: 'for', onTimeout: 'commit' }, [], [], after).outcome).toBe('commit');
  });
});

describe('settleReconfiguration', () => {
  const ws = () => new Workspace(new CatalogSnapshot('t', [cluster, old, fresh] as CatalogObject[]), NOW);
  it('commit: drops the current replicas, renames the pending ones, and the cluster takes the target', () => {
    const w = ws();
    expect(settleReconfiguration(w, 'c1', 'commit')).toBe(true);
    const view = w.view();
    expect(view.replicas('c1').map((r) => [r.id, r.name, r.spec.pending])).toEqual([['r2', 'r1', undefined]]);
    expect(view.get('c1')).toMatchObject({ spec: { size: '50cc', replicationFactor: 1 } });
    expect((view.get('c1') as ClusterObject).spec.reconfiguration).toBeUndefined();
    // The renamed replica keeps its generation: the data plane has nothing to redo for it.
    const effects = w.diff().effects.map((e) => `${e.intent} ${e.kind} ${e.objectId}`);
    expect(effects).toEqual(['drop replica r1']);
  });
  it('rollback: drops the pending replicas and the cluster keeps its size', () => {
    const w = ws();
    expect(settleReconfiguration(w, 'c1', 'rollback')).toBe(true);
    expect(w.view().replicas('c1').map((r) => r.id)).toEqual(['r1']);
    expect(w.view().get('c1')).toMatchObject({ spec: { size: '25cc' } });
    expect(w.diff().effects.map((e) => `${e.intent} ${e.kind} ${e.objectId}`)).toEqual(['drop replica r2']);
  });
  it('is a no-op once settled (a redelivery after the commit)', () => {
    const w = ws();
    settleReconfiguration(w, 'c1', 'commit');
    expect(settleReconfiguration(w, 'c1', 'commit')).toBe(false);
    expect(settleReconfiguration(ws(), 'nope', 'commit')).toBe(false);
  });
  it("commit leaves the target's schedule on the cluster: ON REFRESH, MANUAL (null), or, for a target without one, the cluster's own", () => {
    const onRefresh = { kind: 'on_refresh', hydrationTimeEstimateMs: 3_600_000 } as const;
    const settled = (schedule: Reconfiguration['schedule'] | 'absent', current?: typeof onRefresh) => {
      const r: Reconfiguration = { ...target, ...(schedule === 'absent' ? {} : { schedule }) };
      const c = { ...cluster, spec: { ...cluster.spec, reconfiguration: r, ...(current ? { schedule: current } : {}) } } as ClusterObject;
      const w = new Workspace(new CatalogSnapshot('t', [c, old, fresh] as CatalogObject[]), NOW);
      settleReconfiguration(w, 'c1', 'commit');
      return (w.view().get('c1') as ClusterObject).spec.schedule;
    };
    expect(settled(onRefresh)).toEqual(onRefresh);
    expect(settled(null, onRefresh)).toBeUndefined();
    expect(settled('absent', onRefresh)).toEqual(onRefresh);
    expect(settled('absent')).toBeUndefined();
  });
});
