/**
 * A DynamoDB-stream event source mapping, locally: reads the catalog stream in batches, applies
 * the router's filter, invokes the router handler with Lambda's event shape, honours
 * `batchItemFailures` (restart after the last good record), and persists a checkpoint only after
 * a batch succeeded — so a restart neither loses nor skips records (at-least-once, like Lambda).
 * A read that found records is followed by the next one at once (sent while the checkpoint is
 * saved; its records are delivered after the save); an idle stream is read with a wait that
 * doubles up to `idleMs`. The shard list is described once, and again only when a shard is read
 * to its end (closed), after an error, or every `describeEveryMs`.
 *
 * With `pollIntervalMs` (the deployed profile, local/profiles.ts) it reads each shard at Lambda's
 * rate instead, busy or idle, and the mapping's `bisectBatchOnError`, `retryAttempts` and
 * `maxRecordAgeSeconds` apply: a batch that still fails after its retries, and a record older than
 * the age limit, are given up (logged and counted in `discarded`, where AWS sends them to the
 * on-failure queue); the sweeper re-sends what they carried from the outbox.
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
  /** The function's timeout as its Lambda context reports it (local/profiles.ts). */
  readonly functionTimeoutMs?: number;
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
  /** Reads each shard at most once per this many ms, whether it found records or not (Lambda: 250). */
  readonly pollIntervalMs?: number;
  /** A failed invocation is retried as two halves (the mapping's BisectBatchOnError). */
  readonly bisectBatchOnError?: boolean;
  /** Retries of a failing batch before it is given up (default: retried until it succeeds). */
  readonly retryAttempts?: number;
  /** Records older than this are given up instead of delivered (default: none are). */
  readonly maxRecordAgeSeconds?: number;
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
  /** Time spent inside the handler, summed over invocations (the benchmark's GB-seconds). */
  busyMs = 0;
  /** DescribeStream calls, for tests. */
  describes = 0;
  /** Records given up (past their retries or their age), for tests: AWS's on-failure queue. */
  discarded = 0;

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
    /** Consecutive failed deliveries of each shard's current batch (for `retryAttempts`). */
    const retries = new Map<string, number>();
    const paced = this.o.pollIntervalMs !== undefined;
    /** After a shard's last read: where it continues, or that it closed (then the shard list is described again). */
    const advance = (shardId: string, next: string | undefined) => {
      positions.set(shardId, next ?? null);
      if (!next) this.shards = undefined;
    };
    while (this.running) {
      let progressed = false;
      const round = Date.now();
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
            // Paced like Lambda, the next read waits for its turn instead.
            if (r.NextShardIterator && !paced) {
              const next = read(r.NextShardIterator);
              next.catch(() => undefined);
              ahead.set(shardId, next);
            }
            await this.saveCheckpoint(shardId, last!);
            advance(shardId, r.NextShardIterator);
            failures = 0;
            retries.delete(shardId);
          } else if (this.o.retryAttempts !== undefined && (retries.get(shardId) ?? 0) >= this.o.retryAttempts) {
            // Out of retries: the mapping gives up the failing records (to its on-failure queue).
            // Bisecting, that is the one record that failed alone; otherwise the rest of the batch.
            const rest = records.filter((rec) => last === undefined || BigInt(rec.dynamodb!.SequenceNumber!) > BigInt(last));
            const lost = this.o.bisectBatchOnError ? rest.slice(0, 1) : rest;
            this.giveUp(lost, 'retries exhausted');
            const through = lost[lost.length - 1]!.dynamodb!.SequenceNumber!;
            await this.saveCheckpoint(shardId, through);
            if (lost.length === rest.length) advance(shardId, r.NextShardIterator);
            else positions.set(shardId, (await this.iterator(shardId, through)) ?? null);
            retries.delete(shardId);
          } else {
            retries.set(shardId, (retries.get(shardId) ?? 0) + 1);
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
      // Paced: each shard's next read one interval after this round's. Otherwise, records found:
      // read again at once; idle: wait, longer the longer it stays idle.
      if (paced) await this.sleep(Math.max(0, round + this.o.pollIntervalMs! - Date.now()));
      else if (progressed) idle = 0;
      else await this.sleep(Math.min(idleMax, idleMin * 2 ** Math.min(idle++, 16)));
    }
  }

  /** Invokes the router; returns the sequence number of the last record handled in order. */
  private async deliver(records: StreamRecord[]): Promise<string | undefined> {
    const lastSeq = records[records.length - 1]!.dynamodb!.SequenceNumber!;
    let lambdaRecords = records.map((r) => this.toLambdaRecord(r));
    if (this.o.maxRecordAgeSeconds !== undefined) {
      const oldest = Date.now() / 1000 - this.o.maxRecordAgeSeconds;
      const expired = lambdaRecords.filter((r) => (r.dynamodb?.ApproximateCreationDateTime ?? Infinity) < oldest);
      if (expired.length) {
        this.giveUp(expired, 'older than the maximum record age');
        lambdaRecords = lambdaRecords.filter((r) => !expired.includes(r));
      }
    }
    const matching = lambdaRecords.filter(matchesRouterFilter);
    if (matching.length === 0) return lastSeq;
    const failedSeq = await this.invoke(matching);
    if (failedSeq === undefined) return lastSeq;
    // Everything before the first failed record counts as done, as with ReportBatchItemFailures.
    const before = records.filter((r) => BigInt(r.dynamodb!.SequenceNumber!) < BigInt(failedSeq));
    return before.length ? before[before.length - 1]!.dynamodb!.SequenceNumber : undefined;
  }

  /** One invocation (two halves after a failure, when bisecting); the first failed record's sequence number, if any. */
  private async invoke(matching: DynamoDBRecord[]): Promise<string | undefined> {
    this.invocations++;
    const began = performance.now();
    try {
      const res = await this.o.handler({ Records: matching }, lambdaContext('stream-router', this.o.functionTimeoutMs) as Context);
      this.busyMs += performance.now() - began;
      const failed = (res?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
      return failed.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
    } catch (err) {
      this.busyMs += performance.now() - began;
      this.o.logger.warn('router invocation failed; the batch will be retried', { error: (err as Error).message, records: matching.length });
      if (!this.o.bisectBatchOnError || matching.length < 2) return matching[0]!.dynamodb!.SequenceNumber;
      const half = Math.ceil(matching.length / 2);
      return (await this.invoke(matching.slice(0, half))) ?? (await this.invoke(matching.slice(half)));
    }
  }

  private giveUp(records: ReadonlyArray<StreamRecord | DynamoDBRecord>, reason: string): void {
    if (records.length === 0) return;
    this.discarded += records.length;
    this.o.logger.error('stream records given up; the sweeper re-sends their effects from the outbox', {
      reason,
      records: records.length,
      firstSequenceNumber: records[0]!.dynamodb?.SequenceNumber,
    });
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
