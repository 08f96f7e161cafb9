/**
 * The local DynamoDB-stream event source mapping against a scripted stream: it reads again at
 * once while records keep coming, describes the stream once and again only when a shard closes,
 * and keeps its checkpoint semantics (restart after the last good record of a partial failure).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type DynamoDBStreamsClient, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamPoller, type StreamPollerOptions } from '../../local/stream-poller';
import { PROFILES } from '../../local/profiles';
import { eventually } from '../helpers/pipeline';

interface Shard {
  readonly id: string;
  readonly records: _Record[];
  closed: boolean;
}

/** A stream whose shards the test scripts; iterators are `shard:index`. */
class ScriptedStream {
  readonly shards: Shard[] = [];
  /** Shards that appear in the description only once `after` is closed and read to its end. */
  readonly children: { after: string; shard: Shard }[] = [];
  describes = 0;
  private drained = new Set<string>();
  private seq = 0;

  shard(id: string, n: number, closed = false): Shard {
    const s: Shard = { id, records: Array.from({ length: n }, () => this.record()), closed };
    this.shards.push(s);
    return s;
  }

  /** Reads served (GetRecords), for the pacing tests. */
  reads = 0;

  record(createdAt = new Date()): _Record {
    const seq = String(++this.seq).padStart(21, '0');
    return {
      eventID: `e${seq}`,
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: seq, ApproximateCreationDateTime: createdAt, NewImage: { pk: { S: 'T#t' }, sk: { S: `EFF#${seq}#0001` } } },
    };
  }

  readonly client = {
    send: async (cmd: unknown) => {
      if (cmd instanceof DescribeStreamCommand) {
        this.describes++;
        for (const c of this.children.filter((c) => this.drained.has(c.after) && !this.shards.includes(c.shard))) this.shards.push(c.shard);
        return { StreamDescription: { Shards: this.shards.map((s) => ({ ShardId: s.id })) } };
      }
      if (cmd instanceof GetShardIteratorCommand) {
        const s = this.find(cmd.input.ShardId!);
        const after = cmd.input.SequenceNumber;
        const index = after ? s.records.findIndex((r) => r.dynamodb!.SequenceNumber === after) + 1 : 0;
        return { ShardIterator: `${s.id}:${index}` };
      }
      if (cmd instanceof GetRecordsCommand) {
        this.reads++;
        const [id, at] = cmd.input.ShardIterator!.split(':');
        const s = this.find(id!);
        const from = Number(at);
        const records = s.records.slice(from, from + (cmd.input.Limit ?? 100));
        const next = from + records.length;
        if (s.closed && next >= s.records.length) {
          this.drained.add(s.id);
          return { Records: records };
        }
        return { Records: records, NextShardIterator: `${s.id}:${next}` };
      }
      throw new Error(`unexpected ${(cmd as object).constructor.name}`);
    },
  };

  private find(id: string): Shard {
    const s = this.shards.find((x) => x.id === id);
    if (!s) throw new Error(`no shard ${id}`);
    return s;
  }
}

/** The checkpoint table; the first `failPuts` saves fail. */
function checkpoints(failPuts = 0) {
  const items = new Map<string, Record<string, unknown>>();
  const client = {
    send: async (cmd: unknown) => {
      if (cmd instanceof GetCommand) return { Item: items.get(String(cmd.input.Key!.sk)) };
      if (cmd instanceof PutCommand) {
        if (failPuts-- > 0) throw new Error('injected checkpoint write failure');
        items.set(String(cmd.input.Item!.sk), cmd.input.Item!);
        return {};
      }
      throw new Error('unexpected command');
    },
  };
  return { items, client };
}

const logger = new Logger({ serviceName: 'stream-poller-test', logLevel: 'ERROR' });
const running: StreamPoller[] = [];
afterEach(async () => {
  await Promise.all(running.map((p) => p.stop()));
  running.length = 0;
});

type Options = Pick<StreamPollerOptions, 'idleMs' | 'idleMinMs' | 'pollIntervalMs' | 'bisectBatchOnError' | 'retryAttempts' | 'maxRecordAgeSeconds' | 'batchSize'> & { failPuts?: number };

function start(stream: ScriptedStream, handler: (e: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>, o: Options = {}) {
  const { failPuts, ...options } = o;
  const cp = checkpoints(failPuts);
  const p = new StreamPoller({
    streams: stream.client as unknown as DynamoDBStreamsClient,
    doc: cp.client as unknown as DynamoDBDocumentClient,
    streamArn: 'arn:stream',
    checkpointTable: 'checkpoints',
    handler,
    logger,
    batchSize: 2,
    ...options,
  });
  running.push(p);
  p.start();
  return { p, checkpoints: cp.items };
}

const seqOf = (e: DynamoDBStreamEvent) => e.Records.map((r) => Number(r.dynamodb!.SequenceNumber));

describe('stream poller', () => {
  it('reads the next batch at once while records keep coming, and describes the stream once', async () => {
    // Prepare: 7 records, read 2 at a time; an idle wait of 10 s would show as a stall.
    const stream = new ScriptedStream();
    stream.shard('s1', 7);
    const seen: number[] = [];

    // Act
    const { p, checkpoints } = start(
      stream,
      async (e) => {
        seen.push(...seqOf(e));
        return { batchItemFailures: [] };
      },
      { idleMs: 10_000, idleMinMs: 10_000 },
    );

    // Assess: four batches back to back (well within one idle wait), one description.
    await eventually(async () => seen.length === 7, 2_000);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(p.invocations).toBe(4);
    expect(stream.describes).toBe(1);
    expect(checkpoints.get('s1')?.sequenceNumber).toBe('000000000000000000007');
  });

  it('describes the stream again when a shard is read to its end, and reads the shard that follows it', async () => {
    // Prepare: s1 closes after 3 records; its child s2 shows up in the description afterwards.
    const stream = new ScriptedStream();
    stream.shard('s1', 3, true);
    stream.children.push({ after: 's1', shard: { id: 's2', records: [stream.record(), stream.record()], closed: false } });
    const seen: number[] = [];

    // Act
    start(stream, async (e) => {
      seen.push(...seqOf(e));
      return { batchItemFailures: [] };
    });

    // Assess
    await eventually(async () => seen.length === 5, 5_000);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(stream.describes).toBe(2);
  });

  it('delivers the batch read during a checkpoint save only after the save; a failed save starts over from the checkpoint', async () => {
    // Prepare: the first checkpoint save fails.
    const stream = new ScriptedStream();
    stream.shard('s1', 4);
    const batches: number[][] = [];

    // Act
    const { checkpoints } = start(
      stream,
      async (e) => {
        batches.push(seqOf(e));
        return { batchItemFailures: [] };
      },
      { failPuts: 1 },
    );

    // Assess: [1, 2] again (its checkpoint was lost), never [3, 4] before it; nothing skipped.
    await eventually(async () => checkpoints.get('s1')?.sequenceNumber === '000000000000000000004', 10_000);
    expect(batches).toEqual([
      [1, 2],
      [1, 2],
      [3, 4],
    ]);
  });

  it('after a partial failure, checkpoints the last good record and reads again from it', async () => {
    // Prepare: record 2 fails once.
    const stream = new ScriptedStream();
    stream.shard('s1', 4);
    const batches: number[][] = [];
    let failed = false;

    // Act
    const { checkpoints } = start(stream, async (e) => {
      batches.push(seqOf(e));
      const bad = e.Records.find((r) => r.dynamodb!.SequenceNumber === '000000000000000000002');
      if (bad && !failed) {
        failed = true;
        return { batchItemFailures: [{ itemIdentifier: bad.dynamodb!.SequenceNumber! }] };
      }
      return { batchItemFailures: [] };
    });

    // Assess: [1, 2] fails at 2; the checkpoint moves to 1 and reading restarts at 2.
    await eventually(async () => checkpoints.get('s1')?.sequenceNumber === '000000000000000000004', 10_000);
    expect(batches).toEqual([
      [1, 2],
      [2, 3],
      [4],
    ]);
  });

  it("reads each shard at most four times a second in the deployed profile, busy or idle", async () => {
    // Prepare: a busy shard (records for many reads) and an idle one.
    const stream = new ScriptedStream();
    stream.shard('busy', 40);
    stream.shard('idle', 0);
    const seen: number[] = [];
    const began = Date.now();

    // Act: 1 record per batch, so each read finds one.
    const { p } = start(
      stream,
      async (e) => {
        seen.push(...seqOf(e));
        return { batchItemFailures: [] };
      },
      { ...PROFILES.deployed.stream, batchSize: 1 },
    );
    await eventually(async () => seen.length >= 3, 5_000);
    await p.stop();
    const seconds = (Date.now() - began) / 1000;

    // Assess: at most one read per shard per 250 ms round (a slow machine only reads less).
    expect(stream.reads).toBeLessThanOrEqual(2 * (Math.floor(seconds * 4) + 1));
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
  });

  it('bisects a failing batch so the records beside a poison one get through, and gives the poison one up after its retries', async () => {
    // Prepare: record 3 of 4 always makes the invocation fail.
    const stream = new ScriptedStream();
    stream.shard('s1', 4);
    const delivered = new Set<number>();

    // Act
    const { p, checkpoints } = start(
      stream,
      async (e) => {
        if (seqOf(e).includes(3)) throw new Error('poison');
        for (const s of seqOf(e)) delivered.add(s);
        return { batchItemFailures: [] };
      },
      { batchSize: 4, bisectBatchOnError: true, retryAttempts: 1, pollIntervalMs: 1 },
    );

    // Assess: 1, 2 and 4 handled; 3 given up (the on-failure queue's share); the shard moved on.
    await eventually(async () => checkpoints.get('s1')?.sequenceNumber === '000000000000000000004', 20_000);
    expect([...delivered].sort()).toEqual([1, 2, 4]);
    expect(p.discarded).toBe(1);
  });

  it('gives up records older than the maximum record age without delivering them', async () => {
    // Prepare: two records two hours old, then a fresh one.
    const stream = new ScriptedStream();
    const old = new Date(Date.now() - 2 * 3600_000);
    stream.shards.push({ id: 's1', records: [stream.record(old), stream.record(old), stream.record()], closed: false });
    const seen: number[] = [];

    // Act
    const { p, checkpoints } = start(
      stream,
      async (e) => {
        seen.push(...seqOf(e));
        return { batchItemFailures: [] };
      },
      { batchSize: 10, maxRecordAgeSeconds: 3600 },
    );

    // Assess
    await eventually(async () => checkpoints.get('s1')?.sequenceNumber === '000000000000000000003', 5_000);
    expect(seen).toEqual([3]);
    expect(p.discarded).toBe(2);
  });
});
