/** Small statistics and timing helpers for the benchmark (no dependencies). */
import { readFileSync } from 'node:fs';
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

/** CPU used by this process and (optionally) another one (the DynamoDB Local JVM), as % of one core. */
export class CpuMeter {
  private t0 = 0;
  private self0 = process.cpuUsage();
  private other0 = 0;
  constructor(private readonly otherPid?: number) {}

  start(): this {
    this.t0 = now();
    this.self0 = process.cpuUsage();
    this.other0 = this.otherTicks();
    return this;
  }

  stop(): { benchProcessPct: number; dynamoLocalPct: number | null } {
    const wallMs = now() - this.t0;
    const d = process.cpuUsage(this.self0);
    const benchProcessPct = ((d.user + d.system) / 1000 / wallMs) * 100;
    const other = this.otherTicks();
    const dynamoLocalPct = this.otherPid ? (((other - this.other0) * 10) / wallMs) * 100 : null;
    return { benchProcessPct: Math.round(benchProcessPct), dynamoLocalPct: dynamoLocalPct === null ? null : Math.round(dynamoLocalPct) };
  }

  /** utime + stime in clock ticks (USER_HZ = 100 on Linux), from /proc/<pid>/stat. */
  private otherTicks(): number {
    if (!this.otherPid) return 0;
    try {
      const stat = readFileSync(`/proc/${this.otherPid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  }
}
