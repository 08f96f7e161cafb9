/**
 * 2. Commit → applied: closed-loop clients (1, 8, 32), each in its own tenant, POST a CREATE TABLE
 *    and wait until the reference data plane holds its collection, then go again. The applied time
 *    is taken in-process when the data plane's write returned (see EffectTimeline), so measuring
 *    adds no polling load; stage timestamps split it into stream → router → queue → executor.
 * 3. Throughput at 32 clients against the floor's, on DynamoDB Locals of their own: first HTTP on a
 *    live pipeline with the router and executors running, on its own emulator warmed first (after
 *    quiet, the invariant checker counts lost effects on its tenants, and on those of 2. when it ran
 *    first: run.ts now runs this phase before 2.); then on a
 *    commit-only pipeline 32 loops
 *    of the raw TransactWriteItems (the floor), 32 DDL clients in-process and over HTTP (one tenant
 *    each) and over HTTP all in one tenant, and the floor again.
 */
import { tableStores } from '../../shared/catalog/stores';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { addCounts, Checker, type CheckCounts } from '../../shared/checker/checker';
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { makeLogger } from '../../shared/lambda/logger';
import { freshDynamo, newTenant, sqlHttp, waitQuiet, type Bench, type EffectTimeline, type TenantLogin } from '../lib/harness';
import { CpuProfiler, type ProfileSummary } from '../lib/profile';
import { closedLoop, CpuMeter, now, rounded, summarize, type CpuUse, type Summary } from '../lib/stats';
import type { OperationLatency } from '../lib/sdk-latency';
import { JvmSampler, type JvmSamples } from '../lib/jvm-sampler';
import { createTable, floorTransaction } from './commit';
import { warmUp } from './warmup';
import { join } from 'node:path';

export interface AppliedLevel {
  readonly clients: number;
  readonly seconds: number;
  readonly commits: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly commit: Summary;
  /** Commit acknowledged → the data plane holds the change. */
  readonly applied: Summary;
  /** Where the applied time goes (p50 of each stage, ms). */
  readonly stagesP50: { streamToRouted: number; queueWait: number; executorBeforeDataPlane: number; dataPlaneWrite: number };
  readonly stagesP99: { streamToRouted: number; queueWait: number; executorBeforeDataPlane: number; dataPlaneWrite: number };
  /** One effect inside the executor, p50 and p99 ms (see ExecutorSplit). */
  readonly executor: { readonly p50: ExecutorSplit; readonly p99: ExecutorSplit };
  readonly cpu: CpuUse;
  /** The SDK calls made meanwhile (every component of the live pipeline), busiest first. */
  readonly sdk: OperationLatency[];
  readonly samples: number[];
}

/** Where an effect's time goes once a poller received it (ms). */
export interface ExecutorSplit {
  /** Received → the executor starts on it (earlier records of its batch run first). */
  readonly batchWait: number;
  /** Reading the effect record and its object → the data plane call starts. */
  readonly reads: number;
  /** The data plane call (the reference data plane's read and conditional write). */
  readonly dataPlane: number;
  /** The data plane held the change → the effect is marked applied. */
  readonly settle: number;
  /** The executor's first read → the effect is marked applied. */
  readonly total: number;
}

export async function commitToApplied(bench: Bench, timeline: EffectTimeline): Promise<{ levels: AppliedLevel[]; tenants: string[] }> {
  const p = bench.live;
  const levels: AppliedLevel[] = [];
  const tenants: string[] = [];
  for (const clients of [1, 8, 32]) {
    const logins: TenantLogin[] = [];
    for (let c = 0; c < clients; c++) logins.push(await newTenant(p, `${bench.tag}-a${clients}-${c}`));
    tenants.push(...logins.map((l) => l.tenant));
    const commit: number[] = [];
    const applied: number[] = [];
    const stages = { streamToRouted: [] as number[], queueWait: [] as number[], executorBeforeDataPlane: [] as number[], dataPlaneWrite: [] as number[] };
    const ids: string[] = [];
    let errors = 0;
    let timeouts = 0;
    const seconds = bench.quick ? 3 : clients === 1 ? 6 : 10;
    const cpu = new CpuMeter(bench.dynamo.process.pid).start();
    bench.sdk.take();
    await closedLoop(clients, seconds * 1000, async (c, i) => {
      const { tenant, password } = logins[c]!;
      const name = `a_${c}_${i}`;
      const held = timeline.held(tenant, name);
      const t0 = now();
      const r = await sqlHttp(p.url!, password, createTable(name));
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
      applied.push(Math.max(0, t2 - t1));
      const id = timeline.heldAt.get(`${tenant}/${name}`)!.objectId;
      ids.push(id);
      const routed = timeline.routedAt.get(id);
      const received = timeline.receivedAt.get(id);
      const started = timeline.ensureStartAt.get(id);
      if (routed !== undefined && received !== undefined && started !== undefined) {
        stages.streamToRouted.push(routed - t1);
        stages.queueWait.push(received - routed);
        stages.executorBeforeDataPlane.push(started - received);
        stages.dataPlaneWrite.push(t2 - started);
      }
    });
    const usage = cpu.stop();
    const sdk = bench.sdk.take().slice(0, 10);
    const executor = await executorSplit(timeline, ids);
    const a = summarize(applied);
    const pick = (q: 'p50' | 'p99') => ({
      streamToRouted: round(summarize(stages.streamToRouted)[q]),
      queueWait: round(summarize(stages.queueWait)[q]),
      executorBeforeDataPlane: round(summarize(stages.executorBeforeDataPlane)[q]),
      dataPlaneWrite: round(summarize(stages.dataPlaneWrite)[q]),
    });
    levels.push({
      clients,
      seconds,
      commits: applied.length,
      errors,
      timeouts,
      commit: rounded(summarize(commit)),
      applied: rounded(a),
      stagesP50: pick('p50'),
      stagesP99: pick('p99'),
      executor,
      cpu: usage,
      sdk,
      samples: applied.map(round),
    });
    bench.log(`commit→applied @${clients}: p50 ${a.p50.toFixed(1)} ms, p99 ${a.p99.toFixed(1)} ms (${applied.length} commits, ${errors} errors, ${timeouts} timeouts; cpu ${JSON.stringify(usage)})`);
    bench.log(`  commit p50 ${summarize(commit).p50.toFixed(1)} ms; stages p50 ${JSON.stringify(pick('p50'))}, p99 ${JSON.stringify(pick('p99'))}; executor per effect p50 ${JSON.stringify(executor.p50)}, p99 ${JSON.stringify(executor.p99)}`);
  }
  return { levels, tenants };
}

export interface ThroughputRun {
  readonly name: string;
  readonly what: string;
  readonly clients: number;
  readonly seconds: number;
  readonly ok: number;
  readonly errors: number;
  readonly perSecond: number;
  readonly ratioToFloor: number | null;
  readonly latency: Summary;
  readonly cpu: CpuUse;
  readonly errorCodes: Record<string, number>;
  /** The SDK calls made meanwhile, busiest first. */
  readonly sdk: OperationLatency[];
}

export interface ThroughputResult {
  readonly runs: ThroughputRun[];
  /** Which DynamoDB Local the runs used: a fresh one (default) or the main one (`--same-emulator`). */
  readonly emulator: 'fresh' | 'main';
  /** The mean of the two floor runs: what the ratios compare with. */
  readonly floorPerSecond: number;
  readonly lostEffects: number;
  readonly checker: { tenants: number; counts: CheckCounts; problems: readonly string[] };
  readonly quietAfterSeconds: number | null;
  /** jstack samples of DynamoDB Local's SQLite thread under the live and the commit-only HTTP load (diagnostic runs, not measured). */
  readonly emulatorThread: Record<string, JvmSamples>;
  readonly profile?: ProfileSummary;
}

export async function throughput(bench: Bench, appliedTenants: readonly string[], tmpDir: string): Promise<ThroughputResult> {
  const clients = 32;
  const seconds = bench.quick ? 3 : 8;
  const runs: ThroughputRun[] = [];
  const logger = makeLogger('bench-ddl-api');

  // Its own DynamoDB Local: DynamoDB Local looks up a stream's description on every write to a
  // stream-enabled table and on every stream read, and that lookup gets slower as its database
  // holds more stream records (24 h retention) — after the earlier phases, a router reading the
  // stream starves every other call. A fresh emulator measures the control plane, not that.
  // The lookup (`SELECT MIN(SequenceNumber) ... WHERE StreamID = ?`) also walks past the records
  // of every stream written before this one: the first stream written on an emulator stays fast,
  // any later one pays for all the records before its own (measured: a second table's raw
  // TransactWriteItems at 20/s against 270/s for the first, same emulator, same moment). So the
  // live pipeline gets a fresh emulator of its own too, where its catalog is the first stream,
  // as the floor's is on the other.
  const dynamo = bench.sameEmulator ? bench.dynamo : await freshDynamo(bench.log);
  const liveDynamo = bench.sameEmulator ? bench.dynamo : await freshDynamo(bench.log);
  const endpoints = { dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: bench.sqs.endpoint };
  const pid = dynamo.process.pid;

  async function run(
    name: string,
    what: string,
    body: (c: number, i: number) => Promise<boolean | string>,
    profile?: { file: string; out: (s: ProfileSummary) => void },
    emulatorPid = pid,
  ) {
    let ok = 0;
    let errors = 0;
    const codes: Record<string, number> = {};
    const lat: number[] = [];
    const profiler = profile ? new CpuProfiler() : undefined;
    await profiler?.start();
    const cpu = new CpuMeter(emulatorPid).start();
    bench.sdk.take();
    const wall = await closedLoop(clients, seconds * 1000, async (c, i) => {
      const t0 = now();
      const r = await body(c, i);
      if (r === true) {
        ok++;
        lat.push(now() - t0);
      } else {
        errors++;
        const code = r === false ? 'error' : r;
        codes[code] = (codes[code] ?? 0) + 1;
      }
    });
    const usage = cpu.stop();
    const sdk = bench.sdk.take().slice(0, 8);
    if (profiler && profile) profile.out(await profiler.stop(profile.file));
    const perSecond = Math.round((ok / wall) * 1000 * 10) / 10;
    runs.push({ name, what, clients, seconds: Math.round(wall / 100) / 10, ok, errors, perSecond, ratioToFloor: null, latency: rounded(summarize(lat)), cpu: usage, errorCodes: codes, sdk });
    bench.log(`throughput ${name}: ${perSecond}/s (${ok} ok, ${errors} errors ${JSON.stringify(codes)}; cpu ${JSON.stringify(usage)})`);
  }

  /** Not measured: the same load again for a few seconds while jstack samples the emulator's SQLite thread (sampling perturbs it). */
  async function sampleEmulator(name: string, body: (c: number, i: number) => Promise<unknown>, emulatorPid = pid): Promise<[string, JvmSamples]> {
    const sampler = new JvmSampler(emulatorPid!).start();
    await closedLoop(clients, 4000, async (c, i) => void (await body(c, i)));
    const samples = await sampler.stop();
    bench.log(`DynamoDB Local's SQLite thread during ${name}: ${JSON.stringify(samples)}`);
    return [name, samples];
  }

  const jvm: Record<string, JvmSamples> = {};
  let live: Pipeline | undefined;
  let co: Pipeline | undefined;
  try {
    const commitOnly = await startPipeline({ ...endpoints, prefix: `${bench.tag}-tco-`, port: 0, workers: false, profile: 'fast' });
    co = commitOnly;
    bench.sdk.attach(commitOnly);
    // A fresh JVM compiles as it goes: warm it (not measured) before the first run.
    await warmUp(bench, commitOnly, bench.quick ? 2 : 6);

    // The system as it runs: router and executors draining the effects meanwhile. First on a fresh
    // emulator; last with --same-emulator, after everything else, as when the slow-down was seen.
    const liveRun = async () => {
      live = await startPipeline({ ...endpoints, dynamodbEndpoint: liveDynamo.endpoint, prefix: `${bench.tag}-tlive-`, port: 0, profile: 'fast' });
      bench.sdk.attach(live);
      if (liveDynamo !== bench.dynamo) {
        // Its emulator's JVM starts cold: warm it (not measured) as long as the commit-only one has
        // run before its HTTP run (warm-up, floor, in-process), with the router and executors
        // running so that their calls compile too; then start from quiet.
        await warmUp(bench, live, (bench.quick ? 2 : 6) + 2 * seconds);
        await waitQuiet(live, 60_000);
      }
      const liveUrl = live.url!;
      const liveLogins: TenantLogin[] = [];
      for (let c = 0; c < clients; c++) liveLogins.push(await newTenant(live, `${bench.tag}-tl-${c}`));
      const liveBody = async (c: number, i: number) => {
        const r = await sqlHttp(liveUrl, liveLogins[c]!.password, createTable(`l_${i}`));
        return r.status === 200 || String(r.status);
      };
      const livePid = liveDynamo.process.pid;
      await run('ddl-http-live', 'POST /api/sql, 32 clients, one tenant each, router + executors running (live pipeline)', liveBody, undefined, livePid);
      if (!bench.quick) {
        const [k, v] = await sampleEmulator('ddl-http-live', (c, i) => liveBody(c, 100_000 + i), livePid);
        jvm[k] = v;
      }
      const quietAfter = await waitQuiet(live, bench.quick ? 60_000 : 240_000);
      bench.log(`live pipeline quiet after ${quietAfter?.toFixed(1) ?? 'TIMEOUT'} s`);
      // Lost effects: every tenant of this run, and those of the commit → applied runs (on the main live pipeline).
      const checked = await new Checker(tableStores(live.clients.doc, live.config.catalogTable, { snapshotCacheObjects: 0 }), live.dataPlane).check(liveLogins.map((l) => l.tenant));
      const earlier = await new Checker(tableStores(bench.live.clients.doc, bench.live.config.catalogTable, { snapshotCacheObjects: 0 }), bench.live.dataPlane).check(appliedTenants);
      const report = { tenants: checked.tenants + earlier.tenants, counts: addCounts(checked.counts, earlier.counts), problems: [...checked.problems, ...earlier.problems] };
      bench.log(`checker: ${JSON.stringify(report.counts)}`);
      await live.stop();
      live = undefined;
      return { quietAfter, report };
    };
    let liveResult: Awaited<ReturnType<typeof liveRun>> | undefined;
    if (!bench.sameEmulator) liveResult = await liveRun();

    // The floor and the commit path, on a pipeline whose workers never run (no consumer competes).
    const floorStore = new CatalogStore(commitOnly.clients.doc, commitOnly.config.catalogTable);
    const floorPlans: ReturnType<typeof floorTransaction>[][] = [];
    const perClient = bench.quick ? 150 : 500;
    for (let c = 0; c < clients; c++) {
      const t = await newTenant(commitOnly, `${bench.tag}-tf-${c}`);
      const snap = await floorStore.loadSnapshot(t.tenant);
      floorPlans.push(Array.from({ length: perClient }, (_, i) => floorTransaction(floorStore, snap, t.tenant, createTable(`f_${i}`), new Date())));
    }
    const cursor = new Array<number>(clients).fill(0);
    // The floor runs before and after the DDL runs; they are compared with the mean of the two.
    const floorRun = (name: string) =>
      run(name, 'raw TransactWriteItems (the items a CREATE TABLE commits), 32 loops, one tenant each', async (c) => {
        const cmd = floorPlans[c]![cursor[c]!++];
        if (!cmd) throw new Error('the floor ran out of planned transactions: raise perClient');
        try {
          await commitOnly.clients.doc.send(cmd);
          return true;
        } catch (err) {
          return (err as Error).name;
        }
      });
    await floorRun('floor');

    const ipLogins: TenantLogin[] = [];
    for (let c = 0; c < clients; c++) ipLogins.push(await newTenant(commitOnly, `${bench.tag}-ti-${c}`));
    const api = new SqlApi({ store: new CatalogStore(commitOnly.clients.doc, commitOnly.config.catalogTable), logger, secrets: commitOnly.secrets });
    await run('ddl-in-process', 'SqlApi.handle, 32 clients, one tenant each (commit-only pipeline)', async (c, i) => {
      const t = ipLogins[c]!.tenant;
      const r = await api.handle(t, `${t}/bench`, JSON.stringify({ query: createTable(`i_${i}`) }), 'application/json');
      return r.status === 200 || String(r.status);
    });

    const httpLogins: TenantLogin[] = [];
    for (let c = 0; c < clients; c++) httpLogins.push(await newTenant(commitOnly, `${bench.tag}-th-${c}`));
    const httpBody = async (c: number, i: number) => {
      const r = await sqlHttp(commitOnly.url!, httpLogins[c]!.password, createTable(`h_${i}`));
      return r.status === 200 || String(r.status);
    };
    let profile: ProfileSummary | undefined;
    await run('ddl-http', 'POST /api/sql, 32 clients, one tenant each (commit-only pipeline)', httpBody, {
      file: join(tmpDir, 'throughput-ddl-http.cpuprofile'),
      out: (s) => (profile = s),
    });

    const shared = await newTenant(commitOnly, `${bench.tag}-ts`);
    await run('ddl-http-one-tenant', 'POST /api/sql, 32 clients, all in ONE tenant (commit-only pipeline)', async (c, i) => {
      const r = await sqlHttp(commitOnly.url!, shared.password, createTable(`s_${c}_${i}`));
      return r.status === 200 || String(r.status);
    });
    await floorRun('floor-again');
    if (!bench.quick) {
      const [k, v] = await sampleEmulator('ddl-http', (c, i) => httpBody(c, 100_000 + i));
      jvm[k] = v;
    }

    liveResult ??= await liveRun();
    const { quietAfter: quiet, report } = liveResult;
    const floors = runs.filter((r) => r.name.startsWith('floor'));
    const floorPerSecond = floors.reduce((a, r) => a + r.perSecond, 0) / floors.length;
    return {
      runs: runs.map((r) => (r.name.startsWith('floor') ? r : { ...r, ratioToFloor: Math.round((r.perSecond / floorPerSecond) * 100) / 100 })),
      emulator: dynamo === bench.dynamo ? 'main' : 'fresh',
      floorPerSecond: Math.round(floorPerSecond * 10) / 10,
      lostEffects: report.counts.lostEffects,
      checker: { tenants: report.tenants, counts: report.counts, problems: report.problems.slice(0, 20) },
      quietAfterSeconds: quiet === undefined ? null : Math.round(quiet * 10) / 10,
      emulatorThread: jvm,
      ...(profile ? { profile } : {}),
    };
  } finally {
    await live?.stop();
    await co?.stop();
    if (dynamo !== bench.dynamo) await dynamo.stop();
    if (liveDynamo !== bench.dynamo) await liveDynamo.stop();
  }
}

const round = (x: number) => Math.round(x * 100) / 100;

/** The executor's split of the effects of `ids` (waits up to 2 s for the last ones to settle). */
async function executorSplit(timeline: EffectTimeline, ids: readonly string[]): Promise<{ p50: ExecutorSplit; p99: ExecutorSplit }> {
  for (const deadline = now() + 2_000; now() < deadline && ids.some((id) => !timeline.settledAt.has(id)); ) await new Promise((r) => setTimeout(r, 50));
  const heldById = new Map([...timeline.heldAt.values()].map((h) => [h.objectId, h.t]));
  const parts = { batchWait: [] as number[], reads: [] as number[], dataPlane: [] as number[], settle: [] as number[], total: [] as number[] };
  for (const id of ids) {
    const received = timeline.receivedAt.get(id);
    const started = timeline.executorStartAt.get(id);
    const ensure = timeline.ensureStartAt.get(id);
    const held = heldById.get(id);
    const settled = timeline.settledAt.get(id);
    if (received === undefined || started === undefined || ensure === undefined || held === undefined || settled === undefined) continue;
    parts.batchWait.push(started - received);
    parts.reads.push(ensure - started);
    parts.dataPlane.push(held - ensure);
    parts.settle.push(settled - held);
    parts.total.push(settled - started);
  }
  const pick = (q: 'p50' | 'p99'): ExecutorSplit => ({
    batchWait: round(summarize(parts.batchWait)[q]),
    reads: round(summarize(parts.reads)[q]),
    dataPlane: round(summarize(parts.dataPlane)[q]),
    settle: round(summarize(parts.settle)[q]),
    total: round(summarize(parts.total)[q]),
  });
  return { p50: pick('p50'), p99: pick('p99') };
}
