/**
 * A CPU profile of the bench process over one measurement (node:inspector, the same sampler as
 * `node --cpu-prof`), saved for DevTools and summarised: self time by function and by where the
 * code lives (our shared/ and local/, the AWS SDK, the SQS emulator, Node internals, ...).
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  readonly file: string;
  readonly sampledMs: number;
  /** Share of samples where the process was busy (not idle, not GC-free waiting). */
  readonly busyPct: number;
  readonly byArea: { area: string; pct: number }[];
  readonly topFunctions: { fn: string; where: string; pct: number }[];
}

function area(url: string, fn: string): string {
  if (url.includes('/bundles/')) return 'the function bundle (our code + bundled dependencies)';
  if (url.includes('/pgwire-server/')) return 'the pgwire server bundle (our code)';
  if (url.startsWith('wasm://')) return 'WebAssembly (PostgreSQL in PGlite, libpg-query)';
  if (url.includes('/node_modules/@electric-sql/pglite/')) return 'PGlite (JS)';
  if (url.startsWith('node:internal/modules') || url.startsWith('node:internal/vm') || url.includes('internal/modules/esm')) return 'Node.js module loader';
  if (!url) return fn === '(idle)' ? 'idle' : fn === '(garbage collector)' ? 'garbage collector' : fn === '(program)' ? 'V8/native (program)' : 'native';
  if (url.includes('/node_modules/@aws-sdk/') || url.includes('/node_modules/@smithy/')) return 'AWS SDK (@aws-sdk, @smithy)';
  if (url.includes('/node_modules/fauxqs/') || url.includes('/node_modules/fastify') || url.includes('/node_modules/@fastify')) return 'SQS emulator (fauxqs)';
  if (url.includes('/node_modules/@aws-lambda-powertools/') || url.includes('/node_modules/@middy/')) return 'Powertools / middy';
  if (url.includes('/node_modules/undici') || url.startsWith('node:internal/deps/undici')) return 'fetch (undici)';
  if (url.includes('/node_modules/zod')) return 'zod';
  if (url.includes('/node_modules/')) return 'other dependencies';
  if (url.includes('/shared/')) return 'product: shared/';
  if (url.includes('/local/')) return 'product: local/ (runtime)';
  if (url.includes('/bench/')) return 'bench harness';
  if (url.startsWith('node:')) return 'Node.js internals';
  return 'other';
}

export class CpuProfiler {
  private session: Session | undefined;

  async start(): Promise<void> {
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
    await this.session.post('Profiler.start');
  }

  async stop(file: string): Promise<ProfileSummary> {
    const s = this.session!;
    const { profile } = (await s.post('Profiler.stop')) as unknown as { profile: Profile };
    s.disconnect();
    writeFileSync(file, JSON.stringify(profile));
    return summarizeProfile(profile, file);
  }
}

/** Self time by area and by function, as shares of the busy (non-idle) time. */
export function summarizeProfile(profile: Profile, file: string): ProfileSummary {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const areas = new Map<string, number>();
  const fns = new Map<string, { fn: string; where: string; us: number }>();
  let idle = 0;
  for (const [id, us] of self) {
    const n = byNode.get(id)!;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    if (a === 'idle') idle += us;
    areas.set(a, (areas.get(a) ?? 0) + us);
    // Files tsx compiled report line 0 (their positions are not mapped back): leave the line out.
    const where = n.callFrame.url ? `${n.callFrame.url.replace(/^.*\/(node_modules|work\/main)\//, '')}${n.callFrame.lineNumber > 0 ? `:${n.callFrame.lineNumber + 1}` : ''}` : '';
    const key = `${n.callFrame.functionName || '(anonymous)'} ${where}`;
    const e = fns.get(key) ?? { fn: n.callFrame.functionName || '(anonymous)', where, us: 0 };
    e.us += us;
    fns.set(key, e);
  }
  const busy = total - idle || 1;
  const pct = (us: number, of: number) => Math.round((us / of) * 1000) / 10;
  return {
    file,
    sampledMs: Math.round(total / 1000),
    busyPct: pct(busy, total),
    // Shares of the busy time.
    byArea: [...areas]
      .filter(([a]) => a !== 'idle')
      .map(([a, us]) => ({ area: a, pct: pct(us, busy) }))
      .sort((x, y) => y.pct - x.pct),
    topFunctions: [...fns.values()]
      .filter((f) => f.fn !== '(idle)')
      .sort((x, y) => y.us - x.us)
      .slice(0, 15)
      .map((f) => ({ fn: f.fn, where: f.where, pct: pct(f.us, busy) })),
  };
}
