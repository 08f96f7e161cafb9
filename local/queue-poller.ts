/**
 * An SQS event source mapping, locally, run the way Lambda runs one on a FIFO queue: several
 * invocations in flight at once (up to `maxConcurrency`), each handed one ReceiveMessage batch in
 * Lambda's SQS event shape. It deletes what succeeded and leaves `batchItemFailures` (and the
 * whole batch when the invocation fails) to come back after their visibility timeout.
 *
 * Scaling follows the message groups, as Lambda's does for FIFO queues: one loop long-polls
 * while the queue is idle; whenever a loop takes a batch and no other loop is left receiving, a
 * new loop starts (up to `maxConcurrency`), and a loop whose receive comes back empty ends when
 * another one is receiving already. Order within a message group holds because a FIFO queue hands out no
 * message of a group while an earlier one of that group is in flight — so two concurrent batches
 * never hold the same group (test/local/queue-poller.test.ts checks it on the emulator).
 *
 * `stop()` is prompt: it waits for the invocations in flight, never for an idle long poll. A
 * receive still open when the poller stops is left to finish on its own, and whatever it brings
 * back is made visible again at once (ChangeMessageVisibility 0: the message goes back to the
 * head of its group). Aborting the request instead would lose those messages for a visibility
 * timeout: the emulator cannot cancel a long poll and would still hand them to the dead request.
 * `settled()` waits for such receives (at most `waitSeconds`); the pipeline calls it before it
 * destroys the SQS client.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { SqsHandler } from '../shared/executor/handler';
import { lambdaContext } from './lambda-context';

export interface QueuePollerOptions {
  /** The function's timeout as its Lambda context reports it (local/profiles.ts). */
  readonly functionTimeoutMs?: number;
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly handler: SqsHandler;
  readonly logger: Logger;
  readonly functionName: string;
  readonly region: string;
  /** Messages per invocation: the mapping's BatchSize (1 to 10 on a FIFO queue). */
  readonly batchSize?: number;
  /** Most invocations in flight at once: the mapping's MaximumConcurrency. */
  readonly maxConcurrency?: number;
  /** Long-poll wait of each receive, in seconds (0 to 20; default 1, which bounds `settled()`). */
  readonly waitSeconds?: number;
}

/**
 * The local mappings' defaults. One message per invocation and up to 32 in flight: with the
 * emulator handing out at most one message per group at a time, concurrency then follows the
 * active message groups, as Lambda's FIFO scaling does. (The AWS stack's mapping takes batches of
 * 10 with at most 5 in flight, to bound the load on the data plane; `queuePolling` sets either.)
 */
export const QUEUE_POLLER_DEFAULTS = { batchSize: 1, maxConcurrency: 32, waitSeconds: 1 } as const;

/** What a receive answers when the poller stopped before the queue did. */
const STOPPED = Symbol('stopped');

export class QueuePoller {
  private running = false;
  /** Bumped on every start: loops of an earlier run end even when the poller was restarted meanwhile. */
  private run = 0;
  /** Called by stop(): wakes loops waiting on a receive or a backoff. */
  private readonly onStop = new Set<() => void>();
  private queueArn: Promise<string> | undefined;
  /** Loops alive, and those of them inside a ReceiveMessage now. */
  private loops = 0;
  private receivers = 0;
  private readonly alive = new Set<Promise<void>>();
  /** Receives not yet answered (including those left behind by a stop), until what they brought back is handled. */
  private readonly open = new Set<Promise<unknown>>();
  /** Invocations started (including redeliveries), for tests. */
  invocations = 0;
  /** Time spent inside the handler, summed over invocations (the benchmark's GB-seconds). */
  busyMs = 0;
  /** Invocations running now, and the most seen at once. */
  inFlight = 0;
  peakInFlight = 0;
  /** Messages a receive brought back after the poller had stopped, given back to the queue. */
  givenBack = 0;

  constructor(private readonly o: QueuePollerOptions) {}

  /** Loops inside a ReceiveMessage now (one while the queue is idle). */
  get receiving(): number {
    return this.receivers;
  }

  private get maxConcurrency(): number {
    return Math.max(1, this.o.maxConcurrency ?? QUEUE_POLLER_DEFAULTS.maxConcurrency);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.run++;
    this.spawn(this.run);
  }

  /** Stops receiving; resolves when the invocations in flight have finished (an idle long poll is not waited for). */
  async stop(): Promise<void> {
    this.running = false;
    for (const wake of [...this.onStop]) wake();
    await Promise.all(this.alive);
  }

  /** Resolves when no receive is open any more and what receives left behind by a stop brought back has been given back. */
  async settled(): Promise<void> {
    while (this.open.size > 0) await Promise.allSettled([...this.open]);
  }

  private arn(): Promise<string> {
    this.queueArn ??= this.o.sqs
      .send(new GetQueueAttributesCommand({ QueueUrl: this.o.queueUrl, AttributeNames: ['QueueArn'] }))
      .then((r) => r.Attributes?.QueueArn ?? '')
      .catch((err: unknown) => {
        this.queueArn = undefined;
        throw err;
      });
    return this.queueArn;
  }

  private current(run: number): boolean {
    return this.running && run === this.run;
  }

  private spawn(run: number): void {
    this.loops++;
    const state = { counted: true };
    const loop = this.loop(run, state)
      .catch((err) => this.o.logger.error('queue poller loop stopped', { error: err as Error }))
      .finally(() => {
        if (state.counted) this.loops--;
        this.alive.delete(loop);
      });
    this.alive.add(loop);
  }

  private async loop(run: number, state: { counted: boolean }): Promise<void> {
    let failures = 0;
    while (this.current(run)) {
      const messages = await this.receive();
      if (messages === STOPPED) return;
      if (messages instanceof Error) {
        failures++;
        this.o.logger.warn('receive failed; retrying', { error: messages.message, failures });
        await this.pause(Math.min(5_000, 250 * 2 ** failures));
        continue;
      }
      failures = 0;
      if (messages.length === 0) {
        // Scale down: an idle queue needs one loop receiving, not several.
        if (this.receivers > 0) {
          this.loops--;
          state.counted = false;
          return;
        }
        continue;
      }
      if (!this.current(run)) {
        // Stopped (or restarted) while the answer was on its way: hand the batch back untouched.
        await this.giveBack(messages);
        return;
      }
      // Scale up: someone keeps receiving while this batch runs (other groups may be waiting).
      if (this.receivers === 0 && this.loops < this.maxConcurrency) this.spawn(run);
      await this.invoke(messages);
    }
  }

  /** Waits `ms`, or less when the poller stops. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onStop.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.onStop.add(done);
    });
  }

  /**
   * One ReceiveMessage. STOPPED when the poller stopped first: the request is then left to
   * finish on its own and what it brings back is given back to the queue.
   */
  private receive(): Promise<Message[] | Error | typeof STOPPED> {
    return new Promise((resolve) => {
      let answered = false;
      const abandon = () => {
        this.onStop.delete(abandon);
        if (answered) return;
        answered = true;
        this.receivers--;
        resolve(STOPPED);
      };
      const answer = (value: Message[] | Error | typeof STOPPED) => {
        this.onStop.delete(abandon);
        if (answered) return false;
        answered = true;
        this.receivers--;
        resolve(value);
        return true;
      };
      this.receivers++;
      this.onStop.add(abandon);
      const request = this.o.sqs
        .send(
          new ReceiveMessageCommand({
            QueueUrl: this.o.queueUrl,
            MaxNumberOfMessages: this.o.batchSize ?? QUEUE_POLLER_DEFAULTS.batchSize,
            WaitTimeSeconds: this.o.waitSeconds ?? QUEUE_POLLER_DEFAULTS.waitSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        )
        .then(
          async (r) => {
            if (!answer(r.Messages ?? [])) await this.giveBack(r.Messages ?? []);
          },
          (err: unknown) => void answer(this.running ? (err as Error) : STOPPED),
        );
      this.open.add(request);
      void request.finally(() => this.open.delete(request));
    });
  }

  /** Makes received messages visible again at once; FIFO puts each back at the head of its group. */
  private async giveBack(messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    this.givenBack += messages.length;
    try {
      await this.o.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.o.queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 })),
        }),
      );
    } catch (err) {
      this.o.logger.warn('could not give back messages received after stop; they return after their visibility timeout', { error: (err as Error).message });
    }
  }

  private async invoke(messages: Message[]): Promise<void> {
    const queueArn = await this.arn().catch(() => '');
    const records: SQSRecord[] = messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? '',
      attributes: (m.Attributes ?? {}) as unknown as SQSRecord['attributes'],
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: this.o.region,
    }));
    const event: SQSEvent = { Records: records };
    this.invocations++;
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    let failed = new Set<string>();
    const began = performance.now();
    try {
      const res = await this.o.handler(event, lambdaContext(this.o.functionName, this.o.functionTimeoutMs));
      failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      // A failed invocation (or a simulated crash) leaves every message to come back.
      this.o.logger.warn('executor invocation failed; messages will be redelivered', { error: (err as Error).message });
      return;
    } finally {
      this.inFlight--;
      this.busyMs += performance.now() - began;
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length === 0) return;
    try {
      await this.o.sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: this.o.queueUrl, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
      );
    } catch (err) {
      // At least once: the messages come back after their visibility timeout and find their effects settled.
      this.o.logger.warn('delete failed; messages will be redelivered', { error: (err as Error).message });
    }
  }
}
