/**
 * An SQS event source mapping, locally: long-polls one queue, invokes the executor handler with
 * Lambda's SQS event shape, deletes what succeeded and leaves `batchItemFailures` (and the whole
 * batch when the invocation fails) to come back after their visibility timeout.
 */
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { SqsHandler } from '../shared/executor/handler';
import { lambdaContext } from './lambda-context';

export interface QueuePollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly handler: SqsHandler;
  readonly logger: Logger;
  readonly functionName: string;
  readonly region: string;
  readonly batchSize?: number;
  readonly waitSeconds?: number;
}

export class QueuePoller {
  private running = false;
  private loop: Promise<void> | undefined;
  private queueArn = '';
  invocations = 0;

  constructor(private readonly o: QueuePollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run().catch((err) => this.o.logger.error('queue poller stopped', { error: err as Error }));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { sqs, queueUrl } = this.o;
    this.queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn ?? '';
    while (this.running) {
      let messages: Message[] = [];
      try {
        const r = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: this.o.batchSize ?? 10,
            WaitTimeSeconds: this.o.waitSeconds ?? 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        messages = r.Messages ?? [];
      } catch (err) {
        if (!this.running) break;
        this.o.logger.warn('receive failed; retrying', { error: (err as Error).message });
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (messages.length === 0) continue;
      await this.invoke(messages);
    }
  }

  private async invoke(messages: Message[]): Promise<void> {
    const records: SQSRecord[] = messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? '',
      attributes: (m.Attributes ?? {}) as unknown as SQSRecord['attributes'],
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.queueArn,
      awsRegion: this.o.region,
    }));
    const event: SQSEvent = { Records: records };
    this.invocations++;
    let failed = new Set<string>();
    try {
      const res = await this.o.handler(event, lambdaContext(this.o.functionName));
      failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      // A failed invocation (or a simulated crash) leaves every message to come back.
      this.o.logger.warn('executor invocation failed; messages will be redelivered', { error: (err as Error).message });
      return;
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length === 0) return;
    await this.o.sqs.send(
      new DeleteMessageBatchCommand({ QueueUrl: this.o.queueUrl, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
    );
  }
}
