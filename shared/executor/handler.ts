/**
 * The SQS-facing side of an executor: a FIFO-aware partial batch (each message group stops at its
 * first failure), a backoff from the loop's named policy applied with ChangeMessageVisibility to
 * the failed message and to those behind it in its group, and simulated crashes passed through as
 * a failed invocation (the way a dead process looks to the event source mapping). With admission
 * (shared/router/admission.ts), after its batch it admits and sends the next pending effects of
 * each tenant it settled an effect of.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { RetryLater, SimulatedCrash } from '../errors';
import { loadSqs, type SqsSender } from '../clients/lazy';
import type { Controller } from '../definitions';
import type { Admission } from '../router/admission';
import { sendEffects } from '../router/fast-path';
import type { EffectMessage, EffectRecord } from '../effects/model';
import type { AdmissionState } from '../catalog/outbox-store';
import { backoffMs, budgetSpent } from '../effects/retry-policies';
import { EffectExecutor, type ExecutorDeps } from './executor';

export interface ExecutorHandlerDeps extends ExecutorDeps {
  /** Called only to delay failed messages and to send a tenant's next effects: it may load on first use (shared/clients/lazy.ts). */
  readonly sqs: SqsSender;
  readonly queueUrl: string;
  readonly logger: Logger;
  /**
   * The per-tenant cap on effects in the queues and where every controller's queue is (a
   * tenant's next effect may be another controller's): the executor sends a tenant's next
   * admitted effects after settling one of its own. None: nothing is sent from here.
   */
  readonly admission?: { readonly admission: Admission; readonly queueUrls: Readonly<Record<Controller, string>> };
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** A tenant whose slots this invocation released: the effect ids, and its admission item as read early (Admission.next). */
interface Refill {
  readonly released: string[];
  early?: Promise<AdmissionState>;
}

/** The failed message a group stopped at: the delay the messages behind it get too. */
interface Blocker {
  readonly delaySeconds: number;
}

export function createExecutorHandler(deps: ExecutorHandlerDeps): SqsHandler {
  const executor = new EffectExecutor(deps);
  const { logger } = deps;
  const receiveCount = (record: SQSRecord) => Number(record.attributes.ApproximateReceiveCount ?? '1');
  /** SQS moves a message to the DLQ on its next receive once this one was its last: maxReceiveCount is the policy's budget. */
  const lastReceive = (record: SQSRecord) => budgetSpent(deps.policy, receiveCount(record));

  /**
   * `refills`: the tenants this invocation settled an effect of (released a slot); their next
   * effects go out after the batch. The refill's first read, the tenant's admission item, starts
   * as an effect is found pending, alongside the data plane call, instead of after the settle.
   */
  const processRecord = async (record: SQSRecord, refills: Map<string, Refill>): Promise<void> => {
    const msg = JSON.parse(record.body) as EffectMessage;
    const attempt = receiveCount(record);
    let early: { readonly effectId: string; readonly state: Promise<AdmissionState> } | undefined;
    const applying = (effect: EffectRecord) => {
      if (!deps.admission) return;
      const state = deps.admission.admission.state(effect.tenant);
      // Awaited by the refill, or by nobody (the apply failed): never unhandled meanwhile.
      state.catch(() => undefined);
      early = { effectId: effect.effectId, state };
    };
    const outcome = await executor.process(msg, attempt, { applying });
    if (outcome === 'applied' || outcome === 'superseded' || outcome === 'failed') {
      const refill = refills.get(msg.tenant) ?? { released: [] };
      refill.released.push(early?.effectId ?? msg.effectId);
      // The latest read: taken before this settle, after the tenant's earlier ones in the batch.
      if (early) refill.early = early.state;
      refills.set(msg.tenant, refill);
    }
    logger.info('effect processed', { effectId: msg.effectId, objectId: msg.objectId, generation: msg.generation, outcome, attempt });
  };

  /**
   * Admits and sends the next pending effects of the tenants whose slots this batch released.
   * Best effort: what fails here stays pending, and the next settle of the tenant's effects or
   * the sweeper sends it.
   */
  const sendNext = async (refills: ReadonlyMap<string, Refill>): Promise<void> => {
    const a = deps.admission;
    if (!a || refills.size === 0) return;
    deps.faults?.point('executor.before-next');
    await Promise.all(
      [...refills].map(async ([tenant, refill]) => {
        try {
          const next = await a.admission.next(tenant, refill.early ? { state: refill.early, released: refill.released } : undefined);
          await sendEffects(deps.sqs, a.queueUrls, next);
          if (next.length) logger.info('admitted and sent the next effects of a tenant', { tenant, count: next.length });
        } catch (err) {
          logger.warn('sending the next effects of a tenant failed; the sweeper sends them', { tenant, error: (err as Error).message });
        }
      }),
    );
  };

  const setVisibility = async (records: readonly SQSRecord[], delaySeconds: number): Promise<void> => {
    const { ChangeMessageVisibilityBatchCommand } = await loadSqs();
    for (let i = 0; i < records.length; i += 10) {
      const chunk = records.slice(i, i + 10);
      const r = await deps.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: deps.queueUrl,
          Entries: chunk.map((rec, j) => ({ Id: String(j), ReceiptHandle: rec.receiptHandle, VisibilityTimeout: delaySeconds })),
        }),
      );
      // A message that could not be delayed comes back after the queue's visibility timeout: later, never lost.
      for (const f of r.Failed ?? []) logger.warn('could not delay a message', { messageId: chunk[Number(f.Id)]?.messageId, code: f.Code, error: f.Message });
    }
  };

  /**
   * FIFO per message group: after a record fails, the records behind it in its group are not
   * processed (order holds) and come back with it, after the same delay: a message left locked
   * for the whole visibility timeout would hold the group up that long. A failed record on its
   * last receive is on its way to the DLQ (its effect is marked dead-lettered): it blocks nothing,
   * and the records behind it are processed now. A record on its own last receive is always
   * processed: one that reached the DLQ without ever being attempted would be replayed by the
   * sweeper while its copy waits there, and a later redrive would duplicate it.
   */
  const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const refills = new Map<string, Refill>();
    const failures: SQSRecord[] = [];
    const blocked = new Map<string, Blocker>();
    const skipped = new Map<number, SQSRecord[]>();
    let crash: SimulatedCrash | undefined;
    for (const record of event.Records) {
      const group = record.attributes.MessageGroupId ?? record.messageId;
      const blocker = blocked.get(group);
      if (crash || (blocker && !lastReceive(record))) {
        failures.push(record);
        if (!crash && blocker) skipped.set(blocker.delaySeconds, [...(skipped.get(blocker.delaySeconds) ?? []), record]);
        continue;
      }
      try {
        await processRecord(record, refills);
      } catch (err) {
        failures.push(record);
        if (err instanceof SimulatedCrash) {
          // A dead process: the whole batch comes back after its visibility timeout, as in Lambda.
          crash ??= err;
          continue;
        }
        const attempt = receiveCount(record);
        const delaySeconds = Math.ceil(backoffMs(deps.policy, attempt) / 1000);
        if (err instanceof RetryLater) logger.warn('effect will be retried', { messageId: record.messageId, attempt, delaySeconds, error: err.message });
        else logger.error('effect failed unexpectedly; it will be retried', { messageId: record.messageId, attempt, delaySeconds, error: err as Error });
        // On its last receive it still waits out the delay (then SQS moves it to the DLQ), but it holds no one up.
        if (!lastReceive(record)) blocked.set(group, { delaySeconds });
        await setVisibility([record], delaySeconds);
      }
    }
    if (crash) throw crash;
    for (const [delaySeconds, records] of skipped) {
      logger.info('messages behind a failed one in their group come back with it', { count: records.length, delaySeconds });
      await setVisibility(records, delaySeconds);
    }
    await sendNext(refills);
    return { batchItemFailures: failures.map((r) => ({ itemIdentifier: r.messageId })) };
  };

  return middy(handler).use(injectLambdaContext(logger)) as unknown as SqsHandler;
}
