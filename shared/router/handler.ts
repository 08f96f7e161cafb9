/**
 * The stream router's handler: route each record, send per controller queue with
 * SendMessageBatch, publish the records that are status events, report failed records by
 * sequence number so the event source mapping retries from the first failure
 * (ReportBatchItemFailures). A retried batch sends again what had gone out: SQS FIFO drops the
 * repeated messages by deduplication id, and events repeat with the same `event_id`.
 *
 * With admission (shared/router/admission.ts), only effects admitted under their tenant's cap
 * are sent; the others stay pending in the outbox, not failed: the executor that settles one of
 * the tenant's effects sends them. Admission is idempotent, so a retried batch admits and sends
 * the same effects again.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Controller } from '../definitions';
import type { Admission } from './admission';
import type { FaultInjector } from '../dataplane/faults';
import type { EventPublisher } from '../events/publisher';
import type { ControlPlaneEvent } from '../events/model';
import { eventForRecord } from '../events/select';
import { routeRecord, type RoutedMessage } from './routing';

export interface RouterDeps {
  readonly sqs: SQSClient;
  readonly queueUrls: Readonly<Record<Controller, string>>;
  readonly logger: Logger;
  readonly faults?: FaultInjector;
  /** Where status events go (shared/events/select.ts picks them); none: they are not published. */
  readonly events?: EventPublisher;
  /** The per-tenant cap on effects in the queues; none: every effect is sent. */
  readonly admission?: Admission;
}

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;

export function createRouterHandler(deps: RouterDeps): StreamHandler {
  const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const pending: { seq: string; msg: RoutedMessage }[] = [];
    const events: { seq: string; event: ControlPlaneEvent }[] = [];
    for (const record of event.Records) {
      const seq = record.dynamodb?.SequenceNumber ?? '';
      const msg = routeRecord(record);
      if (msg) pending.push({ seq, msg });
      const ev = deps.events ? eventForRecord(record) : undefined;
      if (ev) events.push({ seq, event: ev });
    }
    const failed = new Set<string>();
    let toSend = pending;
    if (deps.admission && pending.length) {
      try {
        // Per tenant in stream order: the first effect over the cap holds back the tenant's later ones.
        toSend = await deps.admission.admitInOrder(pending.map((p) => ({ ...p, tenant: p.msg.tenant, effectId: p.msg.effectId, sk: p.msg.sk })));
      } catch (err) {
        deps.logger.warn('admission failed', { error: (err as Error).message });
        for (const p of pending) failed.add(p.seq);
        toSend = [];
      }
    }
    deps.faults?.point('router.before-send');
    const byQueue = new Map<Controller, typeof pending>();
    for (const p of toSend) byQueue.set(p.msg.controller, [...(byQueue.get(p.msg.controller) ?? []), p]);
    // Queues are independent: send to each at the same time. Within a queue the chunks go one
    // after the other, so a message group's messages keep their stream order.
    const sendAll = async ([controller, items]: [Controller, typeof pending]) => {
      for (let i = 0; i < items.length; i += SQS_BATCH) {
        const chunk = items.slice(i, i + SQS_BATCH);
        try {
          const r = await deps.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: deps.queueUrls[controller],
              Entries: chunk.map((p, j) => ({ Id: String(j), MessageBody: p.msg.body, MessageGroupId: p.msg.groupId, MessageDeduplicationId: p.msg.deduplicationId })),
            }),
          );
          for (const f of r.Failed ?? []) failed.add(chunk[Number(f.Id)]!.seq);
        } catch (err) {
          deps.logger.warn('send to effect queue failed', { controller, error: (err as Error).message });
          for (const p of chunk) failed.add(p.seq);
        }
      }
    };
    const publishEvents = async () => {
      if (!events.length) return;
      const notAccepted = new Set(await deps.events!.publish(events.map((e) => e.event)).catch((err: Error) => {
        deps.logger.warn('publishing status events failed', { error: err.message });
        return events.map((e) => e.event.id);
      }));
      for (const e of events) if (notAccepted.has(e.event.id)) failed.add(e.seq);
    };
    await Promise.all([...[...byQueue].map(sendAll), publishEvents()]);
    deps.faults?.point('router.after-send');
    if (failed.size) deps.logger.warn('routing incomplete', { failed: failed.size, routed: pending.length + events.length - failed.size });
    if (toSend.length < pending.length - failed.size) deps.logger.info('effects held back at their tenant\'s cap', { held: pending.length - toSend.length });
    // Report in stream order: the mapping restarts from the lowest failed sequence number.
    const failedSeqs = [...new Set([...pending, ...events].map((p) => p.seq).filter((seq) => failed.has(seq)))];
    return { batchItemFailures: failedSeqs.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)).map((seq) => ({ itemIdentifier: seq })) };
  };
  return middy(handler).use(injectLambdaContext(deps.logger)) as unknown as StreamHandler;
}
