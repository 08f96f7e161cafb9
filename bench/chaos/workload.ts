/**
 * The chaos workload: the whole list of operations — DDL requests and the fault schedule — built
 * up front from a seed. Pure: the same (seed, ops, tenants) always gives the same list, whatever
 * the system answers later; nothing here reads a response or calls Math.random.
 */
import {
  addCluster,
  addItem,
  cloneModel,
  clusterHasDependents,
  dropClusterCascade,
  dropItemCascade,
  emptyModel,
  freshName,
  itemHasDependents,
  modelSize,
  RELATION_KINDS,
  SINKABLE_KINDS,
  TYPE_OF,
  type ItemKind,
  type ModelItem,
  type TenantModel,
} from './model';
import { Prng } from './prng';

export const CRASH_POINTS = ['router.before-send', 'router.after-send', 'executor.before-dataplane', 'executor.after-dataplane', 'executor.before-ack'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];
export const STAGED_POINTS = ['staged.before-commit-point', 'staged.after-commit-point', 'staged.mid-apply'] as const;
export type StagedPoint = (typeof STAGED_POINTS)[number];
/**
 * Races around a staged commit, each ordered by pause points (never by timing):
 * - `slow-roll-forward`: a reader (or sweeper) starts rolling the committed change forward, stalls
 *   mid-way and resumes only after the holder finished and later requests committed;
 * - `paused-rollback`: a reader whose clock says the lease ran out decides to roll back, stalls, and
 *   the holder reaches its commit point meanwhile;
 * - `mid-rollback`: a reader aborts the holder (its clock far ahead) and stalls before cleaning up;
 *   the holder's commit point fails and it replans;
 * - `lease-expiry`: while the holder is still writing, another API instance (clock past the lease)
 *   takes the catalog back and commits a request of its own.
 */
export const STAGED_RACES = ['slow-roll-forward', 'paused-rollback', 'mid-rollback', 'lease-expiry'] as const;
export type StagedRace = (typeof STAGED_RACES)[number];

/** What the generator expects a request to answer: success, or the first error's SQLSTATE. */
export type Prediction = { readonly ok: true } | { readonly ok: false; readonly code: string };

export type Op =
  /** One POST /api/sql. `key`: sent with this Idempotency-Key. `twin`: sent twice at once with that key. */
  | { readonly kind: 'sql'; readonly tenant: number; readonly body: string; readonly statements: number; readonly expect: Prediction; readonly writes: boolean; readonly key?: string; readonly twin?: boolean }
  /** The client retries an earlier keyed request (same body, same key): it must get the first answer. */
  | { readonly kind: 'retry'; readonly tenant: number; readonly of: number }
  /** The next `n` passes through `point` die there. */
  | { readonly kind: 'crash'; readonly point: CrashPoint; readonly n: number }
  /** Data-plane errors: after `skip` calls, `n` calls fail (or apply, then fail). */
  | { readonly kind: 'dataplane'; readonly fault: 'transient' | 'terminal' | 'apply-then-fail'; readonly skip: number; readonly n: number }
  /** Extra data-plane latency from now on (widens race windows). */
  | { readonly kind: 'latency'; readonly ms: number }
  /** Copies of existing effect messages, sent again; `reorder`: an object's effects newest first, older generations later. */
  | { readonly kind: 'duplicate'; readonly tenant: number; readonly picks: readonly number[]; readonly reorder: boolean }
  /** Every queued effect message is lost (PurgeQueue on each effect queue). */
  | { readonly kind: 'purge' }
  /** The SQS emulator dies with every message; a new one starts on the same port; the pipeline restarts. */
  | { readonly kind: 'sqs-restart' }
  /** DynamoDB Local stops and starts again on its data; the pipeline restarts. */
  | { readonly kind: 'ddb-restart' }
  /** The pipeline process restarts (router, executors, API) on the same tables and queues. */
  | { readonly kind: 'process-restart' }
  /** A sweep (or two at once) with a clock `aheadMs` later than the run's clock; optionally dying after a replay claim. */
  | { readonly kind: 'sweep'; readonly sweepers: 1 | 2; readonly aheadMs: number; readonly crashAfterClaim: boolean }
  /** A request over 100 items (a staged commit), optionally dying at a staged-commit crash point. */
  | { readonly kind: 'staged'; readonly tenant: number; readonly body: string; readonly crash?: StagedPoint; readonly commits: boolean }
  /**
   * A staged request raced by a paused reader or sweeper (resumed `resumeAfter` operations later)
   * or, for `lease-expiry`, by `racer` sent through a second API instance whose clock is past the lease.
   */
  | { readonly kind: 'staged-race'; readonly tenant: number; readonly body: string; readonly race: StagedRace; readonly by: 'reader' | 'sweeper'; readonly resumeAfter: number; readonly racer?: string }
  /**
   * Two requests at once: one through the HTTP API, one through a second API instance (its own
   * snapshot cache, no shared in-process turn queue) whose clock is `skewMs` off.
   */
  | { readonly kind: 'instances'; readonly tenant: number; readonly bodies: readonly [string, string]; readonly skewMs: number };

export type OpKind = Op['kind'];
export type FaultOpKind = Exclude<OpKind, 'sql' | 'retry'>;

export interface WorkloadOptions {
  readonly seed: number;
  readonly ops: number;
  readonly tenants: number;
}

export interface Workload {
  readonly seed: number;
  readonly tenants: number;
  readonly ops: readonly Op[];
}

/** Per 1 000 operations. */
const MIX: Readonly<Record<'sql' | FaultOpKind, number>> = {
  sql: 724,
  crash: 60,
  dataplane: 50,
  latency: 8,
  duplicate: 35,
  purge: 10,
  'sqs-restart': 5,
  'ddb-restart': 4,
  'process-restart': 6,
  sweep: 30,
  staged: 7,
  'staged-race': 6,
  instances: 15,
};

/** Fault kinds every run of at least this many operations contains at least once. */
const COVERAGE_MIN_OPS = 60;

const SIZES = ['25cc', '50cc', '100cc'] as const;
/** Over DynamoDB's 100 items per transaction (3 items a table), so the request is a staged commit. */
const BIG_TABLES = 35;

export function generateWorkload(o: WorkloadOptions): Workload {
  const r = new Prng(o.seed);
  const models = Array.from({ length: o.tenants }, () => emptyModel());
  const ops: Op[] = [];
  /** Retries scheduled for later positions: position → ops to insert there. */
  const retries = new Map<number, Op[]>();
  let stagedSchema = 0;
  let races = 0;

  // Fault kinds placed at fixed, seeded positions so that every boundary is exercised at least once.
  const forced = new Map<number, FaultOpKind>();
  if (o.ops >= COVERAGE_MIN_OPS) {
    // Every staged race once (they cycle), so even a short run has each.
    const races: FaultOpKind[] = STAGED_RACES.map(() => 'staged-race');
    const kinds: FaultOpKind[] = ['crash', 'dataplane', 'duplicate', 'purge', 'sqs-restart', 'ddb-restart', 'process-restart', 'sweep', 'staged', 'instances', ...races];
    for (const k of kinds) {
      let at: number;
      do at = r.int(Math.floor(o.ops * 0.1), Math.floor(o.ops * 0.85));
      while (forced.has(at));
      forced.set(at, k);
    }
  }

  while (ops.length < o.ops) {
    const i = ops.length;
    const due = retries.get(i);
    if (due?.length) {
      // A fault placed here for coverage moves one step on.
      const f = forced.get(i);
      if (f) {
        forced.delete(i);
        let to = i + 1;
        while (forced.has(to)) to++;
        forced.set(to, f);
      }
      ops.push(due.shift()!);
      if (due.length === 0) retries.delete(i);
      else retries.set(i + 1, [...due, ...(retries.get(i + 1) ?? [])]);
      continue;
    }
    const kind = forced.get(i) ?? r.weighted(MIX);
    const tenant = r.int(0, o.tenants - 1);
    const m = models[tenant]!;
    switch (kind) {
      case 'sql': {
        const op = sqlRequest(r, m, tenant, i, o.seed);
        ops.push(op);
        // A refused request records no answer, so its retry runs again — on a catalog that may have
        // moved on (a DROP refused with 2BP01 may succeed later): only retries of predicted
        // successes have an answer the model can predict.
        if (op.kind === 'sql' && op.key && op.writes) {
          const at = i + r.int(1, 25);
          retries.set(at, [...(retries.get(at) ?? []), { kind: 'retry', tenant, of: i }]);
        }
        break;
      }
      case 'crash':
        ops.push({ kind: 'crash', point: r.pick(CRASH_POINTS), n: r.chance(0.8) ? 1 : 2 });
        break;
      case 'dataplane': {
        const fault = r.weighted({ transient: 5, 'apply-then-fail': 2, terminal: 1 } as const);
        ops.push({ kind: 'dataplane', fault, skip: r.int(0, 4), n: fault === 'terminal' ? 1 : r.int(1, 3) });
        break;
      }
      case 'latency':
        ops.push({ kind: 'latency', ms: r.pick([0, 0, 5, 20, 50]) });
        break;
      case 'duplicate':
        ops.push({ kind: 'duplicate', tenant, picks: Array.from({ length: r.int(1, 4) }, () => r.next()), reorder: r.chance(0.5) });
        break;
      case 'purge':
      case 'sqs-restart':
      case 'ddb-restart':
      case 'process-restart':
        ops.push({ kind });
        break;
      case 'sweep':
        ops.push({ kind: 'sweep', sweepers: r.chance(0.5) ? 2 : 1, aheadMs: r.int(1, 6) * 600_000, crashAfterClaim: r.chance(0.25) });
        break;
      case 'staged': {
        const crash = r.chance(0.8) ? r.pick(STAGED_POINTS) : undefined;
        const commits = crash !== 'staged.before-commit-point';
        ops.push({ kind: 'staged', tenant, body: stagedBody(r, m, commits, () => ++stagedSchema), commits, ...(crash ? { crash } : {}) });
        break;
      }
      case 'staged-race': {
        const race = STAGED_RACES[races++ % STAGED_RACES.length]!;
        // The holder's change commits in every race: the answers around it must say so.
        const body = stagedBody(r, m, true, () => ++stagedSchema);
        const racer = race === 'lease-expiry' ? JSON.stringify({ query: freshTable(m) }) : undefined;
        ops.push({ kind: 'staged-race', tenant, body, race, by: r.chance(0.5) ? 'sweeper' : 'reader', resumeAfter: r.int(1, 5), ...(racer ? { racer } : {}) });
        break;
      }
      case 'instances': {
        const second = r.chance(0.5) ? freshTable(m) : freshCluster(m);
        ops.push({ kind: 'instances', tenant, bodies: [JSON.stringify({ query: freshTable(m) }), JSON.stringify({ query: second })], skewMs: r.pick([-30_000, 30_000]) });
        break;
      }
    }
  }
  return { seed: o.seed, tenants: o.tenants, ops };
}

/** A request over 100 items: a big schema of tables created, or an existing one dropped. */
function stagedBody(r: Prng, m: TenantModel, commits: boolean, nextSchema: () => number): string {
  const existing = m.schemas[0];
  if (existing && r.chance(0.5)) {
    if (commits) m.schemas.splice(0, 1);
    return JSON.stringify({ query: `DROP SCHEMA ${existing.name} CASCADE` });
  }
  const name = `big${nextSchema()}`;
  const stmts = [`CREATE SCHEMA ${name}`, ...Array.from({ length: BIG_TABLES }, (_, j) => `CREATE TABLE ${name}.t${j} (id int NOT NULL, v text)`)];
  if (commits) m.schemas.push({ name, tables: BIG_TABLES });
  return JSON.stringify({ query: stmts.join('; ') });
}

/** Statements that succeed in any order with any other request (fresh names, no references). */
function freshTable(m: TenantModel): string {
  const name = freshName(m, 't');
  addItem(m, { kind: 'table', name, deps: [] });
  return `CREATE TABLE ${name} (id int NOT NULL, amount numeric(10,2))`;
}

function freshCluster(m: TenantModel): string {
  const name = freshName(m, 'c');
  addCluster(m, { name, managed: true, size: '25cc', rf: 1, replicas: [] });
  return `CREATE CLUSTER ${name} (SIZE = '25cc', REPLICATION FACTOR = 1)`;
}

// ---- SQL requests -----------------------------------------------------------------------------

interface Stmt {
  readonly sql: string;
  /** The SQLSTATE this statement is expected to fail with; undefined when it should succeed. */
  readonly error?: string;
  readonly write: boolean;
}

type StmtGen = (r: Prng, m: TenantModel) => Stmt | undefined;

function sqlRequest(r: Prng, model: TenantModel, tenant: number, index: number, seed: number): Op {
  const multi = r.chance(0.15);
  const count = multi ? r.int(2, 4) : 1;
  const m = cloneModel(model);
  const stmts: Stmt[] = [];
  for (let k = 0; k < count; k++) {
    const s = statement(r, m);
    stmts.push(s);
    if (s.error) break;
  }
  const failed = stmts.find((s) => s.error);
  const writes = stmts.some((s) => s.write);
  // Only a request that succeeds changes the catalog: all of it commits, or none.
  if (!failed) Object.assign(model, m);
  const texts = stmts.map((s) => s.sql);
  const wrapped = multi && r.chance(0.3) ? ['BEGIN', ...texts, 'COMMIT'] : texts;
  const extended = multi && r.chance(0.3);
  const body = extended ? JSON.stringify({ queries: wrapped.map((q) => ({ query: q, params: [] })) }) : JSON.stringify({ query: wrapped.join('; ') });
  const keyed = writes && r.chance(0.1);
  const twin = keyed && r.chance(0.25);
  return {
    kind: 'sql',
    tenant,
    body,
    statements: wrapped.length,
    expect: failed ? { ok: false, code: failed.error! } : { ok: true },
    writes: writes && !failed,
    ...(keyed ? { key: `chaos-${seed}-${index}` } : {}),
    ...(twin ? { twin: true } : {}),
  };
}

function statement(r: Prng, m: TenantModel): Stmt {
  const size = modelSize(m);
  // Drops weigh more as the catalog grows, so a long run keeps a bounded catalog.
  const dropBoost = Math.max(1, size / 25);
  const weights: Record<string, number> = {
    createCluster: m.clusters.length < 2 ? 12 : 4,
    createReplica: 2,
    dropReplica: 2,
    alterCluster: 3,
    renameCluster: 1,
    swapClusters: 1,
    dropCluster: 2 * dropBoost,
    createSecret: 3,
    alterSecret: 2,
    createConnection: 3,
    createSource: 6,
    createTable: 6,
    createTableFromSource: 3,
    createView: 4,
    createMaterializedView: 4,
    createIndex: 3,
    createSink: 3,
    renameItem: 3,
    setCluster: 3,
    dropItem: 10 * dropBoost,
    mistake: 2,
    read: 2,
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    const name = r.weighted(weights);
    const s = GENERATORS[name]!(r, m);
    if (s) return s;
  }
  return GENERATORS.createTable!(r, m)!;
}

const q = (name: string) => name;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

function itemsOf(m: TenantModel, kinds: readonly ItemKind[]): ModelItem[] {
  return m.items.filter((i) => kinds.includes(i.kind));
}

const GENERATORS: Record<string, StmtGen> = {
  createCluster(r, m) {
    const existing = m.clusters.length && r.chance(0.05) ? r.pick(m.clusters) : undefined;
    const name = existing ? existing.name : freshName(m, 'c');
    const size = r.pick(SIZES);
    const managed = r.chance(0.7);
    let sql: string;
    let rf = 0;
    const replicas: string[] = [];
    if (managed) {
      rf = { one: 1, two: 2, zero: 0 }[r.weighted({ one: 6, two: 3, zero: 1 })];
      sql = `CREATE CLUSTER ${q(name)} (SIZE = ${lit(size)}, REPLICATION FACTOR = ${rf})`;
    } else {
      const n = r.int(1, 2);
      for (let j = 1; j <= n; j++) replicas.push(`r${j}`);
      sql = `CREATE CLUSTER ${q(name)} REPLICAS (${replicas.map((x) => `${x} (SIZE = ${lit(size)})`).join(', ')})`;
    }
    if (existing) return { sql, error: '42P07', write: true };
    addCluster(m, { name, managed, size, rf, replicas });
    return { sql, write: true };
  },
  createReplica(r, m) {
    const unmanaged = m.clusters.filter((c) => !c.managed);
    if (!unmanaged.length) return undefined;
    const c = r.pick(unmanaged);
    const name = freshName(m, 'r');
    c.replicas.push(name);
    return { sql: `CREATE CLUSTER REPLICA ${q(c.name)}.${q(name)} (SIZE = ${lit(r.pick(SIZES))})`, write: true };
  },
  dropReplica(r, m) {
    const withReplicas = m.clusters.filter((c) => c.replicas.length > 0 || c.managed);
    if (!withReplicas.length) return undefined;
    const c = r.pick(withReplicas);
    if (c.managed) return { sql: `DROP CLUSTER REPLICA ${q(c.name)}.r1`, error: c.rf >= 1 ? '0A000' : '42704', write: true };
    const rep = r.pick(c.replicas);
    c.replicas.splice(c.replicas.indexOf(rep), 1);
    return { sql: `DROP CLUSTER REPLICA ${q(c.name)}.${q(rep)}`, write: true };
  },
  alterCluster(r, m) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const size = r.pick(SIZES);
    const rf = r.int(0, 3);
    const what = r.int(0, 2);
    const opts = what === 0 ? `SIZE = ${lit(size)}` : what === 1 ? `REPLICATION FACTOR = ${rf}` : `SIZE = ${lit(size)}, REPLICATION FACTOR = ${rf}`;
    const sql = `ALTER CLUSTER ${q(c.name)} SET (${opts})`;
    if (!c.managed) return { sql, error: '0A000', write: true };
    if (what !== 1) c.size = size;
    if (what !== 0) c.rf = rf;
    return { sql, write: true };
  },
  renameCluster(r, m) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const taken = m.clusters.length > 1 && r.chance(0.1) ? r.pick(m.clusters.filter((x) => x !== c)) : undefined;
    const name = taken ? taken.name : freshName(m, 'c');
    const sql = `ALTER CLUSTER ${q(c.name)} RENAME TO ${q(name)}`;
    if (taken) return { sql, error: '42P07', write: true };
    c.name = name;
    return { sql, write: true };
  },
  swapClusters(r, m) {
    if (m.clusters.length < 2) return undefined;
    const a = r.pick(m.clusters);
    const b = r.pick(m.clusters.filter((x) => x !== a));
    const sql = `ALTER CLUSTER ${q(a.name)} SWAP WITH ${q(b.name)}`;
    [a.name, b.name] = [b.name, a.name];
    return { sql, write: true };
  },
  dropCluster(r, m) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const cascade = r.chance(0.5);
    const ifExists = r.chance(0.2);
    const sql = `DROP CLUSTER ${ifExists ? 'IF EXISTS ' : ''}${q(c.name)}${cascade ? ' CASCADE' : ''}`;
    if (!cascade && clusterHasDependents(m, c.id)) return { sql, error: '2BP01', write: true };
    dropClusterCascade(m, c.id);
    return { sql, write: true };
  },
  createSecret(r, m) {
    const name = freshName(m, 's');
    addItem(m, { kind: 'secret', name, deps: [] });
    return { sql: `CREATE SECRET ${q(name)} AS ${lit(`value-${r.u32().toString(36)}`)}`, write: true };
  },
  alterSecret(r, m) {
    const secrets = itemsOf(m, ['secret']);
    if (!secrets.length) return undefined;
    const s = r.pick(secrets);
    return { sql: `ALTER SECRET ${q(s.name)} AS ${lit(`rotated-${r.u32().toString(36)}`)}`, write: true };
  },
  createConnection(r, m) {
    const secrets = itemsOf(m, ['secret']);
    const name = freshName(m, 'conn');
    if (secrets.length && r.chance(0.5)) {
      const s = r.pick(secrets);
      addItem(m, { kind: 'connection', name, deps: [s.id], connType: 'postgres' });
      return {
        sql: `CREATE CONNECTION ${q(name)} TO POSTGRES (HOST 'db.internal', PORT 5432, USER 'mz', PASSWORD SECRET ${q(s.name)}, DATABASE 'shop') WITH (VALIDATE = false)`,
        write: true,
      };
    }
    addItem(m, { kind: 'connection', name, deps: [], connType: 'kafka' });
    return { sql: `CREATE CONNECTION ${q(name)} TO KAFKA (BROKER 'broker:9092', SECURITY PROTOCOL = 'PLAINTEXT') WITH (VALIDATE = false)`, write: true };
  },
  createSource(r, m) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const name = freshName(m, 'src');
    const pg = itemsOf(m, ['connection']).filter((x) => x.connType === 'postgres');
    const flavour = r.weighted({ counter: 2, auction: 1, postgres: pg.length ? 1 : 0 });
    if (flavour === 'counter') {
      addItem(m, { kind: 'source', name, deps: [], cluster: c.id, flavour });
      return { sql: `CREATE SOURCE ${q(name)} IN CLUSTER ${q(c.name)} FROM LOAD GENERATOR COUNTER`, write: true };
    }
    if (flavour === 'auction') {
      const src = addItem(m, { kind: 'source', name, deps: [], cluster: c.id, flavour });
      const subs = r.chance(0.5) ? ['auctions', 'bids'] : ['users'];
      for (const s of subs) addItem(m, { kind: 'subsource', name: `${name}_${s}`, deps: [], sourceId: src.id });
      return {
        sql: `CREATE SOURCE ${q(name)} IN CLUSTER ${q(c.name)} FROM LOAD GENERATOR AUCTION FOR TABLES (${subs.map((s) => `${s} AS ${name}_${s}`).join(', ')})`,
        write: true,
      };
    }
    const conn = r.pick(pg);
    const src = addItem(m, { kind: 'source', name, deps: [conn.id], cluster: c.id, flavour });
    addItem(m, { kind: 'subsource', name: `${name}_orders`, deps: [], sourceId: src.id });
    return {
      sql: `CREATE SOURCE ${q(name)} IN CLUSTER ${q(c.name)} FROM POSTGRES CONNECTION ${q(conn.name)} (PUBLICATION 'mz_source') FOR TABLES (shop.public.orders AS ${name}_orders)`,
      write: true,
    };
  },
  createTable(r, m) {
    const dup = m.items.length && r.chance(0.04) ? r.pick(m.items) : undefined;
    const name = dup ? dup.name : freshName(m, 't');
    const sql = `CREATE TABLE ${q(name)} (id int NOT NULL, amount numeric(10,2))`;
    if (dup) return { sql, error: '42P07', write: true };
    addItem(m, { kind: 'table', name, deps: [] });
    return { sql, write: true };
  },
  /** A table fed by a source: it depends on the source, so DROP SOURCE needs CASCADE. */
  createTableFromSource(r, m) {
    const sources = itemsOf(m, ['source']);
    if (!sources.length) return undefined;
    const src = r.pick(sources);
    const name = freshName(m, 'st');
    if (src.flavour !== 'counter' && r.chance(0.1)) {
      return { sql: `CREATE TABLE ${q(name)} FROM SOURCE ${q(src.name)}`, error: '22023', write: true };
    }
    const reference = src.flavour === 'auction' ? r.pick(['auctions', 'bids', 'users']) : src.flavour === 'postgres' ? 'shop.public.orders' : undefined;
    addItem(m, { kind: 'table', name, deps: [src.id] });
    return { sql: `CREATE TABLE ${q(name)} FROM SOURCE ${q(src.name)}${reference ? ` (REFERENCE ${reference})` : ''}`, write: true };
  },
  createView(r, m) {
    const rels = itemsOf(m, RELATION_KINDS);
    if (!rels.length) return undefined;
    const a = r.pick(rels);
    const b = r.chance(0.4) ? r.pick(rels) : undefined;
    const name = freshName(m, 'v');
    addItem(m, { kind: 'view', name, deps: b && b.id !== a.id ? [a.id, b.id] : [a.id] });
    return { sql: `CREATE VIEW ${q(name)} AS ${b ? `SELECT count(*) FROM ${q(a.name)} JOIN ${q(b.name)} ON true` : `SELECT * FROM ${q(a.name)}`}`, write: true };
  },
  createMaterializedView(r, m) {
    const rels = itemsOf(m, RELATION_KINDS);
    if (!rels.length || !m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const a = r.pick(rels);
    const name = freshName(m, 'mv');
    addItem(m, { kind: 'materialized_view', name, deps: [a.id], cluster: c.id });
    return { sql: `CREATE MATERIALIZED VIEW ${q(name)} IN CLUSTER ${q(c.name)} AS SELECT count(*) FROM ${q(a.name)}`, write: true };
  },
  createIndex(r, m) {
    const rels = itemsOf(m, RELATION_KINDS);
    if (!rels.length || !m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const on = r.pick(rels);
    const name = freshName(m, 'idx');
    addItem(m, { kind: 'index', name, deps: [on.id], cluster: c.id });
    return { sql: `CREATE INDEX ${q(name)} IN CLUSTER ${q(c.name)} ON ${q(on.name)} (id)`, write: true };
  },
  createSink(r, m) {
    const rels = itemsOf(m, SINKABLE_KINDS);
    const kafka = itemsOf(m, ['connection']).filter((x) => x.connType === 'kafka');
    if (!rels.length || !kafka.length || !m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const from = r.pick(rels);
    const conn = r.pick(kafka);
    const name = freshName(m, 'sink');
    addItem(m, { kind: 'sink', name, deps: [from.id, conn.id], cluster: c.id });
    return {
      sql: `CREATE SINK ${q(name)} IN CLUSTER ${q(c.name)} FROM ${q(from.name)} INTO KAFKA CONNECTION ${q(conn.name)} (TOPIC ${lit(`topic_${name}`)}) FORMAT JSON ENVELOPE DEBEZIUM`,
      write: true,
    };
  },
  renameItem(r, m) {
    const candidates = m.items.filter((i) => i.kind !== 'subsource');
    if (!candidates.length) return undefined;
    const it = r.pick(candidates);
    const taken = candidates.length > 1 && r.chance(0.1) ? r.pick(m.items.filter((x) => x !== it)) : undefined;
    const name = taken ? taken.name : freshName(m, `${it.name.replace(/[_0-9]+$/, '')}_`);
    const sql = `ALTER ${TYPE_OF[it.kind]} ${q(it.name)} RENAME TO ${q(name)}`;
    if (taken) return { sql, error: '42P07', write: true };
    it.name = name;
    return { sql, write: true };
  },
  setCluster(r, m) {
    const movable = m.items.filter((i) => i.kind === 'source' || i.kind === 'sink' || i.kind === 'materialized_view' || i.kind === 'index');
    if (!movable.length || !m.clusters.length) return undefined;
    const it = r.pick(movable);
    const c = r.pick(m.clusters);
    it.cluster = c.id;
    return { sql: `ALTER ${TYPE_OF[it.kind]} ${q(it.name)} SET CLUSTER ${q(c.name)}`, write: true };
  },
  dropItem(r, m) {
    if (!m.items.length) return undefined;
    const it = r.pick(m.items);
    const cascade = r.chance(0.45);
    const ifExists = r.chance(0.1);
    const sql = `DROP ${TYPE_OF[it.kind]} ${ifExists ? 'IF EXISTS ' : ''}${q(it.name)}${cascade ? ' CASCADE' : ''}`;
    // A subsource goes with its source, never on its own.
    if (it.kind === 'subsource') return { sql, error: '2BP01', write: true };
    if (!cascade && itemHasDependents(m, it.id)) return { sql, error: '2BP01', write: true };
    dropItemCascade(m, it.id);
    return { sql, write: true };
  },
  mistake(r, m) {
    const k = r.int(0, 4);
    if (k === 0) return { sql: `DROP TABLE ${q(freshName(m, 'nope'))}`, error: '42P01', write: true };
    if (k === 1) return { sql: `DROP TABLE IF EXISTS ${q(freshName(m, 'nope'))}`, write: true };
    if (k === 2) return { sql: `CREATE TABLEE ${q(freshName(m, 'bad'))} (a int)`, error: '42601', write: true };
    if (k === 3) return { sql: `CREATE SOURCE ${q(freshName(m, 'src'))} IN CLUSTER ${q(freshName(m, 'nocluster'))} FROM LOAD GENERATOR COUNTER`, error: '42704', write: true };
    const tables = itemsOf(m, ['table']);
    if (!tables.length) return undefined;
    return { sql: `DROP VIEW ${q(r.pick(tables).name)}`, error: '42809', write: true };
  },
  read(r) {
    return {
      sql: r.pick([
        'SHOW SOURCES',
        'SHOW CLUSTER REPLICAS',
        'SHOW TABLES',
        'SELECT * FROM mz_internal.mz_pending_effects',
        'SELECT name, type FROM mz_objects ORDER BY name',
        'SELECT * FROM mz_internal.mz_cluster_replica_statuses',
        'SELECT * FROM mz_internal.mz_source_statuses',
      ]),
      write: false,
    };
  },
};
