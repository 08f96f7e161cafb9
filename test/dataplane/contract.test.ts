/**
 * One behavioural suite for the controller contract, run against the reference data plane
 * directly and against the HTTP client → local server → reference data plane. Both must behave
 * the same: the HTTP layer adds transport, never semantics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDataPlaneServer } from '../../local/dataplane-server';
import { RESOURCE_KINDS, type DataPlane, type ResourceKind } from '../../shared/dataplane/contract';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import type { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { DataPlaneError } from '../../shared/errors';
import { FAST_POLICY, newTenant, owner, referenceDataPlane, SPECS } from './fixtures';

interface Target {
  readonly dp: DataPlane;
  stop(): Promise<void>;
}

const TARGETS: [string, (ref: ReferenceDataPlane) => Promise<Target>][] = [
  ['ReferenceDataPlane', async (ref) => ({ dp: ref, stop: async () => undefined })],
  [
    'HttpDataPlane → dataplane-server → ReferenceDataPlane',
    async (ref) => {
      const server = await startDataPlaneServer({ dataPlane: ref, port: 0, token: 'contract-token' });
      return { dp: new HttpDataPlane(server.url, { token: 'contract-token', policy: FAST_POLICY }), stop: server.stop };
    },
  ],
];

describe.each(TARGETS)('controller contract: %s', (_name, connect) => {
  let ref: ReferenceDataPlane;
  let dp: DataPlane;
  let target: Target;

  beforeAll(async () => {
    ref = await referenceDataPlane('contract');
    target = await connect(ref);
    dp = target.dp;
  });
  afterAll(async () => {
    await target.stop();
  });

  async function log(tenant: string, resourceId: string) {
    return (await ref.actionLog(tenant)).filter((e) => e.resourceId === resourceId).map((e) => `${e.action}@${e.generation}`);
  }

  it('ensure creates the resource once, with its owner tag', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');

    // Act
    const result = await dp.ensure('replica', o, 1, SPECS.replica);

    // Assess
    expect(result).toEqual({ changed: true, heldGeneration: 1 });
    expect(await log(tenant, o.objectId)).toEqual(['create@1']);
    const [observed, ...rest] = await dp.observe(tenant);
    expect(rest).toEqual([]);
    expect(observed).toMatchObject({ tenant, kind: 'replica', resourceId: o.objectId, owner: o, managedBy: 'ddl-control-plane', generation: 1, health: 'healthy', spec: SPECS.replica });
  });

  it('a repeated ensure at the same generation is a no-op', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');
    await dp.ensure('replica', o, 1, SPECS.replica);

    // Act
    const again = await dp.ensure('replica', o, 1, SPECS.replica);

    // Assess
    expect(again).toEqual({ changed: false, heldGeneration: 1 });
    expect(await log(tenant, o.objectId)).toEqual(['create@1']);
  });

  it('concurrent ensures of one generation make one real change', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');

    // Act
    const results = await Promise.all(Array.from({ length: 5 }, () => dp.ensure('replica', o, 1, SPECS.replica)));

    // Assess
    expect(results.every((r) => r.heldGeneration === 1)).toBe(true);
    expect(await log(tenant, o.objectId)).toEqual(['create@1']);
  });

  it('a newer generation updates the resource', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');
    await dp.ensure('replica', o, 1, SPECS.replica);

    // Act
    const result = await dp.ensure('replica', o, 2, { ...SPECS.replica, size: '50cc' });

    // Assess
    expect(result).toEqual({ changed: true, heldGeneration: 2 });
    expect(await log(tenant, o.objectId)).toEqual(['create@1', 'update@2']);
    expect((await dp.observe(tenant))[0]).toMatchObject({ generation: 2, spec: { size: '50cc' } });
  });

  it('an older generation is a no-op that reports the generation held', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');
    await dp.ensure('replica', o, 2, { ...SPECS.replica, size: '50cc' });

    // Act
    const stale = await dp.ensure('replica', o, 1, SPECS.replica);

    // Assess
    expect(stale).toEqual({ changed: false, heldGeneration: 2 });
    expect(await log(tenant, o.objectId)).toEqual(['create@2']);
    expect((await dp.observe(tenant))[0]).toMatchObject({ generation: 2, spec: { size: '50cc' } });
  });

  it('a drop removes the resource, and an older ensure cannot bring it back', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');
    await dp.ensure('replica', o, 1, SPECS.replica);

    // Act
    const dropped = await dp.drop('replica', o, 2);
    const late = await dp.ensure('replica', o, 1, SPECS.replica);

    // Assess
    expect(dropped).toEqual({ changed: true, heldGeneration: 2 });
    expect(late).toEqual({ changed: false, heldGeneration: 2 });
    expect(await dp.observe(tenant)).toEqual([]);
    expect(await log(tenant, o.objectId)).toEqual(['create@1', 'drop@2']);
  });

  it('a drop before the create leaves a fenced tombstone: the late, older create stays absent', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');

    // Act
    const dropped = await dp.drop('replica', o, 2);
    const again = await dp.drop('replica', o, 2);
    const late = await dp.ensure('replica', o, 1, SPECS.replica);

    // Assess
    expect(dropped).toEqual({ changed: false, heldGeneration: 2 });
    expect(again).toEqual({ changed: false, heldGeneration: 2 });
    expect(late).toEqual({ changed: false, heldGeneration: 2 });
    expect(await dp.observe(tenant)).toEqual([]);
    expect(await log(tenant, o.objectId)).toEqual([]);
  });

  it('a newer ensure after a drop recreates the resource', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'replica');
    await dp.drop('replica', o, 2);

    // Act
    const result = await dp.ensure('replica', o, 3, SPECS.replica);

    // Assess
    expect(result).toEqual({ changed: true, heldGeneration: 3 });
    expect(await log(tenant, o.objectId)).toEqual(['create@3']);
  });

  it('a collection carries its read policy from creation, in the same change', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'collection');

    // Act
    await dp.ensure('collection', o, 1, { objectKind: 'source', readPolicy: { kind: 'lag', lagMs: 5_000 } });

    // Assess
    expect((await dp.observe(tenant))[0]).toMatchObject({ kind: 'collection', readPolicy: { kind: 'lag', lagMs: 5_000 } });
    expect(await log(tenant, o.objectId)).toEqual(['create@1']);
  });

  it('setReadPolicy repairs a collection found without one, once', async () => {
    // Prepare: a collection that lost its policy (made before policies travelled with creation)
    const tenant = newTenant();
    const o = owner(tenant, 'collection');
    await ref.ensure('collection', o, 1, { objectKind: 'source' } as never);
    expect((await dp.observe(tenant))[0]?.readPolicy).toBeUndefined();

    // Act
    const repaired = await dp.setReadPolicy(o, 1, { kind: 'lag', lagMs: 1_000 });
    const again = await dp.setReadPolicy(o, 1, { kind: 'lag', lagMs: 1_000 });

    // Assess
    expect(repaired).toEqual({ changed: true, heldGeneration: 1 });
    expect(again).toEqual({ changed: false, heldGeneration: 1 });
    expect((await dp.observe(tenant))[0]?.readPolicy).toEqual({ kind: 'lag', lagMs: 1_000 });
    expect(await log(tenant, o.objectId)).toEqual(['create@1', 'set_read_policy@1']);
  });

  it('setReadPolicy from an older generation changes nothing', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'collection');
    await dp.ensure('collection', o, 3, SPECS.collection);

    // Act
    const stale = await dp.setReadPolicy(o, 2, { kind: 'lag', lagMs: 60_000 });

    // Assess
    expect(stale).toEqual({ changed: false, heldGeneration: 3 });
    expect((await dp.observe(tenant))[0]?.readPolicy).toEqual(SPECS.collection.readPolicy);
  });

  it('setReadPolicy on a collection that does not exist is a terminal error', async () => {
    // Prepare
    const tenant = newTenant();

    // Act
    const err = await dp.setReadPolicy(owner(tenant, 'collection'), 1, { kind: 'lag', lagMs: 1_000 }).catch((e: unknown) => e);

    // Assess
    expect(err).toBeInstanceOf(DataPlaneError);
    expect((err as DataPlaneError).transient).toBe(false);
    expect((err as DataPlaneError).message).toMatch(/does not exist/);
  });

  it.each(RESOURCE_KINDS.map((k) => [k]))('round-trips a %s spec through ensure and observe', async (kind: ResourceKind) => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, kind);

    // Act
    await dp.ensure(kind, o, 1, SPECS[kind]);

    // Assess
    const [observed] = await dp.observe(tenant);
    expect(observed).toMatchObject({ kind, resourceId: o.objectId, owner: o, spec: SPECS[kind] });
  });

  it('observe lists present resources with their owner, untagged ones without, and only the tenant’s', async () => {
    // Prepare
    const tenant = newTenant();
    const other = newTenant();
    const kept = owner(tenant, 'replica');
    const gone = owner(tenant, 'replica');
    await dp.ensure('replica', kept, 1, SPECS.replica);
    await dp.ensure('replica', gone, 1, SPECS.replica);
    await dp.drop('replica', gone, 2);
    await dp.ensure('replica', owner(other, 'replica'), 1, SPECS.replica);
    await ref.putForeignResource(tenant, 'replica', 'hand-made', { size: 'xl' });

    // Act
    const observed = await dp.observe(tenant);

    // Assess
    const byId = new Map(observed.map((r) => [r.resourceId, r]));
    expect([...byId.keys()].sort()).toEqual([kept.objectId, 'hand-made'].sort());
    expect(byId.get(kept.objectId)).toMatchObject({ owner: kept, managedBy: 'ddl-control-plane' });
    const foreign = byId.get('hand-made')!;
    expect(foreign.owner).toBeUndefined();
    expect(foreign.managedBy).toBeUndefined();
    expect(foreign).toMatchObject({ tenant, kind: 'replica', spec: { size: 'xl' } });
  });

  it('observe reports a connector’s namespaced error and whether it is fatal', async () => {
    // Prepare
    const tenant = newTenant();
    const o = owner(tenant, 'ingestion');
    await dp.ensure('ingestion', o, 1, SPECS.ingestion);
    await ref.setHealth(tenant, 'ingestion', o.objectId, { healthy: false, error: 'postgres: publication "mz_source" does not exist', fatal: true });

    // Act
    const [observed] = await dp.observe(tenant);

    // Assess
    expect(observed).toMatchObject({ health: 'unhealthy', lastError: 'postgres: publication "mz_source" does not exist', errorIsFatal: true });
  });

  it('observe of a tenant with nothing is empty', async () => {
    expect(await dp.observe(newTenant())).toEqual([]);
  });
});
