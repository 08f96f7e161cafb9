/**
 * Effect delivery semantics on the real queues: duplicates, reordering, poison messages and the
 * DLQ, terminal errors on the object's status.
 */
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { OutboxStore } from '../../shared/catalog/outbox-store';
import { redriveDeadLetters } from '../../shared/router/redrive';
import { routeRecord } from '../../shared/router/routing';
import { dataPlaneReplicas, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

const FAST = { name: 'executor.compute', initialDelayMs: 0, factor: 2, capMs: 0, budget: 3 };

let p: Pipeline;
beforeAll(async () => {
  // The router stays off: the tests deliver effect messages themselves, in the order they choose.
  p = await testPipeline('effects', { workers: false, retryPolicyOverrides: { compute: FAST } });
  p.pollers.compute.start();
});
afterAll(async () => {
  await p.stop();
});

async function effects(tenant: string) {
  return (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').sort((a, b) => (a.sk < b.sk ? -1 : 1));
}

let dedup = 0;
async function deliver(effect: Record<string, unknown>): Promise<void> {
  const m = routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(effect) as never } })!;
  await p.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: p.config.queueUrls.compute, MessageBody: m.body, MessageGroupId: m.groupId, MessageDeduplicationId: `${m.deduplicationId}:${++dedup}` }),
  );
}

describe('delivery', () => {
  it('the same effect delivered three times makes one real change', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc')");
    const [effect] = await effects(tenant);

    for (let i = 0; i < 3; i++) await deliver(effect!);

    await eventually(async () => (await effects(tenant))[0]!.state === 'applied');
    // All three deliveries were consumed (the queue drains), yet the data plane changed once.
    await eventually(async () => {
      const a = await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.config.queueUrls.compute, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      return a.Attributes?.ApproximateNumberOfMessages === '0' && a.Attributes?.ApproximateNumberOfMessagesNotVisible === '0';
    });
    expect(await p.dataPlane.actionLog(tenant)).toHaveLength(1);
  });

  it('a drop delivered before the matching create leaves the object absent', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER u REPLICAS (r1 (SIZE = '25cc'))");
    await sql('DROP CLUSTER REPLICA u.r1');
    const [create, drop] = await effects(tenant);
    expect([create!.intent, drop!.intent]).toEqual(['ensure', 'drop']);

    await deliver(drop!);
    await eventually(async () => (await effects(tenant))[1]!.state !== 'pending');
    await deliver(create!);
    await eventually(async () => (await effects(tenant))[0]!.state !== 'pending');

    const [c, d] = await effects(tenant);
    expect(d!.state).toBe('applied');
    expect(c!.state).toBe('superseded');
    expect(await dataPlaneReplicas(p, tenant)).toEqual([]);
    expect(await p.dataPlane.actionLog(tenant)).toEqual([]);
  });
});

describe('failures', () => {
  it('a poison effect lands in the DLQ after its budget, shows in mz_pending_effects, and redrive applies it once fixed', async () => {
    const { sql, tenant } = await sqlClient(p);
    p.faults.failNext(FAST.budget, 'transient', 'replica quota exceeded in us-east-1a');
    await sql("CREATE CLUSTER c (SIZE = '25cc')");
    const [effect] = await effects(tenant);
    await deliver(effect!);

    await eventually(async () => {
      const a = await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.dlqUrls.compute, AttributeNames: ['ApproximateNumberOfMessages'] }));
      return a.Attributes?.ApproximateNumberOfMessages === '1';
    }, 15_000);
    const pending = await sql('SELECT state, attempts, last_error, dead_lettered FROM mz_internal.mz_pending_effects');
    expect(pending.body.results[0].rows).toEqual([
      ['pending', String(FAST.budget), `replica quota exceeded in us-east-1a (retry budget of ${FAST.budget} attempts spent; moved to the dead-letter queue)`, true],
    ]);
    expect(await dataPlaneReplicas(p, tenant)).toEqual([]);

    expect(await p.redrive('compute')).toBe(1);
    await eventually(async () => (await effects(tenant))[0]!.state === 'applied');
    expect(await dataPlaneReplicas(p, tenant)).toHaveLength(1);
    expect((await sql('SELECT * FROM mz_internal.mz_pending_effects')).body.results[0].rows).toEqual([]);
  });

  it('redrive skips and reports a malformed DLQ message, moves the others, and leaves the malformed one in the DLQ', async () => {
    const { sql, tenant } = await sqlClient(p);
    p.faults.failNext(FAST.budget, 'transient', 'replica quota exceeded in us-east-1a');
    await sql("CREATE CLUSTER c (SIZE = '25cc')");
    const [effect] = await effects(tenant);
    const dlqDepth = async () =>
      (await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.dlqUrls.compute, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes?.ApproximateNumberOfMessages;
    // Malformed messages first, so a redrive that stops at one never reaches the good one.
    for (const [i, body] of ['{not json', JSON.stringify({ tenant, objectId: 'x' })].entries()) {
      await p.clients.sqs.send(new SendMessageCommand({ QueueUrl: p.dlqUrls.compute, MessageBody: body, MessageGroupId: `junk/${i}`, MessageDeduplicationId: `junk-${i}-${Date.now()}` }));
    }
    await deliver(effect!);
    await eventually(async () => (await dlqDepth()) === '3', 15_000);

    const report = await redriveDeadLetters({ sqs: p.clients.sqs, outbox: new OutboxStore(p.clients.doc, p.config.catalogTable), dlqUrl: p.dlqUrls.compute, queueUrl: p.config.queueUrls.compute });

    expect(report.moved).toBe(1);
    expect(report.skipped.map((s) => s.reason)).toEqual(['the body is not JSON: "{not json"', 'not an effect message: no sk, effectId']);
    expect(report.skipped.every((s) => s.messageId.length > 0)).toBe(true);
    await eventually(async () => (await effects(tenant))[0]!.state === 'applied');
    // The malformed messages are back in view in the DLQ at once, for a person to read.
    expect(await dlqDepth()).toBe('2');
  });

  it('a terminal data-plane error fails the effect and shows on the replica’s status', async () => {
    const { sql, tenant } = await sqlClient(p);
    p.faults.failNext(1, 'terminal', 'size 25cc is not offered in this region');
    await sql("CREATE CLUSTER c (SIZE = '25cc')");
    const [effect] = await effects(tenant);
    await deliver(effect!);

    await eventually(async () => (await effects(tenant))[0]!.state === 'failed');
    const statuses = await sql('SELECT status, reason FROM mz_internal.mz_cluster_replica_statuses');
    expect(statuses.body.results[0].rows).toEqual([['offline', 'size 25cc is not offered in this region']]);
    const pending = await sql('SELECT state, last_error FROM mz_internal.mz_pending_effects');
    expect(pending.body.results[0].rows).toEqual([['failed', 'size 25cc is not offered in this region']]);
  });
});
