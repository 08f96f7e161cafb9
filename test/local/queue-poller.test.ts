/**
 * The local SQS event source mapping on the SQS emulator: concurrent batches keep each message
 * group in order, a failed message holds its group back until it is redelivered, and stop() does
 * not wait out a long poll — nor lose what that poll receives afterwards.
 */
import { CreateQueueCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import { QueuePoller, type QueuePollerOptions } from '../../local/queue-poller';
import { eventually, uniquePrefix } from '../helpers/pipeline';
import { budget } from '../helpers/budget';

const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: inject('sqsEndpoint') });
const logger = new Logger({ serviceName: 'queue-poller-test', logLevel: 'ERROR' });
const pollers: QueuePoller[] = [];

afterEach(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
  await Promise.all(pollers.map((p) => p.settled()));
  pollers.length = 0;
});
afterAll(() => sqs.destroy());

async function fifoQueue(visibilityTimeoutSeconds = 30): Promise<string> {
  const r = await sqs.send(
    new CreateQueueCommand({ QueueName: `${uniquePrefix('qp')}q.fifo`, Attributes: { FifoQueue: 'true', VisibilityTimeout: String(visibilityTimeoutSeconds) } }),
  );
  return r.QueueUrl!;
}

/** Sends `body` messages in their groups, in the order given, ten per request. */
async function send(queueUrl: string, messages: readonly { group: string; body: string }[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const chunk = messages.slice(i, i + 10);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: m.body, MessageGroupId: m.group, MessageDeduplicationId: m.body })),
      }),
    );
  }
}

function poller(queueUrl: string, handler: (event: SQSEvent) => Promise<SQSBatchResponse>, o: Partial<QueuePollerOptions> = {}): QueuePoller {
  const p = new QueuePoller({ sqs, queueUrl, handler, logger, functionName: 'test-executor', region: LOCAL_REGION, ...o });
  pollers.push(p);
  return p;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('queue poller', () => {
  it('runs batches concurrently, never two of one message group at once, each group in order', async () => {
    // Prepare: 6 groups of 8 messages, interleaved the way the router sends them.
    const queueUrl = await fifoQueue();
    const groups = ['a', 'b', 'c', 'd', 'e', 'f'];
    const messages = Array.from({ length: 8 }, (_, i) => groups.map((g) => ({ group: g, body: `${g}-${i}` }))).flat();
    const seen = new Map<string, number[]>();
    const busy = new Set<string>();
    const overlaps: string[] = [];
    const p = poller(
      queueUrl,
      async (event) => {
        for (const r of event.Records) {
          const group = r.attributes.MessageGroupId!;
          if (busy.has(group)) overlaps.push(r.body);
          busy.add(group);
          await tick(15); // the work an effect does
          seen.set(group, [...(seen.get(group) ?? []), Number(r.body.split('-')[1])]);
          busy.delete(group);
        }
        return { batchItemFailures: [] };
      },
      { batchSize: 2, maxConcurrency: 4 },
    );

    // Act
    await send(queueUrl, messages);
    p.start();
    await eventually(async () => [...seen.values()].reduce((n, s) => n + s.length, 0) === messages.length, 20_000);

    // Assess
    expect(overlaps).toEqual([]);
    for (const g of groups) expect(seen.get(g)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(p.peakInFlight).toBeGreaterThan(1);
    expect(p.peakInFlight).toBeLessThanOrEqual(4);
  });

  it('holds a group back behind its failed message until that message is redelivered and succeeds', async () => {
    // Prepare: a1 fails on its first delivery; b1 in another group is unaffected.
    const queueUrl = await fifoQueue(1);
    const order: string[] = [];
    let failedOnce = false;
    const p = poller(queueUrl, async (event) => {
      const failures: { itemIdentifier: string }[] = [];
      for (const r of event.Records) {
        if (r.body === 'a1' && !failedOnce) {
          failedOnce = true;
          order.push('a1 failed');
          failures.push({ itemIdentifier: r.messageId });
          continue;
        }
        order.push(r.body);
      }
      return { batchItemFailures: failures };
    });

    // Act
    await send(queueUrl, [
      { group: 'a', body: 'a1' },
      { group: 'a', body: 'a2' },
      { group: 'b', body: 'b1' },
    ]);
    p.start();
    await eventually(async () => order.includes('a2'), 10_000);

    // Assess: a2 only after a1 came back (after its 1 s visibility timeout) and succeeded.
    const a = order.filter((o) => o.startsWith('a'));
    expect(a).toEqual(['a1 failed', 'a1', 'a2']);
    expect(order).toContain('b1');
  });

  it('stops at once during a 20 s long poll, and what that poll receives afterwards goes back to the queue', async () => {
    // Prepare: a poller idle in a 20 s long poll.
    const queueUrl = await fifoQueue();
    const handled: string[] = [];
    const handler = async (event: SQSEvent) => {
      for (const r of event.Records) handled.push(r.body);
      return { batchItemFailures: [] };
    };
    const first = poller(queueUrl, handler, { waitSeconds: 20 });
    first.start();
    await eventually(async () => first.receiving === 1);

    // Act: stop while the long poll is open; then a message arrives, which the emulator hands to
    // that abandoned poll.
    const t0 = Date.now();
    await first.stop();
    const stopMs = Date.now() - t0;
    await send(queueUrl, [{ group: 'g', body: 'late' }]);
    await first.settled();
    const second = poller(queueUrl, handler);
    second.start();

    // Assess: the stop did not wait for the poll, the stopped poller handled nothing, and the
    // message was given back at once (well before its 30 s visibility timeout).
    expect(stopMs).toBeLessThan(budget(500));
    await eventually(async () => handled.includes('late'), 5_000);
    expect(first.givenBack).toBe(1);
    expect(first.invocations).toBe(0);
    expect(handled).toEqual(['late']);
  });
});
