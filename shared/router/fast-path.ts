/**
 * The fast path for effects: after its commit succeeded, the DDL function sends the new effects
 * to their queues itself instead of waiting for the catalog stream (Lambda reads it about four
 * times a second) and the router. Best effort: a failure here is logged and forgotten, because
 * the stream and the router still route every effect record, and the sweeper re-sends what stays
 * pending. Both copies carry the same MessageGroupId and MessageDeduplicationId
 * (shared/router/routing.ts `messageForEffect`), so SQS FIFO drops the later one within its
 * five-minute deduplication window; past it, the executor's generation fencing makes a second
 * delivery a no-op (DESIGN.md). Only effects admitted under their tenant's cap are sent
 * (shared/router/admission.ts); admission is idempotent, so the router admits the same ones again.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { loadSqs, type SqsSender } from '../clients/lazy';
import type { FaultInjector } from '../dataplane/faults';
import type { Controller } from '../definitions';
import { messageForEffect, type RoutedMessage } from './routing';
import type { Admission } from './admission';
import type { EffectRecord } from '../effects/model';
import type { TransactItem } from '../catalog/outbox-store';

/** What the DDL function does with a commit's new effects: admits them (with the commit, when it can) and sends them. */
export interface EffectSender {
  /**
   * The write that admits `effects` (new, all of one tenant) in the commit's own transaction; none:
   * no admission, or they cannot all fit at once (then {@link send} admits them one by one).
   */
  admitWithCommit(tenant: string, effects: readonly EffectRecord[]): TransactItem | undefined;
  /** Sends committed effects; `admitted`: the commit's transaction admitted them already. Never throws. */
  send(effects: readonly EffectRecord[], o: { readonly admitted: boolean }): Promise<void>;
  /**
   * A commit with effects is on its way: load what {@link send} needs (a cold function's SQS client)
   * while its round trip is waited for. Never throws.
   */
  prepare(): void;
}

export interface FastPathDeps {
  /** A real client, or one loaded on its first send (shared/clients/lazy.ts). */
  readonly sqs: SqsSender;
  readonly queueUrls: Readonly<Record<Controller, string>>;
  readonly logger: Logger;
  readonly faults?: FaultInjector;
  /** The per-tenant cap (shared/router/admission.ts): only admitted effects are sent; none: every effect is. */
  readonly admission?: Admission;
}

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;

/**
 * Sends effects to their queues with the router's message (group, deduplication id), in the
 * order given within a queue, so a message group's messages keep their outbox order. Throws at
 * the first entry refused: sending past it could put a group's later effect ahead of an earlier one.
 */
export async function sendEffects(sqs: SqsSender, queueUrls: Readonly<Record<Controller, string>>, effects: readonly EffectRecord[]): Promise<void> {
  const byQueue = new Map<Controller, RoutedMessage[]>();
  for (const e of effects) {
    const m = messageForEffect(e);
    if (m) byQueue.set(m.controller, [...(byQueue.get(m.controller) ?? []), m]);
  }
  if (byQueue.size === 0) return;
  const { SendMessageBatchCommand } = await loadSqs();
  const sendAll = async ([controller, messages]: [Controller, RoutedMessage[]]) => {
    for (let i = 0; i < messages.length; i += SQS_BATCH) {
      const chunk = messages.slice(i, i + SQS_BATCH);
      const r = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrls[controller],
          Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: m.body, MessageGroupId: m.groupId, MessageDeduplicationId: m.deduplicationId })),
        }),
      );
      if (r.Failed?.length) throw new Error(`${r.Failed.length} of ${chunk.length} entries refused: ${r.Failed[0]!.Code}`);
    }
  };
  const results = await Promise.allSettled([...byQueue].map(sendAll));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

export function createEffectSender(deps: FastPathDeps): EffectSender {
  return {
    admitWithCommit: (tenant, effects) =>
      deps.admission?.withCommit(
        tenant,
        effects.map((e) => e.effectId),
      ),
    prepare: () => deps.sqs.prepare?.(),
    async send(effects, o) {
      // A crash here (after the commit, before the send) is the case the stream path covers.
      deps.faults?.point('api.before-fast-path');
      try {
        // Over its tenant's cap an effect stays pending: the executor that settles one of the tenant's effects sends it.
        const admitted = o.admitted || !deps.admission ? effects : await deps.admission.admitInOrder(effects);
        await sendEffects(deps.sqs, deps.queueUrls, admitted);
      } catch (err) {
        deps.logger.warn('fast path send failed; the router sends these effects', { error: String((err as Error)?.message ?? err) });
      }
    },
  };
}
