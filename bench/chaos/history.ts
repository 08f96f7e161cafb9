/**
 * The chaos run's history checker: the end state alone cannot show an answer that was later
 * undone (a DROP answered 200 whose object comes back, a CREATE answered 200 that vanishes), so
 * every request is recorded with its answer and, after the system goes quiet, checked:
 *
 * - the acknowledged requests have a serial order consistent with every answer: a CREATE answered
 *   200 found its name free, a 42P07 found it taken, a DROP answered 200 found the object (and,
 *   without CASCADE, no dependents), a 2BP01 found dependents, a 42704/42P01 found a name missing,
 *   a 42701 found the column there; the rows of SHOW COLUMNS and SHOW SUBSOURCES are the columns
 *   (with their comments) and subsources the requests before left;
 * - that serial order leaves exactly the final catalog: every acknowledged CREATE/ALTER/DROP/COMMENT
 *   is reflected in it unless a later acknowledged request explains the difference, and nothing is
 *   in it that no acknowledged request put there — names, clusters' shapes (managed, size, replica
 *   count, schedule, an unmanaged cluster's replicas) and the facts the ALTERs set (comments,
 *   columns, RETAIN HISTORY as the data plane gets it and as SHOW CREATE shows it, a connection's
 *   host, a source's TIMESTAMP INTERVAL, a materialized view's refresh strategy).
 *
 * A graceful reconfiguration with ON TIMEOUT = ROLLBACK may end at either size: the size is one of
 * a set until a later request fixes it. Requests are sequential except in declared groups (sent at
 * once, any order is allowed); a request without an answer (a crash, a lost connection) may or may
 * not have happened: both are tried. Pure, no I/O. It knows the chaos workload's statement forms
 * (workload.ts), no more.
 */
import { durationMs } from '../../shared/planner/reconfigure';

export type Answer =
  | {
      readonly committed: true;
      /** Per statement, the rows of the reads this checker judges (SHOW COLUMNS, SHOW SUBSOURCES); undefined elsewhere. */
      readonly rows?: readonly (readonly (readonly unknown[])[] | undefined)[];
    }
  | { readonly committed: false; readonly error?: { readonly index: number; readonly code: string } };

export interface HistoryEntry {
  /** Workload position (for reports). */
  readonly op: number;
  readonly tenant: number;
  /** The request's statements in order, as sent. */
  readonly statements: readonly string[];
  /** undefined: no answer (crash, lost connection): it may or may not have taken effect. */
  readonly answer: Answer | undefined;
  /** Entries with the same group were in flight at once: any order between them is allowed. */
  readonly group?: number;
}

/** Facts about one object, by name (`size`, `comment`, ...); a fact not set is absent. */
export type Facts = Readonly<Record<string, string>>;

export interface FinalCatalog {
  readonly clusters: readonly string[];
  /** Schemas other than `public`. */
  readonly schemas: readonly string[];
  /** Item name (schema-qualified outside `public`) → the name of its cluster, if it has one. */
  readonly items: Readonly<Record<string, string | null>>;
  /** The facts of each cluster and item by name (see finalFacts in engine.ts); absent: names alone are compared. */
  readonly facts?: { readonly clusters: Readonly<Record<string, Facts>>; readonly items: Readonly<Record<string, Facts>> };
}

export interface HistoryReport {
  readonly requests: number;
  readonly acknowledged: number;
  readonly unanswered: number;
  readonly anomalies: readonly string[];
}

/** The facts' names, shared with the final catalog's builder (engine.ts). */
export const FACT = {
  managed: 'managed',
  size: 'size',
  replicationFactor: 'replication factor',
  schedule: 'schedule',
  replicas: 'replicas',
  comment: 'comment',
  columns: 'columns',
  retain: 'retain history',
  retainShown: 'retain history in SHOW CREATE',
  host: 'host',
  timestampInterval: 'timestamp interval',
  refresh: 'refresh',
} as const;

/** A column's comment, as a fact of its table. */
export const columnCommentFact = (column: string) => `comment on column ${column}`;

/** An unmanaged cluster's replicas as one fact: `r1 25cc, r2 50cc`, by name. */
export function replicasFact(replicas: Iterable<readonly [string, string]>): string {
  return [...replicas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([n, s]) => `${n} ${s}`).join(', ');
}

// ---- statements -------------------------------------------------------------------------------

type ItemFact = typeof FACT.retain | typeof FACT.host | typeof FACT.timestampInterval;

type Action =
  | {
      readonly t: 'create-cluster';
      readonly name: string;
      /** Managed: its size and replica count; unmanaged: its replicas. Absent when the statement's shape is not the workload's. */
      readonly shape?: { readonly managed: true; readonly size: string; readonly rf: number; readonly onRefresh: boolean } | { readonly managed: false; readonly replicas: readonly (readonly [string, string])[] };
    }
  | { readonly t: 'cluster-exists'; readonly name: string }
  | {
      readonly t: 'alter-cluster';
      readonly name: string;
      readonly size?: string;
      readonly rf?: number;
      readonly schedule?: 'manual' | 'on refresh';
      readonly managed?: boolean;
      /** A graceful reconfiguration: `rollback` may keep the old size. */
      readonly wait?: 'commit' | 'rollback';
    }
  | { readonly t: 'create-replica'; readonly cluster: string; readonly name: string; readonly size: string }
  | { readonly t: 'drop-replica'; readonly cluster: string; readonly name: string }
  | { readonly t: 'rename-cluster'; readonly from: string; readonly to: string }
  | { readonly t: 'swap-clusters'; readonly a: string; readonly b: string }
  | { readonly t: 'drop-cluster'; readonly name: string; readonly cascade: boolean; readonly ifExists: boolean }
  | {
      readonly t: 'create-item';
      readonly name: string;
      readonly deps: readonly string[];
      readonly cluster?: string;
      readonly parts: readonly string[];
      /** Upstream references the parts export (sources with upstream tables). */
      readonly refs?: readonly string[];
      readonly columns?: readonly string[];
      readonly facts?: Facts;
      /** An index: the relation it is on. */
      readonly on?: string;
    }
  | { readonly t: 'item-exists'; readonly name: string }
  | { readonly t: 'rename-item'; readonly from: string; readonly to: string }
  | { readonly t: 'set-cluster'; readonly name: string; readonly cluster: string }
  | { readonly t: 'drop-item'; readonly name: string; readonly cascade: boolean; readonly ifExists: boolean }
  | { readonly t: 'create-schema'; readonly name: string }
  | { readonly t: 'drop-schema'; readonly name: string }
  | { readonly t: 'set-fact'; readonly name: string; readonly fact: ItemFact; readonly value: string | undefined }
  | { readonly t: 'add-part'; readonly source: string; readonly ref: string; readonly part: string }
  | { readonly t: 'add-column'; readonly table: string; readonly column: string; readonly deps: readonly string[]; readonly ifExists: boolean; readonly ifNotExists: boolean }
  | {
      readonly t: 'comment';
      readonly on: { readonly kind: 'cluster'; readonly name: string } | { readonly kind: 'item'; readonly name: string } | { readonly kind: 'column'; readonly table: string; readonly column: string };
      readonly value: string | undefined;
    }
  | { readonly t: 'read-columns'; readonly name: string; readonly sorted: boolean }
  | { readonly t: 'read-subsources'; readonly name: string }
  | { readonly t: 'none' };

const ITEM_TYPE = '(SECRET|CONNECTION|SOURCE|TABLE|VIEW|MATERIALIZED VIEW|INDEX|SINK|TYPE)';

/** The workload names its user-defined types `ty<N>`: a column or an element of that type depends on it. */
const USER_TYPE = /^ty\d+$/;

const unquote = (s: string) => s.slice(1, -1).replace(/''/g, "'");

/** `RETAIN HISTORY [=] FOR '<interval>'` in an option list or a statement, as ms. */
export function retainHistoryOf(options: string | undefined): string | undefined {
  const m = options && /RETAIN HISTORY (?:= )?FOR '([^']*)'/.exec(options);
  const ms = m ? durationMs(m[1]!) : undefined;
  return ms === undefined ? undefined : String(ms);
}

/** A table's column list `(id int NOT NULL, amount numeric(10,2), tags ty3)`: names and the user types they use. */
function columnsOf(list: string): { columns: string[]; types: string[] } {
  const defs = list.split(/, (?![^()]*\))/);
  const columns = defs.map((d) => d.split(' ')[0]!);
  const types = defs.map((d) => d.split(' ')[1] ?? '').filter((t) => USER_TYPE.test(t));
  return { columns, types };
}

/** What a statement of the chaos workload asks for (SELECT, SHOW, BEGIN and typos ask for nothing). */
export function parseStatement(sql: string): Action {
  const s = sql.trim();
  let m: RegExpExecArray | null;
  if ((m = /^CREATE CLUSTER REPLICA (\w+)\.(\w+) \(SIZE = '(\w+)'\)$/.exec(s))) return { t: 'create-replica', cluster: m[1]!, name: m[2]!, size: m[3]! };
  if ((m = /^DROP CLUSTER REPLICA (\w+)\.([\w-]+)$/.exec(s))) return { t: 'drop-replica', cluster: m[1]!, name: m[2]! };
  if ((m = /^(?:CREATE|DROP) CLUSTER REPLICA (\w+)\./.exec(s))) return { t: 'cluster-exists', name: m[1]! };
  if ((m = /^CREATE CLUSTER (\w+) \(SIZE = '(\w+)', (?:REPLICATION FACTOR = (\d+)|(SCHEDULE = ON REFRESH).*)\)$/.exec(s))) {
    return { t: 'create-cluster', name: m[1]!, shape: { managed: true, size: m[2]!, rf: m[4] ? 1 : Number(m[3]), onRefresh: !!m[4] } };
  }
  if ((m = /^CREATE CLUSTER (\w+) REPLICAS \((.*)\)$/.exec(s))) {
    return { t: 'create-cluster', name: m[1]!, shape: { managed: false, replicas: [...m[2]!.matchAll(/(\w+) \(SIZE = '(\w+)'\)/g)].map((x) => [x[1]!, x[2]!] as const) } };
  }
  if ((m = /^CREATE CLUSTER (\w+)\b/.exec(s))) return { t: 'create-cluster', name: m[1]! };
  if ((m = /^ALTER CLUSTER (\w+) RENAME TO (\w+)$/.exec(s))) return { t: 'rename-cluster', from: m[1]!, to: m[2]! };
  if ((m = /^ALTER CLUSTER (\w+) SWAP WITH (\w+)$/.exec(s))) return { t: 'swap-clusters', a: m[1]!, b: m[2]! };
  if ((m = /^ALTER CLUSTER (\w+) RESET \(SCHEDULE\)$/.exec(s))) return { t: 'alter-cluster', name: m[1]!, schedule: 'manual' };
  if ((m = /^ALTER CLUSTER (\w+) SET \((.*?)\)(?: WITH \((.*)\))?$/.exec(s))) {
    const opts = m[2]!;
    const size = /SIZE = '(\w+)'/.exec(opts)?.[1];
    const rf = /REPLICATION FACTOR = (\d+)/.exec(opts)?.[1];
    const managed = /^MANAGED = false$/.test(opts) ? false : /^MANAGED\b/.test(opts) ? true : undefined;
    const schedule = /SCHEDULE = ON REFRESH/.test(opts) ? 'on refresh' : /SCHEDULE = MANUAL/.test(opts) ? 'manual' : undefined;
    const wait = m[3] === undefined ? undefined : /ON TIMEOUT = 'ROLLBACK'/.test(m[3]) ? 'rollback' : 'commit';
    return {
      t: 'alter-cluster',
      name: m[1]!,
      ...(size ? { size } : {}),
      ...(rf ? { rf: Number(rf) } : {}),
      ...(managed !== undefined ? { managed } : {}),
      ...(schedule ? { schedule } : {}),
      ...(wait ? { wait } : {}),
    } as Action;
  }
  if ((m = /^DROP CLUSTER (IF EXISTS )?(\w+)( CASCADE)?$/.exec(s))) return { t: 'drop-cluster', name: m[2]!, cascade: !!m[3], ifExists: !!m[1] };
  if ((m = /^CREATE SCHEMA (\w+)$/.exec(s))) return { t: 'create-schema', name: m[1]! };
  if ((m = /^DROP SCHEMA (\w+) CASCADE$/.exec(s))) return { t: 'drop-schema', name: m[1]! };
  if ((m = /^CREATE SECRET (\w+) AS /.exec(s))) return { t: 'create-item', name: m[1]!, deps: [], parts: [] };
  if ((m = /^ALTER SECRET (\w+) AS /.exec(s))) return { t: 'item-exists', name: m[1]! };
  if ((m = /^CREATE CONNECTION (\w+) TO /.exec(s))) {
    const deps = [...s.matchAll(/(?:PASSWORD SECRET|SSH TUNNEL) (\w+)/g)].map((x) => x[1]!);
    const host = /\((?:HOST|BROKER) ('[^']*')/.exec(s)?.[1];
    return { t: 'create-item', name: m[1]!, deps, parts: [], ...(host ? { facts: { [FACT.host]: unquote(host) } } : {}) };
  }
  if ((m = /^ALTER CONNECTION (\w+) SET \((?:HOST|BROKER) = ('[^']*')\)/.exec(s))) return { t: 'set-fact', name: m[1]!, fact: FACT.host, value: unquote(m[2]!) };
  if ((m = /^ALTER CONNECTION (\w+) (?:ROTATE KEYS|SET \(|RESET \()/.exec(s))) return { t: 'item-exists', name: m[1]! };
  if ((m = /^CREATE SOURCE (\w+) IN CLUSTER (\w+) FROM (.*)$/.exec(s))) {
    const tables = [...(/FOR TABLES \((.*)\)$/.exec(m[3]!)?.[1] ?? '').matchAll(/([\w.]+) AS (\w+)/g)];
    const deps = [.../(?:POSTGRES|MYSQL|SQL SERVER) CONNECTION (\w+)/.exec(m[3]!)?.slice(1) ?? []];
    const upstream = /^(?:POSTGRES|MYSQL|SQL SERVER) /.test(m[3]!);
    return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps, parts: tables.map((x) => x[2]!), ...(upstream ? { refs: tables.map((x) => x[1]!) } : {}) };
  }
  if ((m = /^ALTER SOURCE (\w+) ADD SUBSOURCE ([\w.]+) AS (\w+)$/.exec(s))) return { t: 'add-part', source: m[1]!, ref: m[2]!, part: m[3]! };
  if ((m = /^ALTER SOURCE (\w+) SET \(TIMESTAMP INTERVAL '([^']*)'\)$/.exec(s))) return { t: 'set-fact', name: m[1]!, fact: FACT.timestampInterval, value: m[2]! };
  if ((m = /^ALTER SOURCE (\w+) RESET \(TIMESTAMP INTERVAL\)$/.exec(s))) return { t: 'set-fact', name: m[1]!, fact: FACT.timestampInterval, value: undefined };
  if ((m = /^ALTER SOURCE (\w+) REFRESH REFERENCES$/.exec(s))) return { t: 'item-exists', name: m[1]! };
  if ((m = /^CREATE TABLE ([\w.]+) \((.*?)\)( WITH \(.*\))?$/.exec(s))) {
    const { columns, types } = columnsOf(m[2]!);
    const retain = retainHistoryOf(m[3]);
    return { t: 'create-item', name: m[1]!, deps: types, parts: [], columns, ...(retain ? { facts: { [FACT.retain]: retain } } : {}) };
  }
  if ((m = /^CREATE TABLE (\w+) FROM SOURCE (\w+)/.exec(s))) return { t: 'create-item', name: m[1]!, deps: [m[2]!], parts: [] };
  if ((m = /^ALTER TABLE (IF EXISTS )?(\w+) ADD COLUMN (IF NOT EXISTS )?(\w+) (\w+)$/.exec(s))) {
    return { t: 'add-column', table: m[2]!, column: m[4]!, deps: USER_TYPE.test(m[5]!) ? [m[5]!] : [], ifExists: !!m[1], ifNotExists: !!m[3] };
  }
  if ((m = /^CREATE TYPE (\w+) AS (?:LIST|MAP) \((.*)\)$/.exec(s))) {
    return { t: 'create-item', name: m[1]!, deps: [...m[2]!.matchAll(/TYPE = (\w+)/g)].map((x) => x[1]!).filter((x) => USER_TYPE.test(x)), parts: [] };
  }
  if ((m = /^CREATE VIEW (\w+) AS (.*)$/.exec(s))) return { t: 'create-item', name: m[1]!, deps: [...m[2]!.matchAll(/(?:FROM|JOIN) (\w+)/g)].map((x) => x[1]!), parts: [] };
  if ((m = /^CREATE MATERIALIZED VIEW (\w+) IN CLUSTER (\w+)(?: WITH \((.*?)\))? AS .* FROM (\w+)$/.exec(s))) {
    const retain = retainHistoryOf(m[3]);
    const refresh = /REFRESH (?:EVERY|AT)\b/.test(m[3] ?? '') ? 'scheduled' : 'on commit';
    return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [m[4]!], parts: [], facts: { [FACT.refresh]: refresh, ...(retain ? { [FACT.retain]: retain } : {}) } };
  }
  if ((m = /^CREATE INDEX (\w+) IN CLUSTER (\w+) ON (\w+) \(\w+\)(?: WITH \((.*)\))?$/.exec(s))) {
    const retain = retainHistoryOf(m[4]);
    return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [m[3]!], on: m[3]!, parts: [], ...(retain ? { facts: { [FACT.retain]: retain } } : {}) };
  }
  if ((m = /^CREATE SINK (\w+) IN CLUSTER (\w+) FROM (\w+) INTO KAFKA CONNECTION (\w+)/.exec(s))) return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [m[3]!, m[4]!], parts: [] };
  if ((m = new RegExp(`^ALTER ${ITEM_TYPE} (\\w+) RENAME TO (\\w+)$`).exec(s))) return { t: 'rename-item', from: m[2]!, to: m[3]! };
  if ((m = new RegExp(`^ALTER ${ITEM_TYPE} (\\w+) SET CLUSTER (\\w+)$`).exec(s))) return { t: 'set-cluster', name: m[2]!, cluster: m[3]! };
  if ((m = new RegExp(`^ALTER ${ITEM_TYPE} (\\w+) SET \\((RETAIN HISTORY FOR '[^']*')\\)$`).exec(s))) return { t: 'set-fact', name: m[2]!, fact: FACT.retain, value: retainHistoryOf(m[3]) };
  if ((m = new RegExp(`^ALTER ${ITEM_TYPE} (\\w+) RESET \\(RETAIN HISTORY\\)$`).exec(s))) return { t: 'set-fact', name: m[2]!, fact: FACT.retain, value: undefined };
  if ((m = new RegExp(`^DROP ${ITEM_TYPE} (IF EXISTS )?(\\w+)( CASCADE)?$`).exec(s))) return { t: 'drop-item', name: m[3]!, cascade: !!m[4], ifExists: !!m[2] };
  if ((m = /^COMMENT ON (\w+(?: \w+)*?) ([\w.]+) IS (NULL|'.*')$/.exec(s))) {
    const value = m[3] === 'NULL' ? undefined : unquote(m[3]!);
    if (m[1] === 'CLUSTER') return { t: 'comment', on: { kind: 'cluster', name: m[2]! }, value };
    if (m[1] === 'COLUMN') {
      const [table, column] = m[2]!.split('.') as [string, string];
      return { t: 'comment', on: { kind: 'column', table, column }, value };
    }
    return { t: 'comment', on: { kind: 'item', name: m[2]! }, value };
  }
  if ((m = /^SHOW COLUMNS FROM (\w+)$/.exec(s))) return { t: 'read-columns', name: m[1]!, sorted: false };
  if ((m = /^SELECT name, nullable FROM \(SHOW COLUMNS FROM (\w+)\) ORDER BY name$/.exec(s))) return { t: 'read-columns', name: m[1]!, sorted: true };
  if ((m = /^SHOW SUBSOURCES ON (\w+)$/.exec(s))) return { t: 'read-subsources', name: m[1]! };
  if ((m = /^SELECT name FROM \(SHOW SUBSOURCES ON (\w+)\) ORDER BY name$/.exec(s))) return { t: 'read-subsources', name: m[1]! };
  return { t: 'none' };
}

/** Whether the history checker judges the rows this statement answers (the engine keeps them). */
export function judgesRows(sql: string): boolean {
  const t = parseStatement(sql).t;
  return t === 'read-columns' || t === 'read-subsources';
}

/** A request body's statements, split the way the workload joins them. */
export function statementsOf(body: string): string[] {
  const parsed = JSON.parse(body) as { query?: string; queries?: { query: string }[] };
  return parsed.queries ? parsed.queries.map((q) => q.query) : parsed.query!.split('; ');
}

// ---- the catalog as the answers describe it -----------------------------------------------------

interface Item {
  readonly id: number;
  readonly deps: number[];
  cluster?: number;
  readonly owner?: number;
  /** Tables with a column list, in order. */
  readonly columns?: string[];
  /** Sources with upstream tables: what their parts export. */
  readonly refs?: string[];
  /** Comments, RETAIN HISTORY, host, ...: see FACT. */
  readonly facts: Record<string, string>;
  /** A subsource's SHOW CREATE is its source's note: it shows no options. */
  readonly part?: boolean;
  /** An index: the id of the relation it is on. */
  readonly on?: number;
}

interface ClusterState {
  managed: boolean;
  /** Managed: the sizes it may have. */
  sizes: string[];
  rf: number;
  onRefresh: boolean;
  /** Unmanaged: replica name → the sizes it may have. */
  replicas: Map<string, string[]>;
  comment?: string;
  /** The workload's shape was read from its statements (a cluster created otherwise is compared by name alone). */
  readonly known: boolean;
}

interface State {
  /** name → id */
  clusters: Map<string, number>;
  shapes: Map<number, ClusterState>;
  items: Map<string, Item>;
  schemas: Set<string>;
  nextId: number;
}

function emptyState(): State {
  return { clusters: new Map(), shapes: new Map(), items: new Map(), schemas: new Set(), nextId: 1 };
}

function cloneItem(v: Item): Item {
  return { ...v, deps: [...v.deps], facts: { ...v.facts }, ...(v.columns ? { columns: [...v.columns] } : {}), ...(v.refs ? { refs: [...v.refs] } : {}) };
}

function cloneShape(c: ClusterState): ClusterState {
  return { ...c, sizes: [...c.sizes], replicas: new Map([...c.replicas].map(([k, v]) => [k, [...v]])) };
}

function clone(s: State): State {
  return {
    clusters: new Map(s.clusters),
    shapes: new Map([...s.shapes].map(([k, v]) => [k, cloneShape(v)])),
    items: new Map([...s.items].map(([k, v]) => [k, cloneItem(v)])),
    schemas: new Set(s.schemas),
    nextId: s.nextId,
  };
}

const nameOfId = (s: State, id: number) => [...s.items].find(([, v]) => v.id === id)?.[0];

function partsOf(s: State, id: number): Item[] {
  return [...s.items.values()].filter((i) => i.owner === id);
}

/** Live items that reference the item or its owned parts (the parts themselves excluded). */
function dependentsOf(s: State, item: Item): Item[] {
  const on = new Set([item.id, ...partsOf(s, item.id).map((p) => p.id)]);
  return [...s.items.values()].filter((i) => i.owner !== item.id && i.id !== item.id && i.deps.some((d) => on.has(d)));
}

/** What makes a RESTRICT drop fail: dependents other than the item's own indexes, which go with it (Materialize's dependency_prevents_drop). */
function blockersOf(s: State, item: Item): Item[] {
  return dependentsOf(s, item).filter((d) => d.on !== item.id);
}

function dropCascade(s: State, item: Item): void {
  const doomed = new Set<number>();
  const visit = (it: Item) => {
    if (doomed.has(it.id)) return;
    doomed.add(it.id);
    for (const d of dependentsOf(s, it)) visit(d);
    for (const p of partsOf(s, it.id)) visit(p);
  };
  visit(item);
  for (const [name, it] of s.items) if (doomed.has(it.id)) s.items.delete(name);
}

const onCluster = (s: State, id: number) => [...s.items.values()].filter((i) => i.cluster === id);
const UNDEFINED = new Set(['42704', '42P01']);

/** Sets or clears a fact. */
function setFact(facts: Record<string, string>, k: string, v: string | undefined): void {
  if (v === undefined) delete facts[k];
  else facts[k] = v;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  return x.size === new Set(b).size && b.every((v) => x.has(v));
}

/** An ALTER CLUSTER that succeeded: the shape it leaves; why it could not have succeeded, if it could not. */
function alterCluster(c: ClusterState, a: Extract<Action, { t: 'alter-cluster' }>): string | undefined {
  if (!c.known) return undefined;
  if (a.managed === false) {
    if (!c.managed) return undefined;
    if (c.onRefresh) return 'became unmanaged though its SCHEDULE is ON REFRESH';
    c.replicas = new Map(Array.from({ length: c.rf }, (_, i) => [`r${i + 1}`, [...c.sizes]] as const));
    c.managed = false;
    c.sizes = [];
    c.rf = 0;
    return undefined;
  }
  if (a.managed === true && !c.managed) {
    const sets = [...c.replicas.values()];
    // Every replica has the one size the managed cluster takes (given, or theirs).
    const common = sets.reduce<string[]>((acc, x) => acc.filter((v) => x.includes(v)), a.size ? [a.size] : (sets[0] ?? []));
    if (!common.length) return `became managed though its replicas ${[...c.replicas.keys()].join(', ')} have no size in common${a.size ? ` with SIZE ${a.size}` : ''}`;
    const names = Array.from({ length: c.replicas.size }, (_, i) => `r${i + 1}`);
    if (!sameSet(names, [...c.replicas.keys()])) return `became managed though its replicas are named ${[...c.replicas.keys()].join(', ')}`;
    c.managed = true;
    c.sizes = common;
    c.rf = c.replicas.size;
    c.replicas = new Map();
    c.onRefresh = false;
    return undefined;
  }
  if (!c.managed) {
    if (a.size || a.rf !== undefined) return 'had SIZE or REPLICATION FACTOR altered though it is unmanaged';
    if (a.schedule === 'on refresh') return 'got SCHEDULE = ON REFRESH though it is unmanaged';
    return undefined;
  }
  if (a.rf !== undefined && (c.onRefresh || a.schedule === 'on refresh')) return 'had REPLICATION FACTOR altered though its SCHEDULE is ON REFRESH';
  if (a.schedule === 'on refresh') {
    c.onRefresh = true;
    c.rf = 1;
  } else if (a.schedule === 'manual') {
    c.onRefresh = false;
  }
  if (a.rf !== undefined) c.rf = a.rf;
  if (a.size) c.sizes = a.wait === 'rollback' ? [...new Set([...c.sizes, a.size])] : [a.size];
  return undefined;
}

/** The read's rows against the state, if they can be judged; why they are wrong, if they are. */
function checkRows(s: State, a: Extract<Action, { t: 'read-columns' | 'read-subsources' }>, rows: readonly (readonly unknown[])[] | undefined): string | undefined {
  const it = s.items.get(a.name);
  if (!rows || !it) return undefined;
  if (a.t === 'read-subsources') {
    const want = partsOf(s, it.id).map((p) => nameOfId(s, p.id)!).sort();
    const got = rows.map((r) => String(r[0])).sort();
    return JSON.stringify(got) === JSON.stringify(want) ? undefined : `SHOW SUBSOURCES ON ${a.name} answered ${JSON.stringify(got)}; the requests before leave ${JSON.stringify(want)}`;
  }
  if (!it.columns) return undefined;
  const want = a.sorted ? [...it.columns].sort() : it.columns;
  const got = rows.map((r) => String(r[0]));
  if (JSON.stringify(got) !== JSON.stringify(want)) return `SHOW COLUMNS FROM ${a.name} answered columns ${JSON.stringify(got)}; the requests before leave ${JSON.stringify(want)}`;
  if (a.sorted) return undefined;
  const comments = rows.map((r) => String(r[3] ?? ''));
  const wantComments = it.columns.map((c) => it.facts[columnCommentFact(c)] ?? '');
  return JSON.stringify(comments) === JSON.stringify(wantComments) ? undefined : `SHOW COLUMNS FROM ${a.name} answered comments ${JSON.stringify(comments)}; the requests before leave ${JSON.stringify(wantComments)}`;
}

/**
 * Applies one statement that succeeded; returns why the answer is impossible here, if it is.
 * `rows`: what the statement answered, when it is a read this checker judges.
 */
function applyOk(s: State, a: Action, rows?: readonly (readonly unknown[])[]): string | undefined {
  switch (a.t) {
    case 'none':
      return undefined;
    case 'create-cluster': {
      if (s.clusters.has(a.name)) return `cluster ${a.name} was created though it existed`;
      const id = s.nextId++;
      s.clusters.set(a.name, id);
      const sh = a.shape;
      s.shapes.set(id, {
        known: sh !== undefined,
        managed: sh?.managed ?? true,
        sizes: sh?.managed ? [sh.size] : [],
        rf: sh?.managed ? sh.rf : 0,
        onRefresh: sh?.managed ? sh.onRefresh : false,
        replicas: new Map(sh && !sh.managed ? sh.replicas.map(([n, z]) => [n, [z]] as const) : []),
      });
      return undefined;
    }
    case 'cluster-exists':
      return s.clusters.has(a.name) ? undefined : `cluster ${a.name} was changed though it did not exist`;
    case 'alter-cluster': {
      const id = s.clusters.get(a.name);
      if (id === undefined) return `cluster ${a.name} was altered though it did not exist`;
      const why = alterCluster(s.shapes.get(id)!, a);
      return why ? `cluster ${a.name} ${why}` : undefined;
    }
    case 'create-replica':
    case 'drop-replica': {
      const id = s.clusters.get(a.cluster);
      if (id === undefined) return `a replica of cluster ${a.cluster} was ${a.t === 'create-replica' ? 'created' : 'dropped'} though the cluster did not exist`;
      const c = s.shapes.get(id)!;
      if (!c.known) return undefined;
      if (c.managed) return `replica ${a.cluster}.${a.name} was ${a.t === 'create-replica' ? 'created' : 'dropped'} by hand though the cluster is managed`;
      if (a.t === 'create-replica') {
        if (c.replicas.has(a.name)) return `replica ${a.cluster}.${a.name} was created though it existed`;
        c.replicas.set(a.name, [a.size]);
      } else {
        if (!c.replicas.delete(a.name)) return `replica ${a.cluster}.${a.name} was dropped though it did not exist`;
      }
      return undefined;
    }
    case 'rename-cluster': {
      const id = s.clusters.get(a.from);
      if (id === undefined) return `cluster ${a.from} was renamed though it did not exist`;
      if (s.clusters.has(a.to)) return `cluster ${a.from} was renamed to ${a.to}, which existed`;
      s.clusters.delete(a.from);
      s.clusters.set(a.to, id);
      return undefined;
    }
    case 'swap-clusters': {
      const x = s.clusters.get(a.a);
      const y = s.clusters.get(a.b);
      if (x === undefined || y === undefined) return `clusters ${a.a} and ${a.b} were swapped though one did not exist`;
      s.clusters.set(a.a, y);
      s.clusters.set(a.b, x);
      return undefined;
    }
    case 'drop-cluster': {
      const id = s.clusters.get(a.name);
      if (id === undefined) return a.ifExists ? undefined : `cluster ${a.name} was dropped though it did not exist`;
      const on = onCluster(s, id);
      if (on.length && !a.cascade) return `cluster ${a.name} was dropped without CASCADE though ${nameOfId(s, on[0]!.id)} runs on it`;
      for (const it of on) if (s.items.get(nameOfId(s, it.id) ?? '')?.id === it.id) dropCascade(s, it);
      s.clusters.delete(a.name);
      s.shapes.delete(id);
      return undefined;
    }
    case 'create-item': {
      for (const n of [a.name, ...a.parts]) if (s.items.has(n)) return `${n} was created though it existed`;
      const schema = /^(\w+)\./.exec(a.name)?.[1];
      if (schema && !s.schemas.has(schema)) return `${a.name} was created though schema ${schema} did not exist`;
      const deps: number[] = [];
      for (const d of a.deps) {
        const it = s.items.get(d);
        if (!it) return `${a.name} was created on ${d}, which did not exist`;
        deps.push(it.id);
      }
      const cluster = a.cluster === undefined ? undefined : s.clusters.get(a.cluster);
      if (a.cluster !== undefined && cluster === undefined) return `${a.name} was created in cluster ${a.cluster}, which did not exist`;
      const id = s.nextId++;
      const on = a.on === undefined ? undefined : s.items.get(a.on)?.id;
      s.items.set(a.name, {
        id,
        deps,
        ...(on !== undefined ? { on } : {}),
        facts: { ...(a.facts ?? {}) },
        ...(cluster !== undefined ? { cluster } : {}),
        ...(a.columns ? { columns: [...a.columns] } : {}),
        ...(a.refs ? { refs: [...a.refs] } : {}),
      });
      for (const p of a.parts) s.items.set(p, { id: s.nextId++, deps: [], owner: id, facts: {}, part: true });
      return undefined;
    }
    case 'item-exists':
      return s.items.has(a.name) ? undefined : `${a.name} was changed though it did not exist`;
    case 'rename-item': {
      const it = s.items.get(a.from);
      if (!it) return `${a.from} was renamed though it did not exist`;
      if (s.items.has(a.to)) return `${a.from} was renamed to ${a.to}, which existed`;
      s.items.delete(a.from);
      s.items.set(a.to, it);
      return undefined;
    }
    case 'set-cluster': {
      const it = s.items.get(a.name);
      const c = s.clusters.get(a.cluster);
      if (!it || c === undefined) return `${a.name} was moved to cluster ${a.cluster} though one of them did not exist`;
      it.cluster = c;
      return undefined;
    }
    case 'drop-item': {
      const it = s.items.get(a.name);
      if (!it) return a.ifExists ? undefined : `${a.name} was dropped though it did not exist`;
      if (it.owner !== undefined) return `${a.name} was dropped on its own though its source owns it`;
      const deps = blockersOf(s, it);
      if (deps.length && !a.cascade) return `${a.name} was dropped without CASCADE though ${nameOfId(s, deps[0]!.id)} depends on it`;
      dropCascade(s, it);
      return undefined;
    }
    case 'create-schema':
      if (s.schemas.has(a.name)) return `schema ${a.name} was created though it existed`;
      s.schemas.add(a.name);
      return undefined;
    case 'drop-schema':
      if (!s.schemas.has(a.name)) return `schema ${a.name} was dropped though it did not exist`;
      s.schemas.delete(a.name);
      for (const name of [...s.items.keys()]) if (name.startsWith(`${a.name}.`)) s.items.delete(name);
      return undefined;
    case 'set-fact': {
      const it = s.items.get(a.name);
      if (!it) return `${a.name} was altered though it did not exist`;
      setFact(it.facts, a.fact, a.value);
      return undefined;
    }
    case 'add-part': {
      const src = s.items.get(a.source);
      if (!src) return `a subsource was added to ${a.source} though it did not exist`;
      if (s.items.has(a.part)) return `subsource ${a.part} was added though the name was taken`;
      if (src.refs?.includes(a.ref)) return `subsource ${a.part} of ${a.ref} was added though another subsource of ${a.source} exports it`;
      src.refs?.push(a.ref);
      s.items.set(a.part, { id: s.nextId++, deps: [], owner: src.id, facts: {}, part: true });
      return undefined;
    }
    case 'add-column': {
      const t = s.items.get(a.table);
      if (!t) return a.ifExists ? undefined : `column ${a.column} was added to ${a.table} though it did not exist`;
      if (!t.columns) return `column ${a.column} was added to ${a.table}, which takes its columns from its source`;
      if (t.columns.includes(a.column)) return a.ifNotExists ? undefined : `column ${a.column} was added to ${a.table} though it had one`;
      for (const d of a.deps) {
        const ty = s.items.get(d);
        if (!ty) return `column ${a.column} of type ${d} was added though the type did not exist`;
        t.deps.push(ty.id);
      }
      t.columns.push(a.column);
      return undefined;
    }
    case 'comment': {
      const on = a.on;
      if (on.kind === 'cluster') {
        const id = s.clusters.get(on.name);
        if (id === undefined) return `cluster ${on.name} was commented on though it did not exist`;
        const c = s.shapes.get(id)!;
        c.comment = a.value;
        if (a.value === undefined) delete c.comment;
        return undefined;
      }
      const it = s.items.get(on.kind === 'item' ? on.name : on.table);
      if (!it) return `${on.kind === 'item' ? on.name : on.table} was commented on though it did not exist`;
      if (on.kind === 'item') {
        setFact(it.facts, FACT.comment, a.value);
        return undefined;
      }
      if (it.columns && !it.columns.includes(on.column)) return `column ${on.table}.${on.column} was commented on though it did not exist`;
      setFact(it.facts, columnCommentFact(on.column), a.value);
      return undefined;
    }
    case 'read-columns':
    case 'read-subsources':
      if (!s.items.has(a.name)) return `${a.name} was read though it did not exist`;
      return checkRows(s, a, rows);
  }
}

/** Why the statement could not have failed with `code` here, if it could not. */
function checkError(s: State, a: Action, code: string): string | undefined {
  const itemOrPart = (n: string) => s.items.has(n);
  if (code === '42P07') {
    const taken =
      a.t === 'create-cluster' ? s.clusters.has(a.name)
      : a.t === 'rename-cluster' ? s.clusters.has(a.to)
      : a.t === 'create-item' ? [a.name, ...a.parts].some(itemOrPart)
      : a.t === 'rename-item' ? s.items.has(a.to)
      : a.t === 'create-schema' ? s.schemas.has(a.name)
      : a.t === 'add-part' ? s.items.has(a.part) || s.items.get(a.source)?.refs?.includes(a.ref) === true
      : true;
    return taken ? undefined : `answered 42P07 (already exists) though the name was free`;
  }
  if (code === '42701' && a.t === 'add-column') {
    return s.items.get(a.table)?.columns?.includes(a.column) && !a.ifNotExists ? undefined : `answered 42701 (column exists) though ${a.table} had no column ${a.column}`;
  }
  if (code === '42703' && a.t === 'comment' && a.on.kind === 'column') {
    const cols = s.items.get(a.on.table)?.columns;
    return cols && cols.includes(a.on.column) ? `answered 42703 (no such column) though ${a.on.table} has column ${a.on.column}` : undefined;
  }
  if (code === '2BP01') {
    if (a.t === 'drop-item') {
      const it = s.items.get(a.name);
      return it && (it.owner !== undefined || blockersOf(s, it).length > 0) ? undefined : `answered 2BP01 (dependents) though ${a.name} ${it ? 'had none' : 'did not exist'}`;
    }
    if (a.t === 'drop-cluster') {
      const id = s.clusters.get(a.name);
      return id !== undefined && onCluster(s, id).length > 0 ? undefined : `answered 2BP01 (dependents) though cluster ${a.name} ${id !== undefined ? 'had none' : 'did not exist'}`;
    }
    return undefined;
  }
  if (UNDEFINED.has(code)) {
    const missing =
      a.t === 'drop-item' ? !a.ifExists && !s.items.has(a.name)
      : a.t === 'drop-cluster' ? !a.ifExists && !s.clusters.has(a.name)
      : a.t === 'create-item' ? a.deps.some((d) => !s.items.has(d)) || (a.cluster !== undefined && !s.clusters.has(a.cluster))
      : a.t === 'rename-item' || a.t === 'item-exists' || a.t === 'set-fact' || a.t === 'read-columns' || a.t === 'read-subsources' ? !s.items.has('from' in a ? a.from : a.name)
      : a.t === 'set-cluster' ? !s.items.has(a.name) || !s.clusters.has(a.cluster)
      : a.t === 'rename-cluster' ? !s.clusters.has(a.from)
      : a.t === 'alter-cluster' || a.t === 'cluster-exists' ? !s.clusters.has(a.name)
      : a.t === 'drop-replica' ? !s.clusters.has(a.cluster) || !s.shapes.get(s.clusters.get(a.cluster)!)!.known || s.shapes.get(s.clusters.get(a.cluster)!)!.managed || !s.shapes.get(s.clusters.get(a.cluster)!)!.replicas.has(a.name)
      : a.t === 'create-replica' ? !s.clusters.has(a.cluster)
      : a.t === 'add-part' ? !s.items.has(a.source)
      : a.t === 'add-column' ? !a.ifExists && !s.items.has(a.table)
      : a.t === 'comment' ? (a.on.kind === 'cluster' ? !s.clusters.has(a.on.name) : !s.items.has(a.on.kind === 'item' ? a.on.name : a.on.table))
      : a.t === 'drop-schema' ? !s.schemas.has(a.name)
      : true;
    return missing ? undefined : `answered ${code} (does not exist) though every name it refers to existed`;
  }
  return undefined;
}

/** Applies a request with its answer to `s`; returns the first inconsistency, if any. */
function applyEntry(s: State, e: HistoryEntry, answer: Answer): string | undefined {
  const actions = e.statements.map(parseStatement);
  if (answer.committed) {
    for (const [i, a] of actions.entries()) {
      const why = applyOk(s, a, answer.rows?.[i]);
      if (why) return `op ${e.op} (tenant ${e.tenant}) answered success, but ${why}: ${e.statements[i]}`;
    }
    return undefined;
  }
  if (!answer.error) return undefined;
  // Nothing of a failed request commits; its error must fit the catalog as its earlier statements left it.
  const scratch = clone(s);
  for (const a of actions.slice(0, answer.error.index)) if (applyOk(scratch, a)) return undefined;
  const a = actions[answer.error.index];
  const why = a && checkError(scratch, a, answer.error.code);
  return why ? `op ${e.op} (tenant ${e.tenant}) ${why}: ${e.statements[answer.error.index]}` : undefined;
}

/** The facts the state leaves on a cluster, with the sizes it may have (several after a ROLLBACK). */
function clusterFacts(c: ClusterState): { facts: Record<string, string>; sizes?: readonly string[]; replicas?: ReadonlyMap<string, readonly string[]> } {
  const facts: Record<string, string> = { [FACT.managed]: String(c.managed) };
  if (c.comment !== undefined) facts[FACT.comment] = c.comment;
  if (c.managed) {
    facts[FACT.replicationFactor] = String(c.rf);
    facts[FACT.schedule] = c.onRefresh ? 'on refresh' : 'manual';
    return { facts, sizes: c.sizes };
  }
  return { facts, replicas: c.replicas };
}

function itemFacts(it: Item): Record<string, string> {
  const facts: Record<string, string> = { ...it.facts };
  if (it.columns) facts[FACT.columns] = it.columns.join(', ');
  // SHOW CREATE shows the RETAIN HISTORY in force (a subsource has no statement of its own).
  const retain = it.facts[FACT.retain];
  if (!it.part && retain !== undefined) facts[FACT.retainShown] = retain;
  return facts;
}

function compareFacts(tenant: number, what: string, want: Record<string, string>, got: Facts, out: string[]): void {
  for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
    if (want[k] === got[k]) continue;
    out.push(`tenant ${tenant}: ${what}: ${k} is ${got[k] === undefined ? 'not set' : JSON.stringify(got[k])} in the final catalog; the acknowledged requests leave ${want[k] === undefined ? 'it not set' : JSON.stringify(want[k])}`);
  }
}

function compareFinal(s: State, final: FinalCatalog, tenant: number): string[] {
  const out: string[] = [];
  const clusterName = new Map([...s.clusters].map(([n, id]) => [id, n]));
  const want = new Map<string, string | null>([...s.items].map(([n, it]) => [n, it.cluster === undefined ? null : (clusterName.get(it.cluster) ?? null)]));
  const sets: [string, Set<string>, Set<string>][] = [
    ['cluster', new Set(s.clusters.keys()), new Set(final.clusters)],
    ['schema', s.schemas, new Set(final.schemas)],
    ['item', new Set(want.keys()), new Set(Object.keys(final.items))],
  ];
  for (const [what, expected, actual] of sets) {
    for (const n of expected) if (!actual.has(n)) out.push(`tenant ${tenant}: ${what} ${n} is missing from the final catalog, though the acknowledged requests leave it there (a lost CREATE or RENAME, or an undone answer)`);
    for (const n of actual) if (!expected.has(n)) out.push(`tenant ${tenant}: ${what} ${n} is in the final catalog, though no acknowledged request leaves it there (a lost DROP, or a resurrected object)`);
  }
  for (const [n, c] of want) {
    const got = final.items[n];
    if (got !== undefined && got !== c) out.push(`tenant ${tenant}: ${n} runs on cluster ${String(got)} in the final catalog; the acknowledged requests put it on ${String(c)}`);
  }
  if (!final.facts) return out;
  for (const [name, id] of s.clusters) {
    const got = final.facts.clusters[name];
    const c = s.shapes.get(id)!;
    if (!got || !c.known) continue;
    const { facts, sizes, replicas } = clusterFacts(c);
    const { [FACT.size]: size, [FACT.replicas]: listed, ...rest } = got;
    compareFacts(tenant, `cluster ${name}`, facts, rest, out);
    if (sizes && !(size !== undefined && sizes.includes(size))) out.push(`tenant ${tenant}: cluster ${name}: size is ${size ?? 'not set'} in the final catalog; the acknowledged requests leave ${sizes.join(' or ')}`);
    if (replicas) {
      const gotReplicas = new Map((listed ? listed.split(', ') : []).map((x) => x.split(' ') as [string, string]));
      const fits = gotReplicas.size === replicas.size && [...replicas].every(([n, z]) => z.includes(gotReplicas.get(n) ?? ''));
      if (!fits) out.push(`tenant ${tenant}: cluster ${name}: its replicas are ${listed || 'none'} in the final catalog; the acknowledged requests leave ${[...replicas].map(([n, z]) => `${n} ${z.join('|')}`).join(', ') || 'none'}`);
    }
  }
  for (const [name, it] of s.items) {
    const got = final.facts.items[name];
    if (got) compareFacts(tenant, `item ${name}`, itemFacts(it), got, out);
  }
  return out;
}

/** Upper bound on the orders tried (groups and unanswered requests branch). */
const MAX_STEPS = 200_000;

export function checkHistory(entries: readonly HistoryEntry[], finals: readonly FinalCatalog[]): HistoryReport {
  const anomalies: string[] = [];
  finals.forEach((final, tenant) => anomalies.push(...checkTenant(entries.filter((e) => e.tenant === tenant), final, tenant)));
  return {
    requests: entries.length,
    acknowledged: entries.filter((e) => e.answer).length,
    unanswered: entries.filter((e) => !e.answer).length,
    anomalies,
  };
}

function checkTenant(entries: readonly HistoryEntry[], final: FinalCatalog, tenant: number): string[] {
  // Consecutive entries of one group form a step; every other entry is a step of its own.
  const steps: HistoryEntry[][] = [];
  for (const e of entries) {
    const last = steps[steps.length - 1];
    if (e.group !== undefined && last && last[0]!.group === e.group) last.push(e);
    else steps.push([e]);
  }
  let budget = MAX_STEPS;
  /**
   * The failure that got furthest (and, among those that reached the end, the smallest difference
   * from the final catalog: an unanswered request tried the wrong way round differs in everything
   * it did): what to report when no order fits.
   */
  let best: { depth: number; why: string[] } = { depth: -1, why: ['no serial order was tried'] };
  const fail = (depth: number, why: string[]) => {
    if (depth > best.depth || (depth === best.depth && why.length < best.why.length)) best = { depth, why };
  };

  const explore = (k: number, s: State): boolean => {
    if (--budget < 0) return false;
    if (k === steps.length) {
      const diff = compareFinal(s, final, tenant);
      if (diff.length === 0) return true;
      fail(k, diff);
      return false;
    }
    const alts = alternatives(steps[k]!);
    for (const seq of alts) {
      // Only a branching step needs its own copy: a single way on never comes back here.
      const next = alts.length > 1 ? clone(s) : s;
      let why: string | undefined;
      for (const [e, answer] of seq) {
        why = applyEntry(next, e, answer);
        if (why) break;
      }
      if (why) {
        fail(k, [why]);
        continue;
      }
      if (explore(k + 1, next)) return true;
    }
    return false;
  };
  if (explore(0, emptyState())) return [];
  return budget < 0 ? [`tenant ${tenant}: gave up after ${MAX_STEPS} orders; the furthest one failed: ${best.why[0]}`] : best.why;
}

/** The orders a step allows: every permutation, and with or without each unanswered request. */
function alternatives(step: readonly HistoryEntry[]): [HistoryEntry, Answer][][] {
  const perms = (xs: readonly HistoryEntry[]): HistoryEntry[][] => (xs.length <= 1 ? [[...xs]] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest])));
  const out: [HistoryEntry, Answer][][] = [];
  for (const order of perms(step)) {
    let seqs: [HistoryEntry, Answer][][] = [[]];
    for (const e of order) {
      seqs = e.answer ? seqs.map((q) => [...q, [e, e.answer!] as [HistoryEntry, Answer]]) : seqs.flatMap((q) => [[...q, [e, { committed: true }] as [HistoryEntry, Answer]], q]);
    }
    out.push(...seqs);
  }
  return out;
}
