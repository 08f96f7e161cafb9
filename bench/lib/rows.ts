/**
 * Issue 15's benchmark rows, from a run's results: each with its target, the measured figure as
 * a ratio, whether it met the target, and for a miss a one-line cause read off the same run's
 * figures (stage split, CPU of the emulator, protocol size). Pure: no I/O.
 */
import type { Results } from './report';
import type { ProfileSummary } from './profile';
import type { CapacityRun } from '../phases/capacity';
import { recordedServiceOrder } from './fairness';
import { EFFECT_CAPACITY } from '../../shared/definitions';
import { AWS_LATENCY, fullPassPeriodMinutes as fullPassPeriodMinutesAt, summarizeScale } from './scale-model';

const EFFECT_SECONDS_MS = EFFECT_CAPACITY.effectSeconds * 1000;

export interface BenchRow {
  /** Issue 15's list: 1 deployed profile, 2 open loop, 3 cache, 4 statement kinds, 5 over HTTP, 6 cold init; 7 effect capacity, 8 status path and sweeper at scale (issue 16); 9 the Postgres wire endpoint (issue 28, item 7). */
  readonly item: number;
  readonly figure: string;
  readonly measured: string;
  readonly target: string;
  /** undefined: reported, no target. */
  readonly met?: boolean;
  /** Why it missed (only for a miss). */
  readonly cause?: string;
  /** It would have met its target, but its phase ran on a machine loaded above the bench's own: not called met (`judgedUpToLoadPerCore`). */
  readonly notJudged?: string;
}

export const GOALS = {
  deployedP50: 6,
  deployedP99: 8,
  catchUpOverHit: 2,
  httpCommitP50: 1.25,
  liveThroughput: 0.8,
  coldInitRatio: 1.5,
  /**
   * A function whose first event needs more than one round of AWS calls: cold init over its
   * same-calls floor (those calls made by bare SDK clients, with no code of ours), met when 1.5×
   * the baseline is not. The function's own code at most a quarter over the calls it must make;
   * the same factor as a lost race over its floor.
   */
  coldInitOverSameCalls: 1.25,
  /** Commits per second of `instancesAt` API instances on one tenant as a share of one instance's. */
  instancesOfSingle: 0.7,
  /** The instance count that goal binds at (bench/phases/instances.ts also measures its ceiling there). */
  instancesAt: 8,
  /** Issue 16: no tenant's p99 wait above this many times the median tenant's. */
  tenantP99OverMedian: 3,
  /** Issue 16: the queue drains at (nearly) the rate the data plane allows. */
  drainOverAllowed: 0.8,
  /**
   * Issue 16, "one tenant's burst cannot starve the others", read where it shows: with the big
   * tenant's burst queued first, the small tenants' median p99 wait at most this many times the
   * big tenant's p99 (above 1, they waited for its burst to drain).
   */
  burstSmallOverBig: 1,
  /** Issue 16 at 10 000 tenants × 1 000 objects: a quiet minute's sweeper reads, as a share of the connectors' items (%). */
  quietReadsPctOfConnectors: 1,
  /** Issue 16: a stall the data plane reports is visible in mz_source_statuses within this (ms, p99, locally). */
  stallVisibleP99Ms: 5_000,
  /** Issue 16: a silent data plane is detected within this many sweep intervals. */
  silenceSweepIntervals: 2,
  /** Issue 16: no sweep invocation runs past this share of its timeout. */
  sweepTimeoutShare: 0.5,
  /** Issue 16: Secrets Manager calls per minute as a share of the connectors (%). */
  secretCallsPctOfConnectors: 1,
  /** Issue 16: the full pass goes round within (minutes). */
  fullPassPeriodMinutes: 60,
  /** Issue 28: CREATE TABLE over pgwire, p50 against the raw-transaction floor's. */
  pgwireCommitP50: 1.25,
  /** Issue 28: the Terraform provider's cluster read (two JOINs), warm p50, against a simple cache-hit SELECT's. */
  clusterReadOverSimple: 2,
  /** Issue 28: a cold process's first catalog SELECT against PGlite's plain create() (both from the process's start). */
  coldOverPgliteCreate: 0.25,
  /** When 0.25× create() is out of reach (the engine alone or the login already past it): the first SELECT over the later of the two. */
  coldOverFloor: 1.25,
  /** When 2× a hit is out of reach (a hit plus the refused commit already past it): the lost race over that floor. */
  catchUpOverFloor: 1.25,
  /** Issue 28: connections held at once, each authenticated and answering. */
  heldConnections: 200,
  /** The SQLite thread of DynamoDB Local runs every read and write one at a time: above this it is the limit. */
  emulatorBoundPct: 85,
  /**
   * The bench's own load: on a quiet 2-core machine its phases run at a 1-minute load average of
   * 1.4–1.9 (issue 32). A row whose phase ran above this many per core (mean of the phase's start
   * and end) shared the machine with other work: it is not called met ("not judged: load X").
   */
  judgedUpToLoadPerCore: 1.25,
} as const;

const f1 = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : 'n/a');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

/**
 * When neither the bench process nor DynamoDB Local got near a core while the machine's load was
 * well above its cores, other work on the machine was the limit: the cause says so.
 */
function machineBound(r: Results, phase: string, c: { benchProcessPct: number; dynamoLocalPct: number | null }): string | undefined {
  const load = r.phaseTimes?.find((p) => p.phase === phase)?.loadAverage1m;
  if (!load) return undefined;
  const avg = (load.start + load.end) / 2;
  if (avg <= 2 * r.machine.cores || c.benchProcessPct + (c.dynamoLocalPct ?? 0) >= 100) return undefined;
  return `machine-bound: 1-min load average ${f1(load.start)} → ${f1(load.end)} on ${r.machine.cores} cores (other work); the bench process got ${c.benchProcessPct}% and DynamoDB Local ${c.dynamoLocalPct ?? 'n/a'}% of a core`;
}

/** ` (1-min load average a → b on N cores)` when the phase ran on a machine loaded well past its cores. */
type BundleFigure = NonNullable<Results['bundles']>[number];

/**
 * Why a function's cold init is above the baseline's: the import against the baseline's (its SDK
 * packages), and the first event's AWS calls against the baseline's one GetItem. The rounds of
 * calls after the first are waits the baseline does not have: with an import and a first call as
 * cheap as the baseline's, the function would still take the baseline's time plus those rounds —
 * the ratio's floor while its first event needs them.
 */
function coldInitCause(b: BundleFigure, importShare: number): string {
  const importPart = `import ${f1(b.coldInit.importMsP50)} ms against ${f1(b.baselineColdInit.importMsP50)} ms (entry ${f1(b.entryKiB)} KiB, the SDK bundled in; its SDK packages ${b.externalImports.length}, ${f1(b.sdkImportMsP50)} ms alone from the runtime${b.sdkLoadedOnFirstEvent?.length ? `; ${b.sdkLoadedOnFirstEvent.map((m) => m.replace('@aws-sdk/', '')).join(', ')} loaded by the first event` : ''})`;
  const firstPart = `first event ${f1(b.coldInit.firstEventMsP50)} ms against ${f1(b.baselineColdInit.firstEventMsP50)} ms`;
  const calls = b.firstEventCalls;
  if (!calls) {
    return importShare >= b.coldInit.firstEventMsP50 - b.baselineColdInit.firstEventMsP50 ? importPart : `${firstPart} (more calls than one GetItem)`;
  }
  const later = calls.roundMs.slice(1).reduce((a, x) => a + x, 0);
  const floor = (b.baselineColdInit.totalMsP50 + later) / b.baselineColdInit.totalMsP50;
  const same = sameCallsFloor(b) && b.sameCallsColdInit;
  const sameCalls =
    same
      ? `; the same calls by bare SDK clients: import ${f1(same.importMsP50)} ms, first event ${f1(same.firstEventMsP50)} ms${b.sameCallsFirstEventCalls ? ` (its rounds ${b.sameCallsFirstEventCalls.roundMs.map(f1).join(' + ')} ms)` : ''}, so the function's own code costs ${f1(b.coldInit.importMsP50 - same.importMsP50)} ms of import and ${f1(b.coldInit.firstEventMsP50 - same.firstEventMsP50)} ms of first event over them`
      : '';
  const ops = [...new Set(calls.ops)].map((op) => `${calls.ops.filter((o) => o === op).length} × ${op}`).join(', ');
  return (
    `${importPart}; ${firstPart}: ${calls.ops.length} AWS call${calls.ops.length === 1 ? '' : 's'} in ${calls.rounds === 1 ? 'one round' : `${calls.rounds} sequential rounds`} (${ops}) against the baseline's one GetItem` +
    (calls.rounds > 1
      ? `; the ${calls.rounds === 2 ? 'round' : `${calls.rounds - 1} rounds`} after the first waited ${f1(later)} ms in a traced run, so with an import and a first call as cheap as the baseline's it would still be ${f2(floor)}×, and without those waits it is ${f2((b.coldInit.totalMsP50 - later) / b.baselineColdInit.totalMsP50)}×`
      : '') +
    sameCalls
  );
}

/**
 * A function's same-calls floor: the first event's own AWS calls (the same requests, in the same
 * rounds) made by bare SDK clients loaded like the baseline's, with none of our code — what no
 * build of the function can beat while its first event needs those calls. Undefined when it was
 * not measured (one round: the baseline is that floor) or its runs failed.
 */
function sameCallsFloor(b: BundleFigure): { ms: number; overBaseline: number; ratio: number; calls: number; rounds: number } | undefined {
  const floor = b.sameCallsColdInit;
  if (!floor || floor.errors.length || !b.firstEventCalls) return undefined;
  const overBaseline = floor.totalMsP50 / b.baselineColdInit.totalMsP50;
  return { ms: floor.totalMsP50, overBaseline, ratio: b.coldInit.totalMsP50 / floor.totalMsP50, calls: b.firstEventCalls.ops.length, rounds: b.firstEventCalls.rounds };
}

function loadNote(r: Results, phase: string): string {
  const load = r.phaseTimes?.find((p) => p.phase === phase)?.loadAverage1m;
  return load && (load.start + load.end) / 2 > 2 * r.machine.cores ? ` (1-min load average ${f1(load.start)} → ${f1(load.end)} on ${r.machine.cores} cores)` : '';
}

/** The phase's mean 1-minute load average when it was above the bench's own, else undefined. */
function loadAboveOwn(r: Results, phase: string): number | undefined {
  const load = r.phaseTimes?.find((p) => p.phase === phase)?.loadAverage1m;
  if (!load) return undefined;
  const mean = (load.start + load.end) / 2;
  return mean > GOALS.judgedUpToLoadPerCore * r.machine.cores ? mean : undefined;
}

export function benchRows(r: Results): BenchRow[] {
  const rows: BenchRow[] = [];
  /** The phase the rows pushed next were measured in. */
  let phase = '';
  const from = (p: string) => {
    phase = p;
  };
  // A cause is kept for a miss only; a row that met its target on a loaded machine is not judged.
  const push = ({ cause, ...row }: BenchRow) => {
    const load = row.met === true ? loadAboveOwn(r, phase) : undefined;
    if (load !== undefined) {
      const { met: _met, ...rest } = row;
      rows.push({ ...rest, notJudged: `load ${f1(load)} on ${r.machine.cores} cores` });
      return;
    }
    rows.push(row.met === false && cause ? { ...row, cause } : row);
  };
  from('deployed');

  for (const l of r.deployed?.levels ?? []) {
    const binding = l.fastPath && l.clients === 32;
    const met = binding ? l.ratio.p50 <= GOALS.deployedP50 && l.ratio.p99 <= GOALS.deployedP99 : undefined;
    const commitShare = l.fromStart.p50 > 0 ? l.commit.p50 / l.fromStart.p50 : 0;
    const sqlite = l.cpu.dynamoLocalSqliteThreadPct ?? 0;
    const cause =
      machineBound(r, 'deployed', l.cpu) ??
      (sqlite >= GOALS.emulatorBoundPct
        ? `emulator-bound: DynamoDB Local's SQLite thread at ${sqlite}% of a core (commit p50 ${f1(l.commit.p50)} ms, after the answer ${f1(l.afterAnswer.p50)} ms)`
        : commitShare >= 0.5
          ? `the commit itself is most of it: its answer p50 ${f1(l.commit.p50)} ms (${f2(l.commit.p50 / l.floor.p50)}× floor p50); after it ${f1(l.afterAnswer.p50)} ms to the data plane`
          : `the path after the answer is most of it: ${f1(l.afterAnswer.p50)} ms p50 / ${f1(l.afterAnswer.p99)} ms p99 (queue at ≤ ${r.deployed?.settings.queuePolling.maxConcurrency ?? '?'} executors in flight, batches of ${r.deployed?.settings.queuePolling.batchSize ?? '?'}${l.fastPath ? '' : `, stream read every ${f1(r.deployed?.settings.stream.pollIntervalMs ?? NaN)} ms`}); commit ${f1(l.commit.p50)} ms`);
    push({
      item: 1,
      figure: `Deployed profile, fast path ${l.fastPath ? 'on' : 'off'}, ${l.clients} client${l.clients > 1 ? 's' : ''}: request start → applied (${l.commits} commits)`,
      measured: `p50 ${f1(l.fromStart.p50)} ms = ${f2(l.ratio.p50)}× floor p50 (${f2(l.floor.p50)} ms) · p99 ${f1(l.fromStart.p99)} ms = ${f2(l.ratio.p99)}× floor p99 (${f2(l.floor.p99)} ms)`,
      target: binding ? `p50 ≤ ${GOALS.deployedP50}×, p99 ≤ ${GOALS.deployedP99}× floor` : `(goal at 32 clients, fast path on)`,
      met,
      cause,
    });
  }
  for (const o of r.deployed?.openLoop ?? []) {
    // Against the single-client floor of the same pipeline (runs before this rule ran a 32-loop floor for it).
    const floor = r.deployed!.levels.find((l) => l.fastPath === o.fastPath && l.clients === 1)?.floor ?? o.floor;
    const ratio = { p50: o.fromStart.p50 / floor.p50, p99: o.fromStart.p99 / floor.p99 };
    push({
      item: 2,
      figure: `Open loop, fast path ${o.fastPath ? 'on' : 'off'}, ${f1(o.offeredPerSecond)}/s offered (${o.ofClosedLoop}× the closed loop's 32-client rate), 32 tenants`,
      measured: `${f1(o.achievedPerSecond)}/s committed, ${o.applied}/${o.sent} applied · scheduled → applied p50 ${f1(o.fromStart.p50)} ms = ${f2(ratio.p50)}× the 1-client floor p50 · p99 ${f1(o.fromStart.p99)} ms = ${f2(ratio.p99)}×`,
      target: 'reported (overload shows as latency)',
    });
  }
  if (r.deployed) {
    push({ item: 1, figure: 'Lost effects after the deployed-profile runs (invariant checker)', measured: `${r.deployed.lostEffects}`, target: '0', met: r.deployed.lostEffects === 0, cause: 'see the checker counts in latest.json' });
  }

  from('cache');
  // The target holds at the largest catalog measured: 10 000 objects (a --quick run: its largest).
  const bindingObjects = Math.max(0, ...(r.cache ?? []).map((c) => c.objects));
  for (const c of r.cache ?? []) {
    push({ item: 3, figure: `Cache miss, ${c.objects.toLocaleString('en-US')} objects (whole request; its catalog read alone)`, measured: `p50 ${f1(c.miss.request.p50)} ms, p99 ${f1(c.miss.request.p99)} ms (read p50 ${f1(c.miss.basis.p50)}, p99 ${f1(c.miss.basis.p99)} ms) = ${f2(c.missOverHitP50)}× a hit`, target: 'reported' });
    const binding = c.objects === bindingObjects;
    push({
      item: 3,
      figure: `Catch-up after a lost race, ${c.objects.toLocaleString('en-US')} objects (whole request against a cache hit's)`,
      measured: `p50 ${f1(c.catchUp.request.p50)} ms vs hit ${f1(c.hit.request.p50)} ms = ${f2(c.catchUpOverHitP50)}× · catch-up p50 ${f2(c.catchUp.basis.p50)} ms vs whole read ${f1(c.miss.basis.p50)} ms · ${c.catchUp.catchUps} catch-ups${c.catchUp.logCatchUps === undefined ? '' : ` (${c.catchUp.logCatchUps} from the refusal's change log alone)`}, ${c.catchUp.wholeReads} whole reads`,
      target: binding ? catchUpTarget(c) : `(≤ ${GOALS.catchUpOverHit}× at ${bindingObjects.toLocaleString('en-US')})`,
      met: binding ? c.catchUpOverHitP50 <= GOALS.catchUpOverHit || catchUpWithinHonestTarget(c) : undefined,
      cause: catchUpCause(c) + loadNote(r, 'cache'),
    });
  }

  from('instances');
  for (const i of r.instances ?? []) {
    if (i.instances === 1) continue;
    const binding = i.instances === GOALS.instancesAt;
    const attemptsPerCommit = i.commits > 0 ? (i.commits + i.catchUps) / i.commits : NaN;
    const load = r.phaseTimes?.find((p) => p.phase === 'instances')?.loadAverage1m;
    const loaded = load && (load.start + load.end) / 2 > 2 * r.machine.cores;
    push({
      item: 3,
      figure: `${i.instances} API instances on one tenant (own caches, no shared queue): commit rate against one instance's`,
      measured: `${f1(i.commitsPerSecond)} commits/s = ${f2(i.ofSingle)}× ${i.singlePerSecond === undefined ? '' : `one instance's ${f1(i.singlePerSecond)} ${i.alternated ? 'alternated with it (single · level · level · single) ' : 'just before '}`}· ${i.answers40001} × 40001 · ${i.catchUps} catch-ups for ${i.commits} commits (${f2(attemptsPerCommit)} attempts per commit${i.logCatchUps === undefined ? '' : `; ${i.logCatchUps} from the refusal's change log alone`}) · ${i.fullLoadsAfterWarmUp} whole reads`,
      target: binding ? `≥ ${GOALS.instancesOfSingle}× one instance, 0 × 40001, 0 whole reads` : `(goal at 8 instances)`,
      met: binding ? i.ofSingle >= GOALS.instancesOfSingle && i.answers40001 === 0 && i.fullLoadsAfterWarmUp === 0 : undefined,
      cause:
        i.fullLoadsAfterWarmUp > 0
          ? `${i.fullLoadsAfterWarmUp} losers read the whole catalog instead of catching up from the transaction records`
          : i.answers40001 > 0
            ? `${i.answers40001} requests lost the version race more times than the retry allows`
            : loaded
              ? `machine-bound: 1-min load average ${f1(load.start)} → ${f1(load.end)} on ${r.machine.cores} cores; ${i.instances} instances run ${i.instances} request loops on a machine whose other work already took the cores (the single instance ran alone)`
              : instancesCause(i, attemptsPerCommit),
    });
  }

  from('kinds');
  for (const k of r.kinds ?? []) {
    push({
      item: 4,
      figure: `${k.kind}: commit against its raw-transaction floor (${k.items} items, ${k.floorTransactions} raw transaction${k.floorTransactions > 1 ? 's' : ''})`,
      measured: `floor p50 ${f1(k.floor.p50)} ms · in-process p50 ${f1(k.inProcess.p50)} ms = ${f2(k.ratioP50.inProcess)}× · HTTP p50 ${f1(k.http.p50)} ms = ${f2(k.ratioP50.http)}× (p99 ${f2(k.ratioP99.http)}×)`,
      target: `reported (CREATE TABLE's goal: HTTP p50 ≤ ${GOALS.httpCommitP50}×)`,
    });
  }

  from('commit');
  if (r.commit) {
    const c = r.commit;
    push({
      item: 5,
      figure: 'Over HTTP: CREATE TABLE commit from the request start (POST /api/sql, authorizer included, node:http keep-alive client)',
      measured: `p50 ${f2(c.http.p50)} ms = ${f2(c.ratioP50.http)}× floor p50 (${f2(c.floor.p50)} ms)`,
      target: `≤ ${GOALS.httpCommitP50}× floor`,
      met: c.ratioP50.http <= GOALS.httpCommitP50,
      cause:
        `on top of the floor: the HTTP hop ${f2(c.httpHop.p50)} ms (GET /api/health, same server) and the handler's parse, plan and JSON ${f2(c.breakdown.restOfHandler.p50)} ms p50` +
        (c.httpFetchClient
          ? `; the client is node:http with a keep-alive agent, as the SDK's own (the same POST sent with fetch took p50 ${f2(c.httpFetchClient.p50)} ms = ${f2(c.httpFetchClient.p50 / c.floor.p50)}× floor); in-process ${f2(c.inProcess.p50)} ms`
          : c.httpNodeClient
            ? `; the client: the same POST sent with node:http instead of fetch took p50 ${f2(c.httpNodeClient.p50)} ms = ${f2(c.httpNodeClient.p50 / c.floor.p50)}× floor, in-process ${f2(c.inProcess.p50)} ms — what is left above in-process is the client library and the hop, not the API`
          : ''),
    });
  }
  from('throughput');
  const live = r.throughput?.runs.find((t) => t.name === 'ddl-http-live');
  if (r.throughput && live) {
    const sqlite = live.cpu.dynamoLocalSqliteThreadPct ?? 0;
    push({
      item: 5,
      figure: 'Live pipeline throughput, 32 clients over HTTP, router and executors running',
      measured: `${f1(live.perSecond)} commits/s = ${f2(live.ratioToFloor ?? NaN)}× floor (${f1(r.throughput.floorPerSecond)}/s) · ${r.throughput.lostEffects} lost effects`,
      target: `≥ ${GOALS.liveThroughput}× floor, 0 lost`,
      met: (live.ratioToFloor ?? 0) >= GOALS.liveThroughput && r.throughput.lostEffects === 0,
      cause:
        r.throughput.lostEffects > 0
          ? `${r.throughput.lostEffects} effects lost`
          : (machineBound(r, 'throughput', live.cpu) ??
            (sqlite >= GOALS.emulatorBoundPct
            ? `emulator-bound: DynamoDB Local's SQLite thread at ${sqlite}% of a core during the live run (the router's stream reads and the executors' writes queue behind the commits on its one thread)`
            : `the bench process at ${live.cpu.benchProcessPct}% of a core (API, authorizer, router, executors and the SQS emulator share it), DynamoDB Local at ${live.cpu.dynamoLocalPct ?? 'n/a'}%`)),
    });
  }

  from('bundles');
  for (const b of r.bundles ?? []) {
    if (b.coldInitRatio === undefined) continue;
    const importShare = b.coldInit.importMsP50 - b.baselineColdInit.importMsP50;
    const floor = sameCallsFloor(b);
    push({
      item: 6,
      figure: `Cold init \`${b.function}\` against the baseline (client-dynamodb alone, one GetItem)`,
      measured: `${f1(b.coldInit.totalMsP50)} ms vs ${f1(b.baselineColdInit.totalMsP50)} ms = ${f2(b.coldInitRatio)}×`,
      target: floor
        ? `≤ ${GOALS.coldInitRatio}×, or ≤ ${GOALS.coldInitOverSameCalls}× the same ${floor.calls} calls in ${floor.rounds} rounds made by bare SDK clients with no code of ours (here ${f1(floor.ms)} ms = ${f2(floor.overBaseline)}× the baseline, leaving ${f2(Math.max(0, GOALS.coldInitRatio - floor.overBaseline))}× of the ${GOALS.coldInitRatio}× for all of the function's own code; the function ${f2(floor.ratio)}× that floor)`
        : `≤ ${GOALS.coldInitRatio}×`,
      met: b.coldInitRatio <= GOALS.coldInitRatio || (floor !== undefined && floor.ratio <= GOALS.coldInitOverSameCalls),
      cause: coldInitCause(b, importShare) + loadNote(r, 'bundles'),
    });
  }
  from('capacity');
  const inServiceOrder = (c: CapacityRun) => {
    const s = recordedServiceOrder(c);
    return s ? `; in service order ${f2(s.ratio)}× (${f2(s.smallOverBig)}×)` : '';
  };
  for (const c of r.capacity?.runs ?? []) {
    const f = c.fairness;
    const what = `${c.effects.toLocaleString('en-US')} effects over ${c.tenants} tenants (one with ${c.bigTenantEffects.toLocaleString('en-US')}), ${c.order}`;
    push({
      item: 7,
      figure: `Fairness: worst tenant p99 wait ÷ median tenant p99, ${what}`,
      measured: `${f1(f.worstTenantP99Ms / 1000)} s ÷ ${f1(f.medianTenantP99Ms / 1000)} s = ${f2(f.ratio)}× (small tenants' median p99 = ${f2(f.smallOverBig)}× the big tenant's)${inServiceOrder(c)}`,
      target: `≤ ${GOALS.tenantP99OverMedian}×`,
      met: f.ratio <= GOALS.tenantP99OverMedian,
      cause: `tenant ${f.worstTenant} waited behind other tenants' effects queued ahead of it (FIFO groups are served in arrival order)`,
    });
    if (c.order === 'burst-first') {
      push({
        item: 7,
        figure: `A burst cannot starve the others: small tenants' median p99 wait ÷ the big tenant's p99, ${what}`,
        measured: `${f2(f.smallOverBig)}×`,
        target: `≤ ${GOALS.burstSmallOverBig}×`,
        met: f.smallOverBig <= GOALS.burstSmallOverBig,
        cause: `the small tenants waited for the big tenant's burst to drain: its per-tenant cap (EFFECT_CAPACITY.perTenantInQueue) did not hold it back (docs/operations.md, "Effect capacity and per-tenant fairness")`,
      });
    }
    const share = c.drainPerSecond / c.allowedPerSecond;
    push({
      item: 7,
      figure: `Drain rate against the data plane's allowed rate (EFFECT_CAPACITY), ${what}`,
      measured: `${f1(c.drainPerSecond)}/s = ${f2(share)}× the allowed ${c.allowedPerSecond}/s; ${f1(c.effectMs)} ms per effect, at which ${c.maxConcurrency} executors allow ${f1(c.concurrencyAllowsPerSecond)}/s`,
      target: `≥ ${GOALS.drainOverAllowed}×`,
      met: share >= GOALS.drainOverAllowed,
      cause:
        c.effectMs > 1.5 * EFFECT_SECONDS_MS
          ? `an effect takes ${f1(c.effectMs)} ms here against the ${EFFECT_SECONDS_MS} ms the setting assumes (DynamoDB Local on a loaded machine${loadNote(r, 'capacity')}): the ${c.maxConcurrency} executors are ${f2(c.drainPerSecond / c.concurrencyAllowsPerSecond)}× busy`
          : `the executors were ${f2(c.drainPerSecond / c.concurrencyAllowsPerSecond)}× busy (peak ${c.peakInFlight} of ${c.maxConcurrency} in flight)`,
    });
  }
  from('scale');
  scaleRows(r, push);
  from('pgwire');
  pgwireRows(r, push);
  return rows;
}

/**
 * Why many instances on one tenant commit slower than one: the version race. The arithmetic from
 * the same run: the same instances on a tenant each (no race) give the rate the emulator and the
 * process carry; each refused attempt takes an emulator turn, and what the attempts do not explain
 * is the losers' backoff.
 */
function instancesCause(i: NonNullable<Results['instances']>[number], attemptsPerCommit: number): string {
  const race = `the version race: every commit on one tenant moves the catalog-version item under a condition, so of ${i.instances} instances one wins each version and the others pay a refused transaction and a replan (${f2(attemptsPerCommit)} attempts per commit; the refusal's change log spares the catch-up read${i.logCatchUps !== undefined && i.logCatchUps < i.catchUps ? ` for ${i.logCatchUps} of ${i.catchUps}, the others read the objects of the commits the log holds by id` : ''})`;
  const cpu =
    i.cpuMsPerCommit !== undefined && i.singleCpuMsPerCommit !== undefined
      ? `; the bench process (all ${i.instances} instances) spent ${f2(i.cpuMsPerCommit)} ms of CPU per commit against one instance's ${f2(i.singleCpuMsPerCommit)} (${f2(i.cpuMsPerCommit / i.singleCpuMsPerCommit)}×)`
      : '';
  // Measured: the same instances without the race. Its rate is what the emulator and the process carry.
  if (i.ownTenantsPerSecond !== undefined && i.ownTenantsOfSingle !== undefined && Number.isFinite(attemptsPerCommit)) {
    // One version chain commits at most at one instance's rate (each commit is planned on the one before it).
    const allows = Math.min(1, i.ownTenantsOfSingle) / attemptsPerCommit;
    return (
      `${race}${cpu}. Without the race the same ${i.instances} instances, on a tenant each, ran ${f1(i.ownTenantsPerSecond)} commits/s = ${f2(i.ownTenantsOfSingle)}× one instance: neither DynamoDB Local nor the bench process is the limit. ` +
      `One tenant's commits form one version chain, each planned on the one before, so at most one instance's rate (1×), and a refused transaction takes an emulator turn like a won one: at ${f2(attemptsPerCommit)} attempts per commit that allows ${f2(allows)}×; the rest (${f2(Math.max(0, allows - i.ofSingle))}×) is time the version item waits while losers back off (a shorter or no backoff measured more attempts per commit and a lower rate, up to 5 attempts per commit without one; half the backoff measured the same, twice it 0.47–0.55×)`
    );
  }
  // Transactions the emulator ran per second, won and refused, against one instance's (one each).
  const lane =
    i.singlePerSecond !== undefined && Number.isFinite(attemptsPerCommit)
      ? `. DynamoDB Local runs transactions one at a time and a refused one takes its turn like a won one: it ran ${f1(i.commitsPerSecond * attemptsPerCommit)} transactions/s here against ${f1(i.singlePerSecond)} for one instance alone, so at ${f2(attemptsPerCommit)} attempts per commit one instance's transaction rate allows ${f2(1 / attemptsPerCommit)}× its commit rate; the rest is the backoff between attempts (a shorter or no backoff measured more attempts per commit and a lower rate, up to 5 attempts per commit without one)`
      : `. DynamoDB Local runs transactions one at a time, so the refused attempts also take the winners' turns there`;
  return race + cpu + lane;
}

/**
 * Why a lost race cost more than twice a hit. Two round trips are the least it can make (the
 * refused commit, which brings the change log back, and the commit); the arithmetic is the same
 * run's: a hit plus the refused commit is the floor.
 */
/**
 * What a lost race cannot skip: the hit's own request plus the refused commit that tells it it lost
 * (a round trip: no request learns of a newer version without one). When that alone is past 2× a
 * hit, the target is out of reach and the nearest honest one is a ratio to that floor.
 */
function catchUpFloor(c: NonNullable<Results['cache']>[number]): number | undefined {
  return c.commits ? c.hit.request.p50 + c.commits.refused.p50 : undefined;
}

function catchUpWithinHonestTarget(c: NonNullable<Results['cache']>[number]): boolean {
  const floor = catchUpFloor(c);
  return floor !== undefined && floor > GOALS.catchUpOverHit * c.hit.request.p50 && c.catchUp.request.p50 <= GOALS.catchUpOverFloor * floor;
}

function catchUpTarget(c: NonNullable<Results['cache']>[number]): string {
  const floor = catchUpFloor(c);
  if (floor === undefined || floor <= GOALS.catchUpOverHit * c.hit.request.p50) return `≤ ${GOALS.catchUpOverHit}× a hit`;
  return `≤ ${GOALS.catchUpOverHit}× a hit is out of reach in this run: a hit (${f1(c.hit.request.p50)} ms) plus the refused commit (${f2(c.commits!.refused.p50)} ms) is already ${f2(floor / c.hit.request.p50)}×. Nearest honest target: ≤ ${GOALS.catchUpOverFloor}× that floor (here ${f2(c.catchUp.request.p50 / floor)}×)`;
}

function catchUpCause(c: NonNullable<Results['cache']>[number]): string {
  const hit = c.hit.request.p50;
  if (!c.commits) return `the losing request pays its refused commit, the catch-up (${f1(c.catchUp.basis.p50)} ms p50) and a second commit against the hit's one`;
  const refused = c.commits.refused.p50;
  const floor = hit + refused;
  const reads = c.catchUp.logCatchUps !== undefined && c.catchUp.logCatchUps < c.catchUp.catchUps ? `; ${c.catchUp.catchUps - c.catchUp.logCatchUps} catch-ups read objects the log did not hold inline` : '';
  return (
    `two round trips against the hit's one: the refused commit, ${f2(refused)} ms p50 (${f2(refused / c.commits.hit.p50)}× the hit's commit of ${f2(c.commits.hit.p50)} ms: DynamoDB Local answers a refused TransactWriteItems no faster than one that commits), brings the version item's change log back (replayed in ${f2(c.catchUp.basis.p50)} ms, nothing read), then the replan and the commit. ` +
    `The floor, a hit plus its refused commit, is ${f1(hit)} + ${f2(refused)} = ${f1(floor)} ms = ${f2(floor / hit)}× a hit; the other ${f1(c.catchUp.request.p50 - floor)} ms are the second plan and the replay${reads}`
  );
}

/** The top of a CPU profile, for a cause: the areas and functions the time went to. */
function profileCause(pr: ProfileSummary | undefined): string {
  if (!pr) return '';
  return `; CPU profile (${pr.sampledMs} ms sampled, busy ${pr.busyPct}%): ${pr.byArea.slice(0, 3).map((a) => `${a.area} ${a.pct}%`).join(', ')}; top ${pr.topFunctions.slice(0, 3).map((f) => `${f.fn} ${f.pct}%`).join(', ')}`;
}

/** Issue 28, item 7: the Postgres wire endpoint, each figure against a floor of the same run. */
function pgwireRows(r: Results, push: (row: BenchRow) => void): void {
  const w = r.pgwire;
  if (!w) return;
  const load = loadNote(r, 'pgwire');
  if (w.commit) {
    const c = w.commit;
    push({
      item: 9,
      figure: 'Over pgwire: CREATE TABLE commit (node-postgres, a simple Query), against the raw TransactWriteItems floor',
      measured: `p50 ${f2(c.pgwire.p50)} ms = ${f2(c.ratioP50.pgwire)}× floor p50 (${f2(c.floor.p50)} ms) · p99 ${f1(c.pgwire.p99)} ms = ${f2(c.ratioP99.pgwire)}× · in-process SqlApi ${f2(c.ratioP50.inProcess)}×`,
      target: `≤ ${GOALS.pgwireCommitP50}× floor`,
      met: c.ratioP50.pgwire <= GOALS.pgwireCommitP50,
      cause: `on top of the floor: the wire's round trip ${f2(c.wireHop.p50)} ms (an empty query), the basis ${f2(c.breakdown.basis.p50)} ms and parse, plan and answer ${f2(c.breakdown.rest.p50 - c.wireHop.p50)} ms p50; the store commit itself ${f2(c.breakdown.storeCommit.p50)} ms against the floor's ${f2(c.floor.p50)} ms${load}`,
    });
  }
  for (const s of w.clusterRead ?? []) {
    for (const form of ['literal', 'param'] as const) {
      const [a, b] = form === 'literal' ? [s.provider, s.simple] : [s.providerParam, s.simpleParam];
      push({
        item: 9,
        figure: `Terraform provider's cluster read (mz_clusters JOIN mz_roles LEFT JOIN mz_comments, WHERE name) against a simple SELECT of mz_clusters, warm, ${s.objects.toLocaleString('en-US')} objects (${s.clusters} clusters), ${form === 'literal' ? 'as the provider sends it: a simple Query, the name a literal' : 'the name as $1 (extended protocol)'}`,
        measured: `p50 ${f2(a.p50)} ms vs ${f2(b.p50)} ms = ${f2(form === 'literal' ? s.ratioP50.literal : s.ratioP50.param)}× (p99 ${f1(a.p99)} / ${f1(b.p99)} ms)`,
        target: `≤ ${GOALS.clusterReadOverSimple}× the simple SELECT`,
        met: (form === 'literal' ? s.ratioP50.literal : s.ratioP50.param) <= GOALS.clusterReadOverSimple,
        cause: `the two JOINs cost ${f2(a.p50 - b.p50)} ms more p50${profileCause(s.profile)}${load}`,
      });
    }
  }
  if (w.cold) {
    const c = w.cold;
    const budget = GOALS.coldOverPgliteCreate * c.pglite.created.p50;
    // The engine starts on its own thread at the process's start, beside the server's modules,
    // its listening and the first login: the first SELECT can be answered before neither the
    // engine alone (a fresh process opening the template and answering SELECT 1) nor the login.
    const floor = Math.max(c.engine.answered.p50, c.catalog.connected.p50);
    const outOfReach = floor > budget;
    const overFloor = c.catalog.answered.p50 / floor;
    const arithmetic =
      `the budget is ${GOALS.coldOverPgliteCreate} × ${f1(c.pglite.created.p50)} = ${f1(budget)} ms; the floor is the later of the engine alone (its WebAssembly, PostgreSQL's start from the template, SELECT 1) at ${f1(c.engine.answered.p50)} ms ` +
      `and the client logged in at ${f1(c.catalog.connected.p50)} ms (the server's code starts at ${f1(c.catalog.bodyStart.p50)}, a bare node's at ${f1(c.pglite.boot.p50)}; listening at ${f1(c.catalog.listening.p50)}) = ${f1(floor)} ms = ${f2(floor / c.pglite.created.p50)}× create()`;
    push({
      item: 9,
      figure: `Cold: a fresh process's first catalog SELECT over pgwire (from the process's start; the engine started first, on its own thread, from its prebuilt template) against a fresh process's PGlite.create() (empty instance, initdb included), ${c.runs} runs each`,
      measured: `p50 ${f1(c.catalog.answered.p50)} ms (listening at ${f1(c.catalog.listening.p50)}, logged in at ${f1(c.catalog.connected.p50)}) vs PGlite create() done at ${f1(c.pglite.created.p50)} ms = ${f2(c.ratioP50)}× (runs: ${c.pairRatios.map(f2).join(', ')}) · the engine alone from its template ${f1(c.engine.answered.p50)} ms = ${f2(c.engineRatioP50)}× · ${f2(overFloor)}× the floor`,
      target: outOfReach
        ? `≤ ${GOALS.coldOverPgliteCreate}× PGlite create() is out of reach in this run: ${arithmetic}, over the budget before the query is read. Nearest honest target: ≤ ${GOALS.coldOverFloor}× that floor`
        : `≤ ${GOALS.coldOverPgliteCreate}× PGlite create()`,
      met: c.ratioP50 <= GOALS.coldOverPgliteCreate || (outOfReach && overFloor <= GOALS.coldOverFloor),
      cause:
        `${arithmetic}; ` +
        (c.worker
          ? `the server's engine ran on its worker at ${f1(c.worker.running.p50)} ms, had its modules at ${f1(c.worker.imported.p50)} and was open at ${f1(c.worker.opened.p50)} (the engine alone: open at ${f1(c.engine.opened.p50)}); `
          : '') +
        (c.first
          ? `its first query began at ${f1(c.first.start.p50)} ms, had the parser at ${f1(c.first.parser.p50)}, its inputs at ${f1(c.first.inputs.p50)}, the engine at ${f1(c.first.engine.p50)} and the engine's answer (the first fill and the run) at ${f1(c.first.answered.p50)}; `
          : '') +
        `after the floor, the wait for the engine, the catalog read, the query's analysis (libpg-query), the first fill and the run took ${f1(c.catalog.answered.p50 - floor)} ms${profileCause(c.profile)}${load}`,
    });
  }
  if (w.connections) {
    const c = w.connections;
    push({
      item: 9,
      figure: `${c.target} concurrent pgwire connections to one server process, each authenticated (SCRAM) and answering a catalog query, then held idle`,
      measured: `${c.loggedIn}/${c.target} logged in, ${c.answered} answered, ${c.held} held (opened and answered in ${f1(c.openSeconds)} s) · server RSS ${f1(c.before.rssMiB)} → ${f1(c.loggedInMem.rssMiB)} MiB logged in = ${f1(c.perConnectionKiB.rss)} KiB per idle connection (heap ${f1(c.perConnectionKiB.heap)} KiB); ${f1(c.after.rssMiB)} MiB after each answered = ${f1(c.perConnectionKiB.rssAfterQuery)} KiB (heap ${f1(c.perConnectionKiB.heapAfterQuery)} KiB)`,
      target: `${GOALS.heldConnections} held; memory reported${r.quick ? ` (--quick: ${c.target})` : ''}`,
      // A --quick run opens fewer: it is judged on the number it opens.
      met: (r.quick || c.target >= GOALS.heldConnections) && c.held >= c.target && c.answered === c.target,
      cause: c.target < GOALS.heldConnections ? `a --quick run opens ${c.target}` : c.errors.length ? `errors: ${c.errors.join('; ')}` : `${c.target - c.answered} did not answer, ${c.held} of ${c.target} open`,
    });
  }
}

/** Issue 16's goals at 10 000 tenants × 1 000 objects, from the measured sizes and the model fitted to them (lib/scale-model.ts). */
function scaleRows(r: Results, push: (row: BenchRow) => void): void {
  const sc = r.scale;
  if (!sc?.sizes.length) return;
  const st = sc.settings;
  const { target: pm, targetHere: here, detection, massSilence, massSilenceHere, fit, deployment } = summarizeScale(sc.sizes, st);
  const tenantsAt = deployment.tenants;
  const aws = `at ${AWS_LATENCY.kind === 'aws' ? `${AWS_LATENCY.msPerCall} ms per DynamoDB call and ${AWS_LATENCY.msPerReadUnit} ms per read unit` : ''}`;
  const at = `${pm.objects.toLocaleString('en-US')} objects, ${pm.connectors.toLocaleString('en-US')} connectors (model)`;
  const measuredAt = sc.sizes.map((z) => z.connectors.toLocaleString('en-US')).join(' / ');
  const largest = sc.sizes[sc.sizes.length - 1]!;
  const load = loadNote(r, 'scale');
  const quietPct = (pm.sweeper.connectorItemsRead / pm.connectors) * 100;
  push({
    item: 8,
    figure: `Quiet minute, ${at}: connector items the sweeper reads to find what is due`,
    measured: `${f1(pm.sweeper.connectorItemsRead)} items = ${f2(quietPct)}% of the connectors' items, ${f1(pm.sweeper.readUnits)} read units (measured at ${measuredAt} connectors: ${sc.sizes.map((z) => z.quietSweep.itemsRead).join(' / ')} items, ${sc.sizes.map((z) => f1(z.quietSweep.readUnits)).join(' / ')} RU)`,
    target: `≤ ${GOALS.quietReadsPctOfConnectors}%`,
    met: quietPct <= GOALS.quietReadsPctOfConnectors,
    cause: `the attention index holds connectors whose deadline has not passed: every sweep reads ${f1(fit.quietItemsRead.slope * 1000)} items per 1 000 connectors`,
  });
  push({
    item: 8,
    figure: `Quiet minute, ${at}: status items status-ingest reads and writes (a heartbeat every ${st.heartbeatIntervalSeconds} s)`,
    measured: `${pm.statusIngest.reports.toLocaleString('en-US')} reports = ${f1((pm.statusIngest.readUnits / pm.connectors) * 100)}% of the connectors' items read, ${Math.round(pm.statusIngest.readUnits).toLocaleString('en-US')} RU and ${Math.round(pm.statusIngest.writeUnits).toLocaleString('en-US')} WU a minute`,
    target: 'reported (push: each heartbeat reads its status and moves its deadline)',
  });
  push({
    item: 8,
    figure: `status-ingest keeps up with the heartbeats, ${at}`,
    measured: `${f1(fit.heartbeatCalls.slope)} DynamoDB calls per report: ${pm.statusIngest.reports.toLocaleString('en-US')} reports a minute need ${f1(pm.statusIngest.concurrencyNeeded)} invocations in flight ${aws} (here ${f1(here.statusIngest.concurrencyNeeded)}); the stack's ${st.ingestMaxConcurrency} handle ${Math.round(pm.statusIngest.maxReportsPerMinute).toLocaleString('en-US')} a minute`,
    target: `≤ the mapping's maxConcurrency (${st.ingestMaxConcurrency})`,
    met: pm.statusIngest.concurrencyNeeded <= st.ingestMaxConcurrency,
    cause: `every heartbeat is a read and a conditional write of its status, a batch's ${st.ingestBatchSize} side by side; ${st.ingestMaxConcurrency} in flight (statusIngestConcurrency for ${pm.connectors.toLocaleString('en-US')} connectors: set ATTENTION_CAPACITY.connectors) keep up with ${Math.floor((st.ingestMaxConcurrency * 60_000) / Math.max(1e-9, (pm.statusIngest.seconds * 1000) / pm.statusIngest.reports) / (60 / st.heartbeatIntervalSeconds)).toLocaleString('en-US')} connectors`,
  });
  const stall = largest.stallLatencyMs;
  push({
    item: 8,
    figure: `Stall reported by the data plane → visible in mz_source_statuses, locally (${largest.connectors.toLocaleString('en-US')} connectors, ${stall.n} stalls)`,
    measured: `p50 ${f1(stall.p50)} ms · p99 ${f1(stall.p99)} ms · max ${f1(stall.max)} ms (smaller sizes p99: ${sc.sizes.slice(0, -1).map((z) => `${f1(z.stallLatencyMs.p99)} ms`).join(', ')})${load}`,
    target: `p99 ≤ ${GOALS.stallVisibleP99Ms / 1000} s`,
    met: stall.p99 <= GOALS.stallVisibleP99Ms,
    cause: `the report waits in the status queue for status-ingest's next receive (${st.ingestMaxConcurrency} in flight, batches of ${st.ingestBatchSize}), then a read and a conditional transaction on DynamoDB Local${load}`,
  });
  const limit = GOALS.silenceSweepIntervals * st.sweepIntervalSeconds;
  const worstMeasured = Math.max(...sc.sizes.map((z) => z.silenceDetail.detectedSeconds.max));
  push({
    item: 8,
    figure: `Silent data plane (some connectors) → \`stalled\`: from the stop, sweeps every ${st.sweepIntervalSeconds} s`,
    measured: `measured ${sc.sizes.map((z) => `${f1(z.silenceDetail.detectedSeconds.p50)}–${f1(z.silenceDetail.detectedSeconds.max)} s (sweeps at +${z.silenceDetail.phaseSeconds} s, ${z.silenceDetail.offModel} off the model)`).join('; ')} · model over every sweep phase: ${f1(detection.bestSeconds)}–${f1(detection.worstSeconds)} s, p99 ${f1(detection.p99Seconds)} s, ${f2(detection.shareLaterThan * 100)}% later than ${limit} s`,
    target: `≤ ${GOALS.silenceSweepIntervals} sweep intervals (${limit} s)`,
    met: worstMeasured <= limit && detection.worstSeconds <= limit,
    cause: `the report deadline is ${st.heartbeatTimeoutSeconds} s after the last heartbeat (two ${st.heartbeatIntervalSeconds} s heartbeats and 15 s of slack), and a deadline that passes just after a sweep waits up to one more interval: up to ${st.heartbeatTimeoutSeconds} + ${st.sweepIntervalSeconds} s after the last report. Within ${limit} s for every phase needs a deadline ≤ ${limit - st.sweepIntervalSeconds} s (e.g. heartbeats every 20 s and a 55 s timeout: 1.5× the reports)`,
  });
  // The whole data plane silent: the first sweep that finds it so marks it with one write, and every
  // status read shows each watched connector stalled from then on, at any size (shared/status/data-plane.ts).
  const markedAt = sc.sizes.map((z) => z.silenceDetail.sweeps.find((w) => w.dataPlaneSilent)?.atSeconds);
  const markedWorst = Math.max(...markedAt.map((x) => x ?? Number.POSITIVE_INFINITY));
  push({
    item: 8,
    figure: `Whole data plane silent, ${at}: every connector's status shows it (from the stop, sweeps every ${st.sweepIntervalSeconds} s)`,
    measured: `the data plane marked silent by the sweep at ${markedAt.map((x) => (x === undefined ? 'none' : `+${x} s`)).join(' / ')} (one read of its liveness item per sweep with connectors overdue, one conditional write to mark it; a status read then shows every watched connector stalled, whatever their number) · each connector's own row and history after that: ${f2(fit.silenceCalls.slope)} DynamoDB calls per overdue connector (no diagnostic probe while the whole data plane is silent), ${st.connectorPassConcurrency ?? 1} at once: ${aws} ${f1(massSilence.msPerOverdue)} ms each in effect → ${massSilence.perSweep.toLocaleString('en-US')} per sweep, ${Number.isFinite(massSilence.sweeps) ? massSilence.sweeps.toLocaleString('en-US') : '∞'} sweeps for all ${pm.connectors.toLocaleString('en-US')} (here ${f1(massSilenceHere.msPerOverdue)} ms each)`,
    target: `shown within ${GOALS.silenceSweepIntervals} sweep intervals (${limit} s) of the stop`,
    met: markedWorst <= limit,
    cause: `the data plane is silent ${st.heartbeatTimeoutSeconds + 5} s after its last report (a connector's ${st.heartbeatTimeoutSeconds} s deadline and the liveness stamp's 5 s granularity); a sweep that finds connectors overdue then marks it, and the reads overlay the silence on every watched status. The rows themselves (history, events flagged data_plane_silent) follow at the connector pass's pace`,
  });
  const invocations = sc.sizes.flatMap((z) => [z.quietSweep.ms, ...z.silenceDetail.sweeps.map((w) => w.ms), z.fullPassDetail.maxInvocationMs]);
  const worstInv = Math.max(...invocations);
  const timeoutMs = st.sweepTimeoutSeconds * 1000;
  const quietAtTarget = pm.sweeper.seconds * 1000;
  push({
    item: 8,
    figure: `Longest sweeper invocation against its ${st.sweepTimeoutSeconds} s timeout (quiet, silence and full-pass invocations at every size; quiet at the model's size)`,
    measured: `measured ${f1(worstInv / 1000)} s = ${f2(worstInv / timeoutMs)}×${load} · quiet at ${pm.connectors.toLocaleString('en-US')} connectors ${f1(quietAtTarget)} ms ${aws} (model; here ${f1(here.sweeper.seconds * 1000)} ms)`,
    target: `≤ ${GOALS.sweepTimeoutShare}× the timeout`,
    met: worstInv <= GOALS.sweepTimeoutShare * timeoutMs && quietAtTarget <= GOALS.sweepTimeoutShare * timeoutMs,
    cause: `the sweep stops reading the attention index at its deadline, the connector pass starts no connector past it (what is left stays due) and the full pass no tenant (${Math.max(...sc.sizes.flatMap((z) => z.silenceDetail.sweeps.map((w) => w.overdue)))} overdue in the largest silence sweep here${load}); what overruns is the work in flight at the deadline`,
  });
  const smPct = (pm.secretsManagerCalls / pm.connectors) * 100;
  push({
    item: 8,
    figure: `Secrets Manager calls per minute, ${at}`,
    measured: `${f1(pm.secretsManagerCalls)} a minute = ${f2(smPct)}% of the connectors (the full pass lists each tenant's secrets once a pass: ${f2(fit.fullPassSecretCalls.slope)} per tenant; quiet sweeps and status-ingest read none; diagnostic probes read ${sc.sizes.map((z) => z.silence.secretReads).join(' / ')} in the silences)`,
    target: `≤ ${GOALS.secretCallsPctOfConnectors}% of connectors`,
    met: smPct <= GOALS.secretCallsPctOfConnectors,
    cause: 'the full pass lists every tenant\'s secrets once per pass',
  });
  const spt = pm.fullPass.secondsPerPass / tenantsAt;
  const sptHere = here.fullPass.secondsPerPass / tenantsAt;
  const oneMinute = fullPassPeriodMinutesAt(pm.fullPass.secondsPerPass, { ...st, fullPassRuleMinutes: 1 });
  push({
    item: 8,
    figure: `Full-pass period, ${at}`,
    measured: `${f1(pm.fullPass.periodMinutes)} min ${aws}: ${f1(fit.fullPassCalls.slope)} calls = ${f2(spt)} s per tenant × ${tenantsAt.toLocaleString('en-US')} tenants = ${Math.round(pm.fullPass.secondsPerPass).toLocaleString('en-US')} s of work, ${f1(st.sweepTimeoutSeconds * st.sweepBudget)} s per invocation, one every ${st.fullPassRuleMinutes} min · here ${f2(sptHere)} s per tenant: ${f1(here.fullPass.periodMinutes)} min (measured passes: ${sc.sizes.map((z) => `${z.fullPass.tenants} tenants ${f1(z.fullPass.ms / 1000)} s`).join(', ')})`,
    target: `≤ ${GOALS.fullPassPeriodMinutes} min`,
    met: pm.fullPass.periodMinutes <= GOALS.fullPassPeriodMinutes,
    cause: `each tenant's pass reads its whole catalog and data plane (${f1(fit.fullPassItems.slope)} items per tenant) in ${f1(fit.fullPassCalls.slope)} calls, ${f2(spt)} s per tenant ${aws}; with the full-pass rule every minute it would be ${f1(oneMinute)} min, and within the hour at ≤ ${f2((GOALS.fullPassPeriodMinutes * st.sweepTimeoutSeconds * st.sweepBudget) / tenantsAt)} s per tenant (rule every minute)`,
  });
}

export function rowsMarkdown(rows: readonly BenchRow[]): string[] {
  const mark = (r: BenchRow) => (r.notJudged ? `not judged: ${r.notJudged}` : r.met === undefined ? '–' : r.met ? '✓' : '✗');
  return [
    '| # | Figure | Measured | Target | | Cause of a miss |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.item} | ${r.figure} | ${r.measured} | ${r.target} | ${mark(r)} | ${r.met === false ? (r.cause ?? '') : ''} |`),
  ];
}
