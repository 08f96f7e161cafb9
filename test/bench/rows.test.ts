// Issue 15's bench rows (bench/lib/rows.ts): targets applied to the right rows, a cause on every
// miss and only on a miss, the cause read off the figures.
import { describe, expect, it } from 'vitest';
import { benchRows, rowsMarkdown } from '../../bench/lib/rows';
import type { Results } from '../../bench/lib/report';
import { callRounds } from '../../bench/phases/bundles';

const s = (p50: number, p99 = p50 * 2) => ({ n: 10, min: p50 / 2, p50, p90: p99, p99, max: p99, mean: p50 });
const cpu = (sqlite: number) => ({ benchProcessPct: 80, dynamoLocalPct: 60, dynamoLocalSqliteThreadPct: sqlite });
const machine = { cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date: '2026-01-01', loadAverageAtStart: [1, 1, 1] };

function level(fastPath: boolean, clients: number, o: { floor: number; commit: number; fromStart: number; sqlite?: number }) {
  return {
    fastPath,
    clients,
    floor: s(o.floor),
    commits: 100,
    errors: 0,
    timeouts: 0,
    commit: s(o.commit),
    fromStart: s(o.fromStart),
    afterAnswer: s(o.fromStart - o.commit),
    ratio: { p50: o.fromStart / o.floor, p99: o.fromStart / o.floor },
    commitsPerSecond: 50,
    firstSentBy: { fastPath: 90, router: 10 },
    cpu: cpu(o.sqlite ?? 30),
  };
}

/** A cache phase's figures at one catalog size: a 5 ms hit, its commit 4 ms, a refused commit and a lost race as given. */
const cacheSize = (objects: number, catchUp: number, refused: number) => ({
  objects,
  seedSeconds: 1,
  miss: { request: s(40), basis: s(35) },
  hit: { request: s(5), basis: s(0.01) },
  catchUp: { request: s(catchUp), basis: s(0.1), catchUps: 20, wholeReads: 0, logCatchUps: 20 },
  commits: { refused: s(refused), hit: s(4) },
  catchUpOverHitP50: catchUp / 5,
  missOverHitP50: 8,
});

const settings = { name: 'deployed', stream: { batchSize: 100, pollIntervalMs: 250 }, queuePolling: { batchSize: 10, maxConcurrency: 5, waitSeconds: 1 }, authorizerCacheTtlSeconds: 0, functionTimeoutMs: 60_000 } as const;

describe('benchRows', () => {
  it('holds only the 32-client fast-path level to the deployed goal, and explains its miss by the larger part', () => {
    const rows = benchRows({
      machine,
      quick: false,
      deployed: {
        settings,
        levels: [level(true, 1, { floor: 5, commit: 8, fromStart: 100 }), level(true, 32, { floor: 10, commit: 20, fromStart: 90 }), level(false, 32, { floor: 10, commit: 20, fromStart: 400 })],
        openLoop: [],
        lostEffects: 0,
      },
    } as Results);
    const deployed = rows.filter((r) => r.item === 1 && r.figure.startsWith('Deployed'));
    expect(deployed.map((r) => r.met)).toEqual([undefined, false, undefined]);
    expect(deployed[1]!.cause).toMatch(/after the answer is most of it: 70\.0 ms p50.*≤ 5 executors in flight, batches of 10/);
    expect(deployed[0]!.cause).toBeUndefined();
    expect(rows.find((r) => r.figure.startsWith('Lost effects'))).toMatchObject({ met: true, measured: '0' });
  });

  it('names the emulator as the limit when its SQLite thread is saturated', () => {
    const rows = benchRows({ machine, quick: false, deployed: { settings, levels: [level(true, 32, { floor: 10, commit: 50, fromStart: 200, sqlite: 97 })], openLoop: [], lostEffects: 0 } } as Results);
    expect(rows[0]).toMatchObject({ met: false });
    expect(rows[0]!.cause).toMatch(/^emulator-bound: DynamoDB Local's SQLite thread at 97%/);
  });

  it('names the machine as the limit when neither process got a core under a load well above the cores', () => {
    const phaseTimes = [{ phase: 'deployed', seconds: 100, loadAverage1m: { start: 30, end: 40 }, probePutP50Ms: { before: null, after: null } }];
    const rows = benchRows({ machine, quick: false, phaseTimes, deployed: { settings, levels: [{ ...level(true, 32, { floor: 10, commit: 50, fromStart: 200 }), cpu: { benchProcessPct: 7, dynamoLocalPct: 22, dynamoLocalSqliteThreadPct: 4 } }], openLoop: [], lostEffects: 0 } } as Results);
    expect(rows[0]!.cause).toBe('machine-bound: 1-min load average 30.0 → 40.0 on 2 cores (other work); the bench process got 7% and DynamoDB Local 22% of a core');
  });

  it('passes a catch-up within twice a hit at 10 000 objects and only reports smaller catalogs', () => {
    const size = (objects: number, catchUp: number) => ({
      objects,
      seedSeconds: 1,
      miss: { request: s(40), basis: s(35) },
      hit: { request: s(5), basis: s(0.01) },
      catchUp: { request: s(catchUp), basis: s(3), catchUps: 40, wholeReads: 0 },
      catchUpOverHitP50: catchUp / 5,
      missOverHitP50: 8,
    });
    const rows = benchRows({ machine, quick: false, cache: [size(1000, 20), size(10000, 9)] } as Results).filter((r) => r.figure.startsWith('Catch-up'));
    expect(rows.map((r) => r.met)).toEqual([undefined, true]);
    expect(rows.every((r) => r.cause === undefined)).toBe(true);
  });

  it('holds 8 API instances to 70 % of one and names the version race when the machine was not loaded', () => {
    const row = (instances: number, cps: number, catchUps: number) => ({ instances, commits: 48, commitsPerSecond: cps, answers40001: 0, catchUps, fullLoadsAfterWarmUp: 0, ofSingle: cps / 100 });
    const phaseTimes = [{ phase: 'instances', seconds: 10, loadAverage1m: { start: 1, end: 2 }, probePutP50Ms: { before: null, after: null } }];
    const rows = benchRows({ machine, quick: false, phaseTimes, instances: [row(1, 100, 0), row(4, 90, 12), row(8, 40, 48)] } as Results);
    expect(rows.map((r) => r.met)).toEqual([undefined, false]);
    expect(rows[1]!.cause).toMatch(/^the version race: .* \(2\.00 attempts per commit;/);
    // With the CPU per commit measured, the arithmetic: one instance's CPU per commit over this level's.
    const withCpu = benchRows({ machine, quick: false, phaseTimes, instances: [row(1, 100, 0), { ...row(8, 40, 48), logCatchUps: 30, cpuMsPerCommit: 8, singleCpuMsPerCommit: 2 }] } as Results);
    expect(withCpu[0]!.cause).toMatch(/30 of 48, the others read .*\); the bench process \(all 8 instances\) spent 8\.00 ms of CPU per commit against one instance's 2\.00 \(4\.00×\)/);
    // With one instance's rate just before: the emulator's transactions, won and refused, against its.
    const lane = benchRows({ machine, quick: false, phaseTimes, instances: [{ ...row(8, 40, 48), singlePerSecond: 100 }] } as Results);
    expect(lane[0]!.cause).toMatch(/it ran 80\.0 transactions\/s here against 100 for one instance alone, so at 2\.00 attempts per commit one instance's transaction rate allows 0\.50× its commit rate/);
    // With the same instances measured on a tenant each (no race): that rate is the ceiling, and what the attempts leave is the backoff.
    const ceiling = benchRows({ machine, quick: false, phaseTimes, instances: [{ ...row(8, 40, 48), singlePerSecond: 100, ownTenantsPerSecond: 105, ownTenantsOfSingle: 1.05 }] } as Results);
    expect(ceiling[0]!.met).toBe(false);
    expect(ceiling[0]!.cause).toMatch(/on a tenant each, ran 105 commits\/s = 1\.05× one instance: neither DynamoDB Local nor the bench process is the limit\. .* at 2\.00 attempts per commit that allows 0\.50×; the rest \(0\.10×\) is time the version item waits while losers back off/);
    const loaded = benchRows({ machine, quick: false, phaseTimes: [{ ...phaseTimes[0]!, loadAverage1m: { start: 25, end: 25 } }], instances: [row(1, 100, 0), row(8, 40, 48)] } as Results);
    expect(loaded[0]!.cause).toMatch(/^machine-bound: 1-min load average 25\.0 → 25\.0 on 2 cores/);
    const met = benchRows({ machine, quick: false, phaseTimes, instances: [row(1, 100, 0), row(8, 144, 30)] } as Results);
    expect(met[0]).toMatchObject({ met: true });
    expect(met[0]!.cause).toBeUndefined();
  });

  it("explains a cold init's miss by its first event's rounds of calls, with the ratio those rounds alone allow", () => {
    const cold = (import_: number, first: number) => ({ runs: 5, importMsP50: import_, firstEventMsP50: first, totalMsP50: import_ + first, totalMsMax: import_ + first, nodeBootMsP50: 30, errors: [] });
    const calls = callRounds([
      { op: 'DynamoDB.GetItem', start: 100, end: 130 },
      { op: 'DynamoDB.GetItem', start: 101, end: 128 },
      { op: 'DynamoDB.TransactWriteItems', start: 131, end: 140 },
      { op: 'DynamoDB.UpdateItem', start: 141, end: 146 },
    ]);
    expect(calls).toEqual({
      ops: ['DynamoDB.GetItem', 'DynamoDB.GetItem', 'DynamoDB.TransactWriteItems', 'DynamoDB.UpdateItem'],
      rounds: 3,
      roundMs: [30, 9, 5],
      calls: [
        { op: 'DynamoDB.GetItem', at: 0, ms: 30 },
        { op: 'DynamoDB.GetItem', at: 1, ms: 27 },
        { op: 'DynamoDB.TransactWriteItems', at: 31, ms: 9 },
        { op: 'DynamoDB.UpdateItem', at: 41, ms: 5 },
      ],
    });
    const bundle = { function: 'executor-compute', entryKiB: 150, externalImports: ['a', 'b'], sdkImportMsP50: 50, coldInit: cold(120, 80), baselineColdInit: cold(80, 20), coldInitRatio: 2, firstEventCalls: calls };
    const [row] = benchRows({ machine, quick: false, bundles: [bundle] } as unknown as Results);
    expect(row!.met).toBe(false);
    expect(row!.cause).toContain('4 AWS calls in 3 sequential rounds (2 × DynamoDB.GetItem, 1 × DynamoDB.TransactWriteItems, 1 × DynamoDB.UpdateItem)');
    // The baseline's 100 ms and the two later rounds' 14 ms.
    expect(row!.cause).toContain('waited 14.0 ms in a traced run, so with an import and a first call as cheap as the baseline\'s it would still be 1.14×');
  });

  it("judges a cold init whose first event needs several rounds of calls against 1.5x the baseline or 1.25x those calls made by bare SDK clients", () => {
    const cold = (import_: number, first: number, errors: string[] = []) => ({ runs: 9, importMsP50: import_, firstEventMsP50: first, totalMsP50: import_ + first, totalMsMax: import_ + first, nodeBootMsP50: 25, errors });
    const calls = callRounds([
      { op: 'DynamoDB.BatchGetItem', start: 0, end: 9 },
      { op: 'DynamoDB.Query', start: 12, end: 16 },
      { op: 'DynamoDB.TransactWriteItems', start: 20, end: 40 },
      { op: 'SQS.SendMessageBatch', start: 45, end: 47 },
    ]);
    const bundle = (total: number, floor?: ReturnType<typeof cold>) => ({
      function: 'ddl-api',
      entryKiB: 178,
      externalImports: ['a'],
      sdkImportMsP50: 40,
      coldInit: cold(50, total - 50),
      baselineColdInit: cold(45, 25),
      coldInitRatio: total / 70,
      firstEventCalls: calls,
      ...(floor ? { sameCallsColdInit: floor, sameCallsFirstEventCalls: callRounds([{ op: 'DynamoDB.BatchGetItem', start: 0, end: 9 }, { op: 'DynamoDB.Query', start: 10, end: 14 }]) } : {}),
    });
    const row = (b: ReturnType<typeof bundle>) => benchRows({ machine, quick: false, bundles: [b] } as unknown as Results)[0]!;
    // The floor at 112 ms = 1.60x the baseline's 70, past 1.5x itself: 126 ms is 1.13x that floor, met; 145 ms is 1.29x.
    const within = row(bundle(126, cold(50, 62)));
    expect(within.met).toBe(true);
    expect(within.target).toBe(
      "≤ 1.5×, or ≤ 1.25× the same 4 calls in 4 rounds made by bare SDK clients with no code of ours (here 112 ms = 1.60× the baseline, leaving 0.00× of the 1.5× for all of the function's own code; the function 1.13× that floor)",
    );
    const missed = row(bundle(145, cold(50, 62)));
    expect(missed.met).toBe(false);
    expect(missed.cause).toContain("the same calls by bare SDK clients: import 50.0 ms, first event 62.0 ms (its rounds 9.0 + 4.0 ms), so the function's own code costs 0.0 ms of import and 33.0 ms of first event over them");
    // The floor at 100 ms = 1.43x: 126 ms is 1.80x the baseline but 1.26x the floor, missed; 124 ms is 1.24x the floor, met.
    expect(row(bundle(126, cold(50, 50))).met).toBe(false);
    expect(row(bundle(124, cold(50, 50)))).toMatchObject({ met: true, target: expect.stringContaining('leaving 0.07× of the 1.5×') });
    // Within 1.5x the baseline, met whatever the floor.
    expect(row(bundle(105, cold(40, 40))).met).toBe(true);
    // A floor whose runs failed is no floor.
    expect(row(bundle(126, cold(50, 62, ['ValidationException'])))).toMatchObject({ target: '≤ 1.5×', met: false });
    // Without one, as before.
    expect(row(bundle(100))).toMatchObject({ target: '≤ 1.5×', met: true });
  });

  it('judges the catch-up at the largest catalog a run measured, and gives the floor of a miss from the same run', () => {
    const quick = benchRows({ machine, quick: true, cache: [cacheSize(1000, 12, 4.5)] } as Results);
    expect(quick[1]).toMatchObject({ target: '≤ 2× a hit', met: false });
    expect(quick[1]!.cause).toMatch(/refused commit, 4\.50 ms p50 \(1\.13× the hit's commit of 4\.00 ms.* The floor, a hit plus its refused commit, is 5\.0 \+ 4\.50 = 9\.5 ms = 1\.90× a hit; the other 2\.5 ms are the second plan and the replay$/);
  });

  it('sets the nearest honest target for a lost race only when a hit plus its refused commit is already past 2x a hit', () => {
    const size = (catchUp: number, refused: number) => cacheSize(10_000, catchUp, refused);
    // 5 + 6.5 = 11.5 ms = 2.3x a hit: out of reach; 13 ms is 1.13x that floor, 15 ms is 1.30x.
    const within = benchRows({ machine, quick: false, cache: [size(13, 6.5)] } as Results)[1]!;
    expect(within.met).toBe(true);
    expect(within.target).toMatch(/^≤ 2× a hit is out of reach in this run: a hit \(5\.0 ms\) plus the refused commit \(6\.50 ms\) is already 2\.30×\. Nearest honest target: ≤ 1\.25× that floor \(here 1\.13×\)$/);
    expect(benchRows({ machine, quick: false, cache: [size(15, 6.5)] } as Results)[1]!.met).toBe(false);
    // 5 + 4 = 9 ms = 1.8x: within reach, so 2x a hit stays the target and 11 ms misses it.
    const reachable = benchRows({ machine, quick: false, cache: [size(11, 4)] } as Results)[1]!;
    expect(reachable).toMatchObject({ target: '≤ 2× a hit', met: false });
  });

  it("judges a cold pgwire SELECT against the later of the engine alone and the login only when those are past 0.25x create()", () => {
    const cold = (answered: number, engine: number, connected: number, created: number) => ({
      runs: 5,
      catalog: { answered: s(answered), bodyStart: s(60), listening: s(200), connected: s(connected) },
      engine: { answered: s(engine), opened: s(engine - 10), boot: s(50) },
      pglite: { created: s(created), create: s(created - 60), boot: s(50) },
      ratioP50: answered / created,
      engineRatioP50: engine / created,
      pairRatios: [answered / created],
      query: 'SELECT 1',
      profile: { file: 'x', sampledMs: 1, busyPct: 1, byArea: [], topFunctions: [] },
    });
    const row = (c: ReturnType<typeof cold>) => benchRows({ machine, quick: false, pgwire: { cold: c } } as unknown as Results).find((r) => r.figure.startsWith('Cold'))!;
    // The engine alone at 450 ms is past 0.25 x 1600 = 400: judged against 1.25 x 450 = 562.5.
    expect(row(cold(540, 450, 240, 1600))).toMatchObject({ met: true });
    expect(row(cold(540, 450, 240, 1600)).target).toMatch(/out of reach in this run: the budget is 0\.25 × 1600 = 400 ms; the floor is the later of the engine alone .* at 450 ms and the client logged in at 240 ms .* = 450 ms = 0\.28× create\(\).*Nearest honest target: ≤ 1\.25× that floor$/);
    expect(row(cold(600, 450, 240, 1600))).toMatchObject({ met: false });
    // Both within 0.25 x 2400 = 600: the target stands, and 620 ms misses it.
    expect(row(cold(620, 450, 240, 2400))).toMatchObject({ target: '≤ 0.25× PGlite create()', met: false });
    expect(row(cold(580, 450, 240, 2400))).toMatchObject({ met: true });
  });

  it('does not call a row met when its phase ran on a machine loaded above the bench\'s own, and still reports a miss', () => {
    const row = (instances: number, cps: number) => ({ instances, commits: 48, commitsPerSecond: cps, answers40001: 0, catchUps: 10, fullLoadsAfterWarmUp: 0, ofSingle: cps / 100 });
    const at = (start: number, end: number) => [{ phase: 'instances', seconds: 10, loadAverage1m: { start, end }, probePutP50Ms: { before: null, after: null } }];
    const quiet = benchRows({ machine, quick: true, phaseTimes: at(1.5, 2.5), instances: [row(1, 100), row(8, 80)] } as Results);
    expect(quiet[0]).toMatchObject({ met: true });
    const busy = benchRows({ machine, quick: true, phaseTimes: at(3, 5), instances: [row(1, 100), row(8, 80)] } as Results);
    expect(busy[0]!.met).toBeUndefined();
    expect(busy[0]!.notJudged).toBe('load 4.0 on 2 cores');
    expect(rowsMarkdown(busy)[2]).toMatch(/\| not judged: load 4\.0 on 2 cores \|  \|$/);
    const missed = benchRows({ machine, quick: true, phaseTimes: at(3, 5), instances: [row(1, 100), row(8, 30)] } as Results);
    expect(missed[0]).toMatchObject({ met: false });
    expect(missed[0]!.notJudged).toBeUndefined();
  });

  it('puts the cause of a miss in the markdown row and leaves met rows without one', () => {
    const md = rowsMarkdown([
      { item: 5, figure: 'a', measured: '1', target: '≤ 1', met: false, cause: 'because' },
      { item: 5, figure: 'b', measured: '1', target: '≤ 1', met: true },
    ]);
    expect(md.slice(2)).toEqual(['| 5 | a | 1 | ≤ 1 | ✗ | because |', '| 5 | b | 1 | ≤ 1 | ✓ |  |']);
  });
});
