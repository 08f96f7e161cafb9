/**
 * 15. The Postgres wire endpoint (issue 28, item 7), every figure a ratio to a floor of the same run:
 *
 * - **commit**: CREATE TABLE over pgwire (node-postgres, a simple Query as psql sends it) against
 *   the floor of commit.ts (the exact TransactWriteItems the statement commits, `floorTransaction`),
 *   interleaved on the commit-only pipeline's table, with the SQL API in-process and the wire's own
 *   round trip (an empty query) beside them;
 * - **cluster read**: the Terraform provider's cluster read (pkg/materialize/cluster.go,
 *   `clusterQuery.QueryPredicate({"mz_clusters.name": ...})`: mz_clusters JOIN mz_roles LEFT JOIN
 *   mz_comments) against a simple SELECT of mz_clusters, both warm on one connection over an
 *   unchanged catalog of 1 000 and 10 000 objects — as the provider sends it (lib/pq with no
 *   arguments: a simple Query with the name as a literal) and with the name as a `$1` parameter
 *   (the extended protocol), interleaved;
 * - **cold**: a fresh process serving pgwire (bench/pgwire-server.ts, bundled) from its start to its
 *   first catalog SELECT answered (the engine loading from its prebuilt template), against a fresh
 *   process's `PGlite.create()` of an empty instance (bench/pglite-create.mjs), interleaved;
 * - **connections**: 200 connections to that server process opened, authenticated (SCRAM), each
 *   answering a catalog query, then held idle: the server's RSS and heap before and after.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { makeLogger } from '../../shared/lambda/logger';
import { startPgServer } from '../../shared/pgwire/server';
import { freshDynamo, newTenant, type Bench, type TenantLogin } from '../lib/harness';
import { CpuProfiler, summarizeProfile, type Profile, type ProfileSummary } from '../lib/profile';
import { now, rounded, sleep, summarize, type Summary } from '../lib/stats';
import { createTable, interleavedWithFloor, TimedStore } from './commit';

/**
 * The provider's query, as pkg/materialize/cluster.go has it (terraform-provider-materialize at
 * 49b83a0, 2026-08-05): `clusterQuery`, to which `QueryPredicate` appends ` WHERE <pred>;` with the
 * value quoted by `QuoteString`.
 */
export const PROVIDER_CLUSTER_QUERY = `
	SELECT
		mz_clusters.id,
		mz_clusters.name,
		mz_clusters.managed,
		mz_clusters.size,
		mz_clusters.replication_factor,
		mz_clusters.disk,
		mz_clusters.availability_zones,
		comments.comment AS comment,
		mz_roles.name AS owner_name,
		mz_clusters.privileges
	FROM mz_clusters
	JOIN mz_roles
		ON mz_clusters.owner_id = mz_roles.id
	LEFT JOIN (
		SELECT id, comment
		FROM mz_internal.mz_comments
		WHERE object_type = 'cluster'
	) comments
		ON mz_clusters.id = comments.id`;
const quoteString = (s: string) => `'${s.replace(/'/g, "''")}'`;
export const providerClusterRead = (name: string) => `${PROVIDER_CLUSTER_QUERY} WHERE mz_clusters.name = ${quoteString(name)};`;
const PROVIDER_CLUSTER_READ_PARAM = `${PROVIDER_CLUSTER_QUERY} WHERE mz_clusters.name = $1;`;
const SIMPLE_READ_PARAM = 'SELECT name FROM mz_clusters WHERE name = $1';
const simpleRead = (name: string) => `SELECT name FROM mz_clusters WHERE name = ${quoteString(name)}`;

export interface PgCommitResult {
  readonly iterations: number;
  readonly warmup: number;
  readonly itemsPerTransaction: number;
  readonly floor: Summary;
  /** `SqlApi.handle` of the same statement in this process (the HTTP phase's in-process figure). */
  readonly inProcess: Summary;
  readonly pgwire: Summary;
  /** An empty query's round trip on the same connection: the wire alone. */
  readonly wireHop: Summary;
  /** The pgwire server's SqlApi: its basis and its store commit (the TransactWriteItems). */
  readonly breakdown: { basis: Summary; storeCommit: Summary; rest: Summary };
  readonly ratioP50: { inProcess: number; pgwire: number };
  readonly ratioP99: { pgwire: number };
}

export interface ClusterReadSize {
  readonly objects: number;
  readonly clusters: number;
  readonly comments: number;
  readonly seedSeconds: number;
  readonly rounds: number;
  /** As the provider sends it: a simple Query, the cluster's name a literal. */
  readonly provider: Summary;
  readonly simple: Summary;
  /** The same two with the name as `$1` (Parse/Bind/Describe/Execute/Sync, as node-postgres sends it). */
  readonly providerParam: Summary;
  readonly simpleParam: Summary;
  readonly ratioP50: { literal: number; param: number };
  /** Rows each answered (1 and 1: the cluster exists, once). */
  readonly rowsAnswered: { provider: number; simple: number };
  /** Where the server's time went during the measured rounds (CPU profile of this process). */
  readonly profile?: ProfileSummary;
}

export interface ColdResult {
  readonly runs: number;
  /** Fresh process start → its first catalog SELECT answered over pgwire (ms), and the steps on the way. */
  readonly catalog: { answered: Summary; bodyStart: Summary; listening: Summary; connected: Summary };
  /**
   * The engine alone (bench/pglite-template.ts): fresh process start → PgliteHost opened the
   * template and answered `SELECT 1` (ms). The part of the first SELECT no server can skip.
   */
  readonly engine: { answered: Summary; opened: Summary; boot: Summary };
  /** The server's engine on its worker thread: when its code ran, its modules were loaded and the engine opened (ms from the server process's start). */
  readonly worker?: { running: Summary; imported: Summary; opened: Summary };
  /** The server's first catalog query (shared/api/catalog-sql.ts firstQuerySteps): when it began, had the parser, had read its inputs, had the engine, had its answer (ms from the process's start). */
  readonly first?: { start: Summary; parser: Summary; inputs: Summary; engine: Summary; answered: Summary };
  /** Fresh process start → `PGlite.create()` of an empty instance returned (ms), and the create call alone. */
  readonly pglite: { created: Summary; create: Summary; boot: Summary };
  readonly ratioP50: number;
  /** The engine alone's p50 over PGlite.create()'s. */
  readonly engineRatioP50: number;
  /** Each run's first SELECT over the PGlite.create() run right after it. */
  readonly pairRatios: number[];
  readonly query: string;
  readonly profile: ProfileSummary;
}

export interface ConnectionsResult {
  readonly target: number;
  /** Logged in (SCRAM). */
  readonly loggedIn: number;
  /** Then answered a catalog query each. */
  readonly answered: number;
  /** Open on the server while held, after the queries. */
  readonly held: number;
  readonly openSeconds: number;
  /** The server's memory after a full GC: the engine warm, no connection; every connection logged in; every one after its query. */
  readonly before: { rssMiB: number; heapMiB: number };
  readonly loggedInMem: { rssMiB: number; heapMiB: number };
  readonly after: { rssMiB: number; heapMiB: number };
  /** Per connection: logged in and idle; and after each answered its query (the engine's own growth included). */
  readonly perConnectionKiB: { rss: number; heap: number; rssAfterQuery: number; heapAfterQuery: number };
  readonly errors: string[];
}

export interface PgwireResult {
  readonly commit?: PgCommitResult;
  readonly clusterRead?: ClusterReadSize[];
  readonly cold?: ColdResult;
  readonly connections?: ConnectionsResult;
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const clientConfig = (port: number, t: TenantLogin) => ({ host: '127.0.0.1', port, user: 'materialize', database: 'materialize', password: t.password, options: `--tenant=${t.tenant}` });

export async function pgwireFigures(bench: Bench, tmpDir: string): Promise<PgwireResult> {
  const out: { -readonly [K in keyof PgwireResult]: PgwireResult[K] } = {};
  out.commit = await commitOverPgwire(bench);
  out.cold = await coldFirstSelect(bench, tmpDir);
  out.connections = await heldConnections(bench, tmpDir);
  out.clusterRead = await clusterReads(bench, tmpDir);
  return out;
}

// ---- commit -------------------------------------------------------------------------------------

async function commitOverPgwire(bench: Bench): Promise<PgCommitResult> {
  const p = bench.commitOnly;
  const ipT = await newTenant(p, `${bench.tag}-pg-inproc`);
  const pgT = await newTenant(p, `${bench.tag}-pg-wire`);
  const logger = makeLogger('bench-pgwire');
  const ipApi = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger });
  // The wire endpoint on the commit-only pipeline's table, as local/pipeline.ts serves it.
  const store = new TimedStore(p.clients.doc, p.config.catalogTable);
  const server = await startPgServer({ api: new SqlApi({ store, logger }), passwords: p.passwords, logger, port: 0, host: '127.0.0.1' });
  const client = new pg.Client(clientConfig(server.port, pgT));
  await client.connect();
  try {
    const run = await interleavedWithFloor(bench, `${bench.tag}-pg-floor`, {
      inProcess: {
        run: async (i) => {
          const r = await ipApi.handle(ipT.tenant, `${ipT.tenant}/bench`, JSON.stringify({ query: createTable(`ip_${i}`) }), 'application/json');
          if (r.status !== 200) throw new Error(`in-process commit failed: ${JSON.stringify(r.body)}`);
        },
      },
      pgwire: {
        run: async (i) => {
          const before = store.commitMs.length;
          await client.query(createTable(`pg_${i}`));
          if (store.commitMs.length !== before + 1) throw new Error('the pgwire CREATE TABLE did not commit once');
        },
        discard: () => {
          store.loadMs.pop();
          store.commitMs.pop();
        },
      },
      // The wire's own round trip: an empty query, answered without the SQL API.
      wireHop: { run: async () => void (await client.query(';')) },
    });
    const f = summarize(run.floor);
    const ip = summarize(run.samples.inProcess);
    const w = summarize(run.samples.pgwire);
    const rest = run.samples.pgwire.map((t, i) => t - store.loadMs[i]! - store.commitMs[i]!);
    bench.log(`pgwire commit p50: floor ${f.p50.toFixed(2)} ms, in-process ${ip.p50.toFixed(2)} ms, pgwire ${w.p50.toFixed(2)} ms (${(w.p50 / f.p50).toFixed(2)}×)`);
    return {
      iterations: run.iterations,
      warmup: run.warmup,
      itemsPerTransaction: run.itemsPerTransaction,
      floor: rounded(f),
      inProcess: rounded(ip),
      pgwire: rounded(w),
      wireHop: rounded(summarize(run.samples.wireHop)),
      breakdown: { basis: rounded(summarize(store.loadMs), 3), storeCommit: rounded(summarize(store.commitMs)), rest: rounded(summarize(rest)) },
      ratioP50: { inProcess: r2(ip.p50 / f.p50), pgwire: r2(w.p50 / f.p50) },
      ratioP99: { pgwire: r2(w.p99 / f.p99) },
    };
  } finally {
    await client.end().catch(() => undefined);
    await server.close();
  }
}

// ---- the provider's cluster read -----------------------------------------------------------------

async function clusterReads(bench: Bench, tmpDir: string): Promise<ClusterReadSize[]> {
  const dynamo = await freshDynamo(bench.log, '2g');
  let p: Pipeline | undefined;
  try {
    p = await startPipeline({ dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: bench.sqs.endpoint, prefix: `${bench.tag}-pgread-`, workers: false, fastPath: false, fullPass: false, profile: 'deployed', pgPort: 0 });
    const out: ClusterReadSize[] = [];
    for (const objects of bench.quick ? [200, 1000] : [1000, 10000]) out.push(await clusterReadAt(bench, p, objects, tmpDir));
    return out;
  } finally {
    await p?.stop();
    await dynamo.stop();
  }
}

/**
 * A catalog as a Terraform-managed environment has it: one object in ten a cluster or its replica
 * (a cluster of one replica per twenty objects, each with a comment), the rest tables (one in four
 * with a comment), plus the default database and schema.
 */
function seedStatements(objects: number): { statements: string[]; clusters: number; comments: number } {
  const clusters = Math.max(1, Math.floor(objects / 20));
  const tables = objects - 2 - 2 * clusters;
  const statements: string[] = [];
  let comments = 0;
  for (let c = 0; c < clusters; c++) {
    statements.push(`CREATE CLUSTER tf_cluster_${c} (SIZE = '25cc', REPLICATION FACTOR = 1)`, `COMMENT ON CLUSTER tf_cluster_${c} IS 'managed by terraform, cluster ${c}'`);
    comments++;
  }
  for (let t = 0; t < tables; t++) {
    statements.push(`CREATE TABLE tf_table_${t} (id bigint NOT NULL, name text)`);
    if (t % 4 === 0) {
      statements.push(`COMMENT ON TABLE tf_table_${t} IS 'table ${t}'`);
      comments++;
    }
  }
  return { statements, clusters, comments };
}

async function clusterReadAt(bench: Bench, p: Pipeline, objects: number, tmpDir: string): Promise<ClusterReadSize> {
  const logger = makeLogger('bench-pgwire-seed');
  const login = await newTenant(p, `${bench.tag}pgread${objects}`);
  const seeder = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger });
  const { statements, clusters, comments } = seedStatements(objects);
  const seedStart = now();
  for (let i = 0; i < statements.length; i += 100) {
    const r = await seeder.handle(login.tenant, `${login.tenant}/bench`, JSON.stringify({ query: statements.slice(i, i + 100).join(';\n') }), 'application/json');
    if (r.status !== 200) throw new Error(`seeding: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  const seedSeconds = Math.round((now() - seedStart) / 100) / 10;
  const catalogObjects = (await new CatalogStore(p.clients.doc, p.config.catalogTable).loadSnapshot(login.tenant)).all().length;
  bench.log(`pgwire cluster read: ${catalogObjects} objects (${clusters} clusters, ${comments} comments) seeded in ${seedSeconds} s`);

  const client = new pg.Client(clientConfig(p.pgPort!, login));
  await client.connect();
  try {
    const name = `tf_cluster_${Math.floor(clusters / 2)}`;
    const kinds = {
      provider: () => client.query(providerClusterRead(name)),
      simple: () => client.query(simpleRead(name)),
      providerParam: () => client.query(PROVIDER_CLUSTER_READ_PARAM, [name]),
      simpleParam: () => client.query(SIMPLE_READ_PARAM, [name]),
    } as const;
    const samples: Record<keyof typeof kinds, number[]> = { provider: [], simple: [], providerParam: [], simpleParam: [] };
    const rowsAnswered = { provider: 0, simple: 0 };
    const warm = bench.quick ? 3 : 5;
    const rounds = bench.quick ? 15 : 40;
    const order = Object.keys(kinds) as (keyof typeof kinds)[];
    const profiler = new CpuProfiler();
    for (let k = 0; k < warm + rounds; k++) {
      if (k === warm) await profiler.start();
      // Each round in a rotated order: drift and any after-effect of one query fall on all four.
      for (let j = 0; j < order.length; j++) {
        const kind = order[(k + j) % order.length]!;
        const t0 = now();
        const r = await kinds[kind]();
        const dt = now() - t0;
        if (k >= warm) samples[kind].push(dt);
        if (kind === 'provider') rowsAnswered.provider = r.rowCount ?? 0;
        if (kind === 'simple') rowsAnswered.simple = r.rowCount ?? 0;
      }
    }
    const profile = await profiler.stop(join(tmpDir, `pgwire-cluster-read-${objects}.cpuprofile`));
    const s = { provider: summarize(samples.provider), simple: summarize(samples.simple), providerParam: summarize(samples.providerParam), simpleParam: summarize(samples.simpleParam) };
    const size: ClusterReadSize = {
      objects: catalogObjects,
      clusters,
      comments,
      seedSeconds,
      rounds,
      provider: rounded(s.provider),
      simple: rounded(s.simple),
      providerParam: rounded(s.providerParam),
      simpleParam: rounded(s.simpleParam),
      ratioP50: { literal: r2(s.provider.p50 / s.simple.p50), param: r2(s.providerParam.p50 / s.simpleParam.p50) },
      rowsAnswered,
      profile,
    };
    bench.log(
      `pgwire cluster read @${catalogObjects}: provider ${s.provider.p50.toFixed(2)} ms vs simple ${s.simple.p50.toFixed(2)} ms (${size.ratioP50.literal}×); with $1: ${s.providerParam.p50.toFixed(2)} vs ${s.simpleParam.p50.toFixed(2)} ms (${size.ratioP50.param}×)`,
    );
    return size;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// ---- a fresh server process ----------------------------------------------------------------------

/**
 * bench/pgwire-server.ts and bench/pglite-template.ts bundled as a deployable server would be: our
 * code in, node_modules out, code splitting on (as the DDL function's bundle: what the code loads
 * with `import()` stays out of the start-up, as it does under tsx).
 */
/** The image's NODE_OPTIONS (cdk/constructs/pgwire-service.ts pgwireDockerfile): stack traces through the source maps. */
const IMAGE_NODE_OPTIONS = ['--enable-source-maps'];

async function serverBundles(tmpDir: string): Promise<{ server: string; engine: string }> {
  // As the pgwire image is built (cdk/constructs/pgwire-service.ts stagePgwireImage): minified ES
  // modules with code splitting, the AWS SDK bundled in, PGlite's WebAssembly and the engine's
  // template beside the chunk that reads them. The engine alone is bundled the same way.
  const { bundleFunction } = await import('../../cdk/constructs/ddl-function');
  const dir = (name: string) => {
    const d = join(tmpDir, name);
    rmSync(d, { recursive: true, force: true });
    return d;
  };
  const server = dir('pgwire-server');
  const engine = dir('pgwire-engine');
  bundleFunction({ entry: join(import.meta.dirname, '..', 'pgwire-server.ts'), splitChunks: true, sdk: 'bundled' }, server);
  bundleFunction({ entry: join(import.meta.dirname, '..', 'pglite-template.ts'), splitChunks: true, sdk: 'bundled' }, engine);
  return { server: join(server, 'index.mjs'), engine: join(engine, 'index.mjs') };
}

interface ServerChild {
  readonly child: ChildProcess;
  readonly port: number;
  readonly origin: number;
  readonly bodyStartMs: number;
  readonly listeningMs: number;
  ask<T>(message: string): Promise<T>;
  stop(): Promise<void>;
}

async function startServerChild(bundle: string, endpoint: string, table: string, execArgv: string[] = [], profile?: string): Promise<ServerChild> {
  const child = fork(bundle, [JSON.stringify({ endpoint, table, ...(profile ? { profile } : {}) })], { execArgv: [...IMAGE_NODE_OPTIONS, ...execArgv], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: process.env });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const first = await new Promise<{ port: number; origin: number; bodyStartMs: number; listeningMs: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pgwire server child did not listen within 120 s: ${stderr}`)), 120_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as never);
    });
    child.once('exit', (code) => reject(new Error(`pgwire server child exited (${code}): ${stderr}`)));
  });
  return {
    child,
    ...first,
    ask: <T>(message: string) =>
      new Promise<T>((resolve) => {
        child.once('message', (m) => resolve(m as T));
        child.send(message);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.send('exit');
      }),
  };
}

/** The parent's clock on the child's scale: ms since the child's process started. */
const sinceOrigin = (origin: number) => performance.timeOrigin + performance.now() - origin;

/** A child that prints one JSON line of times (ms from its process's start). */
async function jsonChild<T>(args: string[]): Promise<T> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = stdout.trim().split('\n').pop();
  if (code !== 0 || !line) throw new Error(`${args.join(' ').slice(0, 200)} failed (${code}): ${stderr}`);
  return JSON.parse(line) as T;
}

async function coldFirstSelect(bench: Bench, tmpDir: string): Promise<ColdResult> {
  const p = bench.commitOnly;
  const login = await newTenant(p, `${bench.tag}-pg-cold`);
  const seed = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger: makeLogger('bench-pgwire') });
  await seed.handle(login.tenant, `${login.tenant}/bench`, JSON.stringify({ query: "CREATE CLUSTER tf_cold (SIZE = '25cc', REPLICATION FACTOR = 1)" }), 'application/json');
  // Each bundle ships the engine's prebuilt template, as the image does (built before any measured start).
  const bundles = await serverBundles(tmpDir);
  const query = simpleRead('tf_cold');

  const oneCatalog = async (profile?: string) => {
    const s = await startServerChild(bundles.server, bench.dynamoCommit.endpoint, p.config.catalogTable, [], profile);
    try {
      const client = new pg.Client(clientConfig(s.port, login));
      await client.connect();
      const connected = sinceOrigin(s.origin);
      const r = await client.query(query);
      const answered = sinceOrigin(s.origin);
      await client.end();
      if (r.rowCount !== 1) throw new Error(`cold SELECT answered ${r.rowCount} rows`);
      if (profile) await s.ask('profile');
      const worker = await s.ask<{ running: number; imported: number; opened: number; first?: { start: number; parser: number; inputs: number; engine: number; answered: number } }>('engine');
      if (!worker.first) throw new Error('the cold server recorded no first catalog query');
      return { bodyStart: s.bodyStartMs, listening: s.listeningMs, connected, answered, worker };
    } finally {
      await s.stop();
    }
  };
  const oneEngine = () => jsonChild<{ bootMs: number; openedMs: number; answeredMs: number }>([...IMAGE_NODE_OPTIONS, bundles.engine]);
  const onePglite = () => jsonChild<{ bootMs: number; createMs: number; createdMs: number }>([join(import.meta.dirname, '..', 'pglite-create.mjs')]);
  // Not measured: the page cache holds every child's files afterwards, for all alike.
  await oneCatalog();
  await oneEngine();
  await onePglite();
  const runs = bench.quick ? 2 : 5;
  const catalog: Awaited<ReturnType<typeof oneCatalog>>[] = [];
  const engine: Awaited<ReturnType<typeof oneEngine>>[] = [];
  const pglite: Awaited<ReturnType<typeof onePglite>>[] = [];
  for (let k = 0; k < runs; k++) {
    catalog.push(await oneCatalog());
    engine.push(await oneEngine());
    pglite.push(await onePglite());
  }
  const answered = summarize(catalog.map((c) => c.answered));
  const created = summarize(pglite.map((c) => c.createdMs));
  const engineAnswered = summarize(engine.map((c) => c.answeredMs));
  const ratio = r2(answered.p50 / created.p50);
  bench.log(
    `pgwire cold: first catalog SELECT answered ${answered.p50.toFixed(0)} ms after the process started vs PGlite create() done at ${created.p50.toFixed(0)} ms (${ratio}×); the engine alone from its template answered at ${engineAnswered.p50.toFixed(0)} ms (${r2(engineAnswered.p50 / created.p50)}×)`,
  );
  // Where a cold start spends its time: one more run, profiled from the module code's start to the answer.
  const file = join(tmpDir, 'pgwire-cold.cpuprofile');
  await oneCatalog(file);
  const profile = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile, file);
  return {
    runs,
    catalog: {
      answered: rounded(answered),
      bodyStart: rounded(summarize(catalog.map((c) => c.bodyStart))),
      listening: rounded(summarize(catalog.map((c) => c.listening))),
      connected: rounded(summarize(catalog.map((c) => c.connected))),
    },
    worker: {
      running: rounded(summarize(catalog.map((c) => c.worker.running))),
      imported: rounded(summarize(catalog.map((c) => c.worker.imported))),
      opened: rounded(summarize(catalog.map((c) => c.worker.opened))),
    },
    first: Object.fromEntries((['start', 'parser', 'inputs', 'engine', 'answered'] as const).map((k) => [k, rounded(summarize(catalog.map((c) => c.worker.first![k])))])) as NonNullable<ColdResult['first']>,
    engine: { answered: rounded(engineAnswered), opened: rounded(summarize(engine.map((c) => c.openedMs))), boot: rounded(summarize(engine.map((c) => c.bootMs))) },
    pglite: { created: rounded(created), create: rounded(summarize(pglite.map((c) => c.createMs))), boot: rounded(summarize(pglite.map((c) => c.bootMs))) },
    ratioP50: ratio,
    engineRatioP50: r2(engineAnswered.p50 / created.p50),
    pairRatios: catalog.map((c, k) => r2(c.answered / pglite[k]!.createdMs)),
    query,
    profile,
  };
}

async function heldConnections(bench: Bench, tmpDir: string): Promise<ConnectionsResult> {
  const p = bench.commitOnly;
  const target = bench.quick ? 50 : 200;
  const login = await newTenant(p, `${bench.tag}-pg-conns`);
  const { server } = await serverBundles(tmpDir);
  const s = await startServerChild(server, bench.dynamoCommit.endpoint, p.config.catalogTable, ['--expose-gc']);
  const clients: pg.Client[] = [];
  const errors: string[] = [];
  const query = 'SELECT count(*) FROM mz_clusters';
  try {
    // The engine and the tenant's snapshot loaded first, by a connection that then leaves: what
    // follows is the connections' own memory.
    const first = new pg.Client(clientConfig(s.port, login));
    await first.connect();
    await first.query(query);
    await first.end();
    await sleep(500);
    type Mem = { rss: number; heapUsed: number; connections: number };
    const mem0 = await s.ask<Mem>('mem');
    const t0 = now();
    // 25 at a time: each login reads the tenant's SCRAM verifiers, within the 10 s startup limit.
    for (let k = 0; k < target; k += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, target - k) }, async () => {
          const c = new pg.Client(clientConfig(s.port, login));
          try {
            await c.connect();
            clients.push(c);
          } catch (e) {
            errors.push((e as Error).message);
          }
        }),
      );
    }
    await sleep(500);
    const mem1 = await s.ask<Mem>('mem');
    let answered = 0;
    for (let k = 0; k < clients.length; k += 25) {
      await Promise.all(
        clients.slice(k, k + 25).map(async (c) => {
          try {
            await c.query(query);
            answered++;
          } catch (e) {
            errors.push((e as Error).message);
          }
        }),
      );
    }
    const openSeconds = Math.round((now() - t0) / 100) / 10;
    await sleep(500);
    const mem2 = await s.ask<Mem>('mem');
    const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
    const per = (a: number, b: number, n: number) => Math.round(((b - a) / 1024 / Math.max(1, n)) * 10) / 10;
    const n = mem1.connections - mem0.connections;
    const result: ConnectionsResult = {
      target,
      loggedIn: clients.length,
      answered,
      held: mem2.connections,
      openSeconds,
      before: { rssMiB: mib(mem0.rss), heapMiB: mib(mem0.heapUsed) },
      loggedInMem: { rssMiB: mib(mem1.rss), heapMiB: mib(mem1.heapUsed) },
      after: { rssMiB: mib(mem2.rss), heapMiB: mib(mem2.heapUsed) },
      perConnectionKiB: { rss: per(mem0.rss, mem1.rss, n), heap: per(mem0.heapUsed, mem1.heapUsed, n), rssAfterQuery: per(mem0.rss, mem2.rss, n), heapAfterQuery: per(mem0.heapUsed, mem2.heapUsed, n) },
      errors: [...new Set(errors)].slice(0, 5),
    };
    bench.log(
      `pgwire connections: ${clients.length}/${target} logged in, ${answered} answered, ${mem2.connections} held; RSS ${result.before.rssMiB} → ${result.loggedInMem.rssMiB} → ${result.after.rssMiB} MiB (${result.perConnectionKiB.rss} KiB each logged in, ${result.perConnectionKiB.rssAfterQuery} after a query), heap ${result.before.heapMiB} → ${result.loggedInMem.heapMiB} → ${result.after.heapMiB} MiB`,
    );
    return result;
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await s.stop();
  }
}
