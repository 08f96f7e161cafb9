/**
 * The outbox is the write-ahead log: effects whose queue messages were lost (never routed, queue
 * purged, SQS emulator restarted) are re-sent by the sweeper once past their replay delay.
 */
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { dataPlaneReplicas, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';

let p: Pipeline;
beforeAll(async () => {
  // Workers off: commits land in the outbox, but nothing routes or executes them yet.
  p = await testPipeline('replay', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const later = (ms: number) => new Date(Date.now() + ms);

describe('sweeper replay', () => {
  it('re-sends pending effects whose messages were lost, once per window even with two sweepers', async () => {
    // Prepare: committed effects, their queue messages lost.
    const { sql, tenant } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)")).status).toBe(200);
    await p.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: p.config.queueUrls.compute }));

    // Act: too early, nothing is due; past the delay, two sweepers race.
    const early = await p.sweeper.sweep(new Date());
    const due = later(RETRY_POLICIES['sweeper.replay'].initialDelayMs + 1_000);
    const [a, b] = await Promise.all([p.sweeper.sweep(due), p.sweeper.sweep(due)]);

    // Assess
    expect(early.replayed).toBe(0);
    expect(a.replayed + b.replayed).toBe(2);
    const effects = (await tenantItems(p, tenant)).filter((i) => i.type === 'effect');
    expect(effects.map((e) => e.replays)).toEqual([1, 1]);
    // The next window is further out (backoff), so an immediate sweep re-sends nothing.
    expect((await p.sweeper.sweep(due)).replayed).toBe(0);

    p.pollers.compute.start();
    await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 2);
    await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state === 'applied'));
    // Settled effects leave the attention index: a quiet sweep reads nothing of this tenant's.
    const quiet = await p.sweeper.sweep(later(3_600_000));
    expect(quiet).toMatchObject({ replayed: 0, itemsRead: 0 });
    expect(await p.dataPlane.actionLog(tenant)).toHaveLength(2);
  });
});
