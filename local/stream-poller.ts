/**
 * A DynamoDB-stream event source mapping, locally: reads the catalog stream in batches, applies
 * the router's filter, invokes the router handler with Lambda's event shape, honours
 * `batchItemFailures` (restart after the last good record), and persists a checkpoint only after
 * a batch succeeded — so a restart neither loses nor skips records (at-least-once, like Lambda).
 * A read that found records is followed by the next one at once (sent while the checkpoint is
 * saved; its records are delivered after the save); an idle stream is read with a wait that
 * doubles up to `idleMs`. The shard list is described once, and again only when a shard is read
 * to its end (closed), after an error, or every `describeEveryMs`.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetRecordsCommandOutput,
  type DynamoDBStreamsClient,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { matchesRouterFilter } from '../shared/router/routing';
import type { StreamHandler } from '../shared/router/handler';
import { backoffMs, RETRY_POLICIES } from '../shared/effects/retry-policies';
import { lambdaContext } from './lambda-context';

export interface StreamPollerOptions {
  readonly streams: DynamoDBStreamsClient;
  readonly doc: DynamoDBDocumentClient;
  readonly streamArn: string;
  readonly checkpointTable: string;
  readonly handler: StreamHandler;
  readonly logger: Logger;
  /** Records per batch (the mapping's BatchSize). */
  readonly batchSize?: number;
  /**
   * Longest wait between reads of an idle stream. After a read that found records the next read
   * follows at once; after empty ones the wait doubles from `idleMinMs` up to this.
   */
  readonly idleMs?: number;
  /** First wait after an empty read (default 10 ms). */
  readonly idleMinMs?: number;
  /** The shard list is described again this often even when no shard closed (default 60 s). */
  readonly describeEveryMs?: number;
}

/** A shard's read position: an iterator, or `null` once the shard is closed and read to its end. */
type Position = string | null;

export class StreamPoller {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** The stream's shards (DescribeStream), cached until a shard closes or `describeEveryMs` passes. */
  private shards: { ids: string[]; at: number } | undefined;
  /** Batches delivered (including retries), for tests. */
  invocations = 0;
  /** DescribeStream calls, for tests. */
  describes = 0;

  constructor(private readonly o: StreamPollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.shards = undefined;
    this.loop = this.run().catch((err) => this.o.logger.error('stream poller stopped', { error: err as Error }));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async checkpoint(shardId: string): Promise<string | undefined> {
    const r = await this.o.doc.send(new GetCommand({ TableName: this.o.checkpointTable, Key: { pk: this.o.streamArn, sk: shardId }, ConsistentRead: true }));
    return r.Item?.sequenceNumber as string | undefined;
  }

  private async saveCheckpoint(shardId: string, sequenceNumber: string): Promise<void> {
    await this.o.doc.send(
      new PutCommand({ TableName: this.o.checkpointTable, Item: { pk: this.o.streamArn, sk: shardId, sequenceNumber, updatedAt: new Date().toISOString() } }),
    );
  }

  private async iterator(shardId: string, after: string | undefined): Promise<string | undefined> {
    const { streams, streamArn } = this.o;
    try {
      const r = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      return r.ShardIterator;
    } catch (err) {
      // The checkpoint fell off the stream's 24 h retention: start from the oldest record kept.
      // Whatever was lost is replayed from the outbox by the sweeper.
      if (after) {
        this.o.logger.warn('checkpoint no longer in the stream; reading from its start', { shardId, error: (err as Error).message });
        return this.iterator(shardId, undefined);
      }
      throw err;
    }
  }

  /** The stream's shard ids, described once and again only when a shard closed or the description aged. */
  private async shardIds(): Promise<string[]> {
    const every = this.o.describeEveryMs ?? 60_000;
    if (this.shards && Date.now() - this.shards.at < every) return this.shards.ids;
    const ids: string[] = [];
    let start: string | undefined;
    do {
      this.describes++;
      const d = await this.o.streams.send(new DescribeStreamCommand({ StreamArn: this.o.streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
      for (const shard of d.StreamDescription?.Shards ?? []) ids.push(shard.ShardId!);
      start = d.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    this.shards = { ids, at: Date.now() };
    return ids;
  }

  private async run(): Promise<void> {
    const policy = RETRY_POLICIES['router.stream'];
    const positions = new Map<string, Position>();
    /** A shard's next read, already under way (issued while the previous batch's checkpoint was being saved). */
    const ahead = new Map<string, Promise<GetRecordsCommandOutput>>();
    const read = (it: string) => this.o.streams.send(new GetRecordsCommand({ ShardIterator: it, Limit: this.o.batchSize ?? 100 }));
    const idleMin = this.o.idleMinMs ?? 10;
    const idleMax = Math.max(idleMin, this.o.idleMs ?? 100);
    let idle = 0;
    let failures = 0;
    /** After a shard's last read: where it continues, or that it closed (then the shard list is described again). */
    const advance = (shardId: string, next: string | undefined) => {
      positions.set(shardId, next ?? null);
      if (!next) this.shards = undefined;
    };
    while (this.running) {
      let progressed = false;
      try {
        for (const shardId of await this.shardIds()) {
          if (!this.running) break;
          if (!positions.has(shardId)) positions.set(shardId, (await this.iterator(shardId, await this.checkpoint(shardId))) ?? null);
          const it = positions.get(shardId);
          if (!it) continue; // closed and drained
          const r = await (ahead.get(shardId) ?? read(it));
          ahead.delete(shardId);
          const records = r.Records ?? [];
          if (records.length === 0) {
            advance(shardId, r.NextShardIterator);
            continue;
          }
          progressed = true;
          const last = await this.deliver(records);
          if (last === records[records.length - 1]!.dynamodb!.SequenceNumber) {
            // The next read goes out while the checkpoint is saved; its records are delivered only
            // after the save succeeded (a failed save drops it and starts over from the checkpoint).
            if (r.NextShardIterator) {
              const next = read(r.NextShardIterator);
              next.catch(() => undefined);
              ahead.set(shardId, next);
            }
            await this.saveCheckpoint(shardId, last!);
            advance(shardId, r.NextShardIterator);
            failures = 0;
          } else {
            if (last) await this.saveCheckpoint(shardId, last);
            positions.set(shardId, (await this.iterator(shardId, last ?? (await this.checkpoint(shardId)))) ?? null);
            failures++;
            await this.sleep(backoffMs(policy, failures));
          }
        }
      } catch (err) {
        failures++;
        this.o.logger.warn('stream read failed; retrying', { error: (err as Error).message, failures });
        // Start over from the checkpoints, on a fresh description (an expired iterator, a trimmed or closed shard).
        positions.clear();
        ahead.clear();
        this.shards = undefined;
        await this.sleep(backoffMs(policy, failures));
        continue;
      }
      // Records found: read again at once. Idle: wait, longer the longer it stays idle.
      if (progressed) idle = 0;
      else await this.sleep(Math.min(idleMax, idleMin * 2 ** Math.min(idle++, 16)));
    }
  }

  /** Invokes the router; returns the sequence number of the last record handled in order. */
  private async deliver(records: StreamRecord[]): Promise<string | undefined> {
    const event: DynamoDBStreamEvent = { Records: records.map((r) => this.toLambdaRecord(r)) };
    const matching = event.Records.filter(matchesRouterFilter);
    const lastSeq = records[records.length - 1]!.dynamodb!.SequenceNumber!;
    if (matching.length === 0) return lastSeq;
    this.invocations++;
    let failedSeq: string | undefined;
    try {
      const res = await this.o.handler({ Records: matching }, lambdaContext('stream-router') as Context);
      const failed = (res?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
      failedSeq = failed.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
    } catch (err) {
      this.o.logger.warn('router invocation failed; the batch will be retried', { error: (err as Error).message });
      failedSeq = matching[0]!.dynamodb!.SequenceNumber;
    }
    if (failedSeq === undefined) return lastSeq;
    // Everything before the first failed record counts as done, as with ReportBatchItemFailures.
    const before = records.filter((r) => BigInt(r.dynamodb!.SequenceNumber!) < BigInt(failedSeq!));
    return before.length ? before[before.length - 1]!.dynamodb!.SequenceNumber : undefined;
  }

  private toLambdaRecord(r: StreamRecord): DynamoDBRecord {
    const created = r.dynamodb?.ApproximateCreationDateTime;
    return {
      eventID: r.eventID,
      eventName: r.eventName as DynamoDBRecord['eventName'],
      eventVersion: r.eventVersion,
      eventSource: 'aws:dynamodb',
      awsRegion: r.awsRegion,
      eventSourceARN: this.o.streamArn,
      dynamodb: {
        ...(r.dynamodb as object),
        ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
      } as DynamoDBRecord['dynamodb'],
    };
  }
}
