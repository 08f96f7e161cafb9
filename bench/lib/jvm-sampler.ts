/**
 * What DynamoDB Local's own writer is doing: DynamoDB Local runs every read and write of its
 * SQLite store on ONE thread (`SQLiteQueue`); sampling that thread's stack with `jstack` shows
 * whether it is busy and with which of its jobs (the first DynamoDB Local frame under the SQLite
 * call). Needs a JDK's `jstack` on PATH; without it the sampler reports nothing.
 */
import { execFile } from 'node:child_process';

export interface JvmSamples {
  readonly samples: number;
  /** Samples in which the SQLite thread was running (not parked waiting for a job). */
  readonly busyPct: number;
  readonly jobs: { job: string; pct: number }[];
}

function jstack(pid: number): Promise<string> {
  return new Promise((resolve) => execFile('jstack', [String(pid)], { timeout: 5_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => resolve(err ? '' : stdout)));
}

export class JvmSampler {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly counts = new Map<string, number>();
  private n = 0;
  private busy = 0;

  constructor(
    private readonly pid: number,
    private readonly everyMs = 400,
  ) {}

  start(): this {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const dump = await jstack(this.pid);
        const block = dump.split('\n\n').find((b) => b.startsWith('"SQLiteQueue'));
        if (block) {
          this.n++;
          const lines = block.split('\n').map((l) => l.trim());
          const runnable = lines.some((l) => l.includes('State: RUNNABLE'));
          if (runnable) {
            this.busy++;
            // The job: the first DynamoDB Local frame above the SQLite call, and who called it.
            const short = (l: string) => l.replace(/^at (software\.amazon\.dynamodb\.services\.local\.(shared\.access\.sqlite\.)?)?/, '').replace(/\(.*$/, '');
            const ours = lines.filter((l) => l.startsWith('at software.amazon.dynamodb') && !l.includes('AmazonDynamoDBOfflineSQLiteJob')).map(short);
            const job = ours.length ? (ours[1] && ours[1] !== ours[0] ? `${ours[0]} ← ${ours[1]}` : ours[0]!) : short(lines.find((l) => l.startsWith('at ')) ?? 'unknown');
            this.counts.set(job, (this.counts.get(job) ?? 0) + 1);
          }
        }
        await new Promise((r) => setTimeout(r, this.everyMs));
      }
    })();
    return this;
  }

  async stop(): Promise<JvmSamples> {
    this.running = false;
    await this.loop;
    const pct = (k: number) => (this.n ? Math.round((k / this.n) * 1000) / 10 : 0);
    return {
      samples: this.n,
      busyPct: pct(this.busy),
      jobs: [...this.counts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([job, k]) => ({ job, pct: pct(k) })),
    };
  }
}
