/**
 * Admission on the local pipeline (shared/router/admission.ts): a per-tenant cap on the effects
 * in the queues, so one tenant's burst cannot starve the others; and its crash safety: an
 * executor killed mid-batch, or between a settle and the next send, leaves no effect unapplied
 * and no slot held, and the sweeper releases slots held by effects no longer pending.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import { dynamodbEndpoint } from '../helpers/endpoints';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { ADMISSION_SK, tenantPk } from '../../shared/catalog/keys';
import { FLOOR_SLACK, OutboxStore } from '../../shared/catalog/outbox-store';
import { FaultInjector } from '../../shared/dataplane/faults';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { partitionItems, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const effectsOf = async (q: Pipeline, tenant: string) => (await tenantItems(q, tenant)).filter((i) => i.type === 'effect');
const allSettled = (q: Pipeline, tenant: string) => async () => (await effectsOf(q, tenant)).every((e) => e.state !== 'pending');
const replicas = (prefix: string, n: number) => `CREATE CLUSTER ${prefix} REPLICAS (${Array.from({ length: n }, (_, i) => `r${i} (SIZE = '25cc')`).join(', ')})`;
const later = (ms: number) => new Date(Date.now() + ms);

describe('admission', () => {
  it("serves a small tenant's effects while another tenant's burst drains (deployed profile, router sending)", async () => {
    // Prepare: the stack's mapping (batches of 10, 5 invocations) with a cap of 4 effects per tenant.
    p = await testPipeline('adm-fair', { profile: 'deployed', perTenantInQueue: 4 });
    const big = await sqlClient(p);
    const small = await sqlClient(p);

    // Act: a burst of 100 effects committed first, then the small tenant's 2.
    for (let c = 0; c < 5; c++) expect((await big.sql(replicas(`b${c}`, 20))).status).toBe(200);
    expect((await small.sql(replicas('s', 2))).status).toBe(200);
    await eventually(allSettled(p, small.tenant), 600_000, 250);
    await eventually(allSettled(p, big.tenant), 900_000, 500);

    // Assess, in the history: when each effect was applied.
    const at = (effects: Record<string, any>[]) => effects.map((e) => Date.parse(e.settledAt)).sort((x, y) => x - y);
    const bigAt = at(await effectsOf(p, big.tenant));
    const smallAt = at(await effectsOf(p, small.tenant));
    expect(bigAt).toHaveLength(100);
    expect((await effectsOf(p, big.tenant)).every((e) => e.state === 'applied')).toBe(true);
    // Every small-tenant effect was applied before the burst's last 60: without the cap all 100
    // were queued ahead of them, and they were applied with the burst's last ones.
    expect(Math.max(...smallAt)).toBeLessThan(bigAt[bigAt.length - 60]!);
    // Every slot was released with its settle.
    const outbox = new OutboxStore(p.clients.doc, p.config.catalogTable);
    expect((await outbox.admitted(big.tenant)).size).toBe(0);
    expect((await outbox.admitted(small.tenant)).size).toBe(0);
  }, 1_800_000);

  it('with executors killed mid-batch and before the next send, every effect ends applied and every admission set empty', async () => {
    // Prepare
    const faults = new FaultInjector();
    p = await testPipeline('adm-crash', { faults, perTenantInQueue: 3, visibilityTimeoutSeconds: 1 });
    const { sql, tenant } = await sqlClient(p);
    const outbox = new OutboxStore(p.clients.doc, p.config.catalogTable);
    // One executor dies after the data plane call (its batch comes back), one after settling, before the next send.
    faults.crashAt('executor.after-dataplane', 1);
    faults.crashAt('executor.before-next', 1);

    // Act
    expect((await sql(replicas('c', 12))).status).toBe(200);
    await eventually(async () => faults.pendingCrashes() === 0, 120_000);
    // The crash before the next send left effects pending that nobody sends: the sweeper admits and sends them.
    for (let sweep = 1; !(await allSettled(p, tenant)()); sweep++) {
      await p.sweeper.sweep(later(sweep * RETRY_POLICIES['sweeper.replay'].capMs));
      await eventually(allSettled(p, tenant), 60_000).catch(() => undefined);
      expect(sweep).toBeLessThan(6);
    }

    // Assess
    const effects = await effectsOf(p, tenant);
    expect(effects).toHaveLength(12);
    expect(effects.every((e) => e.state === 'applied')).toBe(true);
    expect((await p.dataPlane.observe(tenant)).length).toBe(12);
    expect((await outbox.admitted(tenant)).size).toBe(0);
  }, 900_000);

  it('the sweeper releases slots held by effects no longer pending, then admits and sends what waited', async () => {
    // Prepare: the tenant's two slots held by effects that are gone (a release that never happened).
    p = await testPipeline('adm-leak', { perTenantInQueue: 2 });
    const { sql, tenant } = await sqlClient(p);
    const outbox = new OutboxStore(p.clients.doc, p.config.catalogTable);
    await p.clients.doc.send(
      new UpdateCommand({ TableName: p.config.catalogTable, Key: { pk: tenantPk(tenant), sk: ADMISSION_SK }, UpdateExpression: 'ADD ids :ids', ExpressionAttributeValues: { ':ids': new Set(['gone0000-1', 'gone0000-2']) } }),
    );

    // Act: the router cannot admit them (the tenant is at its cap); the sweeper, once they are due, can.
    expect((await sql(replicas('c', 3))).status).toBe(200);
    expect(await effectsOf(p, tenant).then((e) => e.every((x) => x.state === 'pending'))).toBe(true);
    const report = await p.sweeper.sweep(later(RETRY_POLICIES['sweeper.replay'].initialDelayMs + 1_000));
    await eventually(allSettled(p, tenant), 120_000);

    // Assess
    expect(report.slotsReleased).toBe(2);
    expect(report.replayed).toBe(2);
    expect(report.heldBack).toBe(1);
    expect((await effectsOf(p, tenant)).every((e) => e.state === 'applied')).toBe(true);
    expect((await outbox.admitted(tenant)).size).toBe(0);
  }, 600_000);
});

describe('admission refills read from the floor', () => {
  it("a refill reads from where the tenant's unadmitted effects begin, not its week of settled ones; one held back below the floor moves it down", async () => {
    // Prepare: 40 pending effects (no router, no executors), the first 30 settled by hand.
    p = await testPipeline('adm-floor', { workers: false });
    const { sql, tenant } = await sqlClient(p);
    expect((await sql(replicas('f', 40))).status).toBe(200);
    let queried = 0;
    const client = new DynamoDBClient({ endpoint: dynamodbEndpoint(), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const r = await next(args);
        if (context.commandName === 'QueryCommand') queried += ((r.output as { Items?: unknown[] }).Items ?? []).length;
        return r;
      },
      { step: 'initialize', name: 'countQueried' },
    );
    const outbox = new OutboxStore(DynamoDBDocumentClient.from(client), p.config.catalogTable);
    const effects = (await effectsOf(p, tenant)).sort((a, b) => (a.sk < b.sk ? -1 : 1)) as any[];
    expect(effects).toHaveLength(40);
    // A refill reads pages of about what it needs (limit + admitted + 10), not the whole backlog.
    expect((await outbox.unadmitted(tenant, new Set(), 1)).map((e) => e.sk)).toEqual([effects[0].sk]);
    expect(queried).toBeLessThanOrEqual(11);
    queried = 0;
    for (const e of effects.slice(0, 30)) await outbox.settle(e, 'applied', new Date());
    const skOf = (list: { sk: string }[]) => list.map((e) => e.sk);
    const floor = async () => (await partitionItems(p!, `T#${tenant}`)).find((i) => i.sk === ADMISSION_SK)?.scanFrom;

    // Act: the first refill reads the whole outbox once and leaves the floor at the first pending effect.
    const first = await outbox.unadmitted(tenant, new Set(), 5);
    const firstRead = queried;
    queried = 0;
    const again = await outbox.unadmitted(tenant, new Set(), 5);

    // Assess
    expect(skOf(first)).toEqual(skOf(effects.slice(30, 35)));
    expect(skOf(again)).toEqual(skOf(first));
    expect(await floor()).toBe(effects[30].sk);
    expect(firstRead).toBeGreaterThanOrEqual(40);
    // From the floor: the 10 pending records, none of the 30 settled ones.
    expect(queried).toBeLessThanOrEqual(10);

    // A read that takes all ten for admitted moves the floor past them...
    await outbox.unadmitted(tenant, new Set(effects.slice(30).map((e) => e.effectId)), 5);
    expect((await floor()) > effects[39].sk).toBe(true);
    expect(await outbox.unadmitted(tenant, new Set(), 5)).toEqual([]);
    // ...and one of them refused admission (the tenant at its cap) brings it back down to it.
    expect(await outbox.admit(effects[39], 1, new Date())).toBe('admitted');
    expect(await outbox.admit(effects[31], 1, new Date())).toBe('full');
    expect(await floor()).toBe(effects[31].sk);
    expect(skOf(await outbox.unadmitted(tenant, new Set(), 3))).toEqual(skOf(effects.slice(31, 34)));
    client.destroy();
  });

  it(`leaves the floor where it is while at most ${FLOOR_SLACK} records lie below the first one a refill returns: no write for them`, async () => {
    // Prepare: 12 pending effects, nothing admitted, no floor yet.
    p = await testPipeline('adm-slack', { workers: false });
    const { sql, tenant } = await sqlClient(p);
    expect((await sql(replicas('s', 12))).status).toBe(200);
    const writes: string[] = [];
    const client = new DynamoDBClient({ endpoint: dynamodbEndpoint(), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand') writes.push(context.commandName);
        return next(args);
      },
      { step: 'initialize', name: 'countWrites' },
    );
    const outbox = new OutboxStore(DynamoDBDocumentClient.from(client), p.config.catalogTable);
    const effects = (await effectsOf(p, tenant)).sort((a, b) => (a.sk < b.sk ? -1 : 1)) as any[];
    const floor = async () => (await partitionItems(p!, `T#${tenant}`)).find((i) => i.sk === ADMISSION_SK)?.scanFrom;

    // Act and assess: the first FLOOR_SLACK admitted, a refill returns the next one and writes nothing...
    const slack = new Set(effects.slice(0, FLOOR_SLACK).map((e) => e.effectId));
    expect((await outbox.unadmitted(tenant, slack, 1)).map((e) => e.sk)).toEqual([effects[FLOOR_SLACK].sk]);
    expect(writes).toEqual([]);
    expect(await floor()).toBeUndefined();
    // ...one more below it, and the floor moves up to the one returned.
    const past = new Set(effects.slice(0, FLOOR_SLACK + 1).map((e) => e.effectId));
    expect((await outbox.unadmitted(tenant, past, 1)).map((e) => e.sk)).toEqual([effects[FLOOR_SLACK + 1].sk]);
    expect(writes).toEqual(['UpdateItemCommand']);
    expect(await floor()).toBe(effects[FLOOR_SLACK + 1].sk);
    client.destroy();
  });
});
