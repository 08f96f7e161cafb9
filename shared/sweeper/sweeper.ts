/**
 * The sweeper. This first pass is the outbox replay: the outbox is the write-ahead log, so an
 * effect that stayed pending past its policy's expected time is sent to its queue again — lost
 * queue messages, a restarted SQS emulator or a stream record older than 24 h become harmless.
 *
 * Its cost follows the work: it reads only the sparse "needs attention" index (pending effects),
 * never the catalog. Two sweepers may run at once: each replay is claimed with a conditional
 * write on the effect's replay counter, so an effect is re-sent once per window, not twice.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ATTENTION_INDEX, ATTENTION_SHARDS, type Controller } from '../definitions';
import type { EffectRecord } from '../effects/model';
import { backoffMs, RETRY_POLICIES } from '../effects/retry-policies';
import { routeRecord } from '../router/routing';
import { marshall } from '@aws-sdk/util-dynamodb';
import { StagedCommits } from '../catalog/staged';
import type { FaultInjector } from '../dataplane/faults';
import type { DataPlane } from '../controllers/contract';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import { DEADLINE_PREFIX, type StoredStatus } from '../status/store';
import { ConnectorPass, type ConnectorPassReport } from './connectors';
import { FullPass, type FullPassOptions, type FullPassReport } from './full-pass';

export interface SweeperDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly catalogTable: string;
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
  /** Age of the oldest pending effect seen (0 when none): the "stuck effects" alarm reads it. */
  readonly oldestPendingAgeSeconds: number;
  /** Connectors observed, status changes written, and how many are failed now. */
  readonly connectors: ConnectorPassReport;
  /** The observe-and-diff pass (runs when due: hourly by default). */
  readonly full?: FullPassReport;
}

type PendingEffect = EffectRecord & { replays?: number; lastReplayAt?: string; deadLettered?: boolean };

export class Sweeper {
  constructor(private readonly deps: SweeperDeps) {}

  async sweep(now: Date = new Date()): Promise<SweepReport> {
    const policy = RETRY_POLICIES['sweeper.replay'];
    let itemsRead = 0;
    let replayed = 0;
    let waiting = 0;
    let deadLettered = 0;
    let oldestCreated = now.getTime();
    const connectorStatuses: (StoredStatus & { tenant: string })[] = [];
    // Only effects created before the shortest replay delay can be due: bound the range read.
    const horizon = new Date(now.getTime() - policy.initialDelayMs).toISOString();
    for (let shard = 0; shard < ATTENTION_SHARDS; shard++) {
      let start: Record<string, unknown> | undefined;
      do {
        const r = await this.deps.doc.send(
          new QueryCommand({
            TableName: this.deps.catalogTable,
            IndexName: ATTENTION_INDEX,
            KeyConditionExpression: 'attnPk = :pk AND attnSk < :h',
            ExpressionAttributeValues: { ':pk': `ATTN#${shard}`, ':h': horizon },
            ExclusiveStartKey: start,
          }),
        );
        start = r.LastEvaluatedKey;
        for (const item of (r.Items ?? []) as PendingEffect[]) {
          itemsRead++;
          if ((item as { type: string }).type === 'lock') {
            // A staged commit nobody has read since it crashed: finish or abandon it.
            const lock = item as unknown as { tenant: string };
            await new StagedCommits(this.deps.doc, this.deps.catalogTable).settle(lock.tenant, item as unknown as Record<string, unknown>);
            continue;
          }
          if ((item as { type: string }).type === 'connector_status') {
            connectorStatuses.push(item as unknown as StoredStatus & { tenant: string });
            continue;
          }
          if (item.type !== 'effect' || item.state !== 'pending') continue;
          oldestCreated = Math.min(oldestCreated, Date.parse(item.createdAt));
          if (item.deadLettered) {
            deadLettered++;
            continue;
          }
          const replays = item.replays ?? 0;
          const lastActivity = Math.max(Date.parse(item.updatedAt), Date.parse(item.lastReplayAt ?? item.createdAt));
          if (now.getTime() - lastActivity < backoffMs(policy, replays + 1)) {
            waiting++;
            continue;
          }
          if (await this.replay(item, replays, now)) replayed++;
        }
      } while (start);
      // Connectors whose report deadline passed (DEADLINE_PREFIX keys sort after every effect's date).
      start = undefined;
      do {
        const r: QueryCommandOutput = await this.deps.doc.send(
          new QueryCommand({
            TableName: this.deps.catalogTable,
            IndexName: ATTENTION_INDEX,
            KeyConditionExpression: 'attnPk = :pk AND attnSk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': `ATTN#${shard}`, ':from': DEADLINE_PREFIX, ':to': `${DEADLINE_PREFIX}${now.toISOString()}` },
            ExclusiveStartKey: start,
          }),
        );
        start = r.LastEvaluatedKey;
        for (const item of r.Items ?? []) {
          itemsRead++;
          if (item.type === 'connector_status') connectorStatuses.push(item as StoredStatus & { tenant: string });
        }
      } while (start);
    }
    const connectors = await new ConnectorPass(this.deps).run(connectorStatuses, now);
    const full = this.deps.dataPlane && this.deps.fullPass !== false ? await new FullPass({ ...this.deps, dataPlane: this.deps.dataPlane }, this.deps.fullPass).run(now) : undefined;
    const report = {
      itemsRead,
      totalItemsRead: itemsRead + (full?.itemsRead ?? 0),
      replayed,
      waiting,
      deadLettered,
      oldestPendingAgeSeconds: Math.round((now.getTime() - oldestCreated) / 1000),
      connectors,
      ...(full ? { full } : {}),
    };
    if (replayed || deadLettered || connectors.transitions) this.deps.logger.info('sweep', { ...report });
    return report;
  }

  private async replay(effect: PendingEffect, replays: number, now: Date): Promise<boolean> {
    try {
      // Claim this replay window; a concurrent sweeper that read the same count loses here.
      await this.deps.doc.send(
        new UpdateCommand({
          TableName: this.deps.catalogTable,
          Key: { pk: effect.pk, sk: effect.sk },
          UpdateExpression: 'SET replays = :next, lastReplayAt = :now',
          ConditionExpression: '#s = :pending AND (attribute_not_exists(replays) OR replays = :seen)',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':next': replays + 1, ':now': now.toISOString(), ':pending': 'pending', ':seen': replays },
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
    this.deps.faults?.point('sweeper.after-claim');
    // The same routing the stream router uses, from the record as stored.
    const msg = routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(effect, { removeUndefinedValues: true }) as never } });
    if (!msg) return false;
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
