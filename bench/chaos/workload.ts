/**
 * The chaos workload: the whole list of operations — DDL requests and the fault schedule — built
 * up front from a seed. Pure: the same (seed, ops, tenants) always gives the same list, whatever
 * the system answers later; nothing here reads a response or calls Math.random.
 */
import {
  addCluster,
  addItem,
  certainSize,
  cloneModel,
  clusterHasDependents,
  dropClusterCascade,
  dropItemCascade,
  emptyModel,
  freshName,
  itemHasDependents,
  modelSize,
  RELATION_KINDS,
  RETAINING_KINDS,
  SINKABLE_KINDS,
  toUnmanaged,
  TYPE_OF,
  type ConnType,
  type ItemKind,
  type ModelCluster,
  type ModelItem,
  type SourceFlavour,
  type TenantModel,
} from './model';
import { Prng } from './prng';

/**
 * Where a process dies. `reconfigure.*` are the two sides of a graceful reconfiguration's settle
 * commit (shared/executor/reconfigure.ts); `executor.before-next` is an executor dying after it
 * settled its batch and before it admitted and sent its tenants' next effects (admission).
 */
export const CRASH_POINTS = [
  'router.before-send',
  'router.after-send',
  'executor.before-dataplane',
  'executor.after-dataplane',
  'executor.before-ack',
  'reconfigure.before-commit',
  'reconfigure.after-commit',
  'executor.before-next',
] as const;
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
  /**
   * One POST /api/sql. `key`: sent with this Idempotency-Key. `twin`: sent twice at once with that key.
   * `settle`: clusters whose graceful reconfiguration must have settled before it is sent (the
   * client waits, as a Materialize client's blocking ALTER would have): its answer depends on
   * their replicas.
   */
  | {
      readonly kind: 'sql';
      readonly tenant: number;
      readonly body: string;
      readonly statements: number;
      readonly expect: Prediction;
      readonly writes: boolean;
      readonly key?: string;
      readonly twin?: boolean;
      readonly settle?: readonly string[];
    }
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
/** Short waits: a reconfiguration settles within the run, and the quiet phase is not held up by one. */
const WAITS = { "WAIT FOR '0s'": 1, "WAIT FOR '1s'": 1, "WAIT UNTIL READY (TIMEOUT = '1s', ON TIMEOUT = 'COMMIT')": 1, "WAIT UNTIL READY (TIMEOUT = '2s')": 1 } as const;
const ROLLBACK_WAIT = "WAIT UNTIL READY (TIMEOUT = '1s', ON TIMEOUT = 'ROLLBACK')";
/** Over DynamoDB's 100 items per transaction (3 items a table), so the request is a staged commit. */
const BIG_TABLES = 35;

export function generateWorkload(o: WorkloadOptions): Workload {
  const r = new Prng(o.seed);
  const models = Array.from({ length: o.tenants }, () => emptyModel());
  /** Per tenant, the statement generators not drawn yet: early requests draw them, so even a short run has every kind. */
  const todo = Array.from({ length: o.tenants }, () => Object.keys(GENERATORS));
  const drawn = Array.from({ length: o.tenants }, () => new Map<string, Set<string>>());
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
        const op = sqlRequest(r, m, { todo: todo[tenant]!, drawn: drawn[tenant]! }, tenant, i, o.seed);
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
  addItem(m, { kind: 'table', name, deps: [], columns: ['id', 'amount'] });
  return `CREATE TABLE ${name} (id int NOT NULL, amount numeric(10,2))`;
}

function freshCluster(m: TenantModel): string {
  const name = freshName(m, 'c');
  addCluster(m, { name, managed: true, sizes: ['25cc'], rf: 1 });
  return `CREATE CLUSTER ${name} (SIZE = '25cc', REPLICATION FACTOR = 1)`;
}

// ---- SQL requests -----------------------------------------------------------------------------

interface Stmt {
  readonly sql: string;
  /** The SQLSTATE this statement is expected to fail with; undefined when it should succeed. */
  readonly error?: string;
  readonly write: boolean;
}

/**
 * A cluster's shape when a statement plans: `known`; `pending`, a reconfiguration this request
 * started is under way (another ALTER answers 55006); `maybe`, this request may have started one
 * (the size it may already have is the target), so no answer that depends on it is predictable.
 */
type Shape = 'known' | 'pending' | 'maybe';

/** What the statements of one request share. */
interface RequestContext {
  /** Per tenant, the variants each generator has drawn (variant()): across requests. */
  readonly drawn: Map<string, Set<string>>;
  /** Clusters a statement of this request started (or may have started) a graceful reconfiguration of. */
  readonly started: Map<number, Exclude<Shape, 'known'>>;
  /** Clusters whose reconfiguration, started by an earlier request, must have settled before this one is sent. */
  readonly settle: Set<number>;
}

type StmtGen = (r: Prng, m: TenantModel, ctx: RequestContext) => Stmt | undefined;

/**
 * One of a generator's variants: mostly one this tenant has not drawn yet while there are such,
 * else by weight, so that even a short run has each variant of each statement kind.
 */
function variant<K extends string>(r: Prng, ctx: RequestContext, key: string, weights: Readonly<Record<K, number>>): K {
  const drawn = ctx.drawn.get(key) ?? new Set<string>();
  ctx.drawn.set(key, drawn);
  const fresh = (Object.keys(weights) as K[]).filter((k) => weights[k] > 0 && !drawn.has(k));
  const k = fresh.length && r.chance(0.7) ? r.pick(fresh) : r.weighted(weights);
  drawn.add(k);
  return k;
}

/**
 * The shape of `c` for a statement whose answer depends on it. A reconfiguration an earlier
 * request started is waited for before this request is sent (`settle`): then it is settled.
 */
function shape(ctx: RequestContext, c: ModelCluster): Shape {
  const started = ctx.started.get(c.id);
  if (started) return started;
  if (c.reconfiguring) {
    ctx.settle.add(c.id);
    c.reconfiguring = false;
  }
  return 'known';
}

function sqlRequest(r: Prng, model: TenantModel, coverage: { todo: string[]; drawn: Map<string, Set<string>> }, tenant: number, index: number, seed: number): Op {
  const multi = r.chance(0.15);
  const count = multi ? r.int(2, 4) : 1;
  const m = cloneModel(model);
  const ctx: RequestContext = { started: new Map(), settle: new Set(), drawn: coverage.drawn };
  const stmts: Stmt[] = [];
  for (let k = 0; k < count; k++) {
    const s = statement(r, m, ctx, coverage.todo);
    stmts.push(s);
    if (s.error) break;
  }
  const failed = stmts.find((s) => s.error);
  const writes = stmts.some((s) => s.write);
  // The clusters waited for, by the names they have before the request runs.
  const settle = [...ctx.settle].map((id) => model.clusters.find((c) => c.id === id)!.name);
  // Only a request that succeeds changes the catalog: all of it commits, or none. What it waited
  // for has settled either way.
  if (!failed) Object.assign(model, m);
  else for (const id of ctx.settle) model.clusters.find((c) => c.id === id)!.reconfiguring = false;
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
    ...(settle.length ? { settle } : {}),
  };
}

function statement(r: Prng, m: TenantModel, ctx: RequestContext, todo: string[]): Stmt {
  if (todo.length && r.chance(0.8)) {
    // From a random place in the list on, the first that can be made here.
    const from = r.int(0, todo.length - 1);
    for (const name of [...todo.slice(from), ...todo.slice(0, from)]) {
      const s = GENERATORS[name]!(r, m, ctx);
      if (!s) continue;
      todo.splice(todo.indexOf(name), 1);
      return s;
    }
  }
  const size = modelSize(m);
  // Drops weigh more as the catalog grows, so a long run keeps a bounded catalog.
  const dropBoost = Math.max(1, size / 25);
  const weights: Record<string, number> = {
    createCluster: m.clusters.length < 2 ? 12 : 4,
    createReplica: 2,
    dropReplica: 2,
    alterCluster: 3,
    alterClusterGraceful: 3,
    alterClusterGracefulRollback: 2,
    alterSchedule: 1,
    convertCluster: 2,
    renameCluster: 1,
    swapClusters: 1,
    dropCluster: 2 * dropBoost,
    createSecret: 3,
    alterSecret: 2,
    createConnection: 3,
    createMySqlConnection: 1,
    createSqlServerConnection: 1,
    createSshTunnel: 1,
    alterConnection: 4,
    createSource: 4,
    createPostgresSource: 1,
    createMySqlSource: 1,
    createSqlServerSource: 1,
    createWebhookSource: 1,
    addSubsource: 2,
    refreshReferences: 1,
    timestampInterval: 1,
    createTable: 6,
    createTableFromSource: 3,
    addColumn: 2,
    createType: 2,
    createView: 4,
    createMaterializedView: 4,
    createIndex: 3,
    createSink: 3,
    setRetainHistory: 3,
    resetRetainHistory: 1,
    comment: 4,
    renameItem: 3,
    setCluster: 3,
    dropItem: 10 * dropBoost,
    dropType: 1,
    mistake: 2,
    read: 2,
    readCatalog: 3,
    readColumns: 2,
    readSubsources: 2,
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    const name = r.weighted(weights);
    const s = GENERATORS[name]!(r, m, ctx);
    if (s) return s;
  }
  return GENERATORS.createTable!(r, m, ctx)!;
}

const q = (name: string) => name;
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

function itemsOf(m: TenantModel, kinds: readonly ItemKind[]): ModelItem[] {
  return m.items.filter((i) => kinds.includes(i.kind));
}

/** The upstream tables of the sources that have them; a subsource or a table from the source names one. */
const UPSTREAM: Readonly<Partial<Record<SourceFlavour, readonly string[]>>> = {
  postgres: ['shop.public.orders', 'shop.public.items', 'shop.public.customers'],
  mysql: ['shop.orders', 'shop.items', 'shop.customers'],
  sqlserver: ['dbo.orders', 'dbo.items', 'dbo.customers'],
};

const FROM_CONNECTION: Readonly<Record<'postgres' | 'mysql' | 'sqlserver', string>> = {
  postgres: 'POSTGRES',
  mysql: 'MYSQL',
  sqlserver: 'SQL SERVER',
};

const COMMENTABLE_COLUMNS = (m: TenantModel) => m.items.filter((i) => i.kind === 'table' && i.columns);

/**
 * A source of one of the flavours with a weight (none when none can be made). Sources are made as
 * the existing ones are: their connections skip the upstream check (VALIDATE = false), so no
 * source probes an upstream; a webhook has none.
 */
function createSource(r: Prng, m: TenantModel, weights: Partial<Record<SourceFlavour, number>>): Stmt | undefined {
  const conns = (t: ConnType) => itemsOf(m, ['connection']).filter((x) => x.connType === t);
  const needsConnection = (f: string) => f === 'postgres' || f === 'mysql' || f === 'sqlserver';
  const possible = Object.fromEntries(Object.entries(weights).map(([f, w]) => [f, needsConnection(f) && !conns(f as ConnType).length ? 0 : w]));
  if (!m.clusters.length || !Object.values(possible).some((w) => (w ?? 0) > 0)) return undefined;
  const c = r.pick(m.clusters);
  const name = freshName(m, 'src');
  const flavour = r.weighted(possible as Record<SourceFlavour, number>);
  const at = `CREATE SOURCE ${q(name)} IN CLUSTER ${q(c.name)}`;
  if (flavour === 'counter') {
    addItem(m, { kind: 'source', name, deps: [], cluster: c.id, flavour });
    return { sql: `${at} FROM LOAD GENERATOR COUNTER`, write: true };
  }
  if (flavour === 'webhook') {
    addItem(m, { kind: 'source', name, deps: [], cluster: c.id, flavour });
    const tail = r.pick(['BODY FORMAT JSON', 'BODY FORMAT TEXT INCLUDE HEADERS', "BODY FORMAT JSON CHECK (WITH (HEADERS) headers->'x-signature' IS NOT NULL)"]);
    return { sql: `${at} FROM WEBHOOK ${tail}`, write: true };
  }
  if (flavour === 'auction') {
    const src = addItem(m, { kind: 'source', name, deps: [], cluster: c.id, flavour });
    const subs = r.chance(0.5) ? ['auctions', 'bids'] : ['users'];
    for (const s of subs) addItem(m, { kind: 'subsource', name: `${name}_${s}`, deps: [], sourceId: src.id });
    return { sql: `${at} FROM LOAD GENERATOR AUCTION FOR TABLES (${subs.map((s) => `${s} AS ${name}_${s}`).join(', ')})`, write: true };
  }
  const conn = r.pick(conns(flavour === 'sqlserver' ? 'sqlserver' : flavour));
  const upstream = UPSTREAM[flavour]!;
  const references = r.chance(0.4) ? [upstream[0]!, upstream[2]!] : [upstream[0]!];
  const src = addItem(m, { kind: 'source', name, deps: [conn.id], cluster: c.id, flavour, references: [...references] });
  const parts = references.map((ref) => ({ ref, as: `${name}_${ref.split('.').pop()!}` }));
  for (const p of parts) addItem(m, { kind: 'subsource', name: p.as, deps: [], sourceId: src.id });
  const options = flavour === 'postgres' ? " (PUBLICATION 'mz_source')" : '';
  return { sql: `${at} FROM ${FROM_CONNECTION[flavour]} CONNECTION ${q(conn.name)}${options} FOR TABLES (${parts.map((p) => `${p.ref} AS ${p.as}`).join(', ')})`, write: true };
}

/** `ALTER ... SET | RESET (RETAIN HISTORY)`: a new generation, the collection (or the index's dataflow) ensured again with the new read policy. */
function alterRetainHistory(r: Prng, m: TenantModel, k: 'set' | 'low' | 'reset'): Stmt | undefined {
  const its = itemsOf(m, [...RETAINING_KINDS, 'view']);
  if (!its.length) return undefined;
  const it = r.pick(its);
  const secs = r.pick([2, 5, 60, 3600]);
  const sql =
    k === 'reset'
      ? `ALTER ${TYPE_OF[it.kind]} ${q(it.name)} RESET (RETAIN HISTORY)`
      : `ALTER ${TYPE_OF[it.kind]} ${q(it.name)} SET (RETAIN HISTORY FOR ${lit(k === 'low' ? '10ms' : `${secs}s`)})`;
  if (it.kind === 'view') return { sql, error: '0A000', write: true };
  // A webhook source's definition has no WITH options to hold it.
  if (it.flavour === 'webhook') return { sql, error: 'XX000', write: true };
  if (k === 'low') return { sql, error: '22023', write: true };
  if (k === 'reset') delete it.retainMs;
  else it.retainMs = secs * 1_000;
  return { sql, write: true };
}

/**
 * `ALTER CLUSTER ... SET (SIZE ...) WITH (WAIT ...)`: new replicas beside the old ones, settled
 * after the answer. COMMIT and WAIT FOR always end at the target; ROLLBACK may keep the old size,
 * so it changes the size alone (the replica count stays known).
 */
function alterClusterGraceful(r: Prng, m: TenantModel, ctx: RequestContext, rollback: boolean): Stmt | undefined {
  if (!m.clusters.length) return undefined;
  const managed = m.clusters.filter((c) => c.managed);
  const c = managed.length && r.chance(0.9) ? r.pick(managed) : r.pick(m.clusters);
  const size = r.pick(SIZES);
  // A new schedule goes with the size now and then (it is part of the target); never with a replica count.
  const schedule = !rollback && r.chance(0.2) ? (c.onRefresh ? 'MANUAL' : "ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour')") : undefined;
  const withRf = !rollback && !schedule && !c.onRefresh && r.chance(0.4);
  const rf = r.int(0, 3);
  const wait = rollback ? ROLLBACK_WAIT : variant(r, ctx, 'wait', WAITS);
  const sql = `ALTER CLUSTER ${q(c.name)} SET (SIZE = ${lit(size)}${withRf ? `, REPLICATION FACTOR = ${rf}` : ''}${schedule ? `, SCHEDULE = ${schedule}` : ''}) WITH (${wait})`;
  const s = shape(ctx, c);
  if (s === 'maybe') return undefined;
  if (s === 'pending') return { sql, error: '55006', write: true };
  if (!c.managed) return { sql, error: '0A000', write: true };
  // Graceful only when the size changes (else the options change at once), as in Materialize.
  const from = certainSize(c);
  if (from !== size) {
    c.reconfiguring = true;
    ctx.started.set(c.id, from === undefined ? 'maybe' : 'pending');
  }
  if (withRf) c.rf = rf;
  if (schedule) {
    c.onRefresh = schedule !== 'MANUAL';
    if (c.onRefresh) c.rf = 1;
  }
  c.sizes = rollback ? [...new Set([...c.sizes, size])] : [size];
  return { sql, write: true };
}

/** A connection of `type` (none when its prerequisites are missing); every one skips the upstream check (VALIDATE = false). */
function createConnection(r: Prng, m: TenantModel, type: ConnType): Stmt | undefined {
  const secrets = itemsOf(m, ['secret']);
  const tunnels = itemsOf(m, ['connection']).filter((x) => x.connType === 'ssh');
  if (type === 'postgres' && !secrets.length) return undefined;
  const name = freshName(m, 'conn');
  const secret = secrets.length ? r.pick(secrets) : undefined;
  const password = secret && r.chance(0.7) ? `, PASSWORD SECRET ${q(secret.name)}` : '';
  const deps = password ? [secret!.id] : [];
  switch (type) {
    case 'postgres': {
      const tunnel = tunnels.length && r.chance(0.3) ? r.pick(tunnels) : undefined;
      addItem(m, { kind: 'connection', name, deps: [secret!.id, ...(tunnel ? [tunnel.id] : [])], connType: 'postgres' });
      return {
        sql: `CREATE CONNECTION ${q(name)} TO POSTGRES (HOST 'db.internal', PORT 5432, USER 'mz', PASSWORD SECRET ${q(secret!.name)}, DATABASE 'shop'${tunnel ? `, SSH TUNNEL ${q(tunnel.name)}` : ''}) WITH (VALIDATE = false)`,
        write: true,
      };
    }
    case 'mysql':
      addItem(m, { kind: 'connection', name, deps, connType: 'mysql' });
      return { sql: `CREATE CONNECTION ${q(name)} TO MYSQL (HOST 'mysql.internal', PORT 3306, USER 'mz'${password}) WITH (VALIDATE = false)`, write: true };
    case 'sqlserver':
      addItem(m, { kind: 'connection', name, deps, connType: 'sqlserver' });
      return { sql: `CREATE CONNECTION ${q(name)} TO SQL SERVER (HOST 'mssql.internal', PORT 1433, USER 'mz'${password}, DATABASE 'shop') WITH (VALIDATE = false)`, write: true };
    case 'ssh':
      addItem(m, { kind: 'connection', name, deps: [], connType: 'ssh' });
      return { sql: `CREATE CONNECTION ${q(name)} TO SSH TUNNEL (HOST 'bastion.internal', PORT 22, USER 'mz') WITH (VALIDATE = false)`, write: true };
    case 'kafka':
      addItem(m, { kind: 'connection', name, deps: [], connType: 'kafka' });
      return { sql: `CREATE CONNECTION ${q(name)} TO KAFKA (BROKER 'broker:9092', SECURITY PROTOCOL = 'PLAINTEXT') WITH (VALIDATE = false)`, write: true };
  }
}

const GENERATORS: Record<string, StmtGen> = {
  createCluster(r, m) {
    const existing = m.clusters.length && r.chance(0.05) ? r.pick(m.clusters) : undefined;
    const name = existing ? existing.name : freshName(m, 'c');
    const size = r.pick(SIZES);
    const managed = r.chance(0.7);
    if (managed) {
      const onRefresh = r.chance(0.15);
      const rf = onRefresh ? 1 : { one: 1, two: 2, zero: 0 }[r.weighted({ one: 6, two: 3, zero: 1 })];
      const sql = onRefresh
        ? `CREATE CLUSTER ${q(name)} (SIZE = ${lit(size)}, SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour'))`
        : `CREATE CLUSTER ${q(name)} (SIZE = ${lit(size)}, REPLICATION FACTOR = ${rf})`;
      if (existing) return { sql, error: '42P07', write: true };
      addCluster(m, { name, managed, sizes: [size], rf, onRefresh });
      return { sql, write: true };
    }
    // Now and then replicas of different sizes: such a cluster cannot become managed.
    const replicas = Array.from({ length: r.int(1, 2) }, (_, j) => ({ name: `r${j + 1}`, sizes: [j > 0 && r.chance(0.3) ? r.pick(SIZES) : size] }));
    const sql = `CREATE CLUSTER ${q(name)} REPLICAS (${replicas.map((x) => `${x.name} (SIZE = ${lit(x.sizes[0]!)})`).join(', ')})`;
    if (existing) return { sql, error: '42P07', write: true };
    addCluster(m, { name, managed, sizes: [], rf: 0, replicas });
    return { sql, write: true };
  },
  createReplica(r, m) {
    const managed = m.clusters.filter((c) => c.managed);
    if (managed.length && r.chance(0.1)) return { sql: `CREATE CLUSTER REPLICA ${q(r.pick(managed).name)}.${freshName(m, 'r')} (SIZE = '25cc')`, error: '0A000', write: true };
    const unmanaged = m.clusters.filter((c) => !c.managed);
    if (!unmanaged.length) return undefined;
    const c = r.pick(unmanaged);
    let name = freshName(m, 'r');
    while (c.replicas.some((x) => x.name === name)) name = freshName(m, 'r');
    const size = r.pick(SIZES);
    c.replicas.push({ name, sizes: [size] });
    return { sql: `CREATE CLUSTER REPLICA ${q(c.name)}.${q(name)} (SIZE = ${lit(size)})`, write: true };
  },
  dropReplica(r, m, ctx) {
    const candidates = m.clusters.filter((c) => (c.managed ? !ctx.started.has(c.id) : c.replicas.length > 0));
    if (!candidates.length) return undefined;
    const c = r.pick(candidates);
    if (c.managed) {
      // Whether r1 exists depends on the replica count, which a pending reconfiguration may still change.
      shape(ctx, c);
      return { sql: `DROP CLUSTER REPLICA ${q(c.name)}.r1`, error: c.rf >= 1 ? '0A000' : '42704', write: true };
    }
    const rep = r.pick(c.replicas);
    c.replicas.splice(c.replicas.indexOf(rep), 1);
    return { sql: `DROP CLUSTER REPLICA ${q(c.name)}.${q(rep.name)}`, write: true };
  },
  alterCluster(r, m, ctx) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const size = r.pick(SIZES);
    const rf = r.int(0, 3);
    const what = { size: 0, rf: 1, both: 2 }[variant(r, ctx, 'alter cluster', { size: 1, rf: 1, both: 1 })];
    const opts = what === 0 ? `SIZE = ${lit(size)}` : what === 1 ? `REPLICATION FACTOR = ${rf}` : `SIZE = ${lit(size)}, REPLICATION FACTOR = ${rf}`;
    const sql = `ALTER CLUSTER ${q(c.name)} SET (${opts})`;
    const s = shape(ctx, c);
    if (s === 'maybe') return undefined;
    if (s === 'pending') return { sql, error: '55006', write: true };
    if (!c.managed) return { sql, error: '0A000', write: true };
    if (what !== 0 && c.onRefresh) return { sql, error: 'XX000', write: true };
    if (what !== 1) c.sizes = [size];
    if (what !== 0) c.rf = rf;
    return { sql, write: true };
  },
  alterClusterGraceful(r, m, ctx) {
    return alterClusterGraceful(r, m, ctx, false);
  },
  alterClusterGracefulRollback(r, m, ctx) {
    return alterClusterGraceful(r, m, ctx, true);
  },

  alterSchedule(r, m, ctx) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const k = { 'on refresh': 0, manual: 1, reset: 2 }[variant(r, ctx, 'schedule', { 'on refresh': 1, manual: 1, reset: 1 })];
    const sql =
      k === 0 ? `ALTER CLUSTER ${q(c.name)} SET (SCHEDULE = ON REFRESH (HYDRATION TIME ESTIMATE = '1 hour'))`
      : k === 1 ? `ALTER CLUSTER ${q(c.name)} SET (SCHEDULE = MANUAL)`
      : `ALTER CLUSTER ${q(c.name)} RESET (SCHEDULE)`;
    const s = shape(ctx, c);
    if (s === 'maybe') return undefined;
    if (s === 'pending') return { sql, error: '55006', write: true };
    if (k === 0) {
      if (!c.managed) return { sql, error: 'XX000', write: true };
      // ON REFRESH runs one replica; MANUAL again keeps that one.
      c.onRefresh = true;
      c.rf = 1;
    } else {
      c.onRefresh = false;
    }
    return { sql, write: true };
  },
  /** `SET (MANAGED = false)` hands the replicas over; `SET (MANAGED [, SIZE])` takes them back when they fit. */
  convertCluster(r, m, ctx) {
    if (!m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const s = shape(ctx, c);
    if (s === 'maybe') return undefined;
    if (c.managed) {
      const sql = `ALTER CLUSTER ${q(c.name)} SET (MANAGED = false)`;
      if (s === 'pending') return { sql, error: '55006', write: true };
      if (c.onRefresh) return { sql, error: 'XX000', write: true };
      toUnmanaged(c);
      return { sql, write: true };
    }
    // A replica whose size is open (a reconfiguration that may have rolled back) makes the answer open too.
    if (c.replicas.some((x) => x.sizes.length > 1)) return undefined;
    const sizes = [...new Set(c.replicas.map((x) => x.sizes[0]!))];
    const given = r.chance(0.4) ? (sizes.length === 1 && r.chance(0.6) ? sizes[0]! : r.pick(SIZES)) : undefined;
    const sql = `ALTER CLUSTER ${q(c.name)} SET (MANAGED${given ? `, SIZE = ${lit(given)}` : ''})`;
    const n = c.replicas.length;
    const names = new Set(Array.from({ length: n }, (_, i) => `r${i + 1}`));
    const refused = sizes.length > 1 || (n === 0 && !given) || (n > 0 && given !== undefined && given !== sizes[0]) || c.replicas.some((x) => !names.has(x.name));
    if (refused) return { sql, error: '22023', write: true };
    c.managed = true;
    c.sizes = [sizes[0] ?? given!];
    c.rf = n;
    c.replicas = [];
    c.onRefresh = false;
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
  alterSecret(r, m, ctx) {
    const secrets = itemsOf(m, ['secret']);
    if (!secrets.length) return undefined;
    const s = r.pick(secrets);
    const value = `rotated-${r.u32().toString(36)}`;
    // A value given by an expression, as Materialize's examples do.
    const expr = variant(r, ctx, 'secret value', { literal: 1, decode: 1 }) === 'decode' ? `decode(${lit(Buffer.from(value).toString('base64'))}, 'base64')` : lit(value);
    return { sql: `ALTER SECRET ${q(s.name)} AS ${expr}`, write: true };
  },
  createConnection(r, m) {
    return createConnection(r, m, r.weighted({ postgres: itemsOf(m, ['secret']).length ? 1 : 0, kafka: 1 }));
  },
  createMySqlConnection(r, m) {
    return createConnection(r, m, 'mysql');
  },
  createSqlServerConnection(r, m) {
    return createConnection(r, m, 'sqlserver');
  },
  createSshTunnel(r, m) {
    return createConnection(r, m, 'ssh');
  },
  /** Every source, sink and source-fed table on the connection starts again at a new generation. */
  alterConnection(r, m, ctx) {
    const conns = itemsOf(m, ['connection']);
    if (!conns.length) return undefined;
    const c = r.pick(conns);
    const n = r.int(1, 9);
    const at = `ALTER CONNECTION ${q(c.name)}`;
    switch (c.connType) {
      case 'kafka':
        // Without a broker a Kafka connection would be invalid: Materialize's 0A000.
        if (variant(r, ctx, 'kafka connection', { set: 4, reset: 1 }) === 'reset') return { sql: `${at} RESET (BROKER) WITH (VALIDATE = false)`, error: '0A000', write: true };
        return { sql: `${at} SET (BROKER = ${lit(`broker${n}:9092`)}) WITH (VALIDATE = false)`, write: true };
      case 'ssh':
        if (variant(r, ctx, 'ssh tunnel', { rotate: 3, set: 2 }) === 'rotate') return { sql: `${at} ROTATE KEYS`, write: true };
        return { sql: `${at} SET (HOST = ${lit(`bastion${n}.internal`)}) WITH (VALIDATE = false)`, write: true };
      default:
        switch (variant(r, ctx, 'connection', { set: 4, reset: 1, rotate: 1 })) {
          case 'rotate':
            return { sql: `${at} ROTATE KEYS`, error: 'XX000', write: true };
          case 'reset':
            return { sql: `${at} RESET (PORT) WITH (VALIDATE = false)`, write: true };
          case 'set':
            return { sql: `${at} SET (HOST = ${lit(`h${n}.internal`)}) WITH (VALIDATE = false)`, write: true };
        }
    }
    return undefined;
  },
  createSource(r, m) {
    return createSource(r, m, { counter: 2, auction: 1 });
  },
  createPostgresSource(r, m) {
    return createSource(r, m, { postgres: 1 });
  },
  createMySqlSource(r, m) {
    return createSource(r, m, { mysql: 1 });
  },
  createSqlServerSource(r, m) {
    return createSource(r, m, { sqlserver: 1 });
  },
  createWebhookSource(r, m) {
    return createSource(r, m, { webhook: 1 });
  },
  /** A new subsource is a new export of the running ingestion: the source is ensured again at a new generation. */
  addSubsource(r, m) {
    const sources = itemsOf(m, ['source']);
    if (!sources.length) return undefined;
    const s = r.pick(sources);
    const alias = freshName(m, 'sub');
    const upstream = s.flavour && UPSTREAM[s.flavour];
    if (!upstream) return { sql: `ALTER SOURCE ${q(s.name)} ADD SUBSOURCE upstream.t AS ${alias}`, error: 'XX000', write: true };
    const ref = r.pick(upstream);
    const sql = `ALTER SOURCE ${q(s.name)} ADD SUBSOURCE ${ref} AS ${alias}`;
    if (s.references!.includes(ref)) return { sql, error: '42P07', write: true };
    s.references!.push(ref);
    addItem(m, { kind: 'subsource', name: alias, deps: [], sourceId: s.id });
    return { sql, write: true };
  },
  /** Succeeds and changes nothing: no list of upstream references is kept. On a subsource: XX000. */
  refreshReferences(r, m) {
    const subs = itemsOf(m, ['subsource']);
    if (subs.length && r.chance(0.2)) return { sql: `ALTER SOURCE ${q(r.pick(subs).name)} REFRESH REFERENCES`, error: 'XX000', write: true };
    const sources = itemsOf(m, ['source']);
    if (!sources.length) return undefined;
    return { sql: `ALTER SOURCE ${q(r.pick(sources).name)} REFRESH REFERENCES`, write: true };
  },
  /** Materialize's defaults allow 1 s only; on a table: 42809. */
  timestampInterval(r, m, ctx) {
    const tables = itemsOf(m, ['table']);
    if (tables.length && r.chance(0.1)) return { sql: `ALTER SOURCE ${q(r.pick(tables).name)} SET (TIMESTAMP INTERVAL '1s')`, error: '42809', write: true };
    const sources = itemsOf(m, ['source']);
    if (!sources.length) return undefined;
    const s = r.pick(sources);
    const v = variant(r, ctx, 'timestamp interval', { set: 3, reset: 2, invalid: 1 });
    if (v === 'invalid') return { sql: `ALTER SOURCE ${q(s.name)} SET (TIMESTAMP INTERVAL '5s')`, error: 'XX000', write: true };
    return { sql: v === 'set' ? `ALTER SOURCE ${q(s.name)} SET (TIMESTAMP INTERVAL '1s')` : `ALTER SOURCE ${q(s.name)} RESET (TIMESTAMP INTERVAL)`, write: true };
  },
  createTable(r, m) {
    const dup = m.items.length && r.chance(0.04) ? r.pick(m.items) : undefined;
    const name = dup ? dup.name : freshName(m, 't');
    const types = itemsOf(m, ['type']);
    const ty = types.length && r.chance(0.25) ? r.pick(types) : undefined;
    const retain = r.chance(0.15);
    const sql = `CREATE TABLE ${q(name)} (id int NOT NULL, amount numeric(10,2)${ty ? `, tags ${q(ty.name)}` : ''})${retain ? " WITH (RETAIN HISTORY FOR '2s')" : ''}`;
    if (dup) return { sql, error: '42P07', write: true };
    addItem(m, { kind: 'table', name, deps: ty ? [ty.id] : [], columns: ['id', 'amount', ...(ty ? ['tags'] : [])], ...(retain ? { retainMs: 2_000 } : {}) });
    return { sql, write: true };
  },
  /** A table fed by a source: it depends on the source, so DROP SOURCE needs CASCADE. */
  createTableFromSource(r, m) {
    const sources = itemsOf(m, ['source']);
    if (!sources.length) return undefined;
    const src = r.pick(sources);
    const name = freshName(m, 'st');
    if (src.flavour === 'webhook') return { sql: `CREATE TABLE ${q(name)} FROM SOURCE ${q(src.name)}`, error: '0A000', write: true };
    if (src.flavour !== 'counter' && r.chance(0.1)) {
      return { sql: `CREATE TABLE ${q(name)} FROM SOURCE ${q(src.name)}`, error: '22023', write: true };
    }
    const reference = src.flavour === 'auction' ? r.pick(['auctions', 'bids', 'users']) : src.flavour === 'counter' ? undefined : r.pick(UPSTREAM[src.flavour!]!);
    addItem(m, { kind: 'table', name, deps: [src.id] });
    return { sql: `CREATE TABLE ${q(name)} FROM SOURCE ${q(src.name)}${reference ? ` (REFERENCE ${reference})` : ''}`, write: true };
  },
  /** Catalog only: the table keeps its generation and no effect is recorded. */
  addColumn(r, m) {
    const tables = itemsOf(m, ['table']);
    const col = r.pick(['note', 'region', 'extra']);
    if (!tables.length || r.chance(0.1)) return { sql: `ALTER TABLE IF EXISTS ${q(freshName(m, 'nope'))} ADD COLUMN ${col} text`, write: true };
    const t = r.pick(tables);
    const types = itemsOf(m, ['type']);
    const ty = types.length && r.chance(0.2) ? r.pick(types) : undefined;
    const ifNotExists = r.chance(0.3);
    const sql = `ALTER TABLE ${q(t.name)} ADD COLUMN ${ifNotExists ? 'IF NOT EXISTS ' : ''}${col} ${ty ? q(ty.name) : 'text'}`;
    if (!t.columns) return { sql, error: '0A000', write: true };
    if (t.columns.includes(col)) return ifNotExists ? { sql, write: true } : { sql, error: '42701', write: true };
    t.columns.push(col);
    if (ty) t.deps.push(ty.id);
    return { sql, write: true };
  },
  /** Catalog only; a table or another type that uses it depends on it. */
  createType(r, m, ctx) {
    const types = itemsOf(m, ['type']);
    const dup = m.items.length && r.chance(0.05) ? r.pick(m.items) : undefined;
    const name = dup ? dup.name : freshName(m, 'ty');
    const k = variant(r, ctx, 'type', { list: 3, map: 2, nested: types.length ? 1 : 0 });
    const inner = k === 'nested' ? r.pick(types) : undefined;
    const sql = k === 'map' ? `CREATE TYPE ${q(name)} AS MAP (KEY TYPE = text, VALUE TYPE = int4)` : `CREATE TYPE ${q(name)} AS LIST (ELEMENT TYPE = ${inner ? q(inner.name) : 'int4'})`;
    if (dup) return { sql, error: '42P07', write: true };
    addItem(m, { kind: 'type', name, deps: inner ? [inner.id] : [] });
    return { sql, write: true };
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
  createMaterializedView(r, m, ctx) {
    const rels = itemsOf(m, RELATION_KINDS);
    if (!rels.length || !m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const a = r.pick(rels);
    const name = freshName(m, 'mv');
    const k = variant(r, ctx, 'materialized view', { none: 6, commit: 1, every: 2, at: 1, creation: 1, retain: 1, invalid: 1 });
    const options = {
      none: '',
      commit: 'REFRESH ON COMMIT',
      every: "REFRESH EVERY '1 day'",
      at: "REFRESH AT '3000-01-01 23:59'",
      creation: "REFRESH AT CREATION, REFRESH EVERY '1 hour'",
      retain: "RETAIN HISTORY FOR '2s'",
      invalid: "REFRESH EVERY '-1 minute'",
    }[k];
    const sql = `CREATE MATERIALIZED VIEW ${q(name)} IN CLUSTER ${q(c.name)}${options ? ` WITH (${options})` : ''} AS SELECT count(*) FROM ${q(a.name)}`;
    if (k === 'invalid') return { sql, error: 'XX000', write: true };
    addItem(m, { kind: 'materialized_view', name, deps: [a.id], cluster: c.id, ...(k === 'retain' ? { retainMs: 2_000 } : {}) });
    return { sql, write: true };
  },
  createIndex(r, m) {
    const rels = itemsOf(m, RELATION_KINDS);
    if (!rels.length || !m.clusters.length) return undefined;
    const c = r.pick(m.clusters);
    const on = r.pick(rels);
    const name = freshName(m, 'idx');
    const retain = r.chance(0.15);
    addItem(m, { kind: 'index', name, deps: [on.id], on: on.id, cluster: c.id, ...(retain ? { retainMs: 2_000 } : {}) });
    return { sql: `CREATE INDEX ${q(name)} IN CLUSTER ${q(c.name)} ON ${q(on.name)} (id)${retain ? " WITH (RETAIN HISTORY FOR '2s')" : ''}`, write: true };
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
  setRetainHistory(r, m, ctx) {
    return alterRetainHistory(r, m, variant(r, ctx, 'retain history', { set: 4, low: 1 }));
  },
  resetRetainHistory(r, m) {
    return alterRetainHistory(r, m, 'reset');
  },
  /** Catalog metadata only: no generation, no effect. */
  comment(r, m, ctx) {
    const k = variant(r, ctx, 'comment', { item: 5, column: 2, cluster: 2, wrong: 1, missing: 1 });
    const value = r.chance(0.2) ? undefined : `note ${r.u32().toString(36)}`;
    const text = value === undefined ? 'NULL' : lit(value);
    switch (k) {
      case 'item': {
        if (!m.items.length) return undefined;
        const it = r.pick(m.items);
        it.comment = value;
        if (value === undefined) delete it.comment;
        return { sql: `COMMENT ON ${TYPE_OF[it.kind]} ${q(it.name)} IS ${text}`, write: true };
      }
      case 'column': {
        const views = itemsOf(m, ['view']);
        if (views.length && r.chance(0.15)) return { sql: `COMMENT ON COLUMN ${q(r.pick(views).name)}.id IS ${text}`, error: '0A000', write: true };
        const tables = COMMENTABLE_COLUMNS(m);
        if (!tables.length) return undefined;
        const t = r.pick(tables);
        const missing = r.chance(0.1);
        const col = missing ? 'nope' : r.pick(t.columns!);
        const sql = `COMMENT ON COLUMN ${q(t.name)}.${col} IS ${text}`;
        if (missing) return { sql, error: '42703', write: true };
        const comments = (t.columnComments ??= {});
        if (value === undefined) delete comments[col];
        else comments[col] = value;
        return { sql, write: true };
      }
      case 'cluster': {
        if (!m.clusters.length) return undefined;
        const c = r.pick(m.clusters);
        c.comment = value;
        if (value === undefined) delete c.comment;
        return { sql: `COMMENT ON CLUSTER ${q(c.name)} IS ${text}`, write: true };
      }
      case 'wrong': {
        const tables = itemsOf(m, ['table']);
        if (!tables.length) return undefined;
        return { sql: `COMMENT ON SOURCE ${q(r.pick(tables).name)} IS ${text}`, error: '42809', write: true };
      }
      case 'missing':
        return { sql: `COMMENT ON TABLE ${q(freshName(m, 'nope'))} IS ${text}`, error: '42P01', write: true };
    }
    return undefined;
  },
  renameItem(r, m) {
    // Subsources go with their source; ALTER TYPE is not served (0A000).
    const candidates = m.items.filter((i) => i.kind !== 'subsource' && i.kind !== 'type');
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
  /** DROP TYPE: 2BP01 while a table or another type uses it, unless CASCADE. */
  dropType(r, m) {
    const types = itemsOf(m, ['type']);
    if (!types.length) return undefined;
    const ty = r.pick(types);
    const cascade = r.chance(0.5);
    const sql = `DROP TYPE ${q(ty.name)}${cascade ? ' CASCADE' : ''}`;
    if (!cascade && itemHasDependents(m, ty.id)) return { sql, error: '2BP01', write: true };
    dropItemCascade(m, ty.id);
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
  /** Judged by the history checker: the columns (and their comments) the requests before left. */
  readColumns(r, m) {
    const its = m.items.filter((i) => i.kind !== 'type');
    if (!its.length) return undefined;
    const it = r.pick(its);
    const sql = r.chance(0.5) ? `SHOW COLUMNS FROM ${q(it.name)}` : `SELECT name, nullable FROM (SHOW COLUMNS FROM ${q(it.name)}) ORDER BY name`;
    if (it.kind === 'table') return { sql, write: false };
    // The catalog knows the columns of tables only; a secret, connection, sink or index has none.
    return { sql, error: RELATION_KINDS.includes(it.kind) ? '0A000' : 'XX000', write: false };
  },
  /** Judged by the history checker: the subsources the requests before left. */
  readSubsources(r, m) {
    const sources = itemsOf(m, ['source']);
    const tables = itemsOf(m, ['table']);
    if (tables.length && r.chance(0.15)) return { sql: `SHOW SUBSOURCES ON ${q(r.pick(tables).name)}`, error: 'XX000', write: false };
    if (!sources.length) return { sql: 'SHOW SUBSOURCES', write: false };
    const s = r.pick(sources);
    return { sql: r.chance(0.7) ? `SHOW SUBSOURCES ON ${q(s.name)}` : `SELECT name FROM (SHOW SUBSOURCES ON ${q(s.name)}) ORDER BY name`, write: false };
  },
  /** The system tables of the newer kinds. */
  readCatalog(r, _m, ctx) {
    const reads = [
      'SELECT * FROM mz_internal.mz_comments',
      'SELECT * FROM mz_internal.mz_pending_cluster_reconfigurations',
      'SELECT * FROM mz_internal.mz_history_retention_strategies',
      'SELECT * FROM mz_internal.mz_cluster_schedules',
      'SELECT * FROM mz_internal.mz_materialized_view_refresh_strategies',
      "SELECT name FROM (SHOW SOURCES) WHERE type = 'mysql'",
      'SELECT cluster, replica, size FROM (SHOW CLUSTER REPLICAS) ORDER BY replica',
      'SHOW TYPES',
    ] as const;
    return { sql: variant(r, ctx, 'catalog read', Object.fromEntries(reads.map((x) => [x, 1])) as Record<(typeof reads)[number], number>), write: false };
  },
  read(r) {
    return {
      sql: r.pick([
        'SHOW SOURCES',
        'SHOW CLUSTER REPLICAS',
        'SHOW TABLES',
        'SHOW CONNECTIONS',
        'SELECT * FROM mz_internal.mz_pending_effects',
        'SELECT name, type FROM mz_objects ORDER BY name',
        'SELECT * FROM mz_internal.mz_cluster_replica_statuses',
        'SELECT * FROM mz_internal.mz_source_statuses',
      ]),
      write: false,
    };
  },
};
