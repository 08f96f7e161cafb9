/**
 * FIFO message groups in the executor: five effect messages in one group, the first one failing
 * until its retry budget is spent. The messages behind it must come back with it (same delay, not
 * after the queue's visibility timeout), and none of them may reach the DLQ without having been
 * attempted: once the first one is on its way to the DLQ, the rest are applied.
 *
 * Lambda hands a FIFO group's messages to one invocation together, each receive counting toward
 * maxReceiveCount. The emulator's FIFO queues hand out one message per group at a time, so the
 * test plays the event source mapping itself on an emulator queue with a redrive policy: each
 * round receives the whole group (real receipt handles, receive counts, visibility and DLQ moves),
 * passes it in send order with its group id to the real executor handler, and deletes what it
 * reports as done, as the mapping does.
 */
import { DeleteMessageBatchCommand, CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, type Message } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { lambdaContext } from '../../local/lambda-context';
import type { SqsHandler } from '../../shared/executor/handler';
import { executorHandler } from '../../shared/lambda/executor';
import { makeLogger } from '../../shared/lambda/logger';
import { routeRecord } from '../../shared/router/routing';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

/** One second between attempts, three receives before the DLQ. */
const POLICY = { name: 'executor.compute', initialDelayMs: 1_000, factor: 1, capMs: 1_000, budget: 3 };
/** Far longer than the test waits for a redelivery: a message left at it would not come back in time. */
const VISIBILITY_TIMEOUT_SECONDS = 120;
const GROUP = 'one-group';

let p: Pipeline;
let handler: SqsHandler;
let queueUrl: string;
let dlqUrl: string;

beforeAll(async () => {
  p = await testPipeline('exec-fifo-group', { workers: false });
  const prefix = `t-fifo-group-${Date.now()}`;
  dlqUrl = (await p.clients.sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-dlq` }))).QueueUrl!;
  const dlqArn = (await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  queueUrl = (
    await p.clients.sqs.send(
      new CreateQueueCommand({
        QueueName: prefix,
        Attributes: {
          VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: POLICY.budget }),
        },
      }),
    )
  ).QueueUrl!;
  handler = executorHandler({
    config: { ...p.config, queueUrls: { ...p.config.queueUrls, compute: queueUrl } },
    clients: p.clients,
    controller: 'compute',
    logger: makeLogger('executor-compute'),
    faults: p.faults,
    dataPlane: p.dataPlane,
    policy: POLICY,
  });
});
afterAll(async () => {
  await p.stop();
});

function record(m: Message): SQSRecord {
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body!,
    attributes: { ApproximateReceiveCount: m.Attributes!.ApproximateReceiveCount!, MessageGroupId: GROUP } as SQSRecord['attributes'],
    messageAttributes: {},
    md5OfBody: m.MD5OfBody!,
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test.fifo',
    awsRegion: 'us-east-1',
  };
}

/**
 * The next delivery of the group: the first receive that brings something back, plus what becomes
 * visible within a second after it (`expected` messages at most), as one batch. Messages left at
 * the queue's visibility timeout would not come back in time.
 */
async function delivery(expected: number): Promise<Message[]> {
  const got = await eventually(async () => {
    const r = await receiveAll(queueUrl);
    return r.length ? r : undefined;
  }, 20_000);
  if (got.length < expected) got.push(...(await receiveAll(queueUrl)));
  return got;
}

async function receiveAll(url: string): Promise<Message[]> {
  const r = await p.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }));
  return r.Messages ?? [];
}

/** One invocation of the mapping on `messages` (in send order); returns the ids it reported as failed. */
async function invoke(messages: Message[], order: readonly string[]): Promise<string[]> {
  const sorted = [...messages].sort((a, b) => order.indexOf(a.MessageAttributes!.effect!.StringValue!) - order.indexOf(b.MessageAttributes!.effect!.StringValue!));
  const event: SQSEvent = { Records: sorted.map(record) };
  const response = await handler(event, lambdaContext('executor-compute'));
  const failed = response.batchItemFailures.map((f) => f.itemIdentifier);
  const done = sorted.filter((m) => !failed.includes(m.MessageId!));
  if (done.length) await p.clients.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
  return sorted.filter((m) => failed.includes(m.MessageId!)).map((m) => m.MessageAttributes!.effect!.StringValue!);
}

describe('executor, a FIFO group behind a failing message', () => {
  it('delays the messages behind a failed one like it, and applies them once it is given up: none reaches the DLQ unattempted', async () => {
    // Prepare: five effects queued in one message group; the first one's data plane call fails every time.
    const { sql, tenant } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 5)")).status).toBe(200);
    const effects = (await tenantItems(p, tenant)).filter((i) => i.type === 'effect');
    expect(effects).toHaveLength(5);
    const messages = effects.map((e) => ({ effectSk: String(e.sk), ...routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(e) as never } })! }));
    const order = messages.map((m) => m.effectSk);
    await p.clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((m, i) => ({ Id: String(i), MessageBody: m.body, MessageAttributes: { effect: { DataType: 'String', StringValue: m.effectSk } } })),
      }),
    );
    p.faults.failNext(POLICY.budget, 'transient', 'injected transient fault');

    const attempts = async () => {
      const byEffect = new Map((await tenantItems(p, tenant)).filter((i) => i.type === 'effect').map((e) => [String(e.sk), e]));
      return order.map((sk) => ({ state: byEffect.get(sk)!.state, attempts: byEffect.get(sk)!.attempts, deadLettered: byEffect.get(sk)!.deadLettered === true }));
    };

    // Act + Assess, receive by receive. 1: the first fails; the four behind it are not attempted.
    const r1 = await delivery(5);
    expect(r1.map((m) => m.Attributes!.ApproximateReceiveCount)).toEqual(['1', '1', '1', '1', '1']);
    expect(await invoke(r1, order)).toEqual(order);
    expect((await attempts()).map((e) => e.attempts)).toEqual([1, 0, 0, 0, 0]);

    // 2: the whole group is back after the first one's one-second delay, not after the visibility timeout.
    const r2 = await delivery(5);
    expect(r2.map((m) => m.Attributes!.ApproximateReceiveCount)).toEqual(['2', '2', '2', '2', '2']);
    expect(await invoke(r2, order)).toEqual(order);

    // 3: the first one's last receive: it fails again and is dead-lettered; the four behind it are applied now.
    const r3 = await delivery(5);
    expect(await invoke(r3, order)).toEqual([order[0]]);
    expect(await attempts()).toEqual([
      { state: 'pending', attempts: 3, deadLettered: true },
      ...order.slice(1).map(() => ({ state: 'applied', attempts: 0, deadLettered: false })),
    ]);

    // The DLQ holds the first one alone: every message in it was attempted its full budget.
    const dead = await eventually(async () => {
      expect(await receiveAll(queueUrl)).toEqual([]);
      const got = await receiveAll(dlqUrl);
      return got.length ? got : undefined;
    }, 20_000);
    const rest = await receiveAll(dlqUrl);
    expect([...dead, ...rest].map((m) => m.MessageAttributes!.effect!.StringValue)).toEqual([order[0]]);
  });
});
