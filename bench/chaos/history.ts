/**
 * The chaos run's history checker: the end state alone cannot show an answer that was later
 * undone (a DROP answered 200 whose object comes back, a CREATE answered 200 that vanishes), so
 * every request is recorded with its answer and, after the system goes quiet, checked:
 *
 * - the acknowledged requests have a serial order consistent with every answer: a CREATE answered
 *   200 found its name free, a 42P07 found it taken, a DROP answered 200 found the object (and,
 *   without CASCADE, no dependents), a 2BP01 found dependents, a 42704/42P01 found a name missing;
 * - that serial order leaves exactly the final catalog: every acknowledged CREATE/ALTER/DROP is
 *   reflected in it unless a later acknowledged request explains the difference, and nothing is
 *   in it that no acknowledged request put there.
 *
 * Requests are sequential except in declared groups (sent at once, any order is allowed); a request
 * without an answer (a crash, a lost connection) may or may not have happened: both are tried.
 * Pure, no I/O. It knows the chaos workload's statement forms (workload.ts), no more.
 */

export type Answer = { readonly committed: true } | { readonly committed: false; readonly error?: { readonly index: number; readonly code: string } };

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

export interface FinalCatalog {
  readonly clusters: readonly string[];
  /** Schemas other than `public`. */
  readonly schemas: readonly string[];
  /** Item name (schema-qualified outside `public`) → the name of its cluster, if it has one. */
  readonly items: Readonly<Record<string, string | null>>;
}

export interface HistoryReport {
  readonly requests: number;
  readonly acknowledged: number;
  readonly unanswered: number;
  readonly anomalies: readonly string[];
}

// ---- statements -------------------------------------------------------------------------------

type Action =
  | { readonly t: 'create-cluster'; readonly name: string }
  | { readonly t: 'cluster-exists'; readonly name: string }
  | { readonly t: 'rename-cluster'; readonly from: string; readonly to: string }
  | { readonly t: 'swap-clusters'; readonly a: string; readonly b: string }
  | { readonly t: 'drop-cluster'; readonly name: string; readonly cascade: boolean; readonly ifExists: boolean }
  | { readonly t: 'create-item'; readonly name: string; readonly deps: readonly string[]; readonly cluster?: string; readonly parts: readonly string[] }
  | { readonly t: 'item-exists'; readonly name: string }
  | { readonly t: 'rename-item'; readonly from: string; readonly to: string }
  | { readonly t: 'set-cluster'; readonly name: string; readonly cluster: string }
  | { readonly t: 'drop-item'; readonly name: string; readonly cascade: boolean; readonly ifExists: boolean }
  | { readonly t: 'create-schema'; readonly name: string }
  | { readonly t: 'drop-schema'; readonly name: string }
  | { readonly t: 'none' };

const ITEM_TYPE = '(SECRET|CONNECTION|SOURCE|TABLE|VIEW|MATERIALIZED VIEW|INDEX|SINK)';

/** What a statement of the chaos workload asks for (SELECT, SHOW, BEGIN and typos ask for nothing). */
export function parseStatement(sql: string): Action {
  const s = sql.trim();
  let m: RegExpExecArray | null;
  if ((m = /^(?:CREATE|DROP) CLUSTER REPLICA (\w+)\./.exec(s))) return { t: 'cluster-exists', name: m[1]! };
  if ((m = /^CREATE CLUSTER (\w+)\b/.exec(s))) return { t: 'create-cluster', name: m[1]! };
  if ((m = /^ALTER CLUSTER (\w+) RENAME TO (\w+)$/.exec(s))) return { t: 'rename-cluster', from: m[1]!, to: m[2]! };
  if ((m = /^ALTER CLUSTER (\w+) SWAP WITH (\w+)$/.exec(s))) return { t: 'swap-clusters', a: m[1]!, b: m[2]! };
  if ((m = /^ALTER CLUSTER (\w+) SET\b/.exec(s))) return { t: 'cluster-exists', name: m[1]! };
  if ((m = /^DROP CLUSTER (IF EXISTS )?(\w+)( CASCADE)?$/.exec(s))) return { t: 'drop-cluster', name: m[2]!, cascade: !!m[3], ifExists: !!m[1] };
  if ((m = /^CREATE SCHEMA (\w+)$/.exec(s))) return { t: 'create-schema', name: m[1]! };
  if ((m = /^DROP SCHEMA (\w+) CASCADE$/.exec(s))) return { t: 'drop-schema', name: m[1]! };
  if ((m = /^CREATE SECRET (\w+) AS /.exec(s))) return { t: 'create-item', name: m[1]!, deps: [], parts: [] };
  if ((m = /^ALTER SECRET (\w+) AS /.exec(s))) return { t: 'item-exists', name: m[1]! };
  if ((m = /^CREATE CONNECTION (\w+) TO /.exec(s))) return { t: 'create-item', name: m[1]!, deps: [.../PASSWORD SECRET (\w+)/.exec(s)?.slice(1) ?? []], parts: [] };
  if ((m = /^CREATE SOURCE (\w+) IN CLUSTER (\w+) FROM (.*)$/.exec(s))) {
    const parts = [...(/FOR TABLES \((.*)\)$/.exec(m[3]!)?.[1] ?? '').matchAll(/ AS (\w+)/g)].map((x) => x[1]!);
    return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [.../POSTGRES CONNECTION (\w+)/.exec(m[3]!)?.slice(1) ?? []], parts };
  }
  if ((m = /^CREATE TABLE ([\w.]+) \(/.exec(s))) return { t: 'create-item', name: m[1]!, deps: [], parts: [] };
  if ((m = /^CREATE TABLE (\w+) FROM SOURCE (\w+)/.exec(s))) return { t: 'create-item', name: m[1]!, deps: [m[2]!], parts: [] };
  if ((m = /^CREATE VIEW (\w+) AS (.*)$/.exec(s))) return { t: 'create-item', name: m[1]!, deps: [...m[2]!.matchAll(/(?:FROM|JOIN) (\w+)/g)].map((x) => x[1]!), parts: [] };
  if ((m = /^CREATE MATERIALIZED VIEW (\w+) IN CLUSTER (\w+) AS .* FROM (\w+)/.exec(s))) return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [m[3]!], parts: [] };
  if ((m = /^CREATE INDEX (\w+) IN CLUSTER (\w+) ON (\w+)/.exec(s))) return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [m[3]!], parts: [] };
  if ((m = /^CREATE SINK (\w+) IN CLUSTER (\w+) FROM (\w+) INTO KAFKA CONNECTION (\w+)/.exec(s))) return { t: 'create-item', name: m[1]!, cluster: m[2]!, deps: [m[3]!, m[4]!], parts: [] };
  if ((m = new RegExp(`^ALTER ${ITEM_TYPE} (\\w+) RENAME TO (\\w+)$`).exec(s))) return { t: 'rename-item', from: m[2]!, to: m[3]! };
  if ((m = new RegExp(`^ALTER ${ITEM_TYPE} (\\w+) SET CLUSTER (\\w+)$`).exec(s))) return { t: 'set-cluster', name: m[2]!, cluster: m[3]! };
  if ((m = new RegExp(`^DROP ${ITEM_TYPE} (IF EXISTS )?(\\w+)( CASCADE)?$`).exec(s))) return { t: 'drop-item', name: m[3]!, cascade: !!m[4], ifExists: !!m[2] };
  return { t: 'none' };
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
}

interface State {
  /** name → id */
  clusters: Map<string, number>;
  items: Map<string, Item>;
  schemas: Set<string>;
  nextId: number;
}

function emptyState(): State {
  return { clusters: new Map(), items: new Map(), schemas: new Set(), nextId: 1 };
}

function clone(s: State): State {
  return { clusters: new Map(s.clusters), items: new Map([...s.items].map(([k, v]) => [k, { ...v, deps: [...v.deps] }])), schemas: new Set(s.schemas), nextId: s.nextId };
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

/**
 * Applies one statement that succeeded; returns why the answer is impossible here, if it is.
 */
function applyOk(s: State, a: Action): string | undefined {
  switch (a.t) {
    case 'none':
      return undefined;
    case 'create-cluster':
      if (s.clusters.has(a.name)) return `cluster ${a.name} was created though it existed`;
      s.clusters.set(a.name, s.nextId++);
      return undefined;
    case 'cluster-exists':
      return s.clusters.has(a.name) ? undefined : `cluster ${a.name} was changed though it did not exist`;
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
      s.items.set(a.name, { id, deps, ...(cluster !== undefined ? { cluster } : {}) });
      for (const p of a.parts) s.items.set(p, { id: s.nextId++, deps: [], owner: id });
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
      const deps = dependentsOf(s, it);
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
      : true;
    return taken ? undefined : `answered 42P07 (already exists) though the name was free`;
  }
  if (code === '2BP01') {
    if (a.t === 'drop-item') {
      const it = s.items.get(a.name);
      return it && (it.owner !== undefined || dependentsOf(s, it).length > 0) ? undefined : `answered 2BP01 (dependents) though ${a.name} ${it ? 'had none' : 'did not exist'}`;
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
      : a.t === 'rename-item' || a.t === 'item-exists' ? !s.items.has('from' in a ? a.from : a.name)
      : a.t === 'set-cluster' ? !s.items.has(a.name) || !s.clusters.has(a.cluster)
      : a.t === 'rename-cluster' ? !s.clusters.has(a.from)
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
      const why = applyOk(s, a);
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
  /** The failure that got furthest: what to report when no order fits. */
  let best: { depth: number; why: string[] } = { depth: -1, why: ['no serial order was tried'] };
  const fail = (depth: number, why: string[]) => {
    if (depth > best.depth) best = { depth, why };
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
