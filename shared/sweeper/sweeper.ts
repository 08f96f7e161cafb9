/**
 * The sweeper. This first pass is the outbox replay: the outbox is the write-ahead log, so an
 * effect that stayed pending past its policy's expected time is sent to its queue again — lost
 * queue messages, a restarted SQS emulator or a stream record older than 24 h become harmless.
 *
 * Its cost follows the work: it reads only the sparse "needs attention" index (pending effects),
 * never the catalog. Two sweepers may run at once: each replay is claimed with a conditional
 * write on the effect's replay counter, so an effect is re-sent once per window, not twice.
 *
 * With admission (shared/router/admission.ts), an effect is sent only once admitted under its
 * tenant's cap: the replay admits what nobody sent (a crash between a settle and the next send,
 * or between admission and send) and, when the tenant is at its cap, first releases the slots of
 * effects no longer pending (settled, aged out, dead-lettered), so no slot is held for good.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { loadSqs, type SqsSender } from '../clients/lazy';
import type { Controller } from '../definitions';
import { backoffMs, RETRY_POLICIES } from '../effects/retry-policies';
import { routeRecord } from '../router/routing';
import { marshall } from '@aws-sdk/util-dynamodb';
import { ALL_SHARDS, type AttentionEntry, type PendingEffect } from '../catalog/outbox-store';
import { effectSkOfId } from '../catalog/keys';
import { leakedSlots, type Admission } from '../router/admission';
import type { StoredStatus } from '../catalog/status-store';
import type { TableStores } from '../catalog/stores';
import type { FaultInjector } from '../dataplane/faults';
import type { DataPlane } from '../dataplane/contract';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import { ConnectorPass, overdue, type ConnectorPassReport } from './connectors';
import { silenceToMark } from '../status/data-plane';
import { FullPass, type FullPassOptions, type FullPassReport } from './full-pass';

export interface SweeperDeps extends TableStores {
  /** Called only to replay an effect: it may load on first use (shared/clients/lazy.ts). */
  readonly sqs: SqsSender;
  readonly queueUrls: Readonly<Record<Controller, string>>;
  readonly logger: Logger;
  /** For the connector pass (statuses); without it only the outbox replay runs. */
  readonly dataPlane?: DataPlane;
  readonly prober?: Prober;
  readonly secrets?: SecretStore;
  /** Options of the hourly observe-and-diff pass; `false` turns it off (tests of other passes). */
  readonly fullPass?: FullPassOptions | false;
  /** Crash injection for tests and the chaos run. */
  readonly faults?: FaultInjector;
  /** The per-tenant cap on effects in the queues; none: every due effect is replayed. */
  readonly admission?: Admission;
}

export interface SweepReport {
  /** Items read from the attention index. */
  readonly itemsRead: number;
  /** Everything this sweep read: the attention index plus the full pass (its marker when not due). */
  readonly totalItemsRead: number;
  readonly replayed: number;
  /** Pending effects not yet due for a replay. */
  readonly waiting: number;
  /** In the DLQ: left for an operator's redrive, never replayed automatically. */
  readonly deadLettered: number;
  /** Due effects not sent because their tenant is at its cap (the executors send them as slots free up). */
  readonly heldBack: number;
  /** Admission slots released: held by effects no longer pending (settled, aged out, dead-lettered). */
  readonly slotsReleased: number;
  /** Age of the oldest pending effect seen (0 when none): the "stuck effects" alarm reads it. */
  readonly oldestPendingAgeSeconds: number;
  /** Connectors observed, status changes written, and how many are failed now. */
  readonly connectors: ConnectorPassReport;
  /**
   * The data plane as a whole: `silentSince` while it is silent (no report at all for longer than a
   * connector's deadline; shared/status/data-plane.ts), `marked` when this sweep found it so.
   */
  readonly dataPlane: { readonly marked: boolean; readonly silentSince?: string };
  /** The observe-and-diff pass (runs when due: hourly by default). */
  readonly full?: FullPassReport;
  /**
   * The sweep stopped at its deadline before reading everything due. What it left stays on the
   * attention index, due, and the next sweep starts with it.
   */
  readonly truncated: boolean;
}

export interface SweepOptions {
  /**
   * Wall-clock time (epoch ms) after which no new work starts: the Lambda handler sets half of its
   * remaining time, so one sweep never runs past 50 % of its timeout whatever the catalog size.
   */
  readonly deadline?: number;
  /** Whether this sweep runs the full pass when it is due (default true; the deployed stack runs it on its own schedule). */
  readonly fullPass?: boolean;
}

export class Sweeper {
  constructor(private readonly deps: SweeperDeps) {}

  async sweep(now: Date = new Date(), o: SweepOptions = {}): Promise<SweepReport> {
    const policy = RETRY_POLICIES['sweeper.replay'];
    let itemsRead = 0;
    let replayed = 0;
    let waiting = 0;
    let deadLettered = 0;
    let heldBack = 0;
    let slotsReleased = 0;
    let truncated = false;
    // Per tenant, at most once per sweep: the clean-up of leaked slots (when it is at its cap or has a dead-lettered effect).
    const cleaned = new Map<string, Promise<void>>();
    const releaseLeaked = (tenant: string) => {
      if (!cleaned.has(tenant)) cleaned.set(tenant, this.releaseLeaked(tenant).then((n) => void (slotsReleased += n)));
      return cleaned.get(tenant)!;
    };
    /** Tenants found at their cap in this sweep: their later due effects wait too. */
    const atCap = new Set<string>();
    let oldestCreated = now.getTime();
    const connectorStatuses: (StoredStatus & { tenant: string })[] = [];
    const pastDeadline = () => o.deadline !== undefined && Date.now() >= o.deadline;
    // Only effects created before the shortest replay delay can be due: bound the range read.
    const horizon = new Date(now.getTime() - policy.initialDelayMs).toISOString();
    // The shards side by side: the index spreads its items evenly over them, so the read time is
    // that of one shard; past the deadline every shard stops where it is.
    const sweepShard = async (shard: number) => {
      for await (const entry of this.deps.outbox.attention(horizon, now, [shard])) {
        if (pastDeadline()) {
          truncated = true;
          return;
        }
        await handle(entry);
      }
    };
    const handle = async (entry: AttentionEntry) => {
      itemsRead++;
      if (entry.kind === 'lock') {
        // A staged commit nobody has read since it crashed: finish or abandon it.
        await this.deps.catalog.settleStaged(entry.tenant, entry.lock);
        return;
      }
      if (entry.kind === 'deadline') {
        // A connector whose report deadline passed.
        connectorStatuses.push(entry.status);
        return;
      }
      if (entry.kind !== 'effect' || entry.effect.state !== 'pending') return;
      const item = entry.effect;
      oldestCreated = Math.min(oldestCreated, Date.parse(item.createdAt));
      if (item.deadLettered) {
        deadLettered++;
        // Its message is in the DLQ, not in the queue: the clean-up releases its slot.
        if (this.deps.admission) await releaseLeaked(item.tenant);
        return;
      }
      const replays = item.replays ?? 0;
      const lastActivity = Math.max(Date.parse(item.updatedAt), Date.parse(item.lastReplayAt ?? item.createdAt));
      const replayPolicy = item.kind === 'reconfiguration' ? RETRY_POLICIES['sweeper.reconfiguration'] : policy;
      if (now.getTime() - lastActivity < backoffMs(replayPolicy, replays + 1)) {
        waiting++;
        return;
      }
      const admission = this.deps.admission;
      if (admission) {
        let r = atCap.has(item.tenant) ? 'full' : await admission.admit(item);
        if (r === 'full' && !atCap.has(item.tenant)) {
          await releaseLeaked(item.tenant);
          r = await admission.admit(item);
        }
        // Settled since the index was read: nothing to send.
        if (r === 'settled') return;
        if (r === 'full') {
          // At its cap: the executors send it as slots free up; this sweep tries no more of the tenant's.
          atCap.add(item.tenant);
          heldBack++;
          return;
        }
      }
      if (await this.replay(item, replays, now)) replayed++;
    };
    await Promise.all(ALL_SHARDS.map(sweepShard));
    const dataPlane = await this.dataPlaneSilence(connectorStatuses, now);
    const connectors = await new ConnectorPass(this.deps).run(connectorStatuses, now, o.deadline, dataPlane.silentSince ? { dataPlaneSilentSince: dataPlane.silentSince } : {});
    if (connectors.deferred) truncated = true;
    const full = o.fullPass !== false ? await this.fullPass(now, o.deadline) : undefined;
    const report = {
      itemsRead,
      totalItemsRead: itemsRead + (full?.itemsRead ?? 0),
      replayed,
      waiting,
      deadLettered,
      heldBack,
      slotsReleased,
      oldestPendingAgeSeconds: Math.round((now.getTime() - oldestCreated) / 1000),
      connectors,
      dataPlane,
      ...(full ? { full } : {}),
      truncated,
    };
    if (replayed || deadLettered || slotsReleased || connectors.transitions || dataPlane.marked) this.deps.logger.info('sweep', { ...report });
    return report;
  }

  /**
   * With connectors overdue, whether the data plane as a whole is silent (shared/status/data-plane.ts):
   * one read of its liveness item, and one conditional write when this sweep is the one to find it
   * silent. A quiet sweep (nothing overdue) reads nothing.
   */
  private async dataPlaneSilence(statuses: readonly StoredStatus[], now: Date): Promise<SweepReport['dataPlane']> {
    const due = overdue(statuses, now).length;
    if (due === 0) return { marked: false };
    const liveness = await this.deps.statuses.dataPlaneLiveness({ consistent: true });
    if (liveness?.silentSince) return { marked: false, silentSince: liveness.silentSince };
    const silence = silenceToMark(liveness, now, due);
    if (!silence) return { marked: false };
    const marked = await this.deps.statuses.markDataPlaneSilent(silence.since, now);
    if (marked) this.deps.logger.warn('data plane silent', { since: silence.since });
    // Lost the race: a report was stamped since (not silent), or another sweeper marked it (silent).
    const after = marked ? { silentSince: silence.since } : await this.deps.statuses.dataPlaneLiveness({ consistent: true });
    return { marked, ...(after?.silentSince ? { silentSince: after.silentSince } : {}) };
  }

  /**
   * The observe-and-diff pass alone, when due: the deployed stack runs it from its own schedule,
   * so its period does not depend on how long the connector pass takes. It keeps its own cursor,
   * and with a deadline it goes on page after page until the deadline (one page without).
   */
  async fullPass(now: Date = new Date(), deadline?: number): Promise<FullPassReport | undefined> {
    if (!this.deps.dataPlane || this.deps.fullPass === false) return undefined;
    return new FullPass({ ...this.deps, dataPlane: this.deps.dataPlane }, this.deps.fullPass).run(now, deadline === undefined ? {} : { deadline });
  }

  /**
   * Releases a tenant's admission slots held by effects no longer pending: settled (an admission
   * made after its settle), gone (aged out), or dead-lettered (the message is in the DLQ).
   */
  private async releaseLeaked(tenant: string): Promise<number> {
    const admitted = await this.deps.outbox.admitted(tenant);
    const effects = new Map<string, PendingEffect | undefined>();
    await Promise.all(
      [...admitted].map(async (id) => {
        const sk = effectSkOfId(id);
        effects.set(id, sk ? await this.deps.outbox.getEffect(tenant, sk) : undefined);
      }),
    );
    const leaked = leakedSlots(admitted, effects);
    await this.deps.outbox.release(tenant, leaked);
    if (leaked.length) this.deps.logger.info('admission slots released', { tenant, released: leaked.length });
    return leaked.length;
  }

  private async replay(effect: PendingEffect, replays: number, now: Date): Promise<boolean> {
    // Claim this replay window; a concurrent sweeper that read the same count loses here.
    if (!(await this.deps.outbox.claimReplay(effect, replays, now))) return false;
    this.deps.faults?.point('sweeper.after-claim');
    // The same routing the stream router uses, from the record as stored.
    const msg = routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(effect, { removeUndefinedValues: true }) as never } });
    if (!msg) return false;
    const { SendMessageCommand } = await loadSqs();
    await this.deps.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.deps.queueUrls[msg.controller],
        MessageBody: msg.body,
        MessageGroupId: msg.groupId,
        // A new id per replay: SQS's 5-minute dedup window must not swallow the re-send.
        MessageDeduplicationId: `${msg.deduplicationId.slice(0, 120)}:r${replays + 1}`,
      }),
    );
    this.deps.logger.info('effect replayed', { effectId: effect.effectId, replays: replays + 1 });
    return true;
  }
}
