/**
 * 12. The larger statements against their raw-transaction floors: CREATE SOURCE with 3
 * subsources, DROP ... CASCADE of 10 objects (a table and 9 views on it), and a 150-object staged
 * commit (BEGIN; 150 × CREATE TABLE; COMMIT), each in its own tenant three ways, interleaved:
 *
 * - floor: the same request planned by the DDL handler, but its commit replaced by the raw
 *   TransactWriteItems of the items that commit writes (`CatalogStore.transactItems` and the
 *   `fenceItems` every commit carries), 100 items a transaction, timed alone — the least any
 *   implementation must send to write those items transactionally;
 * - in-process: `SqlApi.handle` (parse, plan, commit; a staged commit for the 150 objects);
 * - HTTP: `POST /api/sql`, from the request's start (the local API Gateway with its authorizer).
 *
 * On the commit-only pipeline (no router or executor competes). Setup statements (the
 * connection, the objects to drop) are not timed.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore, MAX_TRANSACTION_ITEMS, type CatalogBasis, type IdempotencyRecord, type TxnRecord } from '../../shared/catalog/store';
import type { ChangeSet } from '../../shared/planner/workspace';
import { makeLogger } from '../../shared/lambda/logger';
import { newTenant, sqlHttp, type Bench } from '../lib/harness';
import { now, rounded, summarize, type Summary } from '../lib/stats';

/** A CatalogStore whose commit is the raw transactions of the commit's items, timed alone. */
class FloorStore extends CatalogStore {
  readonly writeMs: number[] = [];
  readonly transactions: number[] = [];
  readonly items: number[] = [];
  override async commit(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, basis?: CatalogBasis): Promise<{ optional: boolean }> {
    this.forget(tenant);
    // The fence (lock check, version update on the basis's version) goes with the first transaction.
    const all = [...this.fenceItems(tenant, basis?.version), ...this.transactItems(tenant, changes, txn, idempotency, basis ? { catalogVersion: basis.version + 1 } : {})];
    const chunks: (typeof all)[] = [];
    for (let i = 0; i < all.length; i += MAX_TRANSACTION_ITEMS) chunks.push(all.slice(i, i + MAX_TRANSACTION_ITEMS));
    const t0 = now();
    for (const chunk of chunks) await this.doc.send(new TransactWriteCommand({ TransactItems: chunk }));
    this.writeMs.push(now() - t0);
    this.transactions.push(chunks.length);
    this.items.push(all.length);
    return { optional: false };
  }
}

export interface KindRow {
  readonly kind: string;
  readonly samples: number;
  /** Items the commit writes (catalog items and fence), and the raw transactions the floor sends. */
  readonly items: number;
  readonly floorTransactions: number;
  readonly floor: Summary;
  readonly inProcess: Summary;
  readonly http: Summary;
  readonly ratioP50: { inProcess: number; http: number };
  readonly ratioP99: { inProcess: number; http: number };
}

interface Kind {
  readonly kind: string;
  readonly samples: number;
  readonly once?: string;
  readonly setup?: (i: number) => string;
  readonly statement: (i: number) => string;
}

export const KINDS: readonly Kind[] = [
  {
    kind: 'CREATE SOURCE (3 subsources)',
    samples: 12,
    once: "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE SECRET pgpass AS 'x'; CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', PORT 5432, USER 'mz', PASSWORD SECRET pgpass, DATABASE 'shop') WITH (VALIDATE = false)",
    statement: (i) => `CREATE SOURCE s${i} IN CLUSTER quickstart FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (shop.public.a AS a${i}, shop.public.b AS b${i}, shop.public.c AS c${i})`,
  },
  {
    kind: 'DROP ... CASCADE (10 objects)',
    samples: 12,
    setup: (i) => [`CREATE TABLE d${i} (a int)`, ...Array.from({ length: 9 }, (_, k) => `CREATE VIEW d${i}v${k} AS SELECT * FROM d${i}`)].join(';'),
    statement: (i) => `DROP TABLE d${i} CASCADE`,
  },
  {
    kind: 'staged commit (150 objects)',
    samples: 5,
    statement: (i) => ['BEGIN', ...Array.from({ length: 150 }, (_, k) => `CREATE TABLE g${i}_${k} (a int)`), 'COMMIT'].join(';'),
  },
];

export async function statementKinds(bench: Bench): Promise<KindRow[]> {
  const p = bench.commitOnly;
  const logger = makeLogger('bench-kinds');
  const rows: KindRow[] = [];
  for (const k of KINDS) {
    const floorT = await newTenant(p, `${bench.tag}-k-floor-${rows.length}`);
    const ipT = await newTenant(p, `${bench.tag}-k-ip-${rows.length}`);
    const httpT = await newTenant(p, `${bench.tag}-k-http-${rows.length}`);
    const floorStore = new FloorStore(p.clients.doc, p.config.catalogTable);
    const floorApi = new SqlApi({ store: floorStore, logger, secrets: p.secrets });
    const api = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger, secrets: p.secrets });
    const inProc = async (a: SqlApi, tenant: string, q: string) => {
      const t0 = now();
      const r = await a.handle(tenant, `${tenant}/bench`, JSON.stringify({ query: q }), 'application/json');
      if (r.status !== 200) throw new Error(`${k.kind}: ${q.slice(0, 60)}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      return now() - t0;
    };
    const http = async (q: string) => {
      const t0 = now();
      const r = await sqlHttp(p.url!, httpT.password, q);
      if (r.status !== 200) throw new Error(`${k.kind} over HTTP: ${q.slice(0, 60)}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      return now() - t0;
    };
    // Setup goes through the real commit on every tenant (the floor tenant's too).
    const real = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger, secrets: p.secrets });
    const setup = async (q: string) => {
      await inProc(real, floorT.tenant, q);
      await inProc(api, ipT.tenant, q);
      await http(q);
    };
    if (k.once) await setup(k.once);
    const samples = bench.quick ? Math.min(3, k.samples) : k.samples;
    const warm = 1;
    const floor: number[] = [];
    const ip: number[] = [];
    const ht: number[] = [];
    for (let i = 0; i < warm + samples; i++) {
      if (k.setup) await setup(k.setup(i));
      const q = k.statement(i);
      await inProc(floorApi, floorT.tenant, q);
      const f = floorStore.writeMs[floorStore.writeMs.length - 1]!;
      const a = await inProc(api, ipT.tenant, q);
      const h = await http(q);
      if (i < warm) continue;
      floor.push(f);
      ip.push(a);
      ht.push(h);
    }
    const fs = summarize(floor);
    const is = summarize(ip);
    const hs = summarize(ht);
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const row: KindRow = {
      kind: k.kind,
      samples,
      items: floorStore.items[floorStore.items.length - 1]!,
      floorTransactions: floorStore.transactions[floorStore.transactions.length - 1]!,
      floor: rounded(fs),
      inProcess: rounded(is),
      http: rounded(hs),
      ratioP50: { inProcess: r2(is.p50 / fs.p50), http: r2(hs.p50 / fs.p50) },
      ratioP99: { inProcess: r2(is.p99 / fs.p99), http: r2(hs.p99 / fs.p99) },
    };
    rows.push(row);
    bench.log(`kinds: ${k.kind} (${row.items} items, ${row.floorTransactions} raw transaction(s)): floor p50 ${fs.p50.toFixed(1)} ms, in-process ${is.p50.toFixed(1)} ms (${row.ratioP50.inProcess}×), HTTP ${hs.p50.toFixed(1)} ms (${row.ratioP50.http}×)`);
  }
  return rows;
}
