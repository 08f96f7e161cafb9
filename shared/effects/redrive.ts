/**
 * DLQ redrive: moves dead-lettered effect messages back to their queue and clears the effect's
 * dead-letter mark, so the executor gets a fresh retry budget. Run it after fixing the cause
 * (the effect's last error says what it was); `ddlctl effects redrive` wraps it.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { tenantPk } from '../catalog/keys';
import type { EffectMessage } from './model';

export interface RedriveOptions {
  readonly sqs: SQSClient;
  readonly doc: DynamoDBDocumentClient;
  readonly catalogTable: string;
  readonly dlqUrl: string;
  readonly queueUrl: string;
  /** Stop after this many messages (default: all). */
  readonly max?: number;
}

export async function redriveDeadLetters(o: RedriveOptions): Promise<number> {
  let moved = 0;
  const max = o.max ?? Number.POSITIVE_INFINITY;
  while (moved < max) {
    const r = await o.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: o.dlqUrl, MaxNumberOfMessages: Math.min(10, max - moved), WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
    );
    const messages = r.Messages ?? [];
    if (messages.length === 0) break;
    for (const m of messages) {
      const msg = JSON.parse(m.Body ?? '{}') as EffectMessage;
      try {
        await o.doc.send(
          new UpdateCommand({
            TableName: o.catalogTable,
            Key: { pk: tenantPk(msg.tenant), sk: msg.sk },
            UpdateExpression: 'SET deadLettered = :f, attempts = :z, redrivenAt = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':f': false, ':z': 0, ':now': new Date().toISOString() },
          }),
        );
      } catch (err) {
        // The effect aged out of the outbox: nothing left to apply, just drop the message.
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
      await o.sqs.send(
        new SendMessageCommand({
          QueueUrl: o.queueUrl,
          MessageBody: m.Body ?? '',
          MessageGroupId: m.Attributes?.MessageGroupId ?? `${msg.tenant}/${msg.objectId}`,
          // A fresh id: the original is still inside SQS's dedup window when redriven quickly.
          MessageDeduplicationId: `${(m.Attributes?.MessageDeduplicationId ?? msg.effectId).slice(0, 100)}:d${Date.now()}`,
        }),
      );
      await o.sqs.send(new DeleteMessageCommand({ QueueUrl: o.dlqUrl, ReceiptHandle: m.ReceiptHandle! }));
      moved++;
    }
  }
  return moved;
}
