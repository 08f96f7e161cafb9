/**
 * The SQL engine behind a worker thread: the same PgliteHost, on a thread of its own.
 *
 * PGlite runs PostgreSQL's WebAssembly on the thread that calls it, and its start (compiling the
 * WebAssembly, reading the template, PostgreSQL's own start: most of a cold catalog query) and each
 * query hold that thread until they end. In the thread that serves connections, that is time in
 * which no other session logs in, commits DDL or is answered. A server with many connections (the
 * pgwire endpoint, `npm start`) runs the engine here instead: its start overlaps the server's own
 * (modules, listening, the first login) on the second core, and a long catalog query stalls only
 * the queries behind it. The DDL Lambda keeps the engine in its own thread (one request at a time:
 * a second thread would only add its start).
 *
 * This module is both ends: imported in the serving thread it is {@link WorkerEngineHost}; loaded
 * as a worker (the same file, or the bundle's chunk holding it, found by `import.meta.url`) it
 * serves the engine. Under tsx (`npm start`, tests) the worker registers tsx before loading it.
 */
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import type { Load, RunRequest, RunResult } from '../pglite/host';
import type { SqlEngineHost } from './catalog-sql';

const ROLE = 'ddl-control-plane SQL engine';

export interface EngineWorkerOptions {
  readonly cacheDir?: string;
  readonly templateDir?: string;
}

/**
 * When the worker's start reached each step, as epoch milliseconds (performance.timeOrigin + now,
 * comparable across threads): its code running, its modules loaded, the engine open.
 */
export interface EngineStartSteps {
  readonly running: number;
  readonly imported: number;
  readonly opened: number;
}

/** A load as it crosses to the worker: its rows only when the worker does not hold its key. */
interface SentLoad {
  readonly table: string;
  readonly key: string;
  readonly json?: string;
}

type SentRun = Omit<RunRequest, 'loads'> & { readonly loads: readonly SentLoad[] };

type ToWorker = { readonly id: number; readonly req: SentRun } | { readonly id: number; readonly close: true };

type FromWorker =
  | { readonly ready: true; readonly steps: EngineStartSteps }
  | { readonly failed: string }
  | { readonly id: number; readonly result: RunResult; readonly held: readonly (readonly [string, string])[] }
  | { readonly id: number; readonly error: string; readonly held: readonly (readonly [string, string])[] }
  | { readonly id: number; readonly closed: true };

/** The worker's entry: the bundle's chunk or the .ts file, with tsx registered first when it is TypeScript. */
function workerCode(): string {
  const self = import.meta.url;
  if (!/\.[cm]?ts$/.test(self)) return `import(${JSON.stringify(self)})`;
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(self)}); })`;
}

/** Starts a worker and waits for its engine to open (the template, built first when missing). */
async function spawnEngine(o: EngineWorkerOptions): Promise<{ worker: Worker; steps: EngineStartSteps }> {
  const worker = new Worker(workerCode(), { eval: true, workerData: { role: ROLE, options: o } });
  // The worker never keeps the process alive: a server with open sockets is alive anyway.
  worker.unref();
  const steps = await new Promise<EngineStartSteps>((resolve, reject) => {
    const early = (e: Error) => reject(e);
    const exit = (code: number) => reject(new Error(`the SQL engine's worker exited (${code}) before its engine opened`));
    worker.once('error', early);
    worker.once('exit', exit);
    worker.once('message', (m: FromWorker) => {
      worker.off('error', early);
      worker.off('exit', exit);
      if ('ready' in m) resolve(m.steps);
      else reject(new Error(`the SQL engine could not start: ${'failed' in m ? m.failed : JSON.stringify(m)}`));
    });
  });
  return { worker, steps };
}

/**
 * The serving thread's end: runs go to the worker one at a time, so what it holds is known when
 * each is sent. A worker that dies (PGlite aborting, out of memory) fails the runs it held and is
 * replaced by the next run; after {@link close}, runs fail.
 */
export class WorkerEngineHost implements SqlEngineHost {
  /** The worker serving now (a new one after one dies). */
  private worker: Worker;
  private nextId = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Table → key the worker's engine holds (as it last said). */
  private held = new Map<string, string>();
  private readonly pending = new Map<number, { resolve: (m: FromWorker) => void; reject: (e: Error) => void }>();
  private dead: Error | undefined;
  private closed = false;
  /** Workers started after the first (each after one died). */
  restarts = 0;
  /** When the first worker's start reached each step. */
  readonly steps: EngineStartSteps;

  private constructor(
    started: { worker: Worker; steps: EngineStartSteps },
    private readonly o: EngineWorkerOptions,
  ) {
    this.worker = started.worker;
    this.steps = started.steps;
    this.attach(this.worker);
  }

  private attach(worker: Worker): void {
    worker.on('message', (m: FromWorker) => {
      if ('id' in m) {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        p?.resolve(m);
      }
    });
    const die = (e: Error) => {
      if (worker !== this.worker) return;
      this.dead ??= e;
      for (const p of this.pending.values()) p.reject(this.dead);
      this.pending.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`the SQL engine's worker exited (${code})`)));
  }

  /** Starts the worker and waits for its engine to open. */
  static async open(o: EngineWorkerOptions = {}): Promise<WorkerEngineHost> {
    return new WorkerEngineHost(await spawnEngine(o), o);
  }

  run(req: RunRequest): Promise<RunResult> {
    const next = this.queue.then(() => this.runNow(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(req: RunRequest): Promise<RunResult> {
    if (this.closed) throw new Error("the SQL engine's worker exited: its host was closed");
    if (this.dead) {
      // A new engine holds nothing: every table is sent again.
      this.worker = (await spawnEngine(this.o)).worker;
      this.attach(this.worker);
      this.dead = undefined;
      this.held.clear();
      this.restarts++;
    }
    const loads: SentLoad[] = req.loads.map((l: Load) => (this.held.get(l.table) === l.key ? { table: l.table, key: l.key } : { table: l.table, key: l.key, json: l.json() }));
    const m = await this.send({ req: { ...req, loads } });
    if ('held' in m) this.held = new Map(m.held);
    if ('error' in m) throw new Error(`the SQL engine failed: ${m.error}`);
    if (!('result' in m)) throw new Error('the SQL engine answered out of turn');
    const r = m.result;
    // Buffers cross as Uint8Arrays.
    return r.ok ? { ...r, rows: Buffer.from(r.rows.buffer, r.rows.byteOffset, r.rows.byteLength) } : r;
  }

  private send(body: { readonly req: SentRun } | { readonly close: true }): Promise<FromWorker> {
    if (this.dead) return Promise.reject(this.dead);
    const id = ++this.nextId;
    return new Promise<FromWorker>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...body } as ToWorker);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (!this.dead) await this.send({ close: true }).catch(() => undefined);
    await this.worker.terminate();
  }

  /** Ends the worker as a crash would (tests). */
  async kill(): Promise<void> {
    await this.worker.terminate();
  }
}

/** The worker's end: opens the engine, then answers runs until told to close. */
async function serve(port: MessagePort, o: EngineWorkerOptions): Promise<void> {
  const at = () => performance.timeOrigin + performance.now();
  const running = at();
  const [{ PgliteHost }, { engineSchemaSql }] = await Promise.all([import('../pglite/host'), import('../system/registry')]);
  const imported = at();
  let host;
  try {
    host = await PgliteHost.open({ schemaSql: engineSchemaSql(), ...o });
  } catch (e) {
    port.postMessage({ failed: e instanceof Error ? e.message : String(e) } satisfies FromWorker);
    return;
  }
  port.postMessage({ ready: true, steps: { running, imported, opened: at() } } satisfies FromWorker);
  const h = host;
  port.on('message', (m: ToWorker) => {
    if ('close' in m) {
      void h.close().finally(() => port.postMessage({ id: m.id, closed: true } satisfies FromWorker));
      return;
    }
    const loads: Load[] = m.req.loads.map((l) => ({
      table: l.table,
      key: l.key,
      json: () => {
        // The serving thread sends rows for every key this engine did not hold when the run was sent.
        if (l.json === undefined) throw new Error(`no rows sent for ${l.table} (${l.key})`);
        return l.json;
      },
    }));
    const req: RunRequest = { ...m.req, params: m.req.params.map((p) => (p === null ? null : Buffer.from(p.buffer, p.byteOffset, p.byteLength))), loads };
    h.run(req).then(
      (result) => {
        if (!result.ok) return port.postMessage({ id: m.id, result, held: h.holding() } satisfies FromWorker);
        // The rows are a view of the engine's whole answer: copied out alone, their memory moves across.
        const rows = new Uint8Array(result.rows);
        port.postMessage({ id: m.id, result: { ...result, rows: rows as Buffer }, held: h.holding() } satisfies FromWorker, [rows.buffer]);
      },
      (e: unknown) => port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e), held: h.holding() } satisfies FromWorker),
    );
  });
}

if (!isMainThread && parentPort && (workerData as { role?: string } | undefined)?.role === ROLE) {
  void serve(parentPort, (workerData as { options: EngineWorkerOptions }).options);
}
