/**
 * The executor with batches of several messages (the AWS stack's mapping takes up to 10): a
 * transient failure of one record fails that record only; the others are applied, their replica
 * statuses written together with their settle, and the failed one comes back on its own.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { routeRecord } from '../../shared/router/routing';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

const FAST = { name: 'executor.compute', initialDelayMs: 0, factor: 2, capMs: 0, budget: 3 };

let p: Pipeline;
beforeAll(async () => {
  // The router stays off: the test puts the messages on the queue itself, all at once.
  p = await testPipeline('exec-batch', { workers: false, retryPolicyOverrides: { compute: FAST }, queuePolling: { batchSize: 10, maxConcurrency: 1 } });
});
afterAll(async () => {
  await p.stop();
});

describe('executor batches', () => {
  it('a transient failure fails its own record only; the rest of the batch is applied once', async () => {
    // Prepare: three replicas (three message groups) queued together; the first data-plane call fails.
    const { sql, tenant } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 3)")).status).toBe(200);
    const effects = (await tenantItems(p, tenant)).filter((i) => i.type === 'effect');
    expect(effects).toHaveLength(3);
    const messages = effects.map((e) => routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(e) as never } })!);
    await p.clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: p.config.queueUrls.compute,
        Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: m.body, MessageGroupId: m.groupId, MessageDeduplicationId: m.deduplicationId })),
      }),
    );
    p.faults.failNext(1, 'transient', 'injected transient fault');

    // Act
    p.pollers.compute.start();

    // Assess: one invocation for the batch of three, one more for the failed record alone.
    await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state === 'applied'));
    expect(p.pollers.compute.invocations).toBe(2);
    const log = await p.dataPlane.actionLog(tenant);
    expect(log.map((l) => l.action)).toEqual(['create', 'create', 'create']);
    const statuses = await sql('SELECT status FROM mz_internal.mz_cluster_replica_statuses');
    expect(statuses.body.results[0].rows).toEqual([['online'], ['online'], ['online']]);
    const attempts = (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').map((e) => e.attempts);
    expect(attempts.sort()).toEqual([0, 0, 1]);
  });
});
