/** bench/results/latest.md and the SVG charts, from the results object. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitLatencyResult, ParsePlanResult } from '../phases/commit';
import type { AppliedLevel, ThroughputResult } from '../phases/applied';
import type { SweeperSize } from '../phases/sweeper';
import type { RecoveryResult } from '../phases/recovery';
import type { ParserResult } from '../phases/parser';
import type { BundleFigure } from '../phases/bundles';
import { PRICES, type CostRow } from '../phases/cost';
import type { InstancesRow } from '../phases/instances';
import type { DeployedResult } from '../phases/deployed';
import type { CacheSize } from '../phases/cache';
import type { KindRow } from '../phases/kinds';
import type { CapacityFigures } from '../phases/capacity';
import { recordedServiceOrder } from './fairness';
import type { ScaleResult } from '../phases/scale';
import type { PgwireResult } from '../phases/pgwire';
import { barChart, cdfChart, logLogPanels } from './svg';
import { benchRows, rowsMarkdown, type BenchRow } from './rows';
import { AWS_LATENCY, FIGURES, summarizeScale, type Figure } from './scale-model';

export interface Results {
  machine: { cpuModel: string; cores: number; memoryGiB: number; os: string; node: string; java: string; date: string; loadAverageAtStart: number[] };
  phaseTimes?: { phase: string; seconds: number; loadAverage1m: { start: number; end: number }; probePutP50Ms: { before: number | null; after: number | null } }[];
  quick: boolean;
  wallSeconds?: number;
  warmup?: { seconds: number; requests: number };
  commit?: CommitLatencyResult;
  parsePlan?: ParsePlanResult;
  applied?: AppliedLevel[];
  throughput?: ThroughputResult;
  sweeper?: SweeperSize[];
  recovery?: RecoveryResult;
  parser?: ParserResult;
  bundles?: BundleFigure[];
  cost?: CostRow[];
  instances?: InstancesRow[];
  deployed?: DeployedResult;
  cache?: CacheSize[];
  kinds?: KindRow[];
  /** Issue 16: effect capacity and per-tenant fairness (phases/capacity.ts). */
  capacity?: CapacityFigures;
  /** Phases measured by a separate single-phase run and merged in (lib/merge.ts): the machine facts of that run. */
  merged?: { phases: string[]; machine: Results['machine'] }[];
  /** Issue 16's numbers to show: the status path and the sweeper at three sizes, and the model's extrapolation (phases/scale.ts, lib/scale-model.ts). */
  scale?: ScaleResult;
  /** Issue 28, item 7: the Postgres wire endpoint against its floors (phases/pgwire.ts). */
  pgwire?: PgwireResult;
  /** Issue 15's rows (lib/rows.ts), computed from the figures above when the report is written. */
  rows?: BenchRow[];
  errors?: string[];
}

export const TARGETS = {
  commitRatioP50: 1.25,
  parsePlanMs: 0.2,
  appliedP50Ms: 150,
  appliedP99Ms: 600,
  throughputRatio: 0.8,
  quietSweepPercent: 1,
  recoverySweeps: 2,
  ddlEntryKiB: 400,
  coldInitMs: 150,
} as const;

const ok = (pass: boolean | undefined) => (pass === undefined ? '–' : pass ? '✓' : '✗');
const n1 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const n2 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(2));
const int = (x: number) => x.toLocaleString('en-US');
const cpu = (c: { benchProcessPct: number; dynamoLocalPct: number | null; dynamoLocalSqliteThreadPct?: number | null }) =>
  `${c.benchProcessPct}% / ${c.dynamoLocalPct ?? 'n/a'}% / ${c.dynamoLocalSqliteThreadPct ?? 'n/a'}%`;

/**
 * Why a commit-only throughput run missed: the two raw-transaction runs it is judged against (their
 * mean) and where it ran between them, with the CPU of each side.
 */
function throughputCause(th: NonNullable<Results['throughput']>, t: NonNullable<Results['throughput']>['runs'][number]): string {
  const before = th.runs.find((x) => x.name === 'floor');
  const after = th.runs.find((x) => x.name === 'floor-again');
  const spread = before && after ? `the raw loops ran ${n1(before.perSecond)}/s before the commit-only runs and ${n1(after.perSecond)}/s after them on the same fresh emulator (the ratio is to their mean): against the run just before, ${n2(t.perSecond / before.perSecond)}×; ` : '';
  return `${spread}CPU bench / DynamoDB Local / its SQLite thread ${cpu(t.cpu)}, latency p50 ${n1(t.latency.p50)} ms`;
}

export function writeReport(r: Results, dir: string): string[] {
  const files: string[] = [];
  const md: string[] = [];
  const m = r.machine;
  md.push(`# Benchmark: ddl-control-plane on the local pipeline`, '');
  md.push(
    `${m.date} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB · ${m.os} · Node ${m.node} · ${m.java} · DynamoDB Local (in-memory; one per pipeline) and fauxqs on the same machine` +
      (r.wallSeconds ? ` · \`npm run bench\` wall time ${r.wallSeconds} s` : '') +
      (r.quick ? ' · **--quick run: small sizes, not for publication**' : ''),
    '',
  );
  for (const g of r.merged ?? []) {
    md.push(`Phase${g.phases.length > 1 ? 's' : ''} ${g.phases.join(', ')} from a run of its own (\`--only\`, merged with \`bench/render.ts --merge\`): ${g.machine.date}, 1-minute load average at start ${g.machine.loadAverageAtStart[0]}.`, '');
  }
  if (r.phaseTimes?.length) {
    md.push(
      `Machine load (1-minute load average on ${m.cores} cores; anything above the bench's own ~2 is other work sharing the machine): at start ${m.loadAverageAtStart[0]}; per phase ${r.phaseTimes.map((p) => `${p.phase} ${p.loadAverage1m.start}→${p.loadAverage1m.end} (${p.seconds} s)`).join(', ')}. ` +
        `Emulator health (PutItem p50 ms into a small catalog-shaped table, before→after each phase): ${r.phaseTimes.map((p) => `${p.phase} ${p.probePutP50Ms.before}→${p.probePutP50Ms.after}`).join(', ')}.`,
      '',
    );
  }
  // Issue 15's rows (below) carry the causes of their misses; a miss here takes the same row's cause, or its own.
  const rows15 = r.rows ?? benchRows(r);
  const causeOf = (prefix: string) => rows15.find((x) => x.figure.startsWith(prefix))?.cause;
  md.push('| # | Figure | Measured | Target | | Cause of a miss |', '|---|---|---|---|---|---|');
  const row = (k: string, fig: string, measured: string, target: string, pass?: boolean, cause?: string) =>
    md.push(`| ${k} | ${fig} | ${measured} | ${target} | ${ok(pass)} | ${pass === false ? (cause ?? `the figures of section ${k} below`) : ''} |`);

  if (r.commit) {
    const c = r.commit;
    row('1', 'Commit floor: raw TransactWriteItems of a CREATE TABLE', `p50 ${n2(c.floor.p50)} ms · p99 ${n2(c.floor.p99)} ms (${c.itemsPerTransaction} items)`, 'the floor');
    row('1', 'Commit via DDL handler in-process (`SqlApi.handle`)', `p50 ${n2(c.inProcess.p50)} ms (${n2(c.ratioP50.inProcess)}× floor) · p99 ${n2(c.inProcess.p99)} ms (${n2(c.ratioP99.inProcess)}×)`, `p50 ≤ ${TARGETS.commitRatioP50}× floor`, c.ratioP50.inProcess <= TARGETS.commitRatioP50);
    row('1', `Commit via HTTP (\`POST /api/sql\`, authorizer included${c.httpFetchClient ? ', node:http keep-alive client' : ''})`, `p50 ${n2(c.http.p50)} ms (${n2(c.ratioP50.http)}× floor) · p99 ${n2(c.http.p99)} ms (${n2(c.ratioP99.http)}×)`, `p50 ≤ ${TARGETS.commitRatioP50}× floor`, c.ratioP50.http <= TARGETS.commitRatioP50, causeOf('Over HTTP: CREATE TABLE commit'));
  }
  for (const p of r.parsePlan?.rows ?? []) {
    // The target is for DDL without a view body; a view body reports its own figure.
    const viewBody = / AS SELECT /i.test(p.statement);
    row('1', `Parse + plan, ${p.catalogObjects}-object catalog: \`${p.statement.length > 48 ? `${p.statement.slice(0, 46)}…` : p.statement}\``, `p50 ${(p.p50Us / 1000).toFixed(3)} ms · mean ${(p.meanUs / 1000).toFixed(3)} ms`, viewBody ? 'view body: own figure' : `≤ ${TARGETS.parsePlanMs} ms`, viewBody ? undefined : p.meanUs / 1000 <= TARGETS.parsePlanMs);
  }
  for (const a of r.applied ?? []) {
    const binding = a.clients === 32;
    const stages = `the machine's ${m.cores} cores shared by the bench process (API, router, executors, the SQS emulator) and DynamoDB Local: CPU bench / DynamoDB Local / its SQLite thread ${cpu(a.cpu)}; stages p50 / p99: commit ${n1(a.commit.p50)} / ${n1(a.commit.p99)} ms, stream → routed ${n1(a.stagesP50.streamToRouted)} / ${n1(a.stagesP99.streamToRouted)}, queue wait ${n1(a.stagesP50.queueWait)} / ${n1(a.stagesP99.queueWait)}, executor before the data plane ${n1(a.stagesP50.executorBeforeDataPlane)} / ${n1(a.stagesP99.executorBeforeDataPlane)}, data plane write ${n1(a.stagesP50.dataPlaneWrite)} / ${n1(a.stagesP99.dataPlaneWrite)} (the deployed profile's request → applied rows, section 10, are the same path as ratios to floors of the same run)`;
    row('2', `Commit → applied, ${a.clients} client${a.clients > 1 ? 's' : ''} (${a.commits} commits)`, `p50 ${n1(a.applied.p50)} ms`, binding ? `≤ ${TARGETS.appliedP50Ms} ms` : `(≤ ${TARGETS.appliedP50Ms} ms at 32)`, binding ? a.applied.p50 <= TARGETS.appliedP50Ms : undefined, stages);
    row('2', `Commit → applied, ${a.clients} client${a.clients > 1 ? 's' : ''}`, `p99 ${n1(a.applied.p99)} ms`, binding ? `≤ ${TARGETS.appliedP99Ms} ms` : `(≤ ${TARGETS.appliedP99Ms} ms at 32)`, binding ? a.applied.p99 <= TARGETS.appliedP99Ms : undefined, stages);
  }
  if (r.throughput) {
    for (const t of r.throughput.runs) {
      if (t.name === 'floor' || t.name === 'floor-again') row('3', `Throughput, ${t.what}`, `${n1(t.perSecond)} tx/s`, 'the floor');
      else
        row(
          '3',
          `Throughput, ${t.what}`,
          `${n1(t.perSecond)} commits/s = ${n2(t.ratioToFloor)}× floor${t.errors ? ` (${t.errors} errors ${JSON.stringify(t.errorCodes)})` : ''}`,
          `≥ ${TARGETS.throughputRatio}× floor`,
          (t.ratioToFloor ?? 0) >= TARGETS.throughputRatio,
          /live/.test(t.what)
            ? causeOf('Live pipeline throughput')
            : throughputCause(r.throughput, t),
        );
    }
    row('3', 'Lost effects after quiet (invariant checker, every live tenant of 2 and 3)', `${r.throughput.lostEffects} lost · all counts ${JSON.stringify(r.throughput.checker.counts)}`, '0', r.throughput.lostEffects === 0);
  }
  for (const s of r.sweeper ?? []) {
    const binding = s.objects >= 50_000;
    row('4', `Quiet sweep, ${int(s.objects)} objects (${int(s.catalogItems)} catalog items)`, `${s.quiet.totalItemsRead} items read (${s.quiet.itemsRead} from the attention index) = ${s.quiet.percentOfCatalog}% · ${n1(s.quiet.ms)} ms`, binding ? `≤ ${TARGETS.quietSweepPercent}% of items` : `(≤ ${TARGETS.quietSweepPercent}% at 50 000)`, binding ? s.quiet.percentOfCatalog <= TARGETS.quietSweepPercent : undefined);
    row('4', `Sweep with 1 % needing attention, ${int(s.objects)} objects (${s.attentionDue.pending} pending, due)`, `${s.attentionDue.totalItemsRead} items read, ${s.attentionDue.replayed} replayed · ${n1(s.attentionDue.ms)} ms; again while they wait: ${s.attentionWaiting.totalItemsRead} items · ${n1(s.attentionWaiting.ms)} ms`, '–');
    row('4', `Full pass (hourly), ${int(s.objects)} objects`, `${int(s.fullPass.itemsRead)} items read (${s.fullPass.percentOfCatalog}%) in ${s.fullPass.invocations} invocation(s) · ${n1(s.fullPass.ms / 1000)} s · drift found: ${s.fullPass.orphans} orphans, ${s.fullPass.missing} missing`, '–');
  }
  if (r.recovery) {
    const v = r.recovery;
    row('5', `Recovery of ${int(v.pendingEffects)} lost effects (checker before: ${v.lostBefore.lostEffects} lost)`, v.sweepsNeeded === null ? `not clean after ${v.sweeps.length} sweeps: ${JSON.stringify(v.after)}` : `clean after ${v.sweepsNeeded} sweep(s), ${n1(v.secondsUntilClean)} s from the first sweep (${n1(v.executorEffectsPerSecond)} effects/s)`, `≤ ${TARGETS.recoverySweeps} sweeps`, v.sweepsNeeded !== null && v.sweepsNeeded <= TARGETS.recoverySweeps);
  }
  if (r.parser) {
    const p = r.parser;
    row('6', `Parser throughput, ${p.statements.length} DDL statements both accept`, `ours ${int(p.ours.statementsPerSecond)} stmt/s (${p.ours.meanUs} µs) · ${p.peer.split(' (')[0]} ${int(p.theirs.statementsPerSecond)} stmt/s (${p.theirs.meanUs} µs) · ${p.speedup}×`, '–');
  }
  for (const b of r.bundles ?? []) {
    const isDdl = b.function === 'ddl-api';
    row('7', `Bundle \`${b.function}\`${b.splitChunks ? ' (code splitting)' : ''}`, `entry ${n1(b.entryKiB)} KiB${b.chunks.length ? ` + ${b.chunks.length} chunk(s) ${n1(b.totalKiB - b.entryKiB)} KiB` : ''}`, isDdl ? `entry ≤ ${TARGETS.ddlEntryKiB} KB` : '–', isDdl ? b.entryKiB <= TARGETS.ddlEntryKiB : undefined);
    row('7', `Cold init \`${b.function}\` (import + first event, p50 of ${b.coldInit.runs})`, `${n1(b.coldInit.totalMsP50)} ms (import ${n1(b.coldInit.importMsP50)} + event ${n1(b.coldInit.firstEventMsP50)}; max ${n1(b.coldInit.totalMsMax)}) ${b.coldInitEagerSourceMaps ? ` · with Node's eager source maps (--enable-source-maps) ${n1(b.coldInitEagerSourceMaps.totalMsP50)} ms` : ''}${b.coldInit.errors.length ? ` · errors: ${b.coldInit.errors.join('; ').slice(0, 120)}` : ''}`, `≤ ${TARGETS.coldInitMs} ms`, b.coldInit.totalMsP50 <= TARGETS.coldInitMs && b.coldInit.errors.length === 0);
  }
  md.push('');
  if (rows15.length) {
    md.push("## Issue 15's rows: ratios to the same run's floors", '');
    md.push('Absolute times on these shared 2-core machines move 2–3× from one machine (and one load) to the next; each row is a ratio to a floor measured in the same run, and every miss has its cause from the same run\'s figures (bench/lib/rows.ts).', '');
    md.push(...rowsMarkdown(rows15), '');
  }

  // ---- details ---------------------------------------------------------------------------------
  if (r.commit) {
    const c = r.commit;
    md.push('## 1. Commit latency', '');
    md.push(
      `${c.iterations} commits of \`${c.statement}\` each way (after ${c.warmup} warm-up), interleaved floor / in-process / HTTP, on a table no router or executor reads. ` +
        `The in-process tenant ended with ${c.catalogObjectsAtEnd} live objects. The handler plans on its cached snapshot of the tenant's catalog (${c.cacheHits ?? '?'} of ${c.iterations} measured requests) and commits on condition that the catalog version is still the snapshot's; a miss reads the catalog (Query of every live object after one BatchGet of the version and the lock).`,
      '',
    );
    md.push('| Path | p50 ms | p90 ms | p99 ms | max ms |', '|---|---|---|---|---|');
    for (const [k, s] of [['floor', c.floor], ['in-process', c.inProcess], ['HTTP', c.http], ['  of which the HTTP hop (GET /api/health, same server)', c.httpHop], ['  in-process: the basis (cached snapshot, or the catalog read on a miss)', c.breakdown.loadSnapshot], ['  in-process: store commit (the TransactWriteItems)', c.breakdown.storeCommit], ['  in-process: the rest (parse, plan, print, JSON)', c.breakdown.restOfHandler]] as const) {
      md.push(`| ${k} | ${n2(s.p50)} | ${n2(s.p90)} | ${n2(s.p99)} | ${n2(s.max)} |`);
    }
    md.push('', `The basis does not grow with the catalog: p50 ${c.loadSnapshotByCatalogSize.map((x) => `${n2(x.p50)} ms at ~${x.objects} objects`).join(', ')}.`);
    md.push('', '![commit latency](commit-latency.svg)', '');
  }
  if (r.parsePlan) {
    md.push('## 1b. Parse + plan (no I/O)', '');
    md.push('| Statement | catalog objects | p50 µs | p99 µs | mean µs | of which parse µs |', '|---|---|---|---|---|---|');
    for (const p of r.parsePlan.rows) md.push(`| \`${p.statement}\` | ${p.catalogObjects} | ${p.p50Us} | ${p.p99Us} | ${p.meanUs} | ${p.parseMeanUs} |`);
    if (r.parsePlan.pgParserLoadMs !== undefined) md.push('', `PostgreSQL's parser (libpg-query, read for bodies node-sql-parser rejects) loads once per process in ${r.parsePlan.pgParserLoadMs} ms.`);
    const pr = r.parsePlan.profile;
    if (pr) md.push('', `CPU profile of CREATE TABLE planning on the ${pr.catalogObjects}-object catalog (self time): ${pr.topFunctions.slice(0, 8).map((f) => `\`${f.fn}\`${f.where ? ` (${f.where})` : ''} ${f.pct}%`).join(', ')}.`);
    md.push('');
  }
  if (r.applied) {
    md.push('## 2. Commit → applied', '');
    md.push('Closed loop: each client commits a CREATE TABLE over HTTP (own tenant), waits until the reference data plane holds the collection, repeats. Stage p50 / p99 in ms; CPU in % of one core.', '');
    md.push('| Clients | commits | commit p50 | applied p50 | applied p99 | stream→routed | queue wait | executor before data plane | data plane write | CPU bench / DynamoDB Local / its SQLite thread |', '|---|---|---|---|---|---|---|---|---|---|');
    for (const a of r.applied) {
      md.push(
        `| ${a.clients} | ${a.commits} | ${n1(a.commit.p50)} | ${n1(a.applied.p50)} | ${n1(a.applied.p99)} | ${n1(a.stagesP50.streamToRouted)} / ${n1(a.stagesP99.streamToRouted)} | ${n1(a.stagesP50.queueWait)} / ${n1(a.stagesP99.queueWait)} | ${n1(a.stagesP50.executorBeforeDataPlane)} / ${n1(a.stagesP99.executorBeforeDataPlane)} | ${n1(a.stagesP50.dataPlaneWrite)} / ${n1(a.stagesP99.dataPlaneWrite)} | ${cpu(a.cpu)} |`,
      );
    }
    for (const a of r.applied) md.push('', `SDK calls during the ${a.clients}-client run (count · p50 ms): ${a.sdk.slice(0, 8).map((o) => `${o.operation} ${o.calls} · ${n1(o.p50Ms)}`).join(', ')}.`);
    md.push('', '![commit to applied](commit-to-applied.svg)', '');
  }
  if (r.throughput) {
    md.push('## 3. Throughput at 32 clients', '');
    md.push(
      `Each run 32 closed-loop clients for ${r.throughput.runs[0]?.seconds ?? 8} s, on ${r.throughput.emulator === 'fresh' ? 'DynamoDB Locals of their own, one per pipeline, started for this phase (DynamoDB Local slows every stream-enabled table down by the stream records written before it on the same emulator: `--same-emulator` reproduces it)' : 'the main DynamoDB Local (`--same-emulator`)'}; the live run first, then the commit-only runs between two floor runs (ratios against their mean ${n1(r.throughput.floorPerSecond)}/s). CPU in % of one core; the SDK column lists the emulator calls made meanwhile (count · p50 ms).`,
      '',
      '| Run | ok | errors | per s | × floor | latency p50 / p99 ms | CPU bench / DynamoDB Local / its SQLite thread | SDK calls (count · p50 ms) |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const t of r.throughput.runs) {
      md.push(
        `| ${t.what} | ${t.ok} | ${t.errors} | ${n1(t.perSecond)} | ${n2(t.ratioToFloor)} | ${n1(t.latency.p50)} / ${n1(t.latency.p99)} | ${cpu(t.cpu)} | ${t.sdk.slice(0, 5).map((o) => `${o.operation} ${o.calls} · ${n1(o.p50Ms)}`).join('<br>')} |`,
      );
    }
    md.push('', `Quiet after ${n1(r.throughput.quietAfterSeconds)} s; checker over ${r.throughput.checker.tenants} tenants: ${JSON.stringify(r.throughput.checker.counts)}.`, '');
    const pr = r.throughput.profile;
    if (pr) {
      md.push(`CPU profile of the bench process during the HTTP run (${pr.sampledMs} ms sampled, busy ${pr.busyPct}% of it; shares of the busy time): ${pr.byArea.slice(0, 7).map((a) => `${a.area} ${a.pct}%`).join(' · ')}. Top functions: ${pr.topFunctions.slice(0, 6).map((f) => `\`${f.fn}\`${f.where ? ` (${f.where})` : ''} ${f.pct}%`).join(', ')}.`, '');
    }
    for (const [name, j] of Object.entries(r.throughput.emulatorThread ?? {})) {
      md.push(`DynamoDB Local's single SQLite thread under the \`${name}\` load (jstack, ${j.samples} samples, diagnostic run): busy ${j.busyPct}% — ${j.jobs.map((x) => `${x.job} ${x.pct}%`).join(' · ')}.`, '');
    }
    md.push('![throughput](throughput.svg)', '');
  }
  if (r.sweeper) {
    md.push('## 4. Sweeper cost', '');
    md.push('| Objects | tenants | catalog items | quiet: items · ms | 1 % due: read · replayed · ms | 1 % waiting: read · ms | full pass: invocations · items · s | built in s |', '|---|---|---|---|---|---|---|---|');
    for (const s of r.sweeper) {
      md.push(
        `| ${int(s.objects)} | ${s.tenants} | ${int(s.catalogItems)} | ${s.quiet.totalItemsRead} · ${n1(s.quiet.ms)} | ${s.attentionDue.totalItemsRead} · ${s.attentionDue.replayed} · ${n1(s.attentionDue.ms)} | ${s.attentionWaiting.totalItemsRead} · ${n1(s.attentionWaiting.ms)} | ${s.fullPass.invocations} · ${int(s.fullPass.itemsRead)} · ${n1(s.fullPass.ms / 1000)} | ${s.buildSeconds} |`,
      );
    }
    md.push('', '![sweeper cost](sweeper-cost.svg)', '');
  }
  if (r.recovery) {
    const v = r.recovery;
    md.push('## 5. Recovery', '');
    md.push(`${v.pendingEffects} CREATE TABLEs committed in ${v.commitSeconds} s with the executors stopped; routed, then every queue purged. Checker before: ${JSON.stringify(v.lostBefore)}. After: ${JSON.stringify(v.after)}.`, '');
    md.push('| Sweep | clock | attention items read | replayed | waiting | sweep took s |', '|---|---|---|---|---|---|');
    for (const s of v.sweeps) md.push(`| ${s.n} | +${s.clockOffsetSeconds} s | ${s.itemsRead} | ${s.replayed} | ${s.waiting} | ${s.sweepSeconds} |`);
    md.push('');
  }
  if (r.parser) {
    const p = r.parser;
    md.push('## 6. Parser against a peer', '');
    md.push(`Peer: ${p.peer}. Left out (one side refuses): ${p.excluded.map((e) => `\`${e.statement}\` (${e.oursAccepts ? 'peer' : 'ours'} refuses)`).join(', ') || 'none'}.`, '');
    md.push('| Statement | ours µs | peer µs |', '|---|---|---|');
    for (const s of p.perStatementUs) md.push(`| \`${s.statement}\` | ${s.ours} | ${s.theirs} |`);
    md.push('');
  }
  if (r.bundles) {
    md.push('## 7. Lambda bundles', '');
    md.push(
      'Cold init = importing the bundle in a fresh `node` (module scope included) + serving one event against the local emulators, p50 of the runs; the bundles carry the AWS SDK (tree-shaken, since issue 32); the AWS SDK column requires only the `@aws-sdk/*` packages the import loads, from node_modules as the Lambda runtime would provide them (seen in a traced run of the same function built with the SDK of the runtime, so a client loaded on first use is not counted), in a fresh process; the last column is that runtime-SDK build (what the stack deployed until issue 32).',
      '',
      '| Function | split | entry KiB | chunks (KiB) | largest inputs of the entry (KiB) | cold init p50 ms (import + event) | with --enable-source-maps ms | AWS SDK packages required alone ms (packages) | only the SDK it calls ms | with the SDK of the runtime: entry KiB · cold init ms | node boot ms | first event answered |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const b of r.bundles) {
      md.push(
        `| ${b.function} | ${b.splitChunks ? 'yes' : 'no'} | ${n1(b.entryKiB)} | ${b.chunks.map((c) => `${c.file} ${n1(c.bytes / 1024)}`).join('<br>') || '–'} | ${b.largestInputs.slice(0, 4).map((i) => `${i.input} ${i.kib}`).join(', ')} | ${n1(b.coldInit.totalMsP50)} (${n1(b.coldInit.importMsP50)} + ${n1(b.coldInit.firstEventMsP50)}) | ${b.coldInitEagerSourceMaps ? n1(b.coldInitEagerSourceMaps.totalMsP50) : '–'} | ${n1(b.sdkImportMsP50)} (${b.externalImports.map((m) => m.replace('@aws-sdk/', '')).join(', ')}) | ${n1(b.sdkNeededImportMsP50)} (${b.sdkNeededImports.map((m) => m.replace('@aws-sdk/', '')).join(', ')}) | ${n1(b.sdkRuntime.entryKiB)} · ${n1(b.sdkRuntime.coldInit.totalMsP50)} | ${n1(b.coldInit.nodeBootMsP50)} | \`${b.firstEvent.slice(0, 80).replace(/\|/g, '\\|')}\` |`,
      );
    }
    md.push('');
    for (const b of r.bundles) {
      const pr = b.coldProfile;
      if (!pr) continue;
      md.push(`Cold-init profile of \`${b.function}\` (\`node --cpu-prof\`, ${pr.sampledMs} ms sampled, busy ${pr.busyPct}%; shares of the busy time): ${pr.byArea.slice(0, 6).map((a) => `${a.area} ${a.pct}%`).join(' · ')}. Top: ${pr.topFunctions.slice(0, 5).map((f) => `\`${f.fn}\`${f.where ? ` (${f.where.slice(0, 60)})` : ''} ${f.pct}%`).join(', ')}.`, '');
    }
  }
  if (r.cost) {
    md.push('## 8. Cost per statement', '');
    md.push(
      `Measured on the local pipeline in its deployed profile with the fast path on (bench/phases/cost.ts): every DynamoDB call asks for \`ReturnConsumedCapacity\`; SQS requests are sends (fast path and router), deletes and one receive per executor invocation; Lambda invocations and GB-seconds are the DDL function's and authorizer's (one each per request; the request's time counted at 512 MB) and the router's and executors' (time in the handler at 256 MB). Prices, us-east-1 on demand: DynamoDB $${PRICES.writeUnitPerMillion} per million write and $${PRICES.readUnitPerMillion} per million read units, SQS FIFO $${PRICES.sqsFifoPerMillion} per million requests, Lambda $${PRICES.lambdaRequestPerMillion} per million requests and $${PRICES.lambdaGbSecondArm} per GB-second (arm64). API Gateway ($3.50 per million REST requests) and CloudWatch are not included.`,
      '',
      '| statement | samples | read units | write units | SQS requests | Lambda invocations | GB-seconds | $ per million statements |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const c of r.cost) md.push(`| ${c.kind} | ${c.samples} | ${n1(c.readUnits)} | ${n1(c.writeUnits)} | ${n1(c.sqsRequests)} | ${n1(c.lambdaInvocations)} | ${c.gbSeconds.toFixed(4)} | ${n1(c.dollarsPerMillion)} |`);
    md.push('');
  }
  if (r.instances) {
    md.push('## 9. Many API instances on one tenant', '');
    md.push(
      `N independent API instances (own snapshot cache each, no shared in-process queue) commit CREATE TABLEs back to back on one tenant of 1 000 objects (bench/phases/instances.ts), each level against a single instance on the same tenant (${r.instances.some((i) => i.alternated) ? 'the two alternated: single · level · level · single, each rate over its two passes' : 'run just before it'}). Targets: at 8 instances ≥ 70 % of the single instance's commit rate, 0 × 40001. A catch-up replays the change log the refused commit brought back, and reads only what the log holds by id. At 8, the same instances also run on a tenant each (seeded alike, the same commits): no version race, so that rate is what the emulator and the bench process carry for 8 instances.`,
      '',
      '| instances | commits | commits/s | one instance (alternated, or just before) | × single | on a tenant each (× single) | 40001 answers | catch-ups (from the log alone) | whole-catalog reads after warm-up | CPU ms per commit (one instance) |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const i of r.instances) {
      md.push(
        `| ${i.instances} | ${i.commits} | ${n1(i.commitsPerSecond)} | ${i.singlePerSecond === undefined ? '' : n1(i.singlePerSecond)} | ${i.ofSingle} | ${i.ownTenantsPerSecond === undefined ? '' : `${n1(i.ownTenantsPerSecond)} (${i.ownTenantsOfSingle})`} | ${i.answers40001} | ${i.catchUps}${i.logCatchUps === undefined ? '' : ` (${i.logCatchUps})`} | ${i.fullLoadsAfterWarmUp} | ${i.cpuMsPerCommit ?? ''}${i.singleCpuMsPerCommit === undefined ? '' : ` (${i.singleCpuMsPerCommit})`} |`,
      );
    }
    md.push('');
  }
  if (r.deployed) {
    const d = r.deployed;
    md.push('## 10. Deployed profile: request → applied, fast path on and off', '');
    md.push(
      `The stack's settings (local/profiles.ts \`deployed\`): stream read every ${n1(d.settings.stream.pollIntervalMs ?? NaN)} ms, batches of ${d.settings.stream.batchSize}; executors at most ${d.settings.queuePolling.maxConcurrency} in flight per queue, batches of ${d.settings.queuePolling.batchSize}; authorizer cache ${d.settings.authorizerCacheTtlSeconds} s. Each fast-path setting on a DynamoDB Local of its own; at each client count the floor (the raw TransactWriteItems of a CREATE TABLE, as many closed loops, workers paused) runs first on the same table, its effects are drained, then the clients (bench/phases/deployed.ts). Lost effects after the runs: ${d.lostEffects}.`,
      '',
      '| fast path | clients | floor p50 / p99 ms | commits | commit answer p50 / p99 | request → applied p50 / p99 | × floor p50 / p99 | answer → applied p50 / p99 | commits/s | first sent by fast path / router | CPU bench / DynamoDB Local / its SQLite thread |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const l of d.levels) {
      md.push(
        `| ${l.fastPath ? 'on' : 'off'} | ${l.clients} | ${n2(l.floor.p50)} / ${n2(l.floor.p99)} | ${l.commits}${l.errors || l.timeouts ? ` (${l.errors} errors, ${l.timeouts} timeouts)` : ''} | ${n1(l.commit.p50)} / ${n1(l.commit.p99)} | ${n1(l.fromStart.p50)} / ${n1(l.fromStart.p99)} | ${n2(l.ratio.p50)} / ${n2(l.ratio.p99)} | ${n1(l.afterAnswer.p50)} / ${n1(l.afterAnswer.p99)} | ${n1(l.commitsPerSecond)} | ${l.firstSentBy.fastPath} / ${l.firstSentBy.router} | ${cpu(l.cpu)} |`,
      );
    }
    md.push('', 'Open loop: requests sent on a fixed schedule round-robin over 32 tenants whatever the earlier ones are doing; latency from the scheduled time, against the same pipeline\'s single-client floor.', '');
    md.push('| fast path | offered /s (× closed loop) | sent | committed /s | applied | errors | scheduled → answer p50 / p99 | scheduled → applied p50 / p99 | × floor p50 / p99 |', '|---|---|---|---|---|---|---|---|---|');
    for (const o of d.openLoop) {
      const floor = d.levels.find((l) => l.fastPath === o.fastPath && l.clients === 1)?.floor ?? o.floor;
      md.push(`| ${o.fastPath ? 'on' : 'off'} | ${n1(o.offeredPerSecond)} (${o.ofClosedLoop}×) | ${o.sent} | ${n1(o.achievedPerSecond)} | ${o.applied} | ${o.errors} | ${n1(o.commit.p50)} / ${n1(o.commit.p99)} | ${n1(o.fromStart.p50)} / ${n1(o.fromStart.p99)} | ${n2(o.fromStart.p50 / floor.p50)} / ${n2(o.fromStart.p99 / floor.p99)} |`);
    }
    md.push('');
  }
  if (r.cache) {
    md.push('## 11. Snapshot cache: miss, hit, catch-up', '');
    md.push(
      'A miss is a fresh instance (a cold Lambda) reading the whole catalog; a hit plans on the warm snapshot; a catch-up is the request that lost its race to another instance: the stale commit is refused and brings the catalog-version item back, whose change log is replayed onto the snapshot (what the log holds only by id is read again; past the log, the transaction records say what changed), and the request is planned and committed again (bench/phases/cache.ts). Whole `SqlApi.handle` of a CREATE TABLE, and its basis step alone, ms; the refused commit\'s round trip against the hit\'s commit.',
      '',
      '| objects | seeded in s | miss p50 / p99 (read) | hit p50 / p99 (basis) | catch-up p50 / p99 (catch-up read) | refused commit p50 (the hit\'s commit) | catch-up ÷ hit p50 | catch-ups (from the log alone) / whole reads |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const c of r.cache) {
      md.push(
        `| ${int(c.objects)} | ${c.seedSeconds} | ${n1(c.miss.request.p50)} / ${n1(c.miss.request.p99)} (${n1(c.miss.basis.p50)} / ${n1(c.miss.basis.p99)}) | ${n1(c.hit.request.p50)} / ${n1(c.hit.request.p99)} (${c.hit.basis.p50} / ${c.hit.basis.p99}) | ${n1(c.catchUp.request.p50)} / ${n1(c.catchUp.request.p99)} (${n2(c.catchUp.basis.p50)} / ${n2(c.catchUp.basis.p99)}) | ${c.commits ? `${n2(c.commits.refused.p50)} (${n2(c.commits.hit.p50)})` : ''} | ${n2(c.catchUpOverHitP50)} | ${c.catchUp.catchUps}${c.catchUp.logCatchUps === undefined ? '' : ` (${c.catchUp.logCatchUps})`} / ${c.catchUp.wholeReads} |`,
      );
    }
    md.push('');
  }
  if (r.kinds) {
    md.push('## 12. Statement kinds against their raw-transaction floors', '');
    md.push(
      "The floor is the same request planned by the DDL handler with its commit replaced by the raw TransactWriteItems of the items that commit writes, 100 items a transaction, timed alone; in-process is `SqlApi.handle`; HTTP is `POST /api/sql` from the request's start. Interleaved, one tenant each, on the commit-only pipeline (bench/phases/kinds.ts). The 150-object commit is a staged commit on the DDL path (staging, validation, lock, roll-forward).",
      '',
      '| statement | samples | items | raw transactions | floor p50 / p99 ms | in-process p50 / p99 ms (× floor) | HTTP p50 / p99 ms (× floor) |',
      '|---|---|---|---|---|---|---|',
    );
    for (const k of r.kinds) {
      md.push(`| ${k.kind} | ${k.samples} | ${k.items} | ${k.floorTransactions} | ${n1(k.floor.p50)} / ${n1(k.floor.p99)} | ${n1(k.inProcess.p50)} / ${n1(k.inProcess.p99)} (${n2(k.ratioP50.inProcess)}× / ${n2(k.ratioP99.inProcess)}×) | ${n1(k.http.p50)} / ${n1(k.http.p99)} (${n2(k.ratioP50.http)}× / ${n2(k.ratioP99.http)}×) |`);
    }
    md.push('');
  }
  if (r.capacity) {
    md.push('## 13. Effect capacity and per-tenant fairness', '');
    md.push(
      "Effects committed through the SQL API with the workers off (one CREATE CLUSTER of up to 20 replicas per statement: one compute effect per replica), queued on the compute queue in the arrival order named (group per object, as the router sends them), then drained by the compute executor with the stack's mapping (the deployed profile). Wait = all queued → the reference data plane holds the replica; in service order, the same counted in effects held before it (what the queueing decides, whatever the machine's speed did during the drain; the figures the tests bound). The first tenant has half of the effects (bench/phases/capacity.ts).",
      '',
      '| arrival | effects · tenants (big one) | drain s | drain /s | allowed /s | ms per effect | concurrency allows /s | peak in flight | median tenant p99 s | worst tenant p99 s | worst ÷ median | small ÷ big p99 | in service order: worst ÷ median · small ÷ big |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const c of r.capacity.runs) {
      const f = c.fairness;
      const s = recordedServiceOrder(c);
      md.push(`| ${c.order} | ${int(c.effects)} · ${c.tenants} (${int(c.bigTenantEffects)}) | ${n1(c.drainSeconds)} | ${n1(c.drainPerSecond)} | ${c.allowedPerSecond} | ${n1(c.effectMs)} | ${n1(c.concurrencyAllowsPerSecond)} | ${c.peakInFlight}/${c.maxConcurrency} (batches of ${c.batchSize}) | ${n1(f.medianTenantP99Ms / 1000)} | ${n1(f.worstTenantP99Ms / 1000)} | ${n2(f.ratio)} | ${n2(f.smallOverBig)} | ${s ? `${n2(s.ratio)} · ${n2(s.smallOverBig)}` : '—'} |`);
    }
    md.push('');
  }
  if (r.scale?.sizes.length) md.push(...scaleSection(r.scale, r.phaseTimes?.find((p) => p.phase === 'scale')?.loadAverage1m));
  if (r.pgwire) md.push(...pgwireSection(r.pgwire));
  if (r.errors?.length) md.push('## Errors', '', ...r.errors.map((e) => `- ${e}`), '');
  writeFileSync(join(dir, 'latest.md'), md.join('\n'));
  files.push('latest.md');

  // ---- charts ----------------------------------------------------------------------------------
  if (r.commit) {
    writeFileSync(
      join(dir, 'commit-latency.svg'),
      cdfChart({
        title: 'Commit latency: CREATE TABLE, one client',
        xLabel: 'milliseconds (log)',
        series: [
          { label: 'floor: raw TransactWriteItems', samples: r.commit.samples.floor },
          { label: 'DDL handler in-process', samples: r.commit.samples.inProcess },
          { label: 'POST /api/sql (HTTP)', samples: r.commit.samples.http },
        ],
        targets: [{ at: r.commit.floor.p50 * TARGETS.commitRatioP50, label: `1.25× floor p50` }],
      }),
    );
    files.push('commit-latency.svg');
  }
  if (r.applied?.length) {
    writeFileSync(
      join(dir, 'commit-to-applied.svg'),
      cdfChart({
        title: 'Commit → applied (data plane holds the change)',
        xLabel: 'milliseconds (log)',
        series: r.applied.map((a) => ({ label: `${a.clients} client${a.clients > 1 ? 's' : ''}`, samples: a.samples })),
        targets: [
          { at: TARGETS.appliedP50Ms, label: 'p50 target' },
          { at: TARGETS.appliedP99Ms, label: 'p99 target' },
        ],
      }),
    );
    files.push('commit-to-applied.svg');
  }
  if (r.throughput?.runs.length) {
    const floor = r.throughput.floorPerSecond;
    writeFileSync(
      join(dir, 'throughput.svg'),
      barChart({
        title: 'Throughput at 32 clients',
        unit: '/s',
        bars: r.throughput.runs.map((t) => ({ label: t.name, value: t.perSecond })),
        reference: { at: floor * TARGETS.throughputRatio, label: '80 % of the floor' },
      }),
    );
    files.push('throughput.svg');
  }
  if (r.sweeper && r.sweeper.length > 1) {
    const pts = (f: (s: SweeperSize) => number) => r.sweeper!.map((s) => [s.objects, f(s)] as const);
    writeFileSync(
      join(dir, 'sweeper-cost.svg'),
      logLogPanels({
        title: 'Sweeper cost against catalog size',
        xLabel: 'catalog objects (log)',
        panels: [
          {
            yLabel: 'items read (log)',
            series: [
              { label: 'catalog items (for scale)', points: pts((s) => s.catalogItems), dashed: true },
              { label: 'full pass (hourly)', points: pts((s) => s.fullPass.itemsRead) },
              { label: 'sweep, 1 % needing attention', points: pts((s) => s.attentionDue.totalItemsRead) },
              { label: 'quiet sweep', points: pts((s) => s.quiet.totalItemsRead) },
            ],
          },
          {
            yLabel: 'milliseconds (log)',
            series: [
              { label: 'full pass (hourly)', points: pts((s) => s.fullPass.ms) },
              { label: 'sweep, 1 % needing attention', points: pts((s) => s.attentionDue.ms) },
              { label: 'quiet sweep', points: pts((s) => s.quiet.ms) },
            ],
          },
        ],
      }),
    );
    files.push('sweeper-cost.svg');
  }
  return files;
}

/** Section 14: the status path and the sweeper at the measured sizes, the model against them, and its figures per minute at 10 000 × 1 000. */
function scaleSection(sc: ScaleResult, load: { start: number; end: number } | undefined): string[] {
  const st = sc.settings;
  const sum = summarizeScale(sc.sizes, st);
  const pm = sum.target;
  const here = sum.targetHere;
  const md: string[] = ['## 14. Status path and sweeper at scale (issue 16)', ''];
  md.push(
    `Tenants of ${int(sc.sizes[0]!.objectsPerTenant)} objects, ${n1(sc.connectorShare * 100)} % of them load-generator sources (the rest tables), each a copy of a real CREATE SOURCE's or CREATE TABLE's items (per tenant ${sc.shape.tenantItems} items of its own; per source ${sc.shape.sourceItems} catalog and ${sc.shape.dataPlane.source} data-plane items; per table ${sc.shape.tableItems} and ${sc.shape.dataPlane.table}). ` +
      `Real sweeper, status-ingest (batches of ${st.ingestBatchSize}, ${st.ingestMaxConcurrency} in flight) and reference data plane against DynamoDB Local, virtual clocks except for the stall latency; units are DynamoDB's ConsumedCapacity on the control plane's calls (bench/phases/scale.ts). ` +
      `Settings assumed: due-work sweep every ${st.sweepIntervalSeconds} s with a ${st.sweepTimeoutSeconds} s timeout and ${st.sweepBudget * 100} % of it as budget, heartbeat every ${st.heartbeatIntervalSeconds} s and deadline ${st.heartbeatTimeoutSeconds} s, full pass every ${st.fullPassIntervalMinutes} min from a rule every ${st.fullPassRuleMinutes} min.` +
      (load ? ` 1-min load average ${load.start} → ${load.end} on this 2-core machine: times are inflated; units, items and counts are not.` : ''),
    '',
    '| connectors (tenants) | quiet sweep: items · RU · ms | heartbeat round: reports · invocations · RU · WU · Lambda s | silence: sweeps · overdue · detected p50/max s (sweeps at +s) · RU · WU · ms | full pass: invocations · items · RU · s · Secrets Manager calls | stall → visible ms p50 / p99 (n) | load |',
    '|---|---|---|---|---|---|---|',
  );
  for (const z of sc.sizes) {
    const d = z.silenceDetail;
    md.push(
      `| ${int(z.connectors)} (${z.tenants}) | ${z.quietSweep.itemsRead} · ${n1(z.quietSweep.readUnits)} · ${n1(z.quietSweep.ms)} | ${int(z.heartbeat.reports)} · ${z.heartbeat.invocations} · ${n1(z.heartbeat.readUnits)} · ${n1(z.heartbeat.writeUnits)} · ${n1(z.heartbeat.lambdaMs / 1000)} (${Object.entries(z.heartbeatDetail.outcomes).map(([k, v]) => `${v} ${k}`).join(', ')}) | ${d.sweeps.length} · ${int(z.silence.overdue)} · ${n1(d.detectedSeconds.p50)}/${n1(d.detectedSeconds.max)} (+${d.phaseSeconds}; ${d.offModel} off the model, ${d.undetected} undetected) · ${n1(z.silence.readUnits)} · ${n1(z.silence.writeUnits)} · ${n1(z.silence.ms)} | ${z.fullPassDetail.invocations} · ${int(z.fullPass.itemsRead)} · ${n1(z.fullPass.readUnits)} · ${n1(z.fullPass.ms / 1000)} · ${z.fullPass.secretCalls} | ${n1(z.stallLatencyMs.p50)} / ${n1(z.stallLatencyMs.p99)} (${z.stallLatencyMs.n}) | ${z.loadAverage.start}→${z.loadAverage.end} |`,
    );
  }
  md.push('', 'The model (bench/lib/scale-model.ts): each figure a least-squares line in what drives it, measured against modelled at each size:', '');
  md.push('| figure | line in | intercept | slope | measured → modelled (error) at each size |', '|---|---|---|---|---|');
  for (const f of Object.keys(FIGURES) as Figure[]) {
    const l = sum.fit[f];
    const rows = sum.fitRows.filter((x) => x.figure === f);
    md.push(`| ${f} | ${FIGURES[f].driver} | ${n2(l.intercept)} | ${l.slope.toPrecision(3)} | ${rows.map((x) => `${n1(x.measured)} → ${n1(x.modelled)} (${Number.isFinite(x.errorPct) ? `${x.errorPct >= 0 ? '+' : ''}${n1(x.errorPct)} %` : 'n/a'})`).join(' · ')} |`);
  }
  md.push('', `Per minute at ${int(sum.deployment.tenants)} tenants × ${int(sum.deployment.objectsPerTenant)} objects (${int(pm.connectors)} connectors), a quiet minute (no DDL, every connector heartbeating, nothing overdue), from the model. Lambda seconds from the DynamoDB calls counted, one after another (an upper bound), at ${AWS_LATENCY.kind === 'aws' ? `${AWS_LATENCY.msPerCall} ms per call and ${AWS_LATENCY.msPerReadUnit} ms per read unit (DynamoDB in-region, assumed)` : ''}, and in brackets at this machine's measured milliseconds per call (${sum.here.kind === 'measured' ? Object.entries(sum.here.msPerCall).map(([k, v]) => `${k} ${n1(v)}`).join(', ') : ''}):`, '');
  md.push('| function | invocations | Lambda s | read units | write units | notes |', '|---|---|---|---|---|---|');
  md.push(`| sweeper, due work | ${n1(pm.sweeper.invocations)} | ${n2(pm.sweeper.seconds)} (${n2(here.sweeper.seconds)}) | ${n1(pm.sweeper.readUnits)} | 0 | ${n1(pm.sweeper.connectorItemsRead)} connector items read; 0 probes, 0 Secrets Manager calls |`);
  md.push(`| sweeper, full pass | ${n2(pm.fullPass.invocations)} | ${n1(pm.fullPass.seconds)} (${n1(here.fullPass.seconds)}) | ${int(Math.round(pm.fullPass.readUnits))} | ${n1(pm.fullPass.writeUnits)} | a pass is ${int(Math.round(pm.fullPass.secondsPerPass))} s of work: period ${n1(pm.fullPass.periodMinutes)} min (${n1(here.fullPass.periodMinutes)}); ${n1(pm.secretsManagerCalls)} Secrets Manager calls (secret lists) |`);
  md.push(`| status-ingest | ${int(Math.round(pm.statusIngest.invocations))} | ${int(Math.round(pm.statusIngest.seconds))} (${int(Math.round(here.statusIngest.seconds))}) | ${int(Math.round(pm.statusIngest.readUnits))} | ${int(Math.round(pm.statusIngest.writeUnits))} | ${int(pm.statusIngest.reports)} reports = SQS messages; needs ${n1(pm.statusIngest.concurrencyNeeded)} invocations in flight (${n1(here.statusIngest.concurrencyNeeded)}), the stack's ${st.ingestMaxConcurrency} handle ${int(Math.round(pm.statusIngest.maxReportsPerMinute))} a minute |`);
  md.push(`| executors | 0 | 0 | 0 | 0 | a quiet minute queues no effect |`);
  md.push(`| **total** | ${int(Math.round(pm.sweeper.invocations + pm.fullPass.invocations + pm.statusIngest.invocations))} | ${int(Math.round(pm.sweeper.seconds + pm.fullPass.seconds + pm.statusIngest.seconds))} | ${int(Math.round(pm.readUnits))} | ${int(Math.round(pm.writeUnits))} | SQS ${int(pm.sqsMessages)} messages, Secrets Manager ${n1(pm.secretsManagerCalls)} calls, ${pm.probes} probes |`);
  md.push('');
  return md;
}

/** Section 15: the Postgres wire endpoint's figures (phases/pgwire.ts). */
function pgwireSection(w: PgwireResult): string[] {
  const md: string[] = ['## 15. The Postgres wire endpoint (issue 28)', ''];
  const sm = (x: { p50: number; p99: number }) => `${n2(x.p50)} / ${n2(x.p99)}`;
  if (w.commit) {
    const c = w.commit;
    md.push(
      `${c.iterations} CREATE TABLEs each way after ${c.warmup} warm-up, interleaved on the commit-only pipeline's table: the floor (the ${c.itemsPerTransaction} items the statement commits, as one raw TransactWriteItems: commit.ts's \`floorTransaction\`), \`SqlApi.handle\` in-process, and node-postgres over the wire endpoint (\`startPgServer\` on the same table, a simple Query per statement), then an empty query on the same connection (the wire's round trip). p50 / p99 ms:`,
      '',
      '| floor | in-process | pgwire | wire round trip | pgwire: basis | pgwire: store commit | pgwire: the rest |',
      '|---|---|---|---|---|---|---|',
      `| ${sm(c.floor)} | ${sm(c.inProcess)} | ${sm(c.pgwire)} | ${sm(c.wireHop)} | ${sm(c.breakdown.basis)} | ${sm(c.breakdown.storeCommit)} | ${sm(c.breakdown.rest)} |`,
      '',
    );
  }
  if (w.clusterRead?.length) {
    md.push(
      "The Terraform provider's cluster read (terraform-provider-materialize `pkg/materialize/cluster.go`, `clusterQuery` with `WHERE mz_clusters.name = '...'`: mz_clusters JOIN mz_roles LEFT JOIN a subquery of mz_internal.mz_comments) and `SELECT name FROM mz_clusters WHERE name = ...`, warm (one connection, an unchanged catalog, rounds in rotated order), as the provider sends it (lib/pq with no arguments: a simple Query, the name a literal) and with the name as `$1`. A tenant's objects: one cluster (one replica, a comment) per twenty objects, the rest tables, one in four commented. p50 / p99 ms:",
      '',
      '| objects (clusters, comments) | seeded in s | provider, literal | simple, literal | × | provider, $1 | simple, $1 | × | rows |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const s of w.clusterRead) {
      md.push(`| ${int(s.objects)} (${s.clusters}, ${s.comments}) | ${s.seedSeconds} | ${sm(s.provider)} | ${sm(s.simple)} | ${n2(s.ratioP50.literal)} | ${sm(s.providerParam)} | ${sm(s.simpleParam)} | ${n2(s.ratioP50.param)} | ${s.rowsAnswered.provider} / ${s.rowsAnswered.simple} |`);
    }
    md.push('');
    for (const s of w.clusterRead) {
      const pr = s.profile;
      if (pr) md.push(`CPU profile of the bench process (client and server) over the measured rounds at ${int(s.objects)} objects (${pr.sampledMs} ms sampled, busy ${pr.busyPct}%; shares of the busy time): ${pr.byArea.slice(0, 6).map((a) => `${a.area} ${a.pct}%`).join(' · ')}. Top: ${pr.topFunctions.slice(0, 6).map((f) => `\`${f.fn}\`${f.where ? ` (${f.where.slice(0, 60)})` : ''} ${f.pct}%`).join(', ')}.`, '');
    }
  }
  if (w.cold) {
    const c = w.cold;
    md.push(
      `Cold, ${c.runs} runs each, interleaved: a fresh \`node --enable-source-maps\` serving pgwire (bench/pgwire-server.ts bundled as the pgwire image is: cdk/constructs/pgwire-service.ts, esbuild with code splitting, the AWS SDK bundled in, the engine's template beside its chunk) from its process start to its first catalog SELECT (\`${c.query}\`) answered to a client that connects as soon as it listens; a fresh \`node\` with the engine alone (bench/pglite-template.ts, bundled the same way: PgliteHost opens the shipped template and answers \`SELECT 1\`); and a fresh \`node\` running PGlite's plain \`PGlite.create()\` (bench/pglite-create.mjs). p50 / p99 ms from the process's start; each run's first SELECT over the create() run after it: ${c.pairRatios.map(n2).join(', ')}.`,
      '',
      '| server: module code starts | listening | logged in (SCRAM) | first SELECT answered | engine alone: opened | engine alone: SELECT 1 answered | PGlite: node booted | PGlite.create() alone | create() done | ratio (p50) | engine alone ratio |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      `| ${sm(c.catalog.bodyStart)} | ${sm(c.catalog.listening)} | ${sm(c.catalog.connected)} | ${sm(c.catalog.answered)} | ${sm(c.engine.opened)} | ${sm(c.engine.answered)} | ${sm(c.pglite.boot)} | ${sm(c.pglite.create)} | ${sm(c.pglite.created)} | ${n2(c.ratioP50)} | ${n2(c.engineRatioP50)} |`,
      '',
    );
    if (c.worker && c.first) {
      md.push(
        "The server's side of its first SELECT (p50 / p99 ms from its process's start): its engine's worker running, its modules loaded, the engine open; the first query began (the client logged in), had PostgreSQL's parser (libpg-query), had read its inputs (the catalog), had the engine, and had the engine's answer (the first fill and the run).",
        '',
        '| worker running | worker modules | engine open | query began | parser | inputs | engine | answer |',
        '|---|---|---|---|---|---|---|---|',
        `| ${sm(c.worker.running)} | ${sm(c.worker.imported)} | ${sm(c.worker.opened)} | ${sm(c.first.start)} | ${sm(c.first.parser)} | ${sm(c.first.inputs)} | ${sm(c.first.engine)} | ${sm(c.first.answered)} |`,
        '',
      );
    }
    const pr = c.profile;
    if (pr) md.push(`Cold start profile of the server (one more run, profiled from its module code's start to the answer; ${pr.sampledMs} ms sampled, busy ${pr.busyPct}%): ${pr.byArea.slice(0, 6).map((a) => `${a.area} ${a.pct}%`).join(' · ')}. Top: ${pr.topFunctions.slice(0, 6).map((f) => `\`${f.fn}\`${f.where ? ` (${f.where.slice(0, 60)})` : ''} ${f.pct}%`).join(', ')}.`, '');
  }
  if (w.connections) {
    const c = w.connections;
    md.push(
      `${c.target} connections to that server process (a fresh one, \`--expose-gc\`; the engine loaded first by a connection that then left), opened 25 at a time and logged in by SCRAM (${c.loggedIn}), then each answering \`SELECT count(*) FROM mz_clusters\` (${c.answered}), then held idle (${c.held} open on the server). Its RSS / JS heap after a full GC: ${n1(c.before.rssMiB)} / ${n1(c.before.heapMiB)} MiB before, ${n1(c.loggedInMem.rssMiB)} / ${n1(c.loggedInMem.heapMiB)} MiB logged in (${n1(c.perConnectionKiB.rss)} / ${n1(c.perConnectionKiB.heap)} KiB per idle connection), ${n1(c.after.rssMiB)} / ${n1(c.after.heapMiB)} MiB after the queries (${n1(c.perConnectionKiB.rssAfterQuery)} / ${n1(c.perConnectionKiB.heapAfterQuery)} KiB per connection, the engine's own growth included).${c.errors.length ? ` Errors: ${c.errors.join('; ')}.` : ''}`,
      '',
    );
  }
  return md;
}
