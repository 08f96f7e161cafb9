/**
 * What every phase of the benchmark shares: the two local pipelines on one DynamoDB Local and one
 * SQS emulator, tenants with app passwords, an HTTP client for POST /api/sql, pausing and resuming
 * the workers, "quiet" (no pending effect left), and stage timestamps along the effect path.
 */
import { attentionShardPk } from '../../shared/catalog/keys';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/resources';
import { CATALOG_TABLE } from '../../shared/definitions';
import type { Pipeline } from '../../local/pipeline';
import { startDynamoLocal, type DynamoLocal, type SqsEmulator } from '../../local/emulators';
import { ATTENTION_INDEX, ATTENTION_SHARDS, CONTROLLERS } from '../../shared/definitions';
import type { ResourceOwner } from '../../shared/dataplane/contract';
import { now, sleep } from './stats';
import type { SdkLatency } from './sdk-latency';

export interface Bench {
  /** The live pipeline: router and executors running (commit → applied, recovery, cold init events). */
  readonly live: Pipeline;
  /** A pipeline whose workers never run: its catalog table is the floor's and the commit path's (no consumer competes). */
  readonly commitOnly: Pipeline;
  /** The live pipeline's DynamoDB Local. */
  readonly dynamo: DynamoLocal;
  /** The commit-only pipeline's own DynamoDB Local (see run.ts: streams on one emulator slow each other). */
  readonly dynamoCommit: DynamoLocal;
  readonly sqs: SqsEmulator;
  /** Short random tag: names and tenants of this run. */
  readonly tag: string;
  /** Per-operation SDK latency of both pipelines' clients (taken per measurement). */
  readonly sdk: SdkLatency;
  /** `--same-emulator`: run the throughput phase on the main DynamoDB Local too (reproduces its slow-down). */
  readonly sameEmulator?: boolean;
  /** `--quick`: smaller sizes, for trying the harness out (not for the published figures). */
  readonly quick: boolean;
  log(msg: string): void;
}

export interface TenantLogin {
  readonly tenant: string;
  readonly password: string;
}

export async function newTenant(p: Pipeline, tenant: string): Promise<TenantLogin> {
  const password = await p.passwords.create(tenant);
  return { tenant, password };
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: { results?: { ok?: string; error?: { code: string; message: string } }[] } & Record<string, unknown>;
}

/** Keep-alive connections, as the AWS SDK's own client keeps to DynamoDB (the floor's path). */
const keepAlive = new HttpAgent({ keepAlive: true });

/**
 * POST /api/sql with node:http and a keep-alive agent: the client the AWS SDK itself uses for the
 * floor's TransactWriteItems, so the rows that time a request against that floor compare like with
 * like. (fetch, undici, costs more per request in Node 20, in the same process as the server: the
 * commit phase reports the same POST sent with it, {@link sqlHttpFetch}.)
 */
export function sqlHttp(url: string, password: string, query: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return httpNode(url, 'POST', '/api/sql', { ...headers, authorization: `Bearer ${password}`, 'content-type': 'application/json' }, JSON.stringify({ query })).then((r) => ({
    status: r.status,
    body: JSON.parse(r.text) as HttpAnswer['body'],
  }));
}

/** The same POST /api/sql sent with fetch (undici): the commit phase's comparison of client libraries. */
export async function sqlHttpFetch(url: string, password: string, query: string): Promise<HttpAnswer> {
  const res = await fetch(`${url}/api/sql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${password}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as HttpAnswer['body'] };
}

/** One request on the keep-alive agent: its status and body text. */
export function httpNode(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path, method, agent: keepAlive, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Stops the router and the queue pollers (each returns after its current poll). */
export async function pauseWorkers(p: Pipeline): Promise<void> {
  await Promise.all([p.router.stop(), ...CONTROLLERS.map((c) => p.pollers[c].stop())]);
}

export function resumeWorkers(p: Pipeline): void {
  p.router.start();
  for (const c of CONTROLLERS) p.pollers[c].start();
}

/** Pending effects on the attention index (every tenant of the table). */
export async function pendingEffectCount(p: Pipeline): Promise<number> {
  let n = 0;
  for (let shard = 0; shard < ATTENTION_SHARDS; shard++) {
    let start: Record<string, unknown> | undefined;
    do {
      const r = await p.clients.doc.send(
        new QueryCommand({
          TableName: p.config.catalogTable,
          IndexName: ATTENTION_INDEX,
          KeyConditionExpression: 'attnPk = :pk',
          FilterExpression: '#t = :effect AND #s = :pending',
          ExpressionAttributeNames: { '#t': 'type', '#s': 'state' },
          ExpressionAttributeValues: { ':pk': attentionShardPk(shard), ':effect': 'effect', ':pending': 'pending' },
          Select: 'COUNT',
          ExclusiveStartKey: start,
        }),
      );
      n += r.Count ?? 0;
      start = r.LastEvaluatedKey;
    } while (start);
  }
  return n;
}

/** Waits until no effect is pending; returns the seconds it took, or undefined on timeout. */
export async function waitQuiet(p: Pipeline, timeoutMs: number): Promise<number | undefined> {
  const t0 = now();
  for (;;) {
    if ((await pendingEffectCount(p)) === 0) return (now() - t0) / 1000;
    if (now() - t0 > timeoutMs) return undefined;
    await sleep(250);
  }
}

/**
 * Timestamps along the effect path of the live pipeline, taken in-process (no polling load on
 * DynamoDB Local): when the router's SendMessageBatch for an effect returned, when a poller's
 * ReceiveMessage handed it out, when the executor started reading the effect record, when it
 * called the data plane, when the data plane held the change (the reference data plane's `ensure`
 * returned: its conditional write committed), and when the executor's settle write returned.
 */
export class EffectTimeline {
  readonly routedAt = new Map<string, number>();
  readonly receivedAt = new Map<string, number>();
  /** The executor's first read of the effect record began (by object id). */
  readonly executorStartAt = new Map<string, number>();
  readonly ensureStartAt = new Map<string, number>();
  /** The executor's settle write (state pending → applied/superseded) returned (by object id). */
  readonly settledAt = new Map<string, number>();
  /** Effect record key → object id, learnt from the executor's read of the record. */
  private readonly effectObject = new Map<string, string>();
  /** Keyed by `tenant/objectName` (what a client knows), with the object id. */
  readonly heldAt = new Map<string, { t: number; objectId: string }>();
  private readonly waiters = new Map<string, (t: number) => void>();

  constructor(p: Pipeline) {
    const timeline = this;
    p.clients.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const t = now();
        const name = (context as { commandName?: string }).commandName;
        if (name === 'SendMessageBatchCommand') {
          for (const e of (args.input as { Entries?: { MessageBody?: string }[] }).Entries ?? []) timeline.routedAt.set(objectIdOf(e.MessageBody), t);
        } else if (name === 'ReceiveMessageCommand') {
          for (const m of (out.output as { Messages?: { Body?: string }[] }).Messages ?? []) {
            const id = objectIdOf(m.Body);
            if (!timeline.receivedAt.has(id)) timeline.receivedAt.set(id, t);
          }
        }
        return out;
      },
      { step: 'initialize', name: 'benchEffectTimeline' },
    );
    const catalog = p.config.catalogTable;
    p.clients.ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const name = (context as { commandName?: string }).commandName;
        // Document-client calls may reach this point marshalled or not: read either shape.
        const input = args.input as { TableName?: string; Key?: { pk?: unknown; sk?: unknown }; UpdateExpression?: string };
        const sk = attr(input.Key?.sk);
        if (input.TableName !== catalog || !sk.startsWith('EFF#') || (name !== 'GetItemCommand' && name !== 'UpdateItemCommand')) return next(args);
        const t0 = now();
        const out = await next(args);
        const key = `${attr(input.Key?.pk)}/${sk}`;
        if (name === 'GetItemCommand') {
          const id = attr((out.output as { Item?: { objectId?: unknown } }).Item?.objectId);
          if (id) {
            timeline.effectObject.set(key, id);
            if (!timeline.executorStartAt.has(id)) timeline.executorStartAt.set(id, t0);
          }
        } else if (input.UpdateExpression?.includes('settledAt')) {
          const id = timeline.effectObject.get(key);
          if (id && !timeline.settledAt.has(id)) timeline.settledAt.set(id, now());
        }
        return out;
      },
      { step: 'initialize', name: 'benchEffectTimelineExecutor' },
    );
    const dp = p.dataPlane;
    const ensure = dp.ensure.bind(dp);
    dp.ensure = (async (kind: never, owner: ResourceOwner, generation: number, spec: never) => {
      timeline.ensureStartAt.set(owner.objectId, now());
      const r = await ensure(kind, owner, generation, spec);
      const t = now();
      const key = `${owner.tenant}/${owner.objectName}`;
      if (!timeline.heldAt.has(key)) timeline.heldAt.set(key, { t, objectId: owner.objectId });
      timeline.waiters.get(key)?.(t);
      timeline.waiters.delete(key);
      return r;
    }) as typeof dp.ensure;
  }

  /** Resolves with the time the data plane held `tenant/objectName` (register before committing). */
  held(tenant: string, objectName: string, timeoutMs = 60_000): Promise<number | undefined> {
    const key = `${tenant}/${objectName}`;
    const seen = this.heldAt.get(key);
    if (seen) return Promise.resolve(seen.t);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.set(key, (t) => {
        clearTimeout(timer);
        resolve(t);
      });
    });
  }
}

/** A string attribute, marshalled (`{ S }`) or not. */
function attr(v: unknown): string {
  if (typeof v === 'string') return v;
  return (v as { S?: string } | undefined)?.S ?? '';
}

function objectIdOf(body: string | undefined): string {
  try {
    return (JSON.parse(body ?? '{}') as { objectId?: string }).objectId ?? '';
  } catch {
    return '';
  }
}

/**
 * The emulator's health between phases: 100 sequential PutItems into a small table of the
 * catalog's definition (stream and attention index included), p50 ms. A fresh DynamoDB Local
 * answers in a few milliseconds; a rising figure means the emulator itself got slower.
 */
export async function probeWrites(p: Pipeline, table: string): Promise<number> {
  await ensureTable(p.clients.ddb, CATALOG_TABLE, table);
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t0 = now();
    await p.clients.doc.send(new PutCommand({ TableName: table, Item: { pk: 'PROBE', sk: `P#${i}`, at: Date.now() } }));
    times.push(now() - t0);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[49]! * 100) / 100;
}

/**
 * A DynamoDB Local of a phase's own. Its JVM can take over a minute to answer on a machine
 * shared with other work (the starter gives up after 60 s): tried up to three times.
 */
export async function freshDynamo(log: (msg: string) => void, maxHeap = '1g'): Promise<DynamoLocal> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDynamoLocal({ maxHeap });
    } catch (err) {
      if (attempt >= 3) throw err;
      log(`DynamoDB Local did not start (attempt ${attempt}): ${(err as Error).message.split('\n')[0]}; trying again`);
    }
  }
}
