/**
 * `npm run fuzz -- [--cases N] [--seed S] [--http N] [--concurrency C] [--timeout MS] [--slow-ms MS]`
 *
 * The long fuzz run of the DDL API (DESIGN.md invariant 8): random SQL-ish text and random request
 * bodies and headers, against its own DynamoDB Local and SQS emulator and a pipeline without
 * workers (bad input never needs an effect executed). Most cases go in process through
 * `SqlApi.handle` — the DDL Lambda's engine, parse + plan + commit over the real catalog store —
 * and a slice (`--http`, default 2 %) through the local API Gateway over HTTP.
 *
 * The engine runs in child processes (test/fuzz/sandbox.ts), each with its own pipeline: an input
 * that hangs the engine (no answer within `--timeout`) or kills its process is a counted crash —
 * the Lambda would have timed out or died — and the run goes on with a fresh child.
 *
 * Prints one JSON summary on stdout (cases, crashes, answers ≥ 500, contract violations, counts by
 * SQLSTATE, a few failing inputs of each kind) and exits 1 if anything broke the contract.
 * The inputs are deterministic for a seed: worker w runs cases w, w+C, w+2C, ... in order, in its
 * own tenants.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { startDynamoLocal, startSqsEmulator } from '../local/emulators';
import { httpRequest, sqlText, type FuzzRequest } from '../test/fuzz/arbitraries';
import { excerpt } from '../test/fuzz/harness';
import { Sandbox } from '../test/fuzz/sandbox';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string' },
    http: { type: 'string' },
    // One engine process per worker; more than the cores only adds contention (DynamoDB Local needs one too).
    concurrency: { type: 'string', default: String(Math.min(4, availableParallelism())) },
    timeout: { type: 'string', default: '10000' },
    'slow-ms': { type: 'string', default: '2000' },
  },
});
const CASES = Number(values.cases);
const SEED = values.seed !== undefined ? Number(values.seed) : randomBytes(4).readUInt32BE() >>> 1;
const HTTP_CASES = values.http !== undefined ? Number(values.http) : Math.round(CASES / 50);
const CONCURRENCY = Math.max(1, Number(values.concurrency));
const TIMEOUT_MS = Number(values.timeout);
/** Answers slower than this are counted (not failed: a loaded machine makes any case slow now and then). */
const SLOW_MS = Number(values['slow-ms']);
for (const [k, v] of Object.entries({ cases: CASES, seed: SEED, http: HTTP_CASES, concurrency: CONCURRENCY, timeout: TIMEOUT_MS, 'slow-ms': SLOW_MS })) {
  if (!Number.isSafeInteger(v) || v < 0) {
    console.error(`--${k} must be a non-negative integer`);
    process.exit(2);
  }
}
/** A tenant's catalog grows with what random DDL commits; a fresh one keeps snapshots small. */
const CASES_PER_TENANT = 1000;
const BATCH = 250;
const FAILURES_PER_PROBLEM = 3;
const MAX_FAILURES = 30;

type Mode = 'sql' | 'request';
interface FuzzCase {
  readonly mode: Mode;
  readonly req: FuzzRequest;
  /** The SQL text, for `sql` cases. */
  readonly sql?: string;
}

const caseArb: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 7, arbitrary: sqlText.map((sql) => ({ mode: 'sql' as const, sql, req: { body: JSON.stringify({ query: sql }), contentType: 'application/json', headers: {} } })) },
  { weight: 3, arbitrary: httpRequest.map((req) => ({ mode: 'request' as const, req })) },
);

interface Failure {
  readonly case: number;
  /** Regenerates the input: fc.sample(caseArb, { seed, numRuns: BATCH })[index]. */
  readonly sample: { readonly seed: number; readonly index: number };
  readonly via: 'in-process' | 'http';
  readonly problem: string;
  readonly input: string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

const counts = { cases: 0, inProcess: 0, http: 0, sqlCases: 0, requestCases: 0, crashes: 0, responses5xx: 0, contractViolations: 0 };
const byOutcome = new Map<string, number>();
const byStatus = new Map<string, number>();
const problems = new Map<string, number>();
const failures: Failure[] = [];
const latencies: number[] = [];
const slowest: { ms: number; case: number; via: string; outcome: string; input: string }[] = [];
const msByOutcome = new Map<string, number>();

let slowCases = 0;

function timed(index: number, via: Failure['via'], c: FuzzCase, ms: number, outcome: string): void {
  latencies.push(ms);
  if (ms > SLOW_MS && outcome !== 'crash') slowCases++;
  msByOutcome.set(outcome, (msByOutcome.get(outcome) ?? 0) + ms);
  if (slowest.length < 5 || ms > slowest[slowest.length - 1]!.ms) {
    slowest.push({ ms: Math.round(ms), case: index, via, outcome, input: excerpt(c.sql ?? c.req.body, 120) });
    slowest.sort((a, b) => b.ms - a.ms);
    slowest.length = Math.min(slowest.length, 5);
  }
}

function record(index: number, via: Failure['via'], v: { outcome: string; problem?: string; status?: number }, c: FuzzCase, sample: Failure['sample']): void {
  byOutcome.set(v.outcome, (byOutcome.get(v.outcome) ?? 0) + 1);
  const status = v.status === undefined ? 'none' : String(v.status);
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  if (!v.problem) return;
  if (v.outcome === 'crash') counts.crashes++;
  else if (v.status !== undefined && v.status >= 500) counts.responses5xx++;
  else counts.contractViolations++;
  // Group by the problem's shape (numbers and quoted text vary per input).
  const key = v.problem.replace(/\d+/g, 'N').replace(/'[^']*'|"[^"]*"/g, '…').slice(0, 160);
  problems.set(key, (problems.get(key) ?? 0) + 1);
  // A few examples of each kind of problem, so a frequent one does not hide a rare one.
  if (problems.get(key)! <= FAILURES_PER_PROBLEM && failures.length < MAX_FAILURES) {
    failures.push({
      case: index,
      sample,
      via,
      problem: v.problem,
      input: excerpt(c.sql ?? c.req.body),
      ...(c.req.contentType !== 'application/json' ? { contentType: String(c.req.contentType) } : {}),
      ...(Object.keys(c.req.headers).length ? { headers: c.req.headers } : {}),
    });
  }
}

function latencySummary() {
  const l = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round((l[Math.min(l.length - 1, Math.floor(q * l.length))] ?? 0) * 10) / 10;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1), totalByOutcome: Object.fromEntries([...msByOutcome.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round(v)])) };
}

const started = Date.now();
const stops: (() => Promise<void>)[] = [];
/** Stops everything started, newest first (children before the emulators they use). */
async function stopAll(): Promise<void> {
  while (stops.length) await stops.pop()!().catch((e: unknown) => console.error('stop failed:', e));
}
process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
process.once('SIGTERM', () => void stopAll().finally(() => process.exit(143)));

let exitCode = 0;
try {
  const ddb = await startDynamoLocal({ maxHeap: '1g' });
  stops.push(() => ddb.stop());
  const sqs = await startSqsEmulator();
  stops.push(() => sqs.stop());
  const sandboxOptions = { dynamodbEndpoint: ddb.endpoint, sqsEndpoint: sqs.endpoint, prefix: `fuzz-${SEED}-`, timeoutMs: TIMEOUT_MS };
  // The first child creates the tables and queues; the others find them.
  const first = await Sandbox.start(sandboxOptions);
  stops.push(() => first.stop());
  const sandboxes: Sandbox[] = [first];
  for (const s of await Promise.all(Array.from({ length: CONCURRENCY - 1 }, () => Sandbox.start(sandboxOptions)))) {
    sandboxes.push(s);
    stops.push(() => s.stop());
  }
  const bootMs = Date.now() - started;
  const httpEvery = HTTP_CASES > 0 ? Math.max(1, Math.floor(CASES / HTTP_CASES)) : Number.POSITIVE_INFINITY;
  let httpLeft = HTTP_CASES;

  const worker = async (w: number) => {
    const sb = sandboxes[w]!;
    let tenant = '';
    let tenantNo = 0;
    let tenantCases = CASES_PER_TENANT;
    let batch: FuzzCase[] = [];
    let batchNo = 0;
    let batchSeed = 0;
    for (let i = w; i < CASES; i += CONCURRENCY) {
      if (tenantCases >= CASES_PER_TENANT) {
        tenant = `fz${SEED.toString(36)}w${w}n${tenantNo++}`;
        await sb.tenant(tenant);
        tenantCases = 0;
      }
      tenantCases++;
      if (batch.length === 0) {
        batchSeed = (SEED * 7919 + w * 104_729 + batchNo * 1_299_709) | 0;
        batch = fc.sample(caseArb, { seed: batchSeed, numRuns: BATCH }).reverse();
        batchNo++;
      }
      const sample = { seed: batchSeed, index: BATCH - batch.length };
      const c = batch.pop()!;
      counts.cases++;
      if (c.mode === 'sql') counts.sqlCases++;
      else counts.requestCases++;
      if (i % httpEvery === 0 && httpLeft > 0) {
        httpLeft--;
        counts.http++;
        const t = performance.now();
        const v = await sb.runHttp(tenant, c.req);
        timed(i, 'http', c, performance.now() - t, v.outcome);
        record(i, 'http', v, c, sample);
      } else {
        counts.inProcess++;
        const t = performance.now();
        const v = await sb.runInProcess(tenant, c.req);
        timed(i, 'in-process', c, performance.now() - t, v.outcome);
        record(i, 'in-process', v, c, sample);
      }
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const runMs = Date.now() - t0;
  const restarts = sandboxes.reduce((n, s) => n + s.restarts, 0);
  await stopAll();

  const sorted = (m: Map<string, number>) => Object.fromEntries([...m.entries()].sort((a, b) => b[1] - a[1]));
  const broken = counts.crashes + counts.responses5xx + counts.contractViolations;
  exitCode = broken > 0 ? 1 : 0;
  const summary = {
    ok: broken === 0,
    seed: SEED,
    ...counts,
    engineRestarts: restarts,
    byStatus: sorted(byStatus),
    bySqlstate: sorted(byOutcome),
    problems: sorted(problems),
    failures,
    timing: { bootMs, runMs, totalMs: Date.now() - started, casesPerSecond: Math.round((counts.cases / runMs) * 1000) },
    latencyMs: latencySummary(),
    slowAnswers: { overMs: SLOW_MS, count: slowCases },
    slowest,
    reproduce: `npm run fuzz -- --cases ${CASES} --seed ${SEED} --http ${HTTP_CASES} --concurrency ${CONCURRENCY} --timeout ${TIMEOUT_MS}`,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} catch (err) {
  console.error('fuzz run failed:', err);
  exitCode = 2;
} finally {
  await stopAll();
}
process.exit(exitCode);
