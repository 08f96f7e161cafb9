/**
 * The Postgres wire endpoint alone in a fresh process, as the pgwire task serves it (one SqlApi, the
 * SQL engine started first, on its own thread): bench/phases/pgwire.ts bundles this file with esbuild
 * (our code in, node_modules out, as the Lambda bundles) and forks it, to time a cold process's
 * first catalog SELECT and to read the server's own memory with many connections held.
 *
 * `node pgwire-server.mjs '<json>'` with `{ endpoint, table }`: listens on port 0 and sends
 * `{ port, listeningMs, origin }` over IPC (`origin` = performance.timeOrigin, the process's start,
 * so the parent can time from it). Answers `'mem'` with its memory after a full GC
 * (`--expose-gc`, the median of three) and `'exit'` by exiting. With `profile: FILE`, a CPU profile runs from the module
 * code's start (after the imports) until `'profile'` asks for it: it is written to FILE.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const bodyStartMs = performance.now();
const o = JSON.parse(process.argv[2] ?? '{}') as { endpoint: string; table: string; profile?: string };
let session: Session | undefined;
if (o.profile) {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}
// The engine starts first, on its own thread, as the pgwire task (functions/pgwire-server/main.ts)
// starts it: its WebAssembly compiles and PostgreSQL starts while the server's own modules load and
// the first client logs in.
const engine = (await import('../shared/api/engine-worker')).WorkerEngineHost.open();
engine.catch(() => undefined);
const [{ DynamoDBClient }, { DynamoDBDocumentClient }, { SqlApi }, { AppPasswords }, { CatalogStore }, { makeLogger }, { startPgServer }] = await Promise.all([
  import('@aws-sdk/client-dynamodb'),
  import('@aws-sdk/lib-dynamodb'),
  import('../shared/api/sql-api'),
  import('../shared/auth/app-passwords'),
  import('../shared/catalog/store'),
  import('../shared/lambda/logger'),
  import('../shared/pgwire/server'),
]);
const ddb = new DynamoDBClient({ endpoint: o.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 12 });
const doc = DynamoDBDocumentClient.from(ddb, { marshallOptions: { removeUndefinedValues: true } });
const logger = makeLogger('pgwire');
const api = new SqlApi({ store: new CatalogStore(doc, o.table), logger });
api.startEngine(engine);
const server = await startPgServer({ api, passwords: new AppPasswords(doc, o.table), logger, port: 0, host: '127.0.0.1' });
const listeningMs = performance.now();
process.send!({ port: server.port, bodyStartMs, listeningMs, origin: performance.timeOrigin });

process.on('message', (m) => {
  if (m === 'mem') {
    // Three full GCs 100 ms apart, the median RSS of the three (the allocator gives pages back late).
    void (async () => {
      const samples: NodeJS.MemoryUsage[] = [];
      for (let k = 0; k < 3; k++) {
        (globalThis as { gc?: () => void }).gc?.();
        await new Promise((r) => setTimeout(r, 100));
        samples.push(process.memoryUsage());
      }
      const u = samples.sort((a, b) => a.rss - b.rss)[1]!;
      process.send!({ rss: u.rss, heapUsed: u.heapUsed, external: u.external, arrayBuffers: u.arrayBuffers, connections: server.connections });
    })();
  } else if (m === 'profile' && session) {
    void session.post('Profiler.stop').then(({ profile }) => {
      writeFileSync(o.profile!, JSON.stringify(profile));
      process.send!({ profile: o.profile });
    });
  } else if (m === 'engine') {
    // When the engine's worker reached each step of its start, in ms from this process's start.
    void Promise.all([engine, import('../shared/api/catalog-sql')]).then(([h, { firstQuerySteps }]) => {
      const since = (t: number) => t - performance.timeOrigin;
      const q = firstQuerySteps();
      const first = q ? Object.fromEntries(Object.entries(q).map(([k, v]) => [k, since(v)])) : undefined;
      process.send!({ running: since(h.steps.running), imported: since(h.steps.imported), opened: since(h.steps.opened), first });
    });
  } else if (m === 'exit') {
    void server.close().finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
