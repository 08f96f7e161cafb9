/**
 * 10. The deployed profile: commit → applied with the stack's own settings (stream read 4 times a
 * second, executors at most 5 in flight per queue with batches of 10, authorizer cache as
 * deployed; local/profiles.ts), with the DDL function's fast path on and off, at 1, 8 and 32
 * closed-loop clients, against the raw-transaction floor measured in the same run; then an
 * open-loop run (fixed arrival rate) next to the closed-loop one.
 *
 * Each fast-path setting gets a pipeline on a DynamoDB Local of its own (streams on one emulator
 * slow each other: see run.ts). At every client count the floor runs first on that same emulator
 * and the same table, with the workers paused: `clients` loops of the exact TransactWriteItems a
 * CREATE TABLE commits (`floorTransaction`), one tenant each. The workers are then resumed, the
 * floor's effects drained (not measured), and the clients go: each POSTs a CREATE TABLE in its own
 * tenant and waits until the reference data plane holds it. Latency is taken from the request's
 * start (`fromStart`), and also from the commit's answer (`afterAnswer`), so a slower commit
 * cannot hide behind a faster path after it.
 *
 * Open loop: requests are sent on a fixed schedule (round-robin over 32 tenants) whether or not
 * earlier ones have returned, and latency counts from the scheduled time, so overload shows as
 * latency instead of as fewer requests (closed loops slow their own arrivals down). Its ratios are
 * to the single-client floor of the same pipeline (uncontended raw transactions).
 */
import { tableStores } from '../../shared/catalog/stores';
import type { DynamoLocal } from '../../local/emulators';
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { CatalogStore } from '../../shared/catalog/store';
import { EffectTimeline, freshDynamo, newTenant, pauseWorkers, resumeWorkers, sqlHttp, waitQuiet, type Bench, type TenantLogin } from '../lib/harness';
import { closedLoop, CpuMeter, now, rounded, sleep, summarize, type CpuUse, type Summary } from '../lib/stats';
import { createTable, floorTransaction } from './commit';
import { warmUp } from './warmup';

export interface DeployedLevel {
  readonly fastPath: boolean;
  readonly clients: number;
  /** The raw TransactWriteItems at the same number of closed-loop clients, same emulator, just before. */
  readonly floor: Summary;
  readonly commits: number;
  readonly errors: number;
  readonly timeouts: number;
  /** The commit's answer (POST /api/sql round trip). */
  readonly commit: Summary;
  /** Request start → the data plane holds the change. */
  readonly fromStart: Summary;
  /** The commit's answer → the data plane holds the change. */
  readonly afterAnswer: Summary;
  readonly ratio: { p50: number; p99: number };
  readonly commitsPerSecond: number;
  /** Routed by the fast path (the DDL function's send came first) vs by the stream router, of the measured effects. */
  readonly firstSentBy: { fastPath: number; router: number };
  readonly cpu: CpuUse;
}

export interface OpenLoopRun {
  readonly fastPath: boolean;
  /** Requests per second offered, and as a share of the closed-loop 32-client rate. */
  readonly offeredPerSecond: number;
  readonly ofClosedLoop: number;
  readonly seconds: number;
  readonly sent: number;
  readonly committed: number;
  readonly applied: number;
  readonly errors: number;
  /** Achieved commits per second (committed / the time from the first send to the last answer). */
  readonly achievedPerSecond: number;
  /** Scheduled send → the commit's answer. */
  readonly commit: Summary;
  /** Scheduled send → the data plane holds the change. */
  readonly fromStart: Summary;
  readonly floor: Summary;
  readonly ratio: { p50: number; p99: number };
}

export interface DeployedResult {
  readonly settings: Pipeline['profile'];
  readonly levels: DeployedLevel[];
  readonly openLoop: OpenLoopRun[];
  readonly lostEffects: number;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

export async function deployedProfile(bench: Bench): Promise<DeployedResult> {
  const levels: DeployedLevel[] = [];
  const openLoop: OpenLoopRun[] = [];
  let settings: Pipeline['profile'] | undefined;
  let lost = 0;
  // --quick: only the level its target holds (32 clients, fast path on) and the lost-effects check.
  for (const fastPath of bench.quick ? [true] : [true, false]) {
    let dynamo: DynamoLocal | undefined;
    let p: Pipeline | undefined;
    try {
      dynamo = await freshDynamo(bench.log);
      const pipeline = await startPipeline({ dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: bench.sqs.endpoint, prefix: `${bench.tag}-dep${fastPath ? 'f' : 's'}-`, port: 0, profile: 'deployed', fastPath, fullPass: false });
      p = pipeline;
      settings = pipeline.profile;
      const timeline = new EffectTimeline(pipeline);
      const fastSent = fastPathSends(pipeline);
      // A fresh JVM compiles as it goes: warm it (not measured), with the workers running.
      await warmUp(bench, pipeline, bench.quick ? 2 : 6);
      await waitQuiet(pipeline, 120_000);
      const tenants: string[] = [];
      for (const clients of bench.quick ? [32] : [1, 8, 32]) {
        const floor = await floorRun(bench, pipeline, clients, `${fastPath ? 'f' : 's'}${clients}`);
        resumeWorkers(pipeline);
        if ((await waitQuiet(pipeline, 180_000)) === undefined) throw new Error('the floor runs effects did not drain in 180 s');
        const logins: TenantLogin[] = [];
        for (let c = 0; c < clients; c++) logins.push(await newTenant(pipeline, `${bench.tag}-dep${fastPath ? 'f' : 's'}${clients}-${c}`));
        tenants.push(...logins.map((l) => l.tenant));
        const commit: number[] = [];
        const fromStart: number[] = [];
        const afterAnswer: number[] = [];
        const ids: string[] = [];
        let errors = 0;
        let timeouts = 0;
        const seconds = bench.quick ? 3 : clients === 1 ? 6 : 10;
        const cpu = new CpuMeter(dynamo.process.pid).start();
        const wall = await closedLoop(clients, seconds * 1000, async (c, i) => {
          const { tenant, password } = logins[c]!;
          const name = `d_${c}_${i}`;
          const held = timeline.held(tenant, name);
          const t0 = now();
          const r = await sqlHttp(pipeline.url!, password, createTable(name));
          const t1 = now();
          if (r.status !== 200) {
            errors++;
            return;
          }
          const t2 = await held;
          if (t2 === undefined) {
            timeouts++;
            return;
          }
          commit.push(t1 - t0);
          fromStart.push(t2 - t0);
          afterAnswer.push(Math.max(0, t2 - t1));
          ids.push(timeline.heldAt.get(`${tenant}/${name}`)!.objectId);
        });
        const usage = cpu.stop();
        const s = summarize(fromStart);
        const byFast = ids.filter((id) => fastSent.has(id)).length;
        const level: DeployedLevel = {
          fastPath,
          clients,
          floor: rounded(floor),
          commits: fromStart.length,
          errors,
          timeouts,
          commit: rounded(summarize(commit)),
          fromStart: rounded(s),
          afterAnswer: rounded(summarize(afterAnswer)),
          ratio: { p50: r2(s.p50 / floor.p50), p99: r2(s.p99 / floor.p99) },
          commitsPerSecond: Math.round((fromStart.length / wall) * 1000 * 10) / 10,
          firstSentBy: { fastPath: byFast, router: ids.length - byFast },
          cpu: usage,
        };
        levels.push(level);
        bench.log(
          `deployed, fast path ${fastPath ? 'on' : 'off'}, ${clients} clients: request → applied p50 ${s.p50.toFixed(1)} ms (${level.ratio.p50}× floor p50 ${floor.p50.toFixed(2)}), p99 ${s.p99.toFixed(1)} ms (${level.ratio.p99}× floor p99 ${floor.p99.toFixed(2)}); ${level.commits} commits, ${errors} errors, ${timeouts} timeouts; first sent by fast path ${byFast}/${ids.length}`,
        );
      }
      // Open loop next to the closed loop at 32 clients: half its rate, and its rate.
      const closed = levels.find((l) => l.fastPath === fastPath && l.clients === 32)!;
      // Its floor is the single-client one: at these rates requests seldom overlap, and a floor of
      // 32 closed loops would measure the emulator's queue instead.
      const floor = levels.find((l) => l.fastPath === fastPath && l.clients === 1)?.floor ?? closed.floor;
      for (const share of bench.quick ? [] : [0.5, 1]) {
        const run = await openLoopRun(bench, pipeline, timeline, { fastPath, rate: Math.max(1, closed.commitsPerSecond * share), share, floor, seconds: bench.quick ? 3 : 8, tag: `${fastPath ? 'f' : 's'}o${share * 10}` });
        tenants.push(...run.tenants);
        openLoop.push(run.result);
      }
      const quiet = await waitQuiet(pipeline, 180_000);
      const { Checker } = await import('../../shared/checker/checker');
      const checked = await new Checker(tableStores(pipeline.clients.doc, pipeline.config.catalogTable, { snapshotCacheObjects: 0 }), pipeline.dataPlane).check(tenants);
      lost += checked.counts.lostEffects;
      bench.log(`deployed, fast path ${fastPath ? 'on' : 'off'}: quiet after ${quiet?.toFixed(1) ?? 'TIMEOUT'} s; checker ${JSON.stringify(checked.counts)}`);
    } finally {
      await p?.stop();
      await dynamo?.stop();
    }
  }
  return { settings: settings!, levels, openLoop, lostEffects: lost };
}

/** Object ids whose effect the DDL function's fast path sent (its SendMessageBatch returned before the router's). */
function fastPathSends(p: Pipeline): Set<string> {
  const ids = new Set<string>();
  const routed = new Set<string>();
  // The fast path sends from the API's calls; the router's are made while the stream poller runs
  // its handler. Both use the same client, so they are told apart by who sent first: the first
  // SendMessageBatch carrying an object id is counted, and the fast path's is the one made inside
  // an HTTP request (the API marks nothing, so the stack trace would be the only other way: the
  // router's send always follows its stream read, which the fast path's precedes by design).
  p.clients.sqs.middlewareStack.add(
    (next, context) => async (args) => {
      if ((context as { commandName?: string }).commandName === 'SendMessageBatchCommand') {
        const fromApi = new Error().stack?.includes('fast-path') ?? false;
        for (const e of (args.input as { Entries?: { MessageBody?: string }[] }).Entries ?? []) {
          const id = (JSON.parse(e.MessageBody ?? '{}') as { objectId?: string }).objectId ?? '';
          if (!routed.has(id)) {
            routed.add(id);
            if (fromApi) ids.add(id);
          }
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchFastPathSends' },
  );
  return ids;
}

/** `clients` closed loops of the raw TransactWriteItems a CREATE TABLE commits, the pipeline's workers paused. */
async function floorRun(bench: Bench, p: Pipeline, clients: number, tag: string): Promise<Summary> {
  await pauseWorkers(p);
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable);
  // A fixed count (not a duration): every floor transaction leaves an effect the executors drain afterwards.
  const perClient = Math.max(10, Math.round((bench.quick ? 60 : 240) / clients));
  const plans: ReturnType<typeof floorTransaction>[][] = [];
  for (let c = 0; c < clients; c++) {
    const t = await newTenant(p, `${bench.tag}-depfl${tag}-${c}`);
    const snap = await store.loadSnapshot(t.tenant);
    plans.push(Array.from({ length: perClient }, (_, i) => floorTransaction(store, snap, t.tenant, createTable(`fl_${i}`), new Date())));
  }
  const lat: number[] = [];
  let failures = 0;
  await Promise.all(
    plans.map(async (mine) => {
      for (const cmd of mine) {
        const t0 = now();
        try {
          await p.clients.doc.send(cmd);
          lat.push(now() - t0);
        } catch (err) {
          // An overloaded DynamoDB Local answers InternalServerError ("waiting for a lock"): counted, not timed.
          failures++;
          if (failures > plans.length * perClient * 0.2) throw err;
        }
      }
    }),
  );
  if (failures) bench.log(`floor at ${clients} clients: ${failures} of ${plans.length * perClient} transactions failed (emulator overloaded)`);
  return summarize(lat);
}

async function openLoopRun(
  bench: Bench,
  p: Pipeline,
  timeline: EffectTimeline,
  o: { fastPath: boolean; rate: number; share: number; floor: Summary; seconds: number; tag: string },
): Promise<{ result: OpenLoopRun; tenants: string[] }> {
  const logins: TenantLogin[] = [];
  for (let c = 0; c < 32; c++) logins.push(await newTenant(p, `${bench.tag}-open${o.tag}-${c}`));
  const total = Math.max(1, Math.round(o.rate * o.seconds));
  const interval = 1000 / o.rate;
  const commit: number[] = [];
  const fromStart: number[] = [];
  let errors = 0;
  let committed = 0;
  const start = now();
  let lastAnswer = start;
  const inFlight: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const scheduled = start + k * interval;
    const wait = scheduled - now();
    if (wait > 0) await sleep(wait);
    const { tenant, password } = logins[k % logins.length]!;
    const name = `o_${k}`;
    inFlight.push(
      (async () => {
        const held = timeline.held(tenant, name, 120_000);
        const r = await sqlHttp(p.url!, password, createTable(name)).catch(() => ({ status: 0 }));
        const t1 = now();
        lastAnswer = Math.max(lastAnswer, t1);
        if (r.status !== 200) {
          errors++;
          return;
        }
        committed++;
        commit.push(t1 - scheduled);
        const t2 = await held;
        if (t2 !== undefined) fromStart.push(t2 - scheduled);
      })(),
    );
  }
  await Promise.all(inFlight);
  const s = summarize(fromStart);
  const result: OpenLoopRun = {
    fastPath: o.fastPath,
    offeredPerSecond: r2(o.rate),
    ofClosedLoop: o.share,
    seconds: o.seconds,
    sent: total,
    committed,
    applied: fromStart.length,
    errors,
    achievedPerSecond: Math.round((committed / (lastAnswer - start)) * 1000 * 10) / 10,
    commit: rounded(summarize(commit)),
    fromStart: rounded(s),
    floor: rounded(o.floor),
    ratio: { p50: r2(s.p50 / o.floor.p50), p99: r2(s.p99 / o.floor.p99) },
  };
  bench.log(`open loop, fast path ${o.fastPath ? 'on' : 'off'}, ${result.offeredPerSecond}/s offered: ${result.achievedPerSecond}/s committed; scheduled → applied p50 ${s.p50.toFixed(1)} ms (${result.ratio.p50}× floor), p99 ${s.p99.toFixed(1)} ms (${result.ratio.p99}×); ${errors} errors`);
  return { result, tenants: logins.map((l) => l.tenant) };
}
