/**
 * 4. Sweeper cost against catalog size: 1 000, 10 000 and 50 000 tables (tenants of 1 000 tables
 *    each, on tables and queues of their own), quiet, with 1 % of the objects needing attention,
 *    and the hourly full pass.
 *
 * The catalog is written directly with BatchWriteItem (its table's stream off during the load, see below), item by item a copy of what a real
 * `CREATE TABLE` left behind in the live pipeline: the catalog object, its name guard, its settled
 * outbox effect (no attention-index keys), the tenant's default database and schema (the schema's
 * dependents counter set to the tenant's table count) and its registry entry; and in the data
 * plane the table's collection, as the executor wrote it (owner tag, generation, read policy), so
 * that the full pass finds the catalog and the data plane in agreement. Not copied: transaction
 * records and applied effects' TTL behaviour (they age out after 7 days and nothing swept reads
 * them) and the data plane's action log (only the invariant checker reads it).
 */
import { BatchWriteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { newObjectId, SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { attentionKeys, TENANTS_PK, tenantPk, tenantSk } from '../../shared/catalog/keys';
import { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { CATALOG_TABLE, CONTROLLERS } from '../../shared/definitions';
import { UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { makeLogger } from '../../shared/lambda/logger';
import { makeSweeper } from '../../shared/lambda/wiring';
import type { SweepReport } from '../../shared/sweeper/sweeper';
import { ensureLocalResources } from '../../local/resources';
import { LOCAL_REGION } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { newTenant, pauseWorkers, resumeWorkers, type Bench, type EffectTimeline } from '../lib/harness';
import { now, sleep, until } from '../lib/stats';
import type { OperationLatency } from '../lib/sdk-latency';
import { createTable } from './commit';

type Item = Record<string, unknown>;

/** `u` + 12 hex digits like a real object id; the leading `b` keeps clear of the default database's and schema's fixed ids. */
const syntheticId = (tenant: number, k: number) => `ub${(tenant * 1_000_000 + k).toString(16).padStart(11, '0')}`;

/** The items one real CREATE TABLE produced, to copy. */
export interface TableShape {
  readonly tenant: string;
  readonly objectId: string;
  readonly name: string;
  readonly txnId: string;
  readonly object: Item;
  readonly nameGuard: Item;
  readonly pendingEffect: Item;
  readonly settledEffect: Item;
  readonly database: Item;
  readonly schema: Item;
  readonly bootstrapNames: Item[];
  readonly registry: Item;
  readonly collection: Item;
}

/** Every item of one partition, read consistently, page after page. */
export async function partition(doc: Pipeline['clients']['doc'], table: string, pk: string): Promise<Item[]> {
  const out: Item[] = [];
  let start: Item | undefined;
  do {
    const r = await doc.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true, ExclusiveStartKey: start }));
    out.push(...((r.Items ?? []) as Item[]));
    start = r.LastEvaluatedKey as Item | undefined;
  } while (start);
  return out;
}

/** Commits one CREATE TABLE in the live pipeline and reads back every item it left, before and after the executor settled it. */
export async function captureTableShape(bench: Bench, timeline: EffectTimeline): Promise<TableShape> {
  const p = bench.live;
  await pauseWorkers(p);
  const { tenant } = await newTenant(p, `${bench.tag}-shape`);
  const objectId = newObjectId();
  const name = 'shape_tbl';
  const api = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger: makeLogger('bench'), newId: () => objectId });
  const r = await api.handle(tenant, `${tenant}/bench`, JSON.stringify({ query: createTable(name) }), 'application/json');
  if (r.status !== 200) throw new Error(`shape commit failed: ${JSON.stringify(r.body)}`);
  const table = p.config.catalogTable;
  const before = await partition(p.clients.doc, table, tenantPk(tenant));
  const pendingEffect = before.find((i) => i.type === 'effect' && i.objectId === objectId)!;
  const held = timeline.held(tenant, name);
  resumeWorkers(p);
  if ((await held) === undefined) throw new Error('shape table never applied');
  const settled = await until(async () => {
    const e = (await p.clients.doc.send(new GetCommand({ TableName: table, Key: { pk: pendingEffect.pk, sk: pendingEffect.sk }, ConsistentRead: true }))).Item;
    return e && e.state !== 'pending' ? e : undefined;
  }, 30_000, 50);
  if (!settled) throw new Error('shape effect never settled');
  await pauseWorkers(p);
  const after = await partition(p.clients.doc, table, tenantPk(tenant));
  const object = after.find((i) => i.sk === `OBJ#${objectId}`)!;
  const schemaId = (object.spec as { schemaId: string }).schemaId;
  const registry = (await p.clients.doc.send(new GetCommand({ TableName: table, Key: { pk: TENANTS_PK, sk: tenantSk(tenant) } }))).Item!;
  const resources = await partition(p.clients.doc, p.config.dataPlaneTable!, `RES#${tenant}`);
  return {
    tenant,
    objectId,
    name,
    txnId: pendingEffect.txnId as string,
    object,
    nameGuard: after.find((i) => i.type === 'name' && i.objectId === objectId)!,
    pendingEffect,
    settledEffect: settled,
    database: after.find((i) => i.type === 'object' && i.kind === 'database')!,
    schema: after.find((i) => i.sk === `OBJ#${schemaId}`)!,
    bootstrapNames: after.filter((i) => i.type === 'name' && i.objectId !== objectId),
    registry,
    collection: resources.find((i) => i.resourceId === objectId)!,
  };
}

/** Copies of the shape's items for another tenant / object / transaction: every occurrence of the originals is replaced. */
class Cloner {
  constructor(private readonly shape: TableShape) {}
  private swap(item: Item, to: { tenant: string; objectId?: string; name?: string; txnId?: string }): Item {
    let s = JSON.stringify(item);
    s = s.replaceAll(this.shape.tenant, to.tenant);
    if (to.objectId) s = s.replaceAll(this.shape.objectId, to.objectId);
    if (to.name) s = s.replaceAll(this.shape.name, to.name);
    if (to.txnId) s = s.replaceAll(this.shape.txnId, to.txnId);
    return JSON.parse(s) as Item;
  }
  tenantItems(tenant: string, tables: number): Item[] {
    return [
      this.swap(this.shape.registry, { tenant }),
      this.swap(this.shape.database, { tenant }),
      { ...this.swap(this.shape.schema, { tenant }), dependents: tables },
      ...this.shape.bootstrapNames.map((n) => this.swap(n, { tenant })),
    ];
  }
  tableItems(tenant: string, objectId: string, name: string, txnId: string): { catalog: Item[]; dataPlane: Item[] } {
    const to = { tenant, objectId, name, txnId };
    return {
      catalog: [this.swap(this.shape.object, to), this.swap(this.shape.nameGuard, to), this.swap(this.shape.settledEffect, to)],
      dataPlane: [this.swap(this.shape.collection, to)],
    };
  }
  /** A pending effect for an existing table, created `createdAt`, on the attention index like a real one. */
  pendingEffect(tenant: string, objectId: string, name: string, txnId: string, createdAt: string): Item {
    const e = this.swap(this.shape.pendingEffect, { tenant, objectId, name, txnId });
    const sk = e.sk as string;
    return { ...e, createdAt, updatedAt: createdAt, ...attentionKeys(tenant, sk, createdAt) };
  }
}

export async function batchWrite(doc: Pipeline['clients']['doc'], table: string, items: Item[], concurrency = 8, del = false): Promise<void> {
  const chunks: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++]!;
        let requests = chunk.map((Item) => (del ? { DeleteRequest: { Key: { pk: Item.pk, sk: Item.sk } } } : { PutRequest: { Item } }));
        for (let attempt = 0; requests.length; attempt++) {
          const r = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
          requests = (r.UnprocessedItems?.[table] ?? []) as typeof requests;
          if (requests.length) await sleep(Math.min(1000, 20 * 2 ** attempt));
        }
      }
    }),
  );
}

export interface SweepFigure {
  readonly itemsRead: number;
  readonly totalItemsRead: number;
  readonly ms: number;
  /** totalItemsRead as a percentage of the catalog's items. */
  readonly percentOfCatalog: number;
  readonly replayed?: number;
  readonly waiting?: number;
}

export interface SweeperSize {
  readonly objects: number;
  readonly tenants: number;
  /** Items in the catalog table for these tenants (objects, name guards, effects, defaults, registry). */
  readonly catalogItems: number;
  readonly buildSeconds: number;
  /** The SDK calls of the build, busiest first (BatchWriteItem latency says how fast the emulator takes writes). */
  readonly buildSdk: OperationLatency[];
  /** The SDK calls of the full pass. */
  readonly fullPassSdk: OperationLatency[];
  readonly quiet: SweepFigure;
  /** 1 % of objects with a pending effect past its replay delay: read and re-sent. */
  readonly attentionDue: SweepFigure & { pending: number };
  /** The same sweep again right after: those effects now wait for their next replay window (read only). */
  readonly attentionWaiting: SweepFigure & { pending: number };
  readonly fullPass: { invocations: number; itemsRead: number; ms: number; percentOfCatalog: number; orphans: number; missing: number; readPoliciesRepaired: number };
}

export async function sweeperCost(bench: Bench, shape: TableShape): Promise<SweeperSize[]> {
  const base = bench.live;
  const res = await ensureLocalResources(base.clients.ddb, base.clients.sqs, `${bench.tag}-sw-`, LOCAL_REGION);
  const cfg = res.config;
  const doc = base.clients.doc;
  const dataPlane = new ReferenceDataPlane(doc, cfg.dataPlaneTable!);
  const sweeper = makeSweeper(cfg, base.clients, makeLogger('bench-sweeper'), { dataPlane });
  const cloner = new Cloner(shape);
  const perTenant = bench.quick ? 200 : 1000;
  // BENCH_SWEEPER_SIZES=1000,5000 tries other sizes (multiples of the tenant size).
  const sizes = process.env.BENCH_SWEEPER_SIZES ? process.env.BENCH_SWEEPER_SIZES.split(',').map(Number) : bench.quick ? [200, 1000, 2000] : [1000, 10_000, 50_000];
  const txnPrefix = shape.txnId.slice(0, 9);
  const out: SweeperSize[] = [];
  let tenants = 0;
  let catalogItems = 0;
  let hours = 0;
  const pct = (n: number) => Math.round((n / catalogItems) * 1e6) / 1e4;

  // The bulk load runs with the catalog table's stream switched off: DynamoDB Local appends a
  // stream record under its single SQLite writer for every item, which makes a 150 000-item load
  // take minutes; nothing reads these records, and the stream is back on (NEW_IMAGE, as defined)
  // before any sweep. The items themselves are unchanged.
  const setStream = (enabled: boolean) =>
    base.clients.ddb.send(new UpdateTableCommand({ TableName: cfg.catalogTable, StreamSpecification: enabled ? { StreamEnabled: true, StreamViewType: CATALOG_TABLE.stream! } : { StreamEnabled: false } }));

  for (const size of sizes) {
    const t0 = now();
    bench.sdk.take();
    await setStream(false);
    while (tenants * perTenant < size) {
      const tenant = `${bench.tag}-sw-${tenants}`;
      const catalog = cloner.tenantItems(tenant, perTenant);
      const dp: Item[] = [];
      for (let k = 0; k < perTenant; k++) {
        const id = syntheticId(tenants, k);
        const txn = `${txnPrefix}${(tenants * 1_000_000 + k).toString(16).padStart(10, '0')}`;
        const t = cloner.tableItems(tenant, id, `t_${k}`, txn);
        catalog.push(...t.catalog);
        dp.push(...t.dataPlane);
      }
      await Promise.all([batchWrite(doc, cfg.catalogTable, catalog), batchWrite(doc, cfg.dataPlaneTable!, dp, 4)]);
      catalogItems += catalog.length;
      tenants++;
    }
    await setStream(true);
    const buildSeconds = Math.round((now() - t0) / 100) / 10;
    const buildSdk = bench.sdk.take().slice(0, 5);
    bench.log(`sweeper catalog: ${size} objects in ${tenants} tenants, ${catalogItems} catalog items (built in ${buildSeconds} s)`);

    // The full pass, due: a clock 2 h past the last one; it pages 50 tenants per invocation.
    hours += 2;
    const fullClock = new Date(Date.now() + hours * 3_600_000);
    let invocations = 0;
    let fullItems = 0;
    let fullMs = 0;
    const found = { orphans: 0, missing: 0, readPoliciesRepaired: 0 };
    for (;;) {
      const s0 = now();
      const r = await sweeper.sweep(fullClock);
      fullMs += now() - s0;
      if (!r.full?.ran) break;
      invocations++;
      fullItems += r.full.itemsRead;
      found.orphans += r.full.orphans;
      found.missing += r.full.missing;
      found.readPoliciesRepaired += r.full.readPoliciesRepaired;
      if (r.full.completed) break;
    }

    const fullPassSdk = bench.sdk.take().slice(0, 6);

    // Quiet: the full pass is not due, nothing needs attention.
    const quietClock = new Date(fullClock.getTime() + 60_000);
    const quietRuns: { r: SweepReport; ms: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const s0 = now();
      const r = await sweeper.sweep(quietClock);
      quietRuns.push({ r, ms: now() - s0 });
    }
    quietRuns.sort((a, b) => a.ms - b.ms);
    const q = quietRuns[2]!;

    // 1 %: pending effects created 10 minutes before the sweep's clock.
    const createdAt = new Date(quietClock.getTime() - 600_000).toISOString();
    const pending: Item[] = [];
    for (let j = 0; j < tenants; j++) {
      for (let k = 0; k < perTenant; k += 100) {
        const id = syntheticId(j, k);
        pending.push(cloner.pendingEffect(`${bench.tag}-sw-${j}`, id, `t_${k}`, `${txnPrefix}${(j * 1_000_000 + k + 500_000).toString(16).padStart(10, '0')}`, createdAt));
      }
    }
    await batchWrite(doc, cfg.catalogTable, pending);
    let s0 = now();
    const due = await sweeper.sweep(quietClock);
    const dueMs = now() - s0;
    s0 = now();
    const waiting = await sweeper.sweep(new Date(quietClock.getTime() + 1000));
    const waitingMs = now() - s0;
    await batchWrite(doc, cfg.catalogTable, pending, 8, true);
    await Promise.all(CONTROLLERS.map((c) => base.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: cfg.queueUrls[c] }))));

    const fig = (r: SweepReport, ms: number): SweepFigure => ({ itemsRead: r.itemsRead, totalItemsRead: r.totalItemsRead, ms: Math.round(ms * 10) / 10, percentOfCatalog: pct(r.totalItemsRead) });
    const row: SweeperSize = {
      objects: size,
      tenants,
      catalogItems,
      buildSeconds,
      buildSdk,
      fullPassSdk,
      quiet: fig(q.r, q.ms),
      attentionDue: { ...fig(due, dueMs), pending: pending.length, replayed: due.replayed, waiting: due.waiting },
      attentionWaiting: { ...fig(waiting, waitingMs), pending: pending.length, replayed: waiting.replayed, waiting: waiting.waiting },
      fullPass: { invocations, itemsRead: fullItems, ms: Math.round(fullMs), percentOfCatalog: pct(fullItems), ...found },
    };
    out.push(row);
    bench.log(
      `sweeper @${size}: quiet ${q.r.totalItemsRead} items ${q.ms.toFixed(1)} ms; 1% due ${due.itemsRead} read/${due.replayed} replayed ${dueMs.toFixed(0)} ms; ` +
        `1% waiting ${waiting.itemsRead} read ${waitingMs.toFixed(0)} ms; full pass ${invocations} invocations ${fullItems} items ${Math.round(fullMs)} ms ${JSON.stringify(found)}`,
    );
  }
  return out;
}
