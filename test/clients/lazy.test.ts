/**
 * SDK clients loaded on first use (shared/clients/lazy.ts): the load runs once, a failed one is
 * tried again by the next call, and the lazy SQS client answers like the real one against the SQS
 * emulator (its first send, or its `prepare`, loads the client).
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazySqsClient, loadOnce } from '../../shared/clients/lazy';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startSqsEmulator, type SqsEmulator } from '../../local/emulators';
import type { CallRecorder } from '../../shared/clients/call-recorder';

describe('loadOnce', () => {
  it('loads once for concurrent and later calls', async () => {
    // Prepare
    let loads = 0;
    const get = loadOnce(async () => ++loads);

    // Act
    const answers = await Promise.all([get(), get(), get()]);
    const later = await get();

    // Assess
    expect(answers).toEqual([1, 1, 1]);
    expect(later).toBe(1);
    expect(loads).toBe(1);
  });

  it('a failed load is not kept: the next call loads again', async () => {
    // Prepare
    let loads = 0;
    const get = loadOnce(async () => {
      loads++;
      if (loads === 1) throw new Error('module not found');
      return 'client';
    });

    // Act / Assess
    await expect(get()).rejects.toThrow('module not found');
    await expect(get()).resolves.toBe('client');
    expect(loads).toBe(2);
  });
});

describe('lazySqsClient', () => {
  let sqs: SqsEmulator;
  beforeAll(async () => {
    sqs = await startSqsEmulator();
  });
  afterAll(async () => {
    await sqs?.stop();
  });

  it('prepare builds the client without sending; the first send uses that client', async () => {
    // Prepare: the recorder sees each client the factory builds (shared/clients/sqs.ts attaches it)
    const built: unknown[] = [];
    const recorder = { attach: <C>(c: C) => (built.push(c), c) } as unknown as CallRecorder;
    const lazy = lazySqsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoints: { sqs: sqs.endpoint }, recorder });

    // Act
    lazy.prepare!();
    await expect.poll(() => built.length).toBe(1);
    const created = await lazy.send(new CreateQueueCommand({ QueueName: 'lazy-prepared.fifo', Attributes: { FifoQueue: 'true' } }));

    // Assess
    expect(created.QueueUrl).toContain('lazy-prepared.fifo');
    expect(built).toHaveLength(1);
  });

  it('sends commands built from the runtime package like an SQSClient', async () => {
    // Prepare
    const lazy = lazySqsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoints: { sqs: sqs.endpoint } });

    // Act
    const created = await lazy.send(new CreateQueueCommand({ QueueName: 'lazy-test.fifo', Attributes: { FifoQueue: 'true' } }));
    const attributes = await lazy.send(new GetQueueAttributesCommand({ QueueUrl: created.QueueUrl!, AttributeNames: ['FifoQueue'] }));

    // Assess
    expect(attributes.Attributes?.FifoQueue).toBe('true');
    const real = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: sqs.endpoint });
    expect((await real.send(new GetQueueAttributesCommand({ QueueUrl: created.QueueUrl!, AttributeNames: ['FifoQueue'] }))).Attributes?.FifoQueue).toBe('true');
    real.destroy();
  });
});
