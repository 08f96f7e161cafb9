/**
 * Effect capacity and per-tenant fairness against the local pipeline (issue 16): effects of many
 * tenants, one of them with half of them, are committed through the SQL API with the workers
 * off, sent to the compute queue in a chosen arrival order (the router's message: group per
 * object, its deduplication id) as far as admission lets them in (the per-tenant cap, as the
 * router sends), and then the compute executor drains the queue with the stack's
 * mapping (the `deployed` profile: batches of EXECUTOR_MAPPING.batchSize, at most
 * EXECUTOR_MAPPING.maxConcurrency invocations). Each effect's wait runs from the moment the whole
 * workload is queued to the moment the reference data plane holds its replica; the drain rate is
 * compared with the data plane's allowed rate (EFFECT_CAPACITY) and with what the deployed
 * concurrency allows at the per-effect time measured in the same run.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { OutboxStore } from '../../shared/catalog/outbox-store';
import type { ResourceOwner } from '../../shared/dataplane/contract';
import { EFFECT_CAPACITY } from '../../shared/definitions';
import { messageForEffect, type RoutedMessage } from '../../shared/router/routing';
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { makeAdmission } from '../../shared/lambda/admission';
import { freshDynamo, newTenant, pendingEffectCount, sqlHttp, type Bench } from '../lib/harness';
import { ARRIVAL_ORDERS, arrivalOrder, drainProgress, fairnessFigures, servicePositions, tenantShares, type ArrivalOrder, type FairnessFigures } from '../lib/fairness';
import { now, rounded, sleep } from '../lib/stats';

export interface CapacityWorkload {
  /** Names the tenants (unique per run). */
  readonly tag: string;
  readonly tenants: number;
  readonly effects: number;
  /** The big tenant's share of the effects. */
  readonly bigShare: number;
  readonly order: ArrivalOrder;
  /** Give up draining after this long. */
  readonly timeoutMs: number;
  readonly log?: (msg: string) => void;
}

export interface CapacityRun {
  readonly order: ArrivalOrder;
  readonly tenants: number;
  readonly effects: number;
  readonly bigTenantEffects: number;
  /** Queued → the last effect held by the data plane. */
  readonly drainSeconds: number;
  readonly drainPerSecond: number;
  /** EFFECT_CAPACITY.dataPlaneEffectsPerSecond: what the stack's concurrency is sized for. */
  readonly allowedPerSecond: number;
  /** The executors' time per effect in this run (handler time ÷ effects), ms. */
  readonly effectMs: number;
  /** maxConcurrency ÷ effect time: the most the deployed concurrency can drain at this run's effect time. */
  readonly concurrencyAllowsPerSecond: number;
  readonly maxConcurrency: number;
  readonly batchSize: number;
  readonly peakInFlight: number;
  readonly fairness: FairnessFigures;
  /**
   * The same figures with each wait counted in effects held before it (servicePositions): the
   * order the queueing served the tenants in, whatever the machine's speed did meanwhile. Its
   * "ms" fields are places in that order.
   */
  readonly fairnessInServiceOrder: FairnessFigures;
}

/** Replicas per CREATE CLUSTER: each replica is a catalog item, a name guard and an effect, well inside one transaction. */
const REPLICAS_PER_STATEMENT = 20;
/** Statements committed at once while building the workload. */
const COMMIT_CLIENTS = 4;
/** Tries of a statement that answered 5xx. */
const COMMIT_ATTEMPTS = 5;
/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH = 10;

function statements(count: number): string[] {
  const out: string[] = [];
  for (let c = 0, left = count; left > 0; c++, left -= REPLICAS_PER_STATEMENT) {
    const n = Math.min(REPLICAS_PER_STATEMENT, left);
    out.push(`CREATE CLUSTER c${c} REPLICAS (${Array.from({ length: n }, (_, i) => `r${i} (SIZE = '25cc')`).join(', ')})`);
  }
  return out;
}

async function pool<T>(items: readonly T[], width: number, body: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await body(items[next++]!);
  }));
}

/** How often a drain logs its progress: a run stopped part-way still shows who was served. */
const PROGRESS_EVERY_MS = 60_000;

/**
 * Commits the workload on `p` (its workers and fast path off, an HTTP port open), queues it in
 * `w.order`, drains it with `p`'s compute poller and measures every effect's wait.
 */
export async function queueAndDrain(p: Pipeline, w: CapacityWorkload): Promise<CapacityRun> {
  if (!p.url) throw new Error('the capacity workload commits through the SQL API: start the pipeline with a port');
  const shares = tenantShares(w.effects, w.tenants, w.bigShare);
  const tenants = shares.map((_, i) => `${w.tag}-${w.order}-${i}`);
  const logins = await Promise.all(tenants.map((t) => newTenant(p, t)));
  const work = logins.flatMap((l, i) => statements(shares[i]!).map((query) => ({ ...l, query })));
  const t0Commit = now();
  await pool(work, COMMIT_CLIENTS, async ({ tenant, password, query }) => {
    // On a loaded machine a commit can outlast the local function timeout (a 5xx that may have
    // committed): retried with the same Idempotency-Key, as a client would, it commits once.
    const key = randomUUID();
    for (let attempt = 1; ; attempt++) {
      const r = await sqlHttp(p.url!, password, query, { 'idempotency-key': key });
      const err = r.body.results?.find((x) => x.error)?.error;
      if (r.status === 200 && !err) return;
      if (r.status < 500 || attempt >= COMMIT_ATTEMPTS) throw new Error(`${tenant}: ${query.slice(0, 40)}…: HTTP ${r.status} ${err?.code ?? ''} ${err?.message ?? JSON.stringify(r.body).slice(0, 200)}`);
    }
  });
  w.log?.(`capacity ${w.order}: committed ${w.effects} effects for ${w.tenants} tenants in ${((now() - t0Commit) / 1000).toFixed(1)} s`);

  const outbox = new OutboxStore(p.clients.doc, p.config.catalogTable);
  const byTenant = await Promise.all(
    tenants.map(async (t) => (await outbox.listEffects(t)).filter((e) => e.state === 'pending').sort((a, b) => (a.sk < b.sk ? -1 : 1)).map((e) => messageForEffect(e)).filter((m): m is RoutedMessage => m !== undefined)),
  );
  const counted = byTenant.reduce((a, l) => a + l.length, 0);
  if (counted !== w.effects) throw new Error(`expected ${w.effects} pending effects, found ${counted}`);
  // Queued as the router does it: each effect admitted under its tenant's cap
  // (EFFECT_CAPACITY.perTenantInQueue) in the arrival order, the admitted sent; the executors
  // send the rest as the tenant's effects settle (shared/router/admission.ts).
  const queued = await makeAdmission(p.config, p.clients.doc).admitInOrder(arrivalOrder(byTenant, w.order));
  for (let i = 0; i < queued.length; i += SQS_BATCH) {
    const chunk = queued.slice(i, i + SQS_BATCH);
    const r = await p.clients.sqs.send(
      new SendMessageBatchCommand({ QueueUrl: p.config.queueUrls.compute, Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: m.body, MessageGroupId: m.groupId, MessageDeduplicationId: m.deduplicationId })) }),
    );
    if (r.Failed?.length) throw new Error(`queueing refused ${r.Failed.length} messages: ${r.Failed[0]!.Code}`);
  }

  // The data plane holds the change when its ensure returns (the executor settles right after).
  const heldAt = new Map<string, number>();
  const dp = p.dataPlane;
  const ensure = dp.ensure.bind(dp);
  dp.ensure = (async (kind: never, owner: ResourceOwner, generation: number, spec: never) => {
    const r = await ensure(kind, owner, generation, spec);
    const key = `${owner.tenant}/${owner.objectId}`;
    if (!heldAt.has(key)) heldAt.set(key, now());
    return r;
  }) as typeof dp.ensure;
  const poller = p.pollers.compute;
  const before = { busyMs: poller.busyMs, peak: poller.peakInFlight };
  poller.peakInFlight = 0;
  const t0 = now();
  poller.start();
  try {
    let nextProgress = t0 + PROGRESS_EVERY_MS;
    while (heldAt.size < w.effects) {
      if (now() - t0 > w.timeoutMs) throw new Error(`only ${heldAt.size} of ${w.effects} effects applied within ${w.timeoutMs} ms (${drainProgress(heldAt, tenants, shares)})`);
      if (now() >= nextProgress) {
        nextProgress += PROGRESS_EVERY_MS;
        w.log?.(`capacity ${w.order}: ${((now() - t0) / 1000).toFixed(0)} s: ${drainProgress(heldAt, tenants, shares)}`);
      }
      await sleep(100);
    }
    const drainMs = Math.max(...heldAt.values()) - t0;
    // Let the last settles land before the queue stops: the next run starts from a quiet outbox.
    while ((await pendingEffectCount(p)) > 0) {
      if (now() - t0 > w.timeoutMs) throw new Error('effects still pending after the data plane held them all');
      await sleep(250);
    }
    const keys = tenants.map((t, i) => byTenant[i]!.map((m) => `${t}/${JSON.parse(m.body).objectId as string}`));
    const waits = new Map(tenants.map((t, i) => [t, keys[i]!.map((k) => heldAt.get(k)! - t0)]));
    const places = servicePositions(heldAt);
    const placesByTenant = new Map(tenants.map((t, i) => [t, keys[i]!.map((k) => places.get(k)!)]));
    const effectMs = (poller.busyMs - before.busyMs) / w.effects;
    const maxConcurrency = p.profile.queuePolling.maxConcurrency;
    const run: CapacityRun = {
      order: w.order,
      tenants: w.tenants,
      effects: w.effects,
      bigTenantEffects: shares[0]!,
      drainSeconds: drainMs / 1000,
      drainPerSecond: w.effects / (drainMs / 1000),
      allowedPerSecond: EFFECT_CAPACITY.dataPlaneEffectsPerSecond,
      effectMs,
      concurrencyAllowsPerSecond: maxConcurrency / (effectMs / 1000),
      maxConcurrency,
      batchSize: p.profile.queuePolling.batchSize,
      peakInFlight: poller.peakInFlight,
      fairness: fairnessFigures(waits),
      fairnessInServiceOrder: fairnessFigures(placesByTenant),
    };
    w.log?.(`capacity ${w.order}: drained in ${run.drainSeconds.toFixed(1)} s (${run.drainPerSecond.toFixed(1)}/s, ${effectMs.toFixed(1)} ms per effect); tenant p99 worst/median ${run.fairness.ratio.toFixed(2)}, small/big ${run.fairness.smallOverBig.toFixed(2)}; in service order ${run.fairnessInServiceOrder.ratio.toFixed(2)} and ${run.fairnessInServiceOrder.smallOverBig.toFixed(2)}`);
    return run;
  } finally {
    await poller.stop();
    dp.ensure = ensure;
    poller.peakInFlight = Math.max(before.peak, poller.peakInFlight);
  }
}

export interface CapacityFigures {
  readonly runs: readonly CapacityRun[];
}

/**
 * The bench phase: 10 000 effects over 100 tenants (5 000 of them one tenant's), once per arrival
 * order (the burst first), each on a DynamoDB Local of its own. `onRun` gets each order's figures
 * as soon as they are measured, so a run stopped part-way keeps the orders it finished.
 */
export async function capacityFigures(bench: Bench, onRun?: (run: CapacityRun) => void): Promise<CapacityFigures> {
  const runs: CapacityRun[] = [];
  for (const order of ARRIVAL_ORDERS) {
    // A DynamoDB Local of its own per run: a stream-enabled table on an emulator pays for the
    // stream records written before it (see run.ts).
    const dynamo = await freshDynamo(bench.log);
    const p = await startPipeline({ dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: bench.sqs.endpoint, prefix: `${bench.tag}-cap-${order}-`, port: 0, workers: false, fastPath: false, profile: 'deployed' }).catch(async (err: unknown) => {
      await dynamo.stop();
      throw err;
    });
    try {
      const run = await queueAndDrain(p, {
        tag: `${bench.tag}c`,
        tenants: bench.quick ? 20 : 100,
        effects: bench.quick ? 600 : 10_000,
        bigShare: 0.5,
        order,
        // A hang guard, not a budget: on 2 loaded cores the full size drains at ~4 effects/s (~45 min).
        timeoutMs: 120 * 60_000,
        log: bench.log,
      });
      const roundedTenants = (f: FairnessFigures): FairnessFigures => ({ ...f, tenants: f.tenants.map((t) => rounded(t)) });
      runs.push({ ...run, fairness: roundedTenants(run.fairness), fairnessInServiceOrder: roundedTenants(run.fairnessInServiceOrder) });
      onRun?.(runs.at(-1)!);
    } finally {
      await p.stop();
      await dynamo.stop();
    }
  }
  return { runs };
}
