/**
 * Drives the system under test in a child process (sut-process.ts): requests in process over IPC
 * and over HTTP, each with a deadline. A child that dies or stops answering is a failure of that
 * case (the Lambda would have timed out or crashed: a 5xx for the client); it is killed and a
 * fresh one started, and the run goes on.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FuzzRequest } from './arbitraries';
import { checkResponse, postRaw, type Verdict } from './harness';
import { watchForHang } from '../helpers/budget';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');

export type WireRequest = { body: string | { hex: string }; contentType: string | undefined; headers: Record<string, string> };
export type ParentMessage =
  | { type: 'tenant'; id: number; tenant: string }
  | { type: 'run'; id: number; tenant: string; req: WireRequest }
  | { type: 'invalidate'; tenant: string }
  | { type: 'stop' };
export type ChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'tenant'; id: number; password: string }
  | { type: 'verdict'; id: number; verdict: Verdict }
  | { type: 'failed'; id: number; message: string };

export interface SandboxOptions {
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  /** The table/queue prefix (the child ensures the resources exist; an existing pipeline's prefix is fine). */
  readonly prefix: string;
  /**
   * A case counts as a hang when the child spent this much CPU time on it without answering
   * (a stuck loop), or waited 12 times as long on the clock (stuck on something else). CPU time,
   * not the clock: on a loaded machine a slow answer is not a hang.
   */
  readonly timeoutMs?: number;
  /** Heap cap of the child, so a runaway allocation ends in seconds. */
  readonly maxOldSpaceMb?: number;
}

/** A case waiting this many times its CPU budget on the clock, whatever it used, is stuck too. */
const WALL_FACTOR = 12;

const toWire = (r: FuzzRequest): WireRequest => ({ body: typeof r.body === 'string' ? r.body : { hex: r.body.toString('hex') }, contentType: r.contentType, headers: r.headers });

export class Sandbox {
  private child: ChildProcess | undefined;
  private url_ = '';
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (m: ChildMessage) => void; reject: (e: Error) => void }>();
  private readonly passwords = new Map<string, string>();
  /** Children that died or hung and were replaced. */
  restarts = 0;

  private constructor(private readonly o: SandboxOptions) {}

  static async start(o: SandboxOptions): Promise<Sandbox> {
    const s = new Sandbox(o);
    await s.spawn();
    return s;
  }

  get url(): string {
    return this.url_;
  }

  get timeoutMs(): number {
    return this.o.timeoutMs ?? 5_000;
  }

  private spawn(): Promise<void> {
    const child = fork(join(HERE, 'sut-process.ts'), [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', `--max-old-space-size=${this.o.maxOldSpaceMb ?? 768}`],
      env: {
        ...process.env,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        FUZZ_SUT_OPTIONS: JSON.stringify({ dynamodbEndpoint: this.o.dynamodbEndpoint, sqsEndpoint: this.o.sqsEndpoint, prefix: this.o.prefix }),
      },
      // V8's fatal-error reports go to stderr: keep them out of the fuzzer's output.
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    this.child = child;
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) => {
        if (this.child === child) this.child = undefined;
        for (const [, w] of this.pending) w.reject(new Error(`the system under test exited (${signal ?? `code ${code}`})`));
        this.pending.clear();
        reject(new Error(`the system under test exited before it was ready (${signal ?? `code ${code}`})`));
      };
      child.once('exit', onExit);
      child.on('message', (m: ChildMessage) => {
        if (m.type === 'ready') {
          this.url_ = m.url;
          resolve();
          return;
        }
        const w = this.pending.get(m.id);
        if (!w) return;
        this.pending.delete(m.id);
        if (m.type === 'failed') w.reject(new Error(m.message));
        else w.resolve(m);
      });
    });
  }

  /** Kills a dead or hung child (ours, by its handle) and starts a fresh one. */
  private async respawn(): Promise<void> {
    const old = this.child;
    this.child = undefined;
    if (old && old.exitCode === null && old.signalCode === null) {
      const exited = new Promise((r) => old.once('exit', r));
      old.kill('SIGKILL');
      await exited;
    }
    this.restarts++;
    await this.spawn();
  }

  private call(m: { type: 'tenant'; tenant: string } | { type: 'run'; tenant: string; req: WireRequest }, timeoutMs: number): Promise<ChildMessage> {
    const child = this.child;
    if (!child) return Promise.reject(new Error('the system under test is not running'));
    const id = this.nextId++;
    return new Promise<ChildMessage>((resolve, reject) => {
      const unwatch = watchForHang(child.pid, timeoutMs, timeoutMs * WALL_FACTOR, (why) => {
        this.pending.delete(id);
        reject(new HangError(why));
      });
      this.pending.set(id, {
        resolve: (r) => {
          unwatch();
          resolve(r);
        },
        reject: (e) => {
          unwatch();
          reject(e);
        },
      });
      child.send({ ...m, id } as ParentMessage);
    });
  }

  /** A tenant with the prelude's objects, and its app password (created once). */
  async tenant(tenant: string): Promise<string> {
    const known = this.passwords.get(tenant);
    if (known) return known;
    const r = await this.call({ type: 'tenant', tenant }, 60_000);
    if (r.type !== 'tenant') throw new Error(`unexpected answer ${r.type}`);
    this.passwords.set(tenant, r.password);
    return r.password;
  }

  /** One case through SqlApi.handle in the child. */
  async runInProcess(tenant: string, req: FuzzRequest): Promise<Verdict> {
    try {
      const r = await this.call({ type: 'run', tenant, req: toWire(req) }, this.timeoutMs);
      return r.type === 'verdict' ? r.verdict : { outcome: 'crash', problem: `unexpected answer ${r.type}` };
    } catch (e) {
      await this.respawn();
      return { outcome: 'crash', problem: `the engine ${e instanceof HangError ? 'hung' : 'died'}: ${(e as Error).message}` };
    }
  }

  /** One case over HTTP to the child's API. */
  async runHttp(tenant: string, req: FuzzRequest): Promise<Verdict> {
    const password = await this.tenant(tenant);
    const abort = new AbortController();
    let hung: string | undefined;
    const unwatch = watchForHang(this.child?.pid, this.timeoutMs, this.timeoutMs * WALL_FACTOR, (why) => {
      hung = why;
      abort.abort();
    });
    try {
      const a = await postRaw(this.url, password, req, abort.signal);
      return { ...checkResponse(a.status, a.body, req.body), status: a.status };
    } catch (e) {
      await this.respawn();
      return { outcome: 'crash', problem: `the HTTP API ${hung ? `hung: ${hung}` : `failed: ${(e as Error).message}`}` };
    } finally {
      unwatch();
      this.child?.send({ type: 'invalidate', tenant } satisfies ParentMessage);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.send({ type: 'stop' } satisfies ParentMessage);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

class HangError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HangError';
  }
}
