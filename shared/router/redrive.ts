/**
 * DLQ redrive: moves dead-lettered effect messages back to their queue and clears the effect's
 * dead-letter mark, so the executor gets a fresh retry budget. Run it after fixing the cause
 * (the effect's last error says what it was); `ddlctl effects redrive` wraps it.
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { OutboxStore } from '../catalog/outbox-store';
import type { EffectMessage } from '../effects/model';

export interface RedriveOptions {
  readonly sqs: SQSClient;
  /** Where the effects' dead-letter marks are cleared. */
  readonly outbox: Pick<OutboxStore, 'clearDeadLetter'>;
  readonly dlqUrl: string;
  readonly queueUrl: string;
  /** Stop after this many messages (default: all). */
  readonly max?: number;
}

/** A DLQ message that is not an effect message: left in the DLQ for a person to look at. */
export interface SkippedMessage {
  readonly messageId: string;
  readonly reason: string;
}

export interface RedriveReport {
  readonly moved: number;
  readonly skipped: readonly SkippedMessage[];
}

/**
 * How long a received message stays hidden while one redrive runs: long enough that a message
 * left in the DLQ is not received twice by the same run. Skipped messages are made visible again
 * when the run ends.
 */
const HIDE_SECONDS = 300;

/** Reads what redrive needs from a message body, or says why it cannot. Pure. */
export function parseEffectMessage(body: string | undefined): EffectMessage | string {
  let v: unknown;
  try {
    v = JSON.parse(body ?? '');
  } catch {
    return `the body is not JSON: ${JSON.stringify((body ?? '').slice(0, 80))}`;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'the body is not a JSON object';
  const m = v as Record<string, unknown>;
  const missing = (['tenant', 'sk', 'effectId', 'objectId'] as const).filter((k) => typeof m[k] !== 'string' || m[k] === '');
  if (missing.length > 0) return `not an effect message: no ${missing.join(', ')}`;
  return m as unknown as EffectMessage;
}

export async function redriveDeadLetters(o: RedriveOptions): Promise<RedriveReport> {
  let moved = 0;
  const skipped: (SkippedMessage & { receipt: string })[] = [];
  const seen = new Set<string>();
  const max = o.max ?? Number.POSITIVE_INFINITY;
  try {
    while (moved < max) {
      const r = await o.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: o.dlqUrl,
          MaxNumberOfMessages: Math.min(10, max - moved),
          WaitTimeSeconds: 0,
          VisibilityTimeout: HIDE_SECONDS,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      const messages = (r.Messages ?? []).filter((m) => !seen.has(m.MessageId ?? ''));
      if (messages.length === 0) break;
      for (const m of messages) {
        seen.add(m.MessageId ?? '');
        const msg = parseEffectMessage(m.Body);
        // One bad message must not stop the others from going back: skip it, keep it, say so.
        if (typeof msg === 'string') skipped.push({ messageId: m.MessageId ?? '(no id)', reason: msg, receipt: m.ReceiptHandle! });
        else {
          await moveBack(o, m, msg);
          moved++;
        }
      }
    }
  } finally {
    // Visible again at once, so the operator can read them now; if this fails they reappear after HIDE_SECONDS anyway.
    for (const s of skipped) {
      await o.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: o.dlqUrl, ReceiptHandle: s.receipt, VisibilityTimeout: 0 })).catch(() => undefined);
    }
  }
  return { moved, skipped: skipped.map(({ messageId, reason }) => ({ messageId, reason })) };
}

async function moveBack(o: RedriveOptions, m: Message, msg: EffectMessage): Promise<void> {
  // False when the effect aged out of the outbox: nothing left to apply, the message just goes.
  await o.outbox.clearDeadLetter(msg.tenant, msg.sk, new Date());
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
}
