/** Small statistics and timing helpers for the benchmark (no dependencies). */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export const now = (): number => performance.now();

export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, min: s[0] ?? NaN, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN, mean };
}

/** Rounds every number in a summary (for the JSON and the table). */
export function rounded<T extends object>(o: T, digits = 2): T {
  const f = 10 ** digits;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = typeof v === 'number' ? Math.round(v * f) / f : v;
  return out as T;
}

export function fmt(x: number, digits = 1): string {
  if (!Number.isFinite(x)) return 'n/a';
  return x.toFixed(digits);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `check` is truthy; returns the value or undefined after the timeout. */
export async function until<T>(check: () => Promise<T | undefined | false | null>, timeoutMs: number, everyMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}

/** Runs `clients` loops until `durationMs` has passed (each loop gets its client index and iteration). */
export async function closedLoop(clients: number, durationMs: number, body: (client: number, iteration: number) => Promise<void>): Promise<number> {
  const start = now();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; now() < deadline; i++) await body(c, i);
    }),
  );
  return now() - start;
}

export interface CpuUse {
  /** This (the bench) process: clients, local API Gateway, handlers, router, executors, SQS emulator. */
  readonly benchProcessPct: number;
  /** The DynamoDB Local JVM, all threads. */
  readonly dynamoLocalPct: number | null;
  /** DynamoDB Local's `SQLiteQueue` thread alone: it runs every read and write of its store, one at a time, so 100 % means the emulator is saturated whatever the other core does. */
  readonly dynamoLocalSqliteThreadPct: number | null;
}

/** CPU used, as % of one core, by this process and the DynamoDB Local JVM (and its single SQLite thread). Linux /proc only. */
export class CpuMeter {
  private t0 = 0;
  private self0 = process.cpuUsage();
  private other0 = 0;
  private thread0 = 0;
  private readonly sqliteTid: number | undefined;
  constructor(private readonly otherPid?: number) {
    this.sqliteTid = otherPid ? sqliteThread(otherPid) : undefined;
  }

  start(): this {
    this.t0 = now();
    this.self0 = process.cpuUsage();
    this.other0 = this.otherPid ? ticks(`/proc/${this.otherPid}/stat`) : 0;
    this.thread0 = this.sqliteTid ? ticks(`/proc/${this.otherPid}/task/${this.sqliteTid}/stat`) : 0;
    return this;
  }

  stop(): CpuUse {
    const wallMs = now() - this.t0;
    const d = process.cpuUsage(this.self0);
    const pct = (t: number) => Math.round(((t * 10) / wallMs) * 100);
    return {
      benchProcessPct: Math.round(((d.user + d.system) / 1000 / wallMs) * 100),
      dynamoLocalPct: this.otherPid ? pct(ticks(`/proc/${this.otherPid}/stat`) - this.other0) : null,
      dynamoLocalSqliteThreadPct: this.sqliteTid ? pct(ticks(`/proc/${this.otherPid}/task/${this.sqliteTid}/stat`) - this.thread0) : null,
    };
  }
}

/** utime + stime in clock ticks (USER_HZ = 100 on Linux). */
function ticks(statFile: string): number {
  try {
    const stat = readFileSync(statFile, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function sqliteThread(pid: number): number | undefined {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith('SQLiteQueue')) return Number(tid);
    }
  } catch {
    /* not Linux, or the process is gone */
  }
  return undefined;
}
