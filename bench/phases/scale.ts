/**
 * Issue 16's "numbers to show": the status path and the sweeper with the real code against
 * DynamoDB Local at three catalog sizes (tenants of 1 000 objects, 5 % of them connectors), fitted
 * by the model in bench/lib/scale-model.ts and extrapolated to 10 000 tenants × 1 000 objects.
 *
 * The catalog is built like the sweeper phase's (phases/sweeper.ts): one real CREATE CLUSTER,
 * CREATE SOURCE (a load generator, so the reference data plane runs it without an upstream) and
 * CREATE TABLE committed in the live pipeline, settled by its executors and reported `running` by
 * its reference data plane; then every item they left — catalog objects, name guards, settled
 * effects, the source's status and history, the data plane's replica, ingestion and collections —
 * copied with BatchWriteItem for each tenant and object, ids and names replaced. Transaction
 * records and idempotency answers are not copied (nothing measured reads them).
 *
 * Time is virtual where it can be: the sweeper, status-ingest and the reference data plane's
 * health monitor each take a clock, so a heartbeat round, a silence of minutes and a full pass
 * hours later run back to back. Only the stall latency (report → visible in
 * mz_source_statuses) runs on the real clock. Read and write units are DynamoDB's own
 * ConsumedCapacity figures (bench/lib/capacity-meter.ts) on the control plane's calls only: the
 * reference data plane's reads (its health checks) are the data plane's cost, not counted.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { PurgeQueueCommand, type SQSClient, type SendMessageCommand } from '@aws-sdk/client-sqs';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { StatusStore, deadlineKeys, type StoredStatus } from '../../shared/catalog/status-store';
import { CATALOG_VERSION_SK, statusSk, TENANTS_PK, tenantPk, tenantSk } from '../../shared/catalog/keys';
import { tableStores } from '../../shared/catalog/stores';
import { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { HealthMonitor } from '../../shared/dataplane/health-monitor';
import { HEARTBEAT_INTERVAL_SECONDS, HEARTBEAT_TIMEOUT_SECONDS, type StatusReport } from '../../shared/dataplane/contract';
import { CATALOG_TABLE, STATUS_INGEST_MAPPING, statusIngestConcurrency } from '../../shared/definitions';
import { CONNECTOR_PASS_CONCURRENCY } from '../../shared/sweeper/connectors';
import { makeLogger } from '../../shared/lambda/logger';
import { statusIngestHandler } from '../../shared/lambda/status-ingest';
import { SWEEP_TIME_BUDGET } from '../../shared/lambda/sweeper';
import type { SecretStore } from '../../shared/secrets/store';
import { Sweeper, type SweepReport } from '../../shared/sweeper/sweeper';
import { ensureLocalResources } from '../../local/resources';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { QueuePoller } from '../../local/queue-poller';
import { CapacityMeter, type Units } from '../lib/capacity-meter';
import { TARGET_DEPLOYMENT, type ScalePoint, type ScaleSettings } from '../lib/scale-model';
import { now, summarize, until, type Summary } from '../lib/stats';
import { batchWrite, partition } from './sweeper';
import { createTable } from './commit';

type Item = Record<string, unknown>;

/** What the scale phase needs of the bench (or of a test). */
export interface ScaleEnv {
  /** A pipeline whose router, executors, status-ingest and reference data plane run (the shape's commits). */
  readonly live: Pipeline;
  readonly dynamodbEndpoint: string;
  readonly tag: string;
  readonly quick: boolean;
  readonly log: (msg: string) => void;
  /** Objects per size (multiples of the tenant size); default 1 000 / 3 000 / 6 000 (quick: 200 / 400 / 1 000). */
  readonly sizes?: readonly number[];
  /** Objects per tenant, a multiple of 20 (default 1 000; quick 200). */
  readonly objectsPerTenant?: number;
  /** Stall-latency samples per size (default 12; quick 3). */
  readonly stallSamples?: number;
}

/** The stack's defaults the figures assume (cdk/constructs/sweeper.ts, status-ingest.ts, shared/sweeper/full-pass.ts, shared/dataplane/contract.ts). */
export const STACK_SETTINGS: ScaleSettings = {
  sweepIntervalSeconds: 60,
  sweepTimeoutSeconds: 60,
  sweepBudget: SWEEP_TIME_BUDGET,
  heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS,
  heartbeatTimeoutSeconds: HEARTBEAT_TIMEOUT_SECONDS,
  ingestBatchSize: STATUS_INGEST_MAPPING.batchSize,
  // What a deployment sized for the model's connectors gets (ATTENTION_CAPACITY.connectors = 500 000).
  ingestMaxConcurrency: statusIngestConcurrency({ connectors: TARGET_DEPLOYMENT.tenants * TARGET_DEPLOYMENT.objectsPerTenant * TARGET_DEPLOYMENT.connectorShare, heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS }),
  fullPassIntervalMinutes: 60,
  fullPassRuleMinutes: 1,
  connectorPassConcurrency: CONNECTOR_PASS_CONCURRENCY,
};

/** Invocations of status-ingest in flight while this machine measures a heartbeat round (its 2 cores: the shipped 13 would only queue on them). */
const MEASURE_INGEST_CONCURRENCY = 5;

/** One due-work sweep of the silence. */
export interface SilenceSweep {
  /** Seconds after the data plane stopped. */
  readonly atSeconds: number;
  readonly itemsRead: number;
  readonly overdue: number;
  readonly transitions: number;
  readonly probes: number;
  readonly secretReads: number;
  readonly ms: number;
  readonly truncated: boolean;
  readonly units: Units;
  /** This sweep marked the data plane as a whole silent (shared/status/data-plane.ts): every status read shows it from then on. */
  readonly dataPlaneMarked?: boolean;
  /** The data plane was marked silent when this sweep ended. */
  readonly dataPlaneSilent?: boolean;
}

export interface ScaleSize extends ScalePoint {
  readonly objectsPerTenant: number;
  readonly catalogItems: number;
  readonly dataPlaneItems: number;
  readonly buildSeconds: number;
  readonly quietSweepUnits: Units;
  readonly heartbeatDetail: { readonly outcomes: Record<string, number>; readonly msPerInvocation: Summary; readonly units: Units; readonly sqsMessages: number };
  readonly silenceDetail: {
    /** The first sweep's offset after the stop (the sweeps' phase), seconds. */
    readonly phaseSeconds: number;
    readonly sweeps: readonly SilenceSweep[];
    /** Stop → `stalled`, over the connectors, seconds. */
    readonly detectedSeconds: Summary;
    readonly undetected: number;
    /** Connectors caught by another sweep than the first at or after their deadline (the model's rule). */
    readonly offModel: number;
  };
  readonly fullPassDetail: { readonly invocations: number; readonly orphans: number; readonly missing: number; readonly maxInvocationMs: number; readonly units: Units };
  /** Data plane's report sent → `stalled` in mz_source_statuses (SELECT through the SQL API), ms. */
  readonly stallLatencyMs: Summary;
  /** 1-minute load average at the start and end of this size. */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

export interface ScaleResult {
  readonly settings: ScaleSettings;
  readonly connectorShare: number;
  readonly shape: { readonly tenantItems: number; readonly sourceItems: number; readonly tableItems: number; readonly dataPlane: { readonly tenant: number; readonly source: number; readonly table: number } };
  readonly sizes: readonly ScaleSize[];
}

const SOURCE_NAME = 'zzsrcshape';
const TABLE_NAME = 'zztblshape';
const CLUSTER_NAME = 'zzclushape';
/** One object in CONNECTOR_EVERY is a source: 5 %. */
const CONNECTOR_EVERY = 20;

const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
const sourceId = (t: number, k: number) => `uc${hex(t * 1_000_000 + k, 11)}`;
const tableId = (t: number, k: number) => `ud${hex(t * 1_000_000 + k, 11)}`;

/** The items of one tenant with one cluster, one running load-generator source and one table, as the live pipeline left them. */
export interface SourceShape {
  readonly tenant: string;
  readonly sourceId: string;
  readonly tableId: string;
  readonly txnIds: readonly string[];
  readonly registry: Item;
  readonly catalog: { readonly tenant: Item[]; readonly source: Item[]; readonly table: Item[] };
  readonly dataPlane: { readonly tenant: Item[]; readonly source: Item[]; readonly table: Item[] };
}

export async function captureSourceShape(env: ScaleEnv): Promise<SourceShape> {
  const p = env.live;
  const tenant = `${env.tag}-scshape`;
  await p.passwords.create(tenant);
  const api = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger: makeLogger('bench') });
  for (const query of [`CREATE CLUSTER ${CLUSTER_NAME} (SIZE = '25cc')`, `CREATE SOURCE ${SOURCE_NAME} IN CLUSTER ${CLUSTER_NAME} FROM LOAD GENERATOR COUNTER`, createTable(TABLE_NAME)]) {
    const r = await api.handle(tenant, `${tenant}/bench`, JSON.stringify({ query }), 'application/json');
    if (r.status !== 200) throw new Error(`shape commit failed: ${query}: ${JSON.stringify(r.body)}`);
  }
  const table = p.config.catalogTable;
  const settled = await until(async () => {
    const items = await partition(p.clients.doc, table, tenantPk(tenant));
    if (items.some((i) => i.type === 'effect' && i.state === 'pending')) return undefined;
    const src = items.find((i) => i.type === 'object' && i.name === SOURCE_NAME);
    const status = src && items.find((i) => i.sk === statusSk(src.id as string));
    if (status?.status !== 'running') {
      await p.reportHealth();
      return undefined;
    }
    return items;
  }, 120_000, 250);
  if (!settled) throw new Error('the shape source never settled running');
  const src = settled.find((i) => i.type === 'object' && i.name === SOURCE_NAME)!;
  const tbl = settled.find((i) => i.type === 'object' && i.name === TABLE_NAME)!;
  const sid = src.id as string;
  const tid = tbl.id as string;
  // The catalog-version item's change log names the objects of the last commits (source and table
  // alike): history, not part of the shape; a copy starts without one (its catch-ups read instead).
  const kept = settled.filter((i) => !/^(TXN|IDEM)#/.test(i.sk as string)).map(({ log: _log, ...i }) => (i.sk === CATALOG_VERSION_SK ? i : { ...i, ...(_log === undefined ? {} : { log: _log }) }));
  const resources = await partition(p.clients.doc, p.config.dataPlaneTable!, `RES#${tenant}`);
  const split = (items: Item[]) => {
    const out = { tenant: [] as Item[], source: [] as Item[], table: [] as Item[] };
    for (const i of items) {
      const s = JSON.stringify(i);
      const hasS = s.includes(sid);
      const hasT = s.includes(tid);
      if (hasS && hasT) throw new Error(`shape item ${i.pk}/${i.sk} refers to both the source and the table`);
      (hasS ? out.source : hasT ? out.table : out.tenant).push(i);
    }
    return out;
  };
  const catalog = split(kept);
  const txnIds = [...new Set([...catalog.source, ...catalog.table].map((i) => i.txnId).filter((x): x is string => typeof x === 'string'))];
  const registry = (await p.clients.doc.send(new GetCommand({ TableName: table, Key: { pk: TENANTS_PK, sk: tenantSk(tenant) } }))).Item!;
  const shape = { tenant, sourceId: sid, tableId: tid, txnIds, registry, catalog, dataPlane: split(resources) };
  const kinds = (items: Item[]) => items.map((i) => `${String(i.sk).split('#')[0]}${i.kind ? `:${String(i.kind)}` : ''}`).join(' ');
  env.log(`scale shape: tenant [${kinds(catalog.tenant)}] · source [${kinds(catalog.source)}] · table [${kinds(catalog.table)}] · data plane: tenant [${kinds(shape.dataPlane.tenant)}] source [${kinds(shape.dataPlane.source)}] table [${kinds(shape.dataPlane.table)}] · ${txnIds.length} transactions`);
  return shape;
}

/** Copies of the shape's items for other tenants and objects: every occurrence of the originals replaced. */
class Cloner {
  private readonly txnPrefix: string;
  constructor(private readonly shape: SourceShape) {
    this.txnPrefix = (shape.txnIds[0] ?? 'xxxxxxxxxxxxxxxxxxxx').slice(0, 9);
  }
  private swap(items: readonly Item[], pairs: readonly (readonly [string, string])[]): Item[] {
    return items.map((item) => {
      let s = JSON.stringify(item);
      for (const [a, b] of pairs) s = s.replaceAll(a, b);
      return JSON.parse(s) as Item;
    });
  }
  private txns(t: number, k: number): [string, string][] {
    // newTxnId: 9 characters of time, 10 hex digits.
    return this.shape.txnIds.map((id, n) => [id, `${this.txnPrefix}${hex(t * 1_000_000 + k * 8 + n, 10)}`]);
  }
  /** The tenant's own items: registry, database, schema, cluster and replica, with the schema's and cluster's dependents counted for `sources` and `tables`. */
  tenant(tenant: string, sources: number, tables: number): { catalog: Item[]; dataPlane: Item[] } {
    const to: [string, string][] = [[this.shape.tenant, tenant]];
    const catalog = this.swap([this.shape.registry, ...this.shape.catalog.tenant], to).map((i) => {
      if (typeof i.dependents !== 'number' || i.dependents === 0) return i;
      // The shape's schema counts its source and table, its cluster its source.
      if (i.kind === 'schema') return { ...i, dependents: i.dependents - 2 + sources + tables };
      if (i.kind === 'cluster') return { ...i, dependents: i.dependents - 1 + sources };
      return i;
    });
    return { catalog, dataPlane: this.swap(this.shape.dataPlane.tenant, to) };
  }
  source(t: number, tenant: string, k: number): { catalog: Item[]; dataPlane: Item[] } {
    const to: [string, string][] = [[this.shape.tenant, tenant], [this.shape.sourceId, sourceId(t, k)], [SOURCE_NAME, `s_${k}`], ...this.txns(t, k)];
    return { catalog: this.swap(this.shape.catalog.source, to), dataPlane: this.swap(this.shape.dataPlane.source, to) };
  }
  table(t: number, tenant: string, k: number): { catalog: Item[]; dataPlane: Item[] } {
    const to: [string, string][] = [[this.shape.tenant, tenant], [this.shape.tableId, tableId(t, k)], [TABLE_NAME, `t_${k}`], ...this.txns(t, k)];
    return { catalog: this.swap(this.shape.catalog.table, to), dataPlane: this.swap(this.shape.dataPlane.table, to) };
  }
  /** A running connector's status in the steady state: its last heartbeat `sinceMs` before `at`, its deadline the timeout after it. */
  status(t: number, tenant: string, k: number, at: number, sinceMs: number): Item {
    const base = this.shape.catalog.source.find((i) => (i.sk as string).startsWith('STATUS#'))!;
    const [s] = this.swap([base], [[this.shape.tenant, tenant], [this.shape.sourceId, sourceId(t, k)], [SOURCE_NAME, `s_${k}`]]);
    const last = at - sinceMs;
    // Running since an hour before: every virtual transition comes after it (transition() never writes a change before the last one).
    const since = new Date(at - 3_600_000).toISOString();
    const dueAt = new Date(last + HEARTBEAT_TIMEOUT_SECONDS * 1000).toISOString();
    const { attnPk: _p, attnSk: _s, ...rest } = s!;
    return {
      ...rest,
      status: 'running',
      error: null,
      details: null,
      lastStatusChangeAt: since,
      reportGeneration: s!.generation,
      reportSequence: last,
      lastReportAt: new Date(last).toISOString(),
      reportDueAt: dueAt,
      ...deadlineKeys(tenant, s!.sk as string, dueAt),
    };
  }
}

/** A secret store that counts its calls (each is one Secrets Manager call in AWS, a list at least one) and holds nothing: load generators have no secrets. */
function countingSecrets(): { store: SecretStore; calls: () => number } {
  let calls = 0;
  const store: SecretStore = {
    put: async () => void calls++,
    has: async () => (calls++, false),
    prune: async () => void calls++,
    list: async () => (calls++, []),
    get: async () => (calls++, undefined),
  } as unknown as SecretStore;
  return { store, calls: () => calls };
}

const zeroUnits: Units = { readCalls: 0, readUnits: 0, writeCalls: 0, writeUnits: 0 };
const addUnits = (a: Units, b: Units): Units => ({ readCalls: a.readCalls + b.readCalls, readUnits: a.readUnits + b.readUnits, writeCalls: a.writeCalls + b.writeCalls, writeUnits: a.writeUnits + b.writeUnits });
const r1 = (x: number) => Math.round(x * 10) / 10;
const load1 = async () => (await import('node:os')).loadavg()[0]!;

export async function scaleFigures(env: ScaleEnv, shape: SourceShape): Promise<ScaleResult> {
  const p = env.live;
  const res = await ensureLocalResources(p.clients.ddb, p.clients.sqs, `${env.tag}-sc-`, LOCAL_REGION);
  const cfg = res.config;
  const doc = p.clients.doc;
  const meter = new CapacityMeter({ endpoint: env.dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const secrets = countingSecrets();
  const logger = makeLogger('bench-scale');
  // The control plane's calls go through the metered client; the data plane's through the plain one.
  const sweeper = new Sweeper({ ...tableStores(meter.doc, cfg.catalogTable), sqs: p.clients.sqs, queueUrls: cfg.queueUrls, logger, dataPlane: new ReferenceDataPlane(meter.doc, cfg.dataPlaneTable!), secrets: secrets.store, fullPass: {} });
  const statuses = new StatusStore(doc, cfg.catalogTable);
  const cloner = new Cloner(shape);
  const perTenant = env.objectsPerTenant ?? (env.quick ? 200 : 1000);
  const sizes = env.sizes ?? (env.quick ? [200, 400, 1000] : [1000, 3000, 6000]);
  const samples = env.stallSamples ?? (env.quick ? 3 : 12);
  const perTenantSources = perTenant / CONNECTOR_EVERY;
  const setStream = (enabled: boolean) =>
    p.clients.ddb.send(new UpdateTableCommand({ TableName: cfg.catalogTable, StreamSpecification: enabled ? { StreamEnabled: true, StreamViewType: CATALOG_TABLE.stream! } : { StreamEnabled: false } }));
  const tenantName = (t: number) => `${env.tag}-sc-${t}`;
  const out: ScaleSize[] = [];
  let tenants = 0;
  let catalogItems = 0;
  let dataPlaneItems = 0;
  // Virtual time: hours in the past (so that the real-clock reports of the stall test come after every virtual one), 3 h per size.
  const base = Date.now() - 24 * 3_600_000;
  const phases = [14.5, 34.5, 54.5];

  for (const [index, size] of sizes.entries()) {
    const loadStart = await load1();
    const t0 = now();
    const V0 = base + index * 3 * 3_600_000;
    await setStream(false);
    while (tenants * perTenant < size) {
      const t = tenants;
      const tenant = tenantName(t);
      const own = cloner.tenant(tenant, perTenantSources, perTenant - perTenantSources);
      const catalog = [...own.catalog];
      const dp = [...own.dataPlane];
      for (let k = 0; k < perTenant; k++) {
        const o = k % CONNECTOR_EVERY === 0 ? cloner.source(t, tenant, k) : cloner.table(t, tenant, k);
        catalog.push(...o.catalog);
        dp.push(...o.dataPlane);
      }
      await Promise.all([batchWrite(doc, cfg.catalogTable, catalog), batchWrite(doc, cfg.dataPlaneTable!, dp, 4)]);
      catalogItems += catalog.length;
      dataPlaneItems += dp.length;
      tenants++;
    }
    // Every connector (earlier sizes' too) in the steady state at V0: heartbeats staggered over the last interval.
    const steady: Item[] = [];
    for (let t = 0; t < tenants; t++) for (let k = 0; k < perTenant; k += CONNECTOR_EVERY) steady.push(cloner.status(t, tenantName(t), k, V0, Math.random() * HEARTBEAT_INTERVAL_SECONDS * 1000));
    await batchWrite(doc, cfg.catalogTable, steady);
    await setStream(true);
    const connectors = steady.length;
    const buildSeconds = r1((now() - t0) / 1000);
    env.log(`scale: ${size} objects in ${tenants} tenants, ${connectors} connectors, ${catalogItems} catalog + ${dataPlaneItems} data-plane items (built in ${buildSeconds} s)`);

    // 1. A quiet minute's sweep: every connector heartbeating, nothing due.
    meter.take();
    const quiet: { r: SweepReport; ms: number; u: Units }[] = [];
    for (let i = 0; i < 3; i++) {
      const s0 = now();
      const r = await sweeper.sweep(new Date(V0), { deadline: Date.now() + STACK_SETTINGS.sweepTimeoutSeconds * 1000 * STACK_SETTINGS.sweepBudget, fullPass: false });
      quiet.push({ r, ms: now() - s0, u: meter.take() });
    }
    quiet.sort((a, b) => a.ms - b.ms);
    const q = quiet[1]!;

    // 2. A heartbeat from every connector: the reference data plane's health round, the status queue, status-ingest (batches of 10, 5 in flight).
    const V1 = V0 + HEARTBEAT_INTERVAL_SECONDS * 1000;
    const monitor = new HealthMonitor({ dataPlane: new ReferenceDataPlane(doc, cfg.dataPlaneTable!), sqs: p.clients.sqs, queueUrl: res.statusQueueUrl, logger, clock: () => new Date(V1) });
    const reports = await monitor.checkAll(true);
    const outcomes: Record<string, number> = {};
    let ingested = 0;
    const invocationMs: number[] = [];
    const ingest = statusIngestHandler(cfg, { doc: meter.doc }, logger, {
      // Each report arrives somewhere in the round: its next deadline is the timeout after that.
      clock: () => new Date(V1 + Math.random() * HEARTBEAT_INTERVAL_SECONDS * 1000),
      onIngested: (_b, o) => {
        outcomes[o] = (outcomes[o] ?? 0) + 1;
        ingested++;
      },
    });
    const poller = new QueuePoller({
      sqs: p.clients.sqs,
      queueUrl: res.statusQueueUrl,
      region: LOCAL_REGION,
      functionName: 'status-ingest',
      logger,
      batchSize: STACK_SETTINGS.ingestBatchSize,
      maxConcurrency: MEASURE_INGEST_CONCURRENCY,
      handler: async (event, context) => {
        const s0 = now();
        try {
          return await ingest(event, context);
        } finally {
          invocationMs.push(now() - s0);
        }
      },
    });
    meter.take();
    poller.start();
    const drained = await until(async () => ingested >= reports.length || undefined, 600_000, 100);
    await poller.stop();
    await poller.settled();
    if (!drained) throw new Error(`status-ingest handled ${ingested} of ${reports.length} reports in 10 minutes`);
    const hbUnits = meter.take();

    // 3. The data plane goes silent right after its round; due-work sweeps at a phase after it, a minute apart.
    const S = V1 + HEARTBEAT_INTERVAL_SECONDS * 1000;
    const phase = phases[index % phases.length]!;
    const before = new Map<string, number>();
    const listAll = async () => (await Promise.all(Array.from({ length: tenants }, (_, t) => statuses.list(tenantName(t))))).flat();
    for (const s of await listAll()) before.set(s.objectId, Date.parse(s.reportDueAt!));
    const sweeps: SilenceSweep[] = [];
    let stalledSoFar = 0;
    // Until every connector is stalled and the data plane itself is marked: the last liveness stamp
    // can be up to a heartbeat interval newer than a connector's report, so the sweep that stalls the
    // last connectors may come before the whole-data-plane threshold; the next one marks it.
    for (let j = 0; j < 8 && (stalledSoFar < connectors || !sweeps.some((w) => w.dataPlaneMarked)); j++) {
      const at = phase + j * STACK_SETTINGS.sweepIntervalSeconds;
      const s0 = now();
      const r = await sweeper.sweep(new Date(S + at * 1000), { deadline: Date.now() + STACK_SETTINGS.sweepTimeoutSeconds * 1000 * STACK_SETTINGS.sweepBudget, fullPass: false });
      const ms = now() - s0;
      stalledSoFar += r.connectors.transitions;
      sweeps.push({
        atSeconds: at,
        itemsRead: r.itemsRead,
        overdue: r.connectors.overdue,
        transitions: r.connectors.transitions,
        probes: r.connectors.probes,
        secretReads: r.connectors.secretReads,
        ms: r1(ms),
        truncated: r.truncated,
        units: meter.take(),
        dataPlaneMarked: r.dataPlane.marked,
        dataPlaneSilent: r.dataPlane.silentSince !== undefined,
      });
    }
    const after = await listAll();
    const detected: number[] = [];
    let offModel = 0;
    for (const s of after as StoredStatus[]) {
      if (s.status !== 'stalled') continue;
      const d = (Date.parse(s.lastStatusChangeAt) - S) / 1000;
      detected.push(d);
      const deadline = (before.get(s.objectId)! - S) / 1000;
      const expected = phase + Math.max(0, Math.ceil((deadline - phase) / STACK_SETTINGS.sweepIntervalSeconds)) * STACK_SETTINGS.sweepIntervalSeconds;
      if (Math.abs(expected - d) > 0.5) offModel++;
    }
    detected.sort((a, b) => a - b);
    const silenceUnits = sweeps.reduce((u, s) => addUnits(u, s.units), zeroUnits);

    // 4. The full pass, due: page after page, each invocation until half of a 60 s timeout.
    const F = V0 + 2 * 3_600_000;
    const secretsBefore = secrets.calls();
    let fpInvocations = 0;
    let fpItems = 0;
    let fpMs = 0;
    let fpMax = 0;
    let fpTenants = 0;
    const found = { orphans: 0, missing: 0 };
    meter.take();
    for (;;) {
      const s0 = now();
      const r = await sweeper.fullPass(new Date(F), Date.now() + STACK_SETTINGS.sweepTimeoutSeconds * 1000 * STACK_SETTINGS.sweepBudget);
      const ms = now() - s0;
      if (!r?.ran) break;
      fpInvocations++;
      fpMs += ms;
      fpMax = Math.max(fpMax, ms);
      fpItems += r.itemsRead;
      fpTenants += r.tenants;
      found.orphans += r.orphans;
      found.missing += r.missing;
      if (r.completed) break;
    }
    const fpUnits = meter.take();
    const fpSecretCalls = secrets.calls() - secretsBefore;

    // 5. Stall latency on the real clock: the data plane reports a connector stalled; how long until mz_source_statuses says so.
    const stallMs = await stallLatency(env, { cfg, statusQueueUrl: res.statusQueueUrl, tenants, perTenant, samples, tenantName });

    const loadEnd = await load1();
    const size1: ScaleSize = {
      tenants,
      objects: tenants * perTenant,
      connectors,
      objectsPerTenant: perTenant,
      catalogItems,
      dataPlaneItems,
      buildSeconds,
      quietSweep: { itemsRead: q.r.itemsRead, readUnits: q.u.readUnits, ms: r1(q.ms), calls: q.u.readCalls + q.u.writeCalls },
      quietSweepUnits: q.u,
      heartbeat: { reports: reports.length, invocations: invocationMs.length, readUnits: hbUnits.readUnits, writeUnits: hbUnits.writeUnits, lambdaMs: r1(invocationMs.reduce((a, b) => a + b, 0)), calls: hbUnits.readCalls + hbUnits.writeCalls },
      heartbeatDetail: { outcomes, msPerInvocation: summarize(invocationMs), units: hbUnits, sqsMessages: reports.length },
      silence: {
        overdue: sweeps.reduce((a, s) => a + s.overdue, 0),
        ms: r1(sweeps.reduce((a, s) => a + s.ms, 0)),
        readUnits: silenceUnits.readUnits,
        writeUnits: silenceUnits.writeUnits,
        probes: sweeps.reduce((a, s) => a + s.probes, 0),
        secretReads: sweeps.reduce((a, s) => a + s.secretReads, 0),
        // The sweeps' fixed cost (the index queries) is the quiet sweep's: what is left is the overdue connectors'.
        calls: silenceUnits.readCalls + silenceUnits.writeCalls - sweeps.length * (q.u.readCalls + q.u.writeCalls),
      },
      silenceDetail: { phaseSeconds: phase, sweeps, detectedSeconds: summarize(detected), undetected: connectors - detected.length, offModel },
      fullPass: { tenants: fpTenants, itemsRead: fpItems, readUnits: fpUnits.readUnits, writeUnits: fpUnits.writeUnits, ms: r1(fpMs), secretCalls: fpSecretCalls, calls: fpUnits.readCalls + fpUnits.writeCalls },
      fullPassDetail: { invocations: fpInvocations, ...found, maxInvocationMs: r1(fpMax), units: fpUnits },
      stallLatencyMs: summarize(stallMs),
      loadAverage: { start: r1(loadStart), end: r1(loadEnd) },
    };
    out.push(size1);
    env.log(
      `scale @${size1.objects}: quiet sweep ${q.r.itemsRead} items ${q.u.readUnits} RU ${q.ms.toFixed(0)} ms; heartbeat ${reports.length} reports ${invocationMs.length} invocations ${hbUnits.readUnits} RU ${hbUnits.writeUnits} WU ${JSON.stringify(outcomes)}; ` +
        `silence ${sweeps.length} sweeps, detected p50 ${size1.silenceDetail.detectedSeconds.p50} s max ${size1.silenceDetail.detectedSeconds.max} s (${offModel} off-model, ${size1.silenceDetail.undetected} undetected); ` +
        `full pass ${fpInvocations} invocations ${fpTenants} tenants ${fpItems} items ${fpUnits.readUnits} RU ${Math.round(fpMs)} ms ${JSON.stringify(found)}; stall → visible p50 ${size1.stallLatencyMs.p50} ms p99 ${size1.stallLatencyMs.p99} ms`,
    );
  }
  await p.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: res.statusQueueUrl })).catch(() => undefined);
  meter.destroy();
  const dp = shape.dataPlane;
  return {
    settings: STACK_SETTINGS,
    connectorShare: 1 / CONNECTOR_EVERY,
    shape: { tenantItems: shape.catalog.tenant.length + 1, sourceItems: shape.catalog.source.length, tableItems: shape.catalog.table.length, dataPlane: { tenant: dp.tenant.length, source: dp.source.length, table: dp.table.length } },
    sizes: out,
  };
}

/**
 * The stall path on the real clock, with status-ingest polling the queue as its event source
 * mapping does: a connector is made running, then its ingestion unhealthy; the reference data
 * plane's health monitor reports the change; the time from that report's send to the first
 * SELECT through the SQL API that shows `stalled` in mz_source_statuses.
 */
async function stallLatency(env: ScaleEnv, o: { cfg: Pipeline['config']; statusQueueUrl: string; tenants: number; perTenant: number; samples: number; tenantName: (t: number) => string }): Promise<number[]> {
  const p = env.live;
  const logger = makeLogger('bench-scale-stall');
  const sent = new Map<string, number>();
  // The data plane's sends, timed: a report's clock starts when it leaves the data plane.
  const sqs = {
    send: (cmd: SendMessageCommand) => {
      const r = JSON.parse(cmd.input.MessageBody!) as StatusReport;
      sent.set(`${r.objectId}/${r.status}`, now());
      return p.clients.sqs.send(cmd);
    },
  } as unknown as SQSClient;
  const dataPlane = new ReferenceDataPlane(p.clients.doc, o.cfg.dataPlaneTable!);
  const monitor = new HealthMonitor({ dataPlane, sqs, queueUrl: o.statusQueueUrl, logger });
  const poller = new QueuePoller({ sqs: p.clients.sqs, queueUrl: o.statusQueueUrl, region: LOCAL_REGION, functionName: 'status-ingest', logger, batchSize: 10, maxConcurrency: 5, handler: statusIngestHandler(o.cfg, p.clients, logger) });
  const statuses = new StatusStore(p.clients.doc, o.cfg.catalogTable);
  const api = new SqlApi({ store: new CatalogStore(p.clients.doc, o.cfg.catalogTable), logger });
  const out: number[] = [];
  poller.start();
  try {
    for (let i = 0; i < o.samples; i++) {
      const t = i % o.tenants;
      const tenant = o.tenantName(t);
      const id = sourceId(t, (Math.floor(i / o.tenants) % (o.perTenant / CONNECTOR_EVERY)) * CONNECTOR_EVERY);
      const healthy = async () => {
        await dataPlane.setHealth(tenant, 'ingestion', id, { healthy: true });
        if (!(await until(async () => (await statuses.get(tenant, id))?.status === 'running', 60_000, 20))) throw new Error(`${id} never reported running`);
        // The silence the virtual phases left on the data plane's liveness ends with this report's stamp: a read must not see it.
        if (!(await until(async () => !(await statuses.dataPlaneLiveness({ consistent: true }))?.silentSince || undefined, 60_000, 20))) throw new Error('the data plane stayed marked silent');
        await monitor.idle();
      };
      await healthy();
      sent.delete(`${id}/stalled`);
      await dataPlane.setHealth(tenant, 'ingestion', id, { healthy: false, error: 'load-generator: bench stall' });
      const seen = await until(
        async () => {
          const r = await api.handle(tenant, `${tenant}/bench`, JSON.stringify({ query: `SELECT status FROM mz_internal.mz_source_statuses WHERE id = '${id}'` }), 'application/json');
          const rows = (r.body as { results?: { rows?: unknown[][] }[] }).results?.[0]?.rows;
          return rows?.[0]?.[0] === 'stalled' ? now() : undefined;
        },
        60_000,
        10,
      );
      const from = sent.get(`${id}/stalled`);
      if (seen === undefined || from === undefined) throw new Error(`${id}: the stall never showed in mz_source_statuses`);
      out.push(seen - from);
      await monitor.idle();
      // Healthy again: the next size's heartbeat round finds every connector running.
      await healthy();
    }
  } finally {
    await monitor.stop();
    await poller.stop();
    await poller.settled();
  }
  return out;
}
