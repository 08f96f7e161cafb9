/**
 * `npm run bench [-- --quick] [-- --only commit,applied,...] [-- --same-emulator] [-- --out DIR]`
 *
 * Starts its own DynamoDB Local and SQS emulator and two local pipelines on them, measures the
 * control plane against its floors in one run on this machine, and writes
 * bench/results/latest.json, latest.md and the SVG charts (an `--only` or `--same-emulator` run
 * writes to bench/results/tmp/ instead, a `--quick` run to bench/results/quick/: only the phases
 * with a target row, on small sizes). Not part of `npm test`.
 * `--same-emulator` runs the throughput phase on the main DynamoDB Local instead of a fresh one,
 * which shows the emulator's own slow-down (see phases/applied.ts).
 *
 * Pipelines: `live` runs the router and the executors (commit → applied, recovery, the cold-init
 * events); `commitOnly` never starts them, so the floor and the commit path share a table that no
 * consumer reads from (the floor gets no help and no competition). The sweeper is measured on a
 * third set of tables and queues built to a given catalog size.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, phase: { type: 'string' }, 'same-emulator': { type: 'boolean', default: false }, out: { type: 'string' } } });
const PHASES = ['commit', 'parse', 'applied', 'sweeper', 'recovery', 'throughput', 'parser', 'bundles', 'cost', 'instances', 'deployed', 'cache', 'kinds', 'capacity', 'scale', 'pgwire'] as const;
type Phase = (typeof PHASES)[number];
// `--phase` is another name for `--only`.
if (values.phase !== undefined) values.only = [values.only, values.phase].filter(Boolean).join(',');
/**
 * The phases whose figures have a target row (lib/rows.ts): what `--quick` runs, on small sizes,
 * to answer in minutes whether the targets hold (the others only report).
 */
const TARGET_PHASES: readonly Phase[] = ['commit', 'deployed', 'cache', 'throughput', 'bundles', 'instances', 'capacity', 'scale', 'pgwire'];
const only = new Set((values.only ?? (values.quick ? TARGET_PHASES : PHASES).join(',')).split(',').map((s) => s.trim()));
for (const o of only) if (!(PHASES as readonly string[]).includes(o)) throw new Error(`unknown phase ${o}; phases: ${PHASES.join(', ')}`);
const runs = (p: Phase) => only.has(p);
const complete = !values.quick && values.only === undefined && !values['same-emulator'];

const RESULTS = join(import.meta.dirname, 'results');
const TMP = join(RESULTS, 'tmp');
mkdirSync(TMP, { recursive: true });
// A --quick run writes its own report (results/quick/), never over results/latest.* nor the --only runs' tmp/.
const OUT = values.out ?? (complete ? RESULTS : values.quick ? join(RESULTS, 'quick') : TMP);
mkdirSync(OUT, { recursive: true });

const wallStart = Date.now();
const log = (msg: string) => process.stderr.write(`[bench ${((Date.now() - wallStart) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);

const { startSqsEmulator } = await import('../local/emulators');
const { startPipeline } = await import('../local/pipeline');
const { EffectTimeline, freshDynamo, pauseWorkers, probeWrites, resumeWorkers } = await import('./lib/harness');
const { writeReport } = await import('./lib/report');
const { benchRows } = await import('./lib/rows');
const { SdkLatency } = await import('./lib/sdk-latency');
type Results = import('./lib/report').Results;

function machine(): Results['machine'] {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return {
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()}`,
    node: process.version,
    java: (java.stderr || java.stdout || '').split('\n')[0]?.trim() ?? 'unknown',
    date: new Date().toISOString(),
    loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

const results: Results = { machine: machine(), quick: values.quick!, errors: [] };
log(`machine: ${JSON.stringify(results.machine)}`);

// One DynamoDB Local per pipeline: DynamoDB Local makes every write to a stream-enabled table (and
// every stream read) walk the records of the streams written before it, so a second pipeline on
// the same emulator pays for the first one's history — an artifact of the emulator (each AWS
// table's stream is its own), which made the live pipeline look several times slower.
const dynamo = await freshDynamo(log);
const dynamoCommit = await freshDynamo(log);
const sqs = await startSqsEmulator();
const tag = `b${randomBytes(3).toString('hex')}`;
const stopAll: (() => Promise<void>)[] = [() => sqs.stop(), () => dynamo.stop(), () => dynamoCommit.stop()];
let failed = false;
const stopOnSignal = () => {
  log('interrupted: stopping the pipelines and emulators');
  void (async () => {
    for (const stop of stopAll) await stop().catch(() => undefined);
    process.exit(130);
  })();
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);

let probe: (() => Promise<number>) | undefined;

/** One phase: a failure is recorded and the run goes on with the next one. */
async function phase(name: Phase, body: () => Promise<void>): Promise<void> {
  if (!runs(name)) return;
  const t0 = Date.now();
  const loadStart = loadavg()[0]!;
  const probeBefore = probe ? await probe() : null;
  try {
    await body();
  } catch (err) {
    failed = true;
    results.errors!.push(`${name}: ${(err as Error).message}`);
    log(`${name} FAILED: ${(err as Error).stack ?? String(err)}`);
  }
  const seconds = Math.round((Date.now() - t0) / 100) / 10;
  // Other work on this machine competes for its cores: the 1-minute load average says how much.
  const load = { start: Math.round(loadStart * 100) / 100, end: Math.round(loadavg()[0]! * 100) / 100 };
  const probeAfter = probe ? await probe() : null;
  (results.phaseTimes ??= []).push({ phase: name, seconds, loadAverage1m: load, probePutP50Ms: { before: probeBefore, after: probeAfter } });
  log(`phase ${name} took ${seconds} s (1-min load average ${load.start} → ${load.end}; probe PutItem p50 ${probeBefore} → ${probeAfter} ms)`);
  // What is measured so far is written after every phase: a run stopped part-way keeps its figures.
  writeResults();
}

function writeResults(): string[] {
  results.wallSeconds = Math.round((Date.now() - wallStart) / 100) / 10;
  results.rows = benchRows(results);
  writeFileSync(join(OUT, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  return writeReport(results, OUT);
}

try {
  const live = await startPipeline({ dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: sqs.endpoint, prefix: `${tag}-live-`, port: 0, profile: 'fast' });
  stopAll.unshift(() => live.stop());
  const commitOnly = await startPipeline({ dynamodbEndpoint: dynamoCommit.endpoint, sqsEndpoint: sqs.endpoint, prefix: `${tag}-commit-`, port: 0, workers: false, profile: 'fast' });
  stopAll.unshift(() => commitOnly.stop());
  const bench = { live, commitOnly, dynamo, dynamoCommit, sqs, tag, quick: values.quick!, sameEmulator: values['same-emulator']!, log, sdk: new SdkLatency([live, commitOnly]) };
  log(`emulators and pipelines up (DynamoDB Local ${dynamo.endpoint} for the live pipeline, ${dynamoCommit.endpoint} for the commit-only one; SQS ${sqs.endpoint})`);
  probe = () => probeWrites(live, `${tag}-probe`);
  // The live pipeline's workers idle unless a phase needs them: no background polling otherwise.
  await pauseWorkers(live);

  // The JVM (DynamoDB Local) and V8 both compile hot code as they go: warm both before measuring.
  {
    const { warmUp } = await import('./phases/warmup');
    results.warmup = await warmUp(bench);
  }
  await phase('commit', async () => {
    const { commitLatency } = await import('./phases/commit');
    results.commit = await commitLatency(bench);
  });
  await phase('parse', async () => {
    const { parsePlan } = await import('./phases/commit');
    results.parsePlan = await parsePlan(bench, TMP);
  });
  // Cold starts next, while the machine carries only the bench's lightest load so far: a cold
  // process is the figure most moved by other work (after the throughput phase, the bundles phase of
  // a full run started at a 1-minute load of 2.5-2.6 on 2 cores, past the bench's own).
  await phase('bundles', async () => {
    const { bundles } = await import('./phases/bundles');
    results.bundles = await bundles(bench, TMP);
  });
  // Issue 15's rows next, each on emulators of its own or on the commit-only pipeline.
  await phase('deployed', async () => {
    const { deployedProfile } = await import('./phases/deployed');
    results.deployed = await deployedProfile(bench);
  });
  await phase('cache', async () => {
    const { cacheFigures } = await import('./phases/cache');
    results.cache = await cacheFigures(bench);
  });
  await phase('pgwire', async () => {
    const { pgwireFigures } = await import('./phases/pgwire');
    results.pgwire = await pgwireFigures(bench, TMP);
  });
  await phase('kinds', async () => {
    const { statementKinds } = await import('./phases/kinds');
    results.kinds = await statementKinds(bench);
  });
  await phase('throughput', async () => {
    const { throughput } = await import('./phases/applied');
    results.throughput = await throughput(bench, [], TMP);
  });
  const timeline = new EffectTimeline(live);
  let appliedTenants: string[] = [];
  await phase('applied', async () => {
    const { commitToApplied } = await import('./phases/applied');
    resumeWorkers(live);
    const r = await commitToApplied(bench, timeline);
    appliedTenants = r.tenants;
    results.applied = r.levels;
    await pauseWorkers(live);
  });
  await phase('sweeper', async () => {
    const { captureTableShape, sweeperCost } = await import('./phases/sweeper');
    const shape = await captureTableShape(bench, timeline);
    results.sweeper = await sweeperCost(bench, shape);
  });
  await phase('recovery', async () => {
    const { recovery } = await import('./phases/recovery');
    results.recovery = await recovery(bench);
  });
  await phase('parser', async () => {
    const { parserComparison } = await import('./phases/parser');
    results.parser = parserComparison(bench.quick);
    log(`parser: ours ${results.parser.ours.statementsPerSecond}/s vs peer ${results.parser.theirs.statementsPerSecond}/s`);
  });
  await phase('cost', async () => {
    const { costMeter } = await import('./phases/cost');
    results.cost = await costMeter(bench);
  });
  await phase('instances', async () => {
    const { manyInstances } = await import('./phases/instances');
    results.instances = await manyInstances(bench);
  });
  await phase('capacity', async () => {
    const { capacityFigures } = await import('./phases/capacity');
    // Each arrival order's figures are written as soon as they are measured (one takes ~45 min here).
    const runs: import('./phases/capacity').CapacityRun[] = [];
    results.capacity = { runs };
    results.capacity = await capacityFigures(bench, (r) => {
      runs.push(r);
      writeResults();
    });
  });
  await phase('scale', async () => {
    const { captureSourceShape, scaleFigures } = await import('./phases/scale');
    // BENCH_SCALE_SIZES=1000,5000 tries other sizes (multiples of the tenant size).
    const env = { live, dynamodbEndpoint: dynamo.endpoint, tag, quick: values.quick!, log, ...(process.env.BENCH_SCALE_SIZES ? { sizes: process.env.BENCH_SCALE_SIZES.split(',').map(Number) } : {}) };
    resumeWorkers(live);
    const shape = await captureSourceShape(env);
    await pauseWorkers(live);
    results.scale = await scaleFigures(env, shape);
  });
} catch (err) {
  failed = true;
  results.errors!.push(`setup: ${(err as Error).message}`);
  log(`FAILED: ${(err as Error).stack ?? String(err)}`);
} finally {
  for (const stop of stopAll) await stop().catch((e) => log(`stop failed: ${(e as Error).message}`));
}
const files = writeResults();
log(`done in ${results.wallSeconds} s; wrote ${['latest.json', ...files].map((f) => join(OUT, f)).join(', ')}`);
process.exit(failed ? 1 : 0);
