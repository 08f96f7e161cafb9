/**
 * The full pass: orphans collected through the outbox after the grace period, untagged
 * resources reported and never touched, missing resources re-driven, read policies repaired,
 * and a pass that two sweepers start at once runs once.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Pipeline } from '../../local/pipeline';
import { tableStores } from '../../shared/catalog/stores';
import { FullPass } from '../../shared/sweeper/full-pass';
import { dataPlaneReplicas, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('gc');
});
afterAll(async () => {
  await p.stop();
});

const minutes = (n: number) => new Date(Date.now() + n * 60_000);
let hour = 0;
/** Each call is a sweep far enough in the future for the (hourly) full pass to be due again. */
const dueSweep = () => p.sweeper.sweep(minutes(61 * ++hour));

async function settled(tenant: string) {
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
}

describe('full pass', () => {
  it('collects the orphan a half-finished DROP left, after the grace period, through the outbox', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");
    await settled(tenant);
    const [victim] = await dataPlaneReplicas(p, tenant);
    // The catalog says dropped, but the drop's effect never ran (lost with its process).
    await p.clients.doc.send(
      new UpdateCommand({ TableName: p.config.catalogTable, Key: { pk: `T#${tenant}`, sk: `OBJ#${victim!.resourceId}` }, UpdateExpression: 'SET dropped = :t, generation = generation + :one', ExpressionAttributeValues: { ':t': true, ':one': 1 } }),
    );
    const costBefore = (await p.dataPlane.replicaSeconds(tenant)).byReplica[victim!.resourceId]!;
    expect(costBefore).toBeGreaterThanOrEqual(0);

    // Within the grace period (5 minutes) it is left alone: a create may be in flight.
    const early = await p.sweeper.sweep(new Date(Date.parse(victim!.createdAt) + 60_000));
    expect(early.full).toMatchObject({ ran: true, orphans: 0 });
    expect(await dataPlaneReplicas(p, tenant)).toHaveLength(2);
    const report = (await dueSweep()).full!;
    expect(report.orphans).toBe(1);
    const gc = (await tenantItems(p, tenant)).filter((i) => i.type === 'txn' && i.principal === 'system:sweeper');
    expect(gc).toHaveLength(1);
    expect(gc[0]!.statements[0]).toMatch(/^-- sweeper: collect orphan compute\.replica of r\d/);
    await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 1);
  });

  it('removes an orphan whose owner left the catalog entirely (its tombstone expired), and writes no effect for it again', async () => {
    // Prepare: the replica's object is gone, not even a tombstone (its TTL expired before the drop ran).
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 1)");
    await settled(tenant);
    const [victim] = await dataPlaneReplicas(p, tenant);
    await p.clients.doc.send(new DeleteCommand({ TableName: p.config.catalogTable, Key: { pk: `T#${tenant}`, sk: `OBJ#${victim!.resourceId}` } }));
    const sweeperTxns = async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'txn' && i.principal === 'system:sweeper').length;

    // Act
    await dueSweep();
    await settled(tenant);
    await dueSweep();

    // Assess
    expect(await dataPlaneReplicas(p, tenant)).toEqual([]);
    expect(await sweeperTxns()).toBe(1);
  });

  it('removes a secret value whose request failed at its commit, after the grace period, and never a live one', async () => {
    // Prepare: the value is put before the commit; this commit then fails (an item over 400 KB: 54000).
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE SECRET live AS 'kept'");
    const failed = await sql(`CREATE SECRET lost AS 'orphaned'; CREATE CONNECTION k TO KAFKA (BROKER '${'b'.repeat(420_000)}') WITH (VALIDATE = false)`);
    expect(failed.body.results.at(-1).error.code).toBe('54000');
    const liveId = (await sql("SELECT id FROM mz_secrets WHERE name = 'live'")).body.results[0].rows[0][0];
    const stored = await p.secrets.list(tenant);
    expect(stored.map((s) => s.secretId).sort()).toHaveLength(2);
    const lostId = stored.find((s) => s.secretId !== liveId)!.secretId;

    // Act: the tenant's diff within the grace period (five minutes), then after it.
    const pass = new FullPass({ ...tableStores(p.clients.doc, p.config.catalogTable), dataPlane: p.dataPlane, secrets: p.secrets, logger: new Logger({ logLevel: 'SILENT' }) });
    const early = await pass.repairTenant(tenant, minutes(1));
    const afterEarly = (await p.secrets.list(tenant)).map((s) => s.secretId).sort();
    const late = await pass.repairTenant(tenant, minutes(6));

    // Assess
    expect([early.secretsCollected, late.secretsCollected]).toEqual([0, 1]);
    expect(afterEarly).toEqual([liveId, lostId].sort());
    expect((await p.secrets.list(tenant)).map((s) => s.secretId)).toEqual([liveId]);
    expect(await p.secrets.get(tenant, liveId, 1)).toBe('kept');
  });

  it('leaves a resource without our owner tag alone and reports it', async () => {
    const { tenant } = await sqlClient(p);
    await p.dataPlane.putForeignResource(tenant, 'replica', 'hand-made', { size: '25cc' });
    const r = await dueSweep();
    expect(r.full?.untagged).toContainEqual({ tenant, kind: 'replica', resourceId: 'hand-made' });
    expect((await p.dataPlane.observe(tenant)).map((x) => x.resourceId)).toEqual(['hand-made']);
  });

  it('re-drives a missing resource and repairs a missing read policy', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE TABLE t (a int); CREATE TABLE u (a int)");
    await settled(tenant);
    const ids = Object.fromEntries((await sql('SELECT name, id FROM mz_tables')).body.results[0].rows);
    // Someone deleted t's collection out of band, and u's lost its read policy.
    await p.clients.doc.send(new DeleteCommand({ TableName: p.config.dataPlaneTable!, Key: { pk: `RES#${tenant}`, sk: `collection#${ids.t}` } }));
    const key = { pk: `RES#${tenant}`, sk: `collection#${ids.u}` };
    const u = (await p.clients.doc.send(new GetCommand({ TableName: p.config.dataPlaneTable!, Key: key }))).Item!;
    delete u.readPolicy;
    await p.clients.doc.send(new PutCommand({ TableName: p.config.dataPlaneTable!, Item: u }));

    const r = await dueSweep();
    expect(r.full).toMatchObject({ missing: 1, readPoliciesRepaired: 1 });
    await eventually(async () => (await p.dataPlane.observe(tenant)).some((x) => x.resourceId === ids.t && x.readPolicy));
    expect((await p.dataPlane.observe(tenant)).find((x) => x.resourceId === ids.u)?.readPolicy).toEqual({ kind: 'lag', lagMs: 1000 });
  });

  it('runs once when two sweepers start it together, and is skipped until due again', async () => {
    const at = minutes(61 * ++hour);
    const [a, b] = await Promise.all([p.sweeper.sweep(at), p.sweeper.sweep(at)]);
    expect([a.full?.ran, b.full?.ran].filter(Boolean)).toHaveLength(1);
    const quiet = await p.sweeper.sweep(new Date(at.getTime() + 60_000));
    expect(quiet.full).toMatchObject({ ran: false, itemsRead: 1 });
  });
});
