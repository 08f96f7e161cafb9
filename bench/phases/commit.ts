/**
 * 1. Commit latency against the floor, and parse + plan on its own.
 *
 * The floor is the one TransactWriteItems a CREATE TABLE commits — exactly the items
 * `CatalogStore.commitItems` builds for the planned change, as `commit()` sends them on a known
 * version: the catalog items, then the version item under its conditions (no staged commit holds
 * the catalog; still the version planned on) with its change log, and the same kind of
 * ClientRequestToken — sent straight to the same DynamoDB Local through the same SDK client. The same statement (fresh name each time) then goes through the
 * DDL handler in-process (`SqlApi.handle`) and over HTTP (`POST /api/sql`: the local API Gateway
 * with its authorizer). The three are interleaved round-robin so that drift (JIT, the JVM, table
 * growth) falls on all of them alike. Everything runs on the commit-only pipeline's table: no
 * router or executor competes.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { newObjectId, newTxnId, SqlApi } from '../../shared/api/sql-api';
import { CatalogStore, type CatalogBasis, type CommitOptions, type IdempotencyRecord, type TxnRecord } from '../../shared/catalog/store';
import { CatalogSnapshot, type CatalogObject } from '../../shared/catalog/model';
import type { ChangeSet } from '../../shared/planner/workspace';
import { Workspace } from '../../shared/planner/workspace';
import { Planner, type PlanContext } from '../../shared/planner/plan';
import { makeLogger } from '../../shared/lambda/logger';
import { parse } from '../../shared/sql/parser';
import { print } from '../../shared/sql/printer';
import type { Pipeline } from '../../local/pipeline';
import { httpNode, newTenant, sqlHttp, sqlHttpFetch, type Bench } from '../lib/harness';
import { now, rounded, summarize, type Summary } from '../lib/stats';
import { CpuProfiler, type ProfileSummary } from '../lib/profile';
import { join } from 'node:path';

export const TABLE_COLUMNS = '(id bigint NOT NULL, name text, price numeric(10,2))';
export const createTable = (name: string) => `CREATE TABLE ${name} ${TABLE_COLUMNS}`;

/** A CatalogStore that times its two I/O steps (the handler's breakdown). */
export class TimedStore extends CatalogStore {
  readonly loadMs: number[] = [];
  readonly commitMs: number[] = [];
  /** Requests whose basis came from the cache. */
  cacheHits = 0;
  override async basis(tenant: string): Promise<CatalogBasis> {
    const t0 = now();
    try {
      const b = await super.basis(tenant);
      if (b.cached) this.cacheHits++;
      return b;
    } finally {
      this.loadMs.push(now() - t0);
    }
  }
  override async commit(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, basis?: CatalogBasis, o?: CommitOptions): Promise<{ optional: boolean }> {
    const t0 = now();
    try {
      return await super.commit(tenant, changes, txn, idempotency, basis, o);
    } finally {
      this.commitMs.push(now() - t0);
    }
  }
}

/**
 * The exact TransactWriteItems input `CatalogStore.commit` sends for `statement` planned over
 * `snapshot` (a change set under 100 items: the normal, unstaged commit).
 */
export function floorTransaction(store: CatalogStore, snapshot: CatalogSnapshot, tenant: string, statement: string, when: Date) {
  return floorCommit(store, snapshot, tenant, statement, when).command;
}

/**
 * Floor transactions for one tenant in a row, each on the version the one before commits: with the
 * version condition and the change log, exactly as `CatalogStore.commit` writes them on a basis.
 */
export function floorChain(store: CatalogStore, basis: CatalogBasis, tenant: string, statements: readonly string[]) {
  let b = basis;
  return statements.map((statement) => {
    const { command, log } = floorCommit(store, b.snapshot, tenant, statement, new Date(), b);
    b = { snapshot: b.snapshot, version: b.version + 1, cached: false, ...(log ? { log } : {}) };
    return command;
  });
}

function floorCommit(store: CatalogStore, snapshot: CatalogSnapshot, tenant: string, statement: string, when: Date, basis?: CatalogBasis) {
  const createdAt = when.toISOString();
  const ctx: PlanContext = { principal: `${tenant}/bench`, now: createdAt, newId: newObjectId };
  const ws = new Workspace(snapshot, createdAt);
  const planner = new Planner(ws, ctx);
  const parsed = parse(statement);
  const tags: string[] = [];
  for (const ps of parsed) {
    const plan = planner.plan(ps);
    if (plan.kind === 'write') tags.push(plan.tag);
  }
  const changes = ws.diff();
  const txn: TxnRecord = { txnId: newTxnId(when), principal: ctx.principal, statements: parsed.map((s) => print(s.statement, { redacted: true })), tags, createdAt };
  // The catalog items, then the version item every commit carries (with a basis: its condition and change log).
  const { items, log } = store.commitItems(tenant, changes, txn, undefined, basis);
  return { command: new TransactWriteCommand({ TransactItems: items, ClientRequestToken: txn.txnId }), log };
}

export interface CommitLatencyResult {
  readonly iterations: number;
  readonly warmup: number;
  readonly statement: string;
  readonly itemsPerTransaction: number;
  readonly floor: Summary;
  readonly inProcess: Summary;
  readonly http: Summary;
  /** GET /api/health over the same HTTP path: what the HTTP row pays on top of the in-process one. */
  readonly httpHop: Summary;
  /**
   * The same POST /api/sql sent with fetch (undici) instead of node:http (its own tenant): what a
   * heavier client library adds. (Runs before 8 December 2026 timed `http` with fetch and this
   * with node:http, as `httpNodeClient`.)
   */
  readonly httpFetchClient?: Summary;
  /** Runs before 8 December 2026: the same POST sent with node:http while `http` was timed with fetch. */
  readonly httpNodeClient?: Summary;
  readonly ratioP50: { inProcess: number; http: number };
  readonly ratioP99: { inProcess: number; http: number };
  /** The in-process handler's I/O: the basis (cached snapshot, or the catalog read) and the commit itself. */
  readonly breakdown: { loadSnapshot: Summary; storeCommit: Summary; restOfHandler: Summary };
  /** Basis p50 over the first and the last 50 measured commits (a catalog read would grow with the catalog; the cache does not). */
  readonly loadSnapshotByCatalogSize: { objects: number; p50: number }[];
  /** Live objects in the in-process tenant's catalog at the end. */
  readonly catalogObjectsAtEnd: number;
  /** Measured requests planned on the cached snapshot. */
  readonly cacheHits: number;
  readonly samples: { floor: number[]; inProcess: number[]; http: number[] };
}

/** A path timed against the floor: `run(i)` commits (or does) its i-th step; `discard()` drops what a warm-up step left in breakdowns. */
export interface TimedPath {
  readonly run: (i: number) => Promise<void>;
  readonly discard?: () => void;
}

export interface AgainstFloor<K extends string> {
  readonly warmup: number;
  readonly iterations: number;
  /** Items of the floor's one TransactWriteItems. */
  readonly itemsPerTransaction: number;
  readonly floor: number[];
  readonly samples: Record<K, number[]>;
}

/**
 * The floor — the TransactWriteItems of a CREATE TABLE (fresh name each time, planned ahead over
 * `floorTenant`'s catalog: the write alone) — and each path, round-robin on the commit-only
 * pipeline, so that drift (JIT, the JVM, table growth) falls on all of them alike; each step timed.
 */
export async function interleavedWithFloor<K extends string>(bench: Bench, floorTenant: string, paths: Record<K, TimedPath>): Promise<AgainstFloor<K>> {
  const p: Pipeline = bench.commitOnly;
  const warmup = bench.quick ? 10 : 30;
  const iterations = bench.quick ? 40 : 300;
  const floorT = await newTenant(p, floorTenant);
  const floorStore = new CatalogStore(p.clients.doc, p.config.catalogTable);
  // Planned ahead: the floor is the write alone — each on the version the one before commits, with
  // the condition and the change log every commit on a known version carries.
  const floorTxns = floorChain(floorStore, await floorStore.basis(floorT.tenant), floorT.tenant, Array.from({ length: warmup + iterations }, (_, i) => createTable(`floor_${i}`)));
  const floor: number[] = [];
  const names = Object.keys(paths) as K[];
  const samples = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < warmup + iterations; i++) {
    const keep = i >= warmup;
    let t0 = now();
    await p.clients.doc.send(floorTxns[i]!);
    if (keep) floor.push(now() - t0);
    for (const k of names) {
      t0 = now();
      await paths[k].run(i);
      if (keep) samples[k].push(now() - t0);
      else paths[k].discard?.();
    }
  }
  return { warmup, iterations, itemsPerTransaction: floorTxns[0]!.input.TransactItems!.length, floor, samples };
}

export async function commitLatency(bench: Bench): Promise<CommitLatencyResult> {
  const p: Pipeline = bench.commitOnly;
  const ipT = await newTenant(p, `${bench.tag}-c1-inproc`);
  const httpT = await newTenant(p, `${bench.tag}-c1-http`);
  const httpFetchT = await newTenant(p, `${bench.tag}-c1-httpf`);
  const store = new TimedStore(p.clients.doc, p.config.catalogTable);
  const api = new SqlApi({ store, logger: makeLogger('bench-ddl-api'), secrets: p.secrets });
  const run = await interleavedWithFloor(bench, `${bench.tag}-c1-floor`, {
    inProcess: {
      run: async (i) => {
        const r = await api.handle(ipT.tenant, `${ipT.tenant}/bench`, JSON.stringify({ query: createTable(`ip_${i}`) }), 'application/json');
        if (r.status !== 200) throw new Error(`in-process commit failed: ${JSON.stringify(r.body)}`);
      },
      discard: () => {
        store.loadMs.pop();
        store.commitMs.pop();
        store.cacheHits = 0;
      },
    },
    http: {
      run: async (i) => {
        const h = await sqlHttp(p.url!, httpT.password, createTable(`http_${i}`));
        if (h.status !== 200) throw new Error(`HTTP commit failed: ${h.status} ${JSON.stringify(h.body)}`);
      },
    },
    httpFetch: {
      run: async (i) => {
        const h = await sqlHttpFetch(p.url!, httpFetchT.password, createTable(`httpf_${i}`));
        if (h.status !== 200) throw new Error(`HTTP (fetch) commit failed: ${h.status} ${JSON.stringify(h.body)}`);
      },
    },
    // The HTTP hop alone: GET /api/health through the same server and handler, no authorizer, no I/O.
    hop: {
      run: async () => {
        const health = await httpNode(p.url!, 'GET', '/api/health');
        if (health.status !== 200) throw new Error(`GET /api/health: ${health.status}`);
      },
    },
  });
  const { warmup, iterations, itemsPerTransaction, floor } = run;
  const { inProcess, http, hop, httpFetch } = run.samples;
  const handlerMs = inProcess;
  const restOfHandler = handlerMs.map((t, i) => t - store.loadMs[i]! - store.commitMs[i]!);
  const f = summarize(floor);
  const ip = summarize(inProcess);
  const ht = summarize(http);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  bench.log(`commit p50: floor ${f.p50.toFixed(2)} ms, in-process ${ip.p50.toFixed(2)} ms, HTTP ${ht.p50.toFixed(2)} ms (with fetch ${summarize(httpFetch).p50.toFixed(2)} ms)`);
  return {
    iterations,
    warmup,
    statement: createTable('<fresh name>'),
    itemsPerTransaction,
    floor: rounded(f),
    inProcess: rounded(ip),
    http: rounded(ht),
    httpHop: rounded(summarize(hop)),
    httpFetchClient: rounded(summarize(httpFetch)),
    ratioP50: { inProcess: r2(ip.p50 / f.p50), http: r2(ht.p50 / f.p50) },
    ratioP99: { inProcess: r2(ip.p99 / f.p99), http: r2(ht.p99 / f.p99) },
    breakdown: { loadSnapshot: rounded(summarize(store.loadMs)), storeCommit: rounded(summarize(store.commitMs)), restOfHandler: rounded(summarize(restOfHandler)) },
    loadSnapshotByCatalogSize: [
      { objects: 2 + warmup + 25, p50: r2(summarize(store.loadMs.slice(0, 50)).p50) },
      { objects: 2 + warmup + iterations - 25, p50: r2(summarize(store.loadMs.slice(-50)).p50) },
    ],
    catalogObjectsAtEnd: (await store.loadSnapshot(ipT.tenant)).all().length,
    cacheHits: store.cacheHits,
    samples: { floor: floor.map(r2), inProcess: inProcess.map(r2), http: http.map(r2) },
  };
}

// ---- parse + plan, no I/O -------------------------------------------------------------------

export interface ParsePlanRow {
  readonly statement: string;
  readonly catalogObjects: number;
  readonly iterations: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly meanUs: number;
  /** Of the mean: parse alone. */
  readonly parseMeanUs: number;
}

/** A catalog of `tables` tables (plus the default database and schema), built in memory from one planned CREATE TABLE. */
export function syntheticSnapshot(base: CatalogSnapshot, tables: number): CatalogSnapshot {
  const at = new Date().toISOString();
  const ws = new Workspace(base, at);
  new Planner(ws, { principal: 'bench', now: at, newId: () => 'u00000000ffff' }).plan(parse(createTable('template_t'))[0]!);
  const template = ws.get('u00000000ffff')!;
  const objects: CatalogObject[] = base.all().map((o) => (o.kind === 'schema' ? ({ ...o, dependents: tables } as CatalogObject) : o));
  const json = JSON.stringify(template);
  for (let i = 0; i < tables; i++) {
    const id = `u${(0x100000 + i).toString(16).padStart(12, '0')}`;
    objects.push(JSON.parse(json.replaceAll('u00000000ffff', id).replaceAll('template_t', `t_${i}`)) as CatalogObject);
  }
  return new CatalogSnapshot(base.tenant, objects);
}

export interface ParsePlanResult {
  readonly rows: ParsePlanRow[];
  /** The one-off load of PostgreSQL's parser (libpg-query), paid by the first body node-sql-parser rejects. */
  readonly pgParserLoadMs?: number;
  /** Where a CREATE TABLE's parse + plan spends its time on the largest catalog (CPU profile, self time). */
  readonly profile?: ProfileSummary & { catalogObjects: number };
}

export async function parsePlan(bench: Bench, tmpDir: string): Promise<ParsePlanResult> {
  const { relationsReferenced, viewShape } = await import('../../shared/sql/view-deps');
  const occasional = await import('../../shared/planner/occasional');
  // PostgreSQL's parser reads the bodies node-sql-parser rejects; its one-off load is its own figure.
  const loadStart = now();
  const pgLoaded = await (await import('../../shared/sql/pg-parser')).loadPgParser();
  const pgParserLoadMs = Math.round(now() - loadStart);
  bench.log(`libpg-query load: ${pgParserLoadMs} ms${pgLoaded ? '' : ' (failed: bodies it would read are refused)'}`);
  const p = bench.commitOnly;
  const t = await newTenant(p, `${bench.tag}-c1-plan`);
  const base = await new CatalogStore(p.clients.doc, p.config.catalogTable).loadSnapshot(t.tenant);
  const statements = [
    createTable('new_t'),
    "CREATE CLUSTER new_c (SIZE = '25cc', REPLICATION FACTOR = 2)",
    'DROP TABLE t_1',
    'CREATE VIEW new_v AS SELECT id, name FROM t_1 WHERE price > 10',
    // node-sql-parser rejects DISTINCT ON: read by PostgreSQL's parser.
    'CREATE VIEW new_d AS SELECT DISTINCT ON (id) id, name FROM t_1',
  ];
  // Tables in the catalog (plus the default database and schema).
  const sizes = bench.quick ? [2, 100] : [2, 100, 1000, 10000];
  const rows: ParsePlanRow[] = [];
  let counter = 0;
  for (const tables of sizes) {
    const snapshot = syntheticSnapshot(base, tables);
    for (const text of statements) {
      if (tables > 100 && text !== statements[0]) continue; // the scaling rows: CREATE TABLE only
      const iterations = tables >= 10000 ? 60 : tables >= 1000 ? 400 : 3000;
      const warm = Math.ceil(iterations / 5);
      const total: number[] = [];
      let parseTotal = 0;
      for (let i = 0; i < warm + iterations; i++) {
        const at = new Date().toISOString();
        const ctx: PlanContext = { principal: 'bench', now: at, newId: () => `u${(counter++).toString(16).padStart(12, '0')}`, relationsReferenced, viewShape, occasional };
        const t0 = now();
        const parsed = parse(text);
        const t1 = now();
        const ws = new Workspace(snapshot, at);
        const planner = new Planner(ws, ctx);
        for (const ps of parsed) planner.plan(ps);
        ws.diff();
        const t2 = now();
        if (i >= warm) {
          total.push((t2 - t0) * 1000);
          parseTotal += (t1 - t0) * 1000;
        }
      }
      const s = summarize(total);
      rows.push({
        statement: text,
        catalogObjects: snapshot.all().length,
        iterations,
        p50Us: Math.round(s.p50 * 10) / 10,
        p99Us: Math.round(s.p99 * 10) / 10,
        meanUs: Math.round(s.mean * 10) / 10,
        parseMeanUs: Math.round((parseTotal / iterations) * 10) / 10,
      });
    }
  }
  for (const r of rows) bench.log(`parse+plan ${r.catalogObjects} objects: ${r.statement.slice(0, 30)}… p50 ${r.p50Us} µs`);

  // Evidence for the scaling: profile CREATE TABLE on the largest catalog measured.
  const largest = sizes[sizes.length - 1]!;
  const snapshot = syntheticSnapshot(base, largest);
  const profiler = new CpuProfiler();
  await profiler.start();
  const t0 = now();
  for (let i = 0; now() - t0 < 1500; i++) {
    const at = new Date().toISOString();
    const ws = new Workspace(snapshot, at);
    new Planner(ws, { principal: 'bench', now: at, newId: () => `u${(counter++).toString(16).padStart(12, '0')}` }).plan(parse(statements[0]!)[0]!);
    ws.diff();
  }
  const profile = await profiler.stop(join(tmpDir, 'parse-plan.cpuprofile'));
  return { rows, pgParserLoadMs, profile: { ...profile, catalogObjects: snapshot.all().length } };
}
