/**
 * The workers' DynamoDB Locals, restarted between test files once they have done enough work.
 *
 * Why: DynamoDB Local runs every request through one SQLite thread, and its stream requests scan
 * the stream records of every table it has held, deleted ones included (a thread dump of a slow
 * one: `SQLiteQueue` at 100% of a core in `SQLiteDBAccessJob.getStreamDescription`). Each worker's
 * emulator serves the files that worker runs one after another, so a file that came late in a
 * worker ran many times slower than alone: test/catalog/staged-races.test.ts took 16 s on a fresh
 * emulator and 38–75 s on one that had served the chaos run and the race tests (alone on a quiet
 * machine), and 205 s in a fresh-clone `.ci/run`.
 *
 * After each file, the setup file every test file loads (test/setup/invariants.ts) asks here; the
 * worker's emulator is restarted, on the same port, when it has used more than `recycleCpuMs` of
 * CPU since it started serving (the work it did, whatever the clock says; its start-up not
 * counted). A file that never touched it (a pure unit test) costs one loopback request and no
 * restart.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDynamoLocal, type DynamoLocal } from '../../local/emulators';
import { cpuTimeMs } from '../../local/process-cpu';

/** The JVM's own start-up uses about 3 s of CPU; a restart costs about that much. */
export const RECYCLE_CPU_MS = 20_000;

export interface EmulatorControl {
  readonly url: string;
  /** Restarts so far, by worker. */
  readonly restarts: number[];
  stop(): Promise<void>;
}

const cpuOf = (d: DynamoLocal) => (d.process.pid === undefined ? undefined : cpuTimeMs(d.process.pid));

export async function startEmulatorControl(ddbs: DynamoLocal[], o: { maxHeap: string; recycleCpuMs?: number }): Promise<EmulatorControl> {
  const limit = o.recycleCpuMs ?? RECYCLE_CPU_MS;
  const current = [...ddbs];
  const startCpu = current.map((d) => cpuOf(d) ?? 0);
  const restarts = current.map(() => 0);
  // One request at a time per worker (a worker runs one file at a time anyway).
  const queues = current.map(() => Promise.resolve());

  async function afterFile(i: number): Promise<{ restarted: boolean; cpuMs: number | undefined }> {
    const d = current[i]!;
    const now = cpuOf(d);
    const cpuMs = now === undefined ? undefined : now - startCpu[i]!;
    // Without /proc there is no measure of the work done: restart never (as before this existed).
    if (cpuMs === undefined || cpuMs < limit) return { restarted: false, cpuMs };
    await d.stop();
    const fresh = await startDynamoLocal({ port: d.port, maxHeap: o.maxHeap });
    current[i] = fresh;
    startCpu[i] = cpuOf(fresh) ?? 0;
    restarts[i]!++;
    return { restarted: true, cpuMs };
  }

  const server: Server = createServer((req, res) => {
    const m = /^\/dynamodb\/(\d+)\/after-file$/.exec(req.url ?? '');
    const i = m ? Number(m[1]) : -1;
    if (req.method !== 'POST' || !(i >= 0 && i < current.length)) {
      res.writeHead(404).end();
      return;
    }
    const run = queues[i]!.then(() => afterFile(i));
    queues[i] = run.then(
      () => undefined,
      () => undefined,
    );
    run.then(
      (r) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(r)),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    restarts,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(queues);
      await Promise.all(current.map((d) => d.stop()));
    },
  };
}
