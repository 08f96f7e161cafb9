/**
 * The Objects tab: every cluster and catalog item, grouped by schema, with a filter box and live
 * status badges on the left; the selected object's detail on the right (its definition, what it
 * depends on and what depends on it, its indexes and cluster, its effects still in flight, and
 * for sources and sinks their status history).
 *
 * The page is built once; each poll redraws the list and the detail in place, so the filter box
 * keeps its text, focus and caret while the data refreshes under it.
 */
import { lit, SqlError, type Api } from './api';
import { ago, badge, empty, h, localTime, table, timeOfDay, utcTime } from './dom';
import { restartButton } from './events';

interface ObjectRow {
  id: string;
  schema_id: string;
  name: string;
  type: string;
  cluster_id: string | null;
}
interface SchemaRow {
  id: string;
  database_id: string;
  name: string;
}
interface ClusterRow {
  id: string;
  name: string;
  managed: boolean;
  size: string | null;
  /** A number as Materialize's HTTP API gives it: its digits as a string. */
  replication_factor: string | null;
}
export interface ReplicaRow {
  id: string;
  name: string;
  cluster_id: string;
  size: string;
  availability_zone: string | null;
  /** Its part in a reconfiguration under way, if its cluster is being reconfigured. */
  reconfiguration?: ReplicaReconfigurationRow;
}
/** A row of mz_internal.mz_cluster_replica_reconfigurations. */
export interface ReplicaReconfigurationRow {
  replica_id: string;
  role: string;
  strategy: string;
  on_timeout: string;
  deadline: string;
}
/** Read beside mz_cluster_replicas: Materialize's columns there carry no reconfiguration. */
export const REPLICA_RECONFIGURATIONS = 'SELECT replica_id, role, strategy, on_timeout, deadline FROM mz_internal.mz_cluster_replica_reconfigurations';

/** The replicas with their part in a reconfiguration joined in, by id. */
export function withReconfigurations(replicas: readonly ReplicaRow[], rows: readonly ReplicaReconfigurationRow[]): ReplicaRow[] {
  const byId = new Map(rows.map((r) => [r.replica_id, r]));
  return replicas.map((r) => (byId.has(r.id) ? { ...r, reconfiguration: byId.get(r.id)! } : r));
}
export interface ReplicaStatusRow {
  replica_id: string;
  status: string;
  reason: string | null;
  updated_at: string | null;
}
interface ConnectorStatus {
  id: string;
  name: string;
  type: string;
  last_status_change_at: string | null;
  status: string;
  error: string | null;
  details: string | null;
}
interface DependencyStatus {
  id: string;
  status: string;
  error: string | null;
}
/** A row of mz_internal.mz_pending_effects. */
export interface EffectRow {
  effect_id: string;
  object_id: string;
  object_name: string;
  controller: string;
  kind: string;
  intent: string;
  /** Numbers are strings in answers, as Materialize's HTTP API gives them. */
  generation: string;
  state: string;
  attempts: string;
  last_error: string | null;
  dead_lettered: boolean;
  created_at: string;
}
interface HistoryRow {
  occurred_at: string;
  status: string;
  error: string | null;
  details: string | null;
}

/** One thing in the list: a cluster or a catalog item. */
interface Entry {
  readonly id: string;
  readonly name: string;
  /** `cluster`, or mz_objects.type (`materialized-view`, ...). */
  readonly type: string;
  /** `materialize.public`; clusters have none. */
  readonly schema?: string;
  readonly clusterId?: string | null;
  /** A badge to show, when there is something to say. */
  readonly status?: string;
  readonly error?: string | null;
}

interface Catalog {
  readonly entries: readonly Entry[];
  readonly byId: ReadonlyMap<string, Entry>;
  readonly connectors: ReadonlyMap<string, ConnectorStatus & { kind: 'source' | 'sink' }>;
  readonly deps: readonly { object_id: string; referenced_object_id: string }[];
  readonly indexes: readonly { id: string; on_id: string }[];
  readonly clusters: ReadonlyMap<string, ClusterRow>;
  readonly replicas: readonly ReplicaRow[];
  readonly replicaStatuses: ReadonlyMap<string, ReplicaStatusRow>;
  readonly effects: readonly EffectRow[];
}

/** Kinds in the order a schema lists them. */
const KIND_ORDER = ['source', 'sink', 'table', 'view', 'materialized-view', 'index', 'connection', 'secret'];
const KIND_LABEL: Readonly<Record<string, string>> = {
  cluster: 'cluster',
  source: 'source',
  sink: 'sink',
  table: 'table',
  view: 'view',
  'materialized-view': 'mat. view',
  index: 'index',
  connection: 'connection',
  secret: 'secret',
};

async function readCatalog(api: Api): Promise<Catalog> {
  const [objects, schemas, databases, clusters, replicaRows, replicaStatuses, sources, sinks, upstream, deps, indexes, effects, reconfigurations] = await api.batch<
    [
      ObjectRow,
      SchemaRow,
      { id: string; name: string },
      ClusterRow,
      ReplicaRow,
      ReplicaStatusRow,
      ConnectorStatus,
      ConnectorStatus,
      DependencyStatus,
      { object_id: string; referenced_object_id: string },
      { id: string; on_id: string },
      EffectRow,
      ReplicaReconfigurationRow,
    ]
  >([
    'SELECT id, schema_id, name, type, cluster_id FROM mz_objects ORDER BY name',
    'SELECT id, database_id, name FROM mz_schemas',
    'SELECT id, name FROM mz_databases',
    'SELECT id, name, managed, size, replication_factor FROM mz_clusters ORDER BY name',
    'SELECT id, name, cluster_id, size, availability_zone FROM mz_cluster_replicas ORDER BY name',
    'SELECT replica_id, status, reason, updated_at FROM mz_internal.mz_cluster_replica_statuses',
    'SELECT * FROM mz_internal.mz_source_statuses',
    'SELECT * FROM mz_internal.mz_sink_statuses',
    'SELECT id, status, error FROM mz_internal.mz_dependency_statuses',
    'SELECT object_id, referenced_object_id FROM mz_internal.mz_object_dependencies',
    'SELECT id, on_id FROM mz_indexes',
    'SELECT * FROM mz_internal.mz_pending_effects ORDER BY created_at',
    REPLICA_RECONFIGURATIONS,
  ]);
  const replicas = withReconfigurations(replicaRows, reconfigurations);
  const dbName = new Map(databases.map((d) => [d.id, d.name]));
  const schemaName = new Map(schemas.map((s) => [s.id, `${dbName.get(s.database_id) ?? '?'}.${s.name}`]));
  const connectors = new Map<string, ConnectorStatus & { kind: 'source' | 'sink' }>([
    ...sources.map((s) => [s.id, { ...s, kind: 'source' as const }] as const),
    ...sinks.map((s) => [s.id, { ...s, kind: 'sink' as const }] as const),
  ]);
  const upstreamById = new Map(upstream.map((u) => [u.id, u]));
  const rsById = new Map(replicaStatuses.map((r) => [r.replica_id, r]));
  const failedEffects = new Set(effects.filter((e) => e.state === 'failed' || e.dead_lettered).map((e) => e.object_id));

  const clusterEntries: Entry[] = clusters.map((c) => {
    const rs = replicas.filter((r) => r.cluster_id === c.id);
    const online = rs.filter((r) => rsById.get(r.id)?.status === 'online').length;
    const replicaFailed = rs.some((r) => failedEffects.has(r.id));
    const status = rs.length === 0 ? 'no replicas' : replicaFailed ? 'failed' : online === rs.length ? 'online' : 'offline';
    return { id: c.id, name: c.name, type: 'cluster', status };
  });
  const itemEntries: Entry[] = objects.map((o) => {
    const conn = connectors.get(o.id);
    const up = upstreamById.get(o.id);
    // A badge only where there is a status to report: connectors always, the rest when a
    // source they read from is unwell or one of their effects failed.
    const status = conn?.status ?? (up && up.status !== 'running' ? up.status : failedEffects.has(o.id) ? 'failed' : undefined);
    return { id: o.id, name: o.name, type: o.type, schema: schemaName.get(o.schema_id) ?? o.schema_id, clusterId: o.cluster_id, status, error: conn?.error ?? (up && up.status !== 'running' ? up.error : null) };
  });
  const entries = [...clusterEntries, ...itemEntries];
  return {
    entries,
    byId: new Map(entries.map((e) => [e.id, e])),
    connectors,
    deps,
    indexes,
    clusters: new Map(clusters.map((c) => [c.id, c])),
    replicas,
    replicaStatuses: rsById,
    effects,
  };
}

/** Does an entry match the filter text? Every word must appear in its name, kind, schema or status. */
export function matches(e: Entry, filter: string): boolean {
  const hay = `${e.name} ${e.type} ${KIND_LABEL[e.type] ?? ''} ${e.schema ?? 'clusters'} ${e.status ?? ''}`.toLowerCase();
  return filter
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

const href = (id: string) => `#/objects/${encodeURIComponent(id)}`;

function link(e: Entry | undefined, id: string): HTMLElement {
  if (!e) return h('span', { class: 'muted' }, id);
  return h('a', { href: href(e.id), class: 'ref' }, e.name, h('span', { class: 'kind' }, KIND_LABEL[e.type] ?? e.type));
}

const CLUSTERS = 'Clusters';
/** The list's group of an entry: its schema, or Clusters. */
const groupOf = (e: Entry) => e.schema ?? CLUSTERS;

/** How the list draws: the filter typed, the object selected, the schemas folded away. */
interface ListState {
  readonly filter: string;
  readonly selected: string | undefined;
  readonly collapsed: ReadonlySet<string>;
  readonly onToggle: (group: string) => void;
}

function listView(cat: Catalog, s: ListState): HTMLElement {
  const shown = cat.entries.filter((e) => matches(e, s.filter));
  const groups = new Map<string, Entry[]>();
  for (const e of shown) {
    const g = groupOf(e);
    groups.set(g, [...(groups.get(g) ?? []), e]);
  }
  const order = [...groups.keys()].sort((a, b) => (a === CLUSTERS ? -1 : b === CLUSTERS ? 1 : a.localeCompare(b)));
  const rank = (t: string) => (KIND_ORDER.indexOf(t) + KIND_ORDER.length + 1) % (KIND_ORDER.length + 1);
  if (shown.length === 0) return empty(s.filter ? `Nothing matches “${s.filter}”.` : 'No objects yet: create some in the SQL tab.');
  // A filter shows every match: folded schemas open while one is typed (and fold again after).
  const filtering = s.filter !== '';
  return h(
    'div',
    { class: 'groups' },
    order.map((g) => {
      const items = groups.get(g)!.sort((a, b) => rank(a.type) - rank(b.type) || a.name.localeCompare(b.name));
      const open = filtering || !s.collapsed.has(g);
      return h(
        'section',
        { class: `group${open ? '' : ' collapsed'}`, 'data-group': g },
        h(
          'h3',
          {},
          h('button', { type: 'button', class: 'fold', 'aria-expanded': String(open), disabled: filtering, title: filtering ? 'Clear the filter to fold' : `${open ? 'Fold' : 'Unfold'} ${g}`, onclick: () => s.onToggle(g) }, g),
          h('span', { class: 'count' }, String(items.length)),
        ),
        open
          ? h(
              'ul',
              { class: 'objects' },
              items.map((e) =>
                h(
                  'li',
                  { class: e.id === s.selected ? 'selected' : '', 'data-name': e.name, 'data-type': e.type },
                  h('a', { href: href(e.id) }, e.name),
                  h('span', { class: 'kind' }, KIND_LABEL[e.type] ?? e.type),
                  e.status ? badge(e.status) : null,
                  // One line in the list (the whole text on hover and in the detail).
                  e.error && (e.status === 'stalled' || e.status === 'failed') ? h('div', { class: 'error-line', title: e.error }, e.error) : null,
                ),
              ),
            )
          : null,
      );
    }),
  );
}

interface Details {
  hints?: string[];
  namespaced?: Record<string, string>;
}

/** `details` is jsonb: an object in answers (a string from older servers, parsed). */
function parseDetails(raw: unknown): Details {
  if (!raw) return {};
  if (typeof raw === 'object') return raw as Details;
  if (typeof raw !== 'string') return {};
  try {
    return JSON.parse(raw) as Details;
  } catch {
    return {};
  }
}

/** Hints and per-namespace errors of a status or history row. */
function detailsBlock(raw: unknown): HTMLElement | null {
  const d = parseDetails(raw);
  const items = [
    ...(d.hints ?? []).map((x) => h('li', { class: 'hint' }, h('b', {}, 'hint '), x)),
    ...Object.entries(d.namespaced ?? {}).map(([ns, e]) => h('li', { class: 'ns' }, h('b', {}, `${ns} `), e)),
  ];
  return items.length ? h('ul', { class: 'details' }, items) : null;
}

/** A quoted, fully qualified name for SQL text. */
function qualified(e: Entry): string {
  const parts = e.schema ? [...e.schema.split('.'), e.name] : [e.name];
  return parts.map((p) => `"${p.replace(/"/g, '""')}"`).join('.');
}

function refList(cat: Catalog, ids: readonly string[], none: string): HTMLElement {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return empty(none);
  return h('ul', { class: 'refs' }, unique.map((id) => h('li', {}, link(cat.byId.get(id), id), cat.byId.get(id)?.status ? badge(cat.byId.get(id)!.status!) : null)));
}

function effectsTable(effects: readonly EffectRow[]): HTMLElement {
  if (effects.length === 0) return empty('None in flight: the data plane matches the catalog.');
  return table(
    ['effect', 'generation', 'state', 'attempts', 'age', 'last error'],
    effects.map((e) => [
      `${e.intent} ${e.controller}.${e.kind}${e.object_name ? ` (${e.object_name})` : ''}`,
      e.generation,
      badge(e.dead_lettered ? 'dead-lettered' : e.state),
      e.attempts,
      ago(e.created_at),
      e.last_error ? h('span', { class: 'error-line' }, e.last_error) : '',
    ]),
  );
}

/** Replicas of one cluster with their ids; the zone and reconfiguration columns only when some replica has one. */
export function replicasTable(replicas: readonly ReplicaRow[], statuses: ReadonlyMap<string, ReplicaStatusRow>): HTMLElement {
  const zones = replicas.some((r) => r.availability_zone);
  const reconfiguring = replicas.some((r) => r.reconfiguration);
  return table(
    // The id beside the name: the status relations, events and logs name a replica by its id.
    ['replica', 'id', 'size', ...(zones ? ['zone'] : []), 'status', 'reason', 'since', ...(reconfiguring ? ['reconfiguration'] : [])],
    replicas.map((r) => {
      const s = statuses.get(r.id);
      return [
        r.name,
        h('code', { class: 'muted' }, r.id),
        r.size,
        ...(zones ? [r.availability_zone ?? ''] : []),
        badge(s?.status ?? 'offline'),
        s?.reason ?? '',
        ago(s?.updated_at),
        ...(reconfiguring ? [r.reconfiguration ? reconfigurationCell(r.reconfiguration) : ''] : []),
      ];
    }),
  );
}

/** What the reconfiguration does with the replica, and the deadline (its local time in the tooltip). */
function reconfigurationCell(r: ReplicaReconfigurationRow): HTMLElement {
  const onTimeout = r.strategy === 'wait until ready' ? ` (ON TIMEOUT = ${r.on_timeout.toUpperCase()})` : '';
  return h('span', { class: 'muted', title: localTime(r.deadline) }, `${r.role}, ${r.strategy}${onTimeout} until ${utcTime(r.deadline)}`);
}

async function definition(api: Api, e: Entry): Promise<HTMLElement> {
  const type = e.type === 'cluster' ? 'CLUSTER' : e.type.replace(/-/g, ' ').toUpperCase();
  try {
    const [row] = await api.records<{ create_sql: string }>(`SHOW CREATE ${type} ${qualified(e)}`);
    return h('pre', { class: 'definition' }, row?.create_sql ?? '');
  } catch (err) {
    // A part of another object (a subsource) has no statement of its own.
    if (err instanceof SqlError) return empty(`No definition of its own (${err.error.message}).`);
    throw err;
  }
}

async function timeline(api: Api, c: ConnectorStatus & { kind: 'source' | 'sink' }): Promise<HTMLElement> {
  const rel = c.kind === 'source' ? 'mz_source_status_history WHERE source_id' : 'mz_sink_status_history WHERE sink_id';
  const history = await api.records<HistoryRow>(`SELECT occurred_at, status, error, details FROM mz_internal.${rel} = ${lit(c.id)} ORDER BY occurred_at DESC LIMIT 100`);
  if (history.length === 0) return empty(c.type === 'subsource' ? 'A subsource shares its source’s status: see the source.' : 'No history yet.');
  return h(
    'ol',
    { class: 'timeline' },
    history.map((x) =>
      h(
        'li',
        { class: `event event-${x.status}` },
        h('div', { class: 'when' }, ago(x.occurred_at), h('span', { class: 'muted' }, ` ${timeOfDay(x.occurred_at)}`)),
        badge(x.status),
        x.error ? h('div', { class: 'error-line' }, x.error) : null,
        detailsBlock(x.details),
      ),
    ),
  );
}

/** `25cc × 2 replicas`, or `unmanaged`, for a cluster row. */
function clusterShape(c: ClusterRow | undefined): string | null {
  if (!c) return null;
  if (!c.managed) return 'unmanaged';
  const n = Number(c.replication_factor ?? 1);
  return `${c.size ?? '?'} × ${n} replica${n === 1 ? '' : 's'}`;
}

const section = (title: string, id: string, ...body: (HTMLElement | null)[]) => h('section', { class: `facet facet-${id}` }, h('h3', {}, title), body);

async function detailView(api: Api, cat: Catalog, id: string | undefined): Promise<HTMLElement> {
  const e = id ? cat.byId.get(id) : undefined;
  if (!e) {
    return h('section', { class: 'card', id: 'detail' }, empty(id ? 'This object no longer exists.' : 'Select an object to see its definition, dependencies, effects and history.'));
  }
  const conn = cat.connectors.get(e.id);
  const cluster = e.clusterId ? cat.byId.get(e.clusterId) : undefined;
  const head = [
    h('h2', {}, h('span', { class: 'kind big' }, KIND_LABEL[e.type] ?? e.type), h('span', { class: 'name' }, e.name), e.status ? badge(e.status) : null),
    h(
      'p',
      { class: 'muted sub' },
      [e.schema ? `${e.schema}.${e.name}` : null, e.id, conn ? conn.type : null, clusterShape(cat.clusters.get(e.id))].filter(Boolean).join(' · '),
      cluster ? h('span', {}, ' · in cluster ', h('a', { href: href(cluster.id) }, cluster.name)) : null,
      conn ? h('span', {}, ' · since ', ago(conn.last_status_change_at)) : null,
    ),
    e.error && e.status !== 'running' ? h('div', { class: 'error-box' }, e.error) : null,
    conn ? detailsBlock(conn.details) : null,
    restartButton(api, e),
  ];
  const facets: (HTMLElement | null)[] = [section('Definition', 'definition', await definition(api, e))];
  if (e.type === 'cluster') {
    const rs = cat.replicas.filter((r) => r.cluster_id === e.id);
    const onIt = cat.entries.filter((x) => x.clusterId === e.id).map((x) => x.id);
    facets.push(
      section('Replicas', 'replicas', rs.length ? replicasTable(rs, cat.replicaStatuses) : empty('No replicas: sources, sinks, indexes and materialized views on this cluster are paused.')),
      section('Runs', 'runs', refList(cat, onIt, 'Nothing runs on this cluster yet.')),
    );
  } else {
    const uses = cat.deps.filter((d) => d.object_id === e.id).map((d) => d.referenced_object_id);
    const usedBy = cat.deps.filter((d) => d.referenced_object_id === e.id && cat.byId.get(d.object_id)?.type !== 'index').map((d) => d.object_id);
    const indexes = cat.indexes.filter((i) => i.on_id === e.id).map((i) => i.id);
    facets.push(
      h('div', { class: 'facet-row' }, section('Depends on', 'uses', refList(cat, uses, 'Nothing.')), section('Dependents', 'used-by', refList(cat, usedBy, 'Nothing depends on it.'))),
      ['table', 'view', 'materialized-view', 'source'].includes(e.type) ? section('Indexes', 'indexes', refList(cat, indexes, 'No indexes.')) : null,
    );
  }
  const own = new Set([e.id, ...(e.type === 'cluster' ? cat.replicas.filter((r) => r.cluster_id === e.id).map((r) => r.id) : [])]);
  facets.push(section('Effects in flight', 'effects', effectsTable(cat.effects.filter((x) => own.has(x.object_id)))));
  if (conn) facets.push(section('History', 'history', await timeline(api, conn)));
  return h('section', { class: 'card', id: 'detail', 'data-id': e.id }, head, facets);
}

/** The Objects page: built once, refreshed by the shell's poll. */
export class ObjectsPage {
  readonly el: HTMLElement;
  private readonly list = h('div', { class: 'list-body' });
  private readonly detail = h('div', { class: 'detail' });
  private readonly total = h('span', { class: 'count', id: 'object-count' });
  private readonly filterBox: HTMLInputElement;
  private catalog: Catalog | undefined;
  private selected: string | undefined;
  /** Schemas folded away by a click on their header; kept across polls. */
  private readonly collapsed = new Set<string>();

  constructor(private readonly api: Api) {
    this.filterBox = h('input', { id: 'filter', type: 'search', placeholder: 'Filter: name, kind, schema or status', autocomplete: 'off', spellcheck: 'false' }) as HTMLInputElement;
    this.filterBox.addEventListener('input', () => this.drawList());
    this.el = h('div', { class: 'split' }, h('aside', { class: 'card list' }, h('div', { class: 'list-head' }, this.filterBox, this.total), this.list), this.detail);
  }

  select(id: string | undefined): void {
    this.selected = id;
    // An object opened from a link shows in the list too: its schema unfolds.
    const e = id ? this.catalog?.byId.get(id) : undefined;
    if (e) this.collapsed.delete(groupOf(e));
    if (this.catalog) this.drawList();
  }

  async refresh(): Promise<void> {
    const cat = await readCatalog(this.api);
    const detail = await detailView(this.api, cat, this.selected);
    this.catalog = cat;
    this.drawList();
    this.detail.replaceChildren(detail);
  }

  private drawList(): void {
    const cat = this.catalog!;
    const f = this.filterBox.value.trim();
    const n = f ? cat.entries.filter((e) => matches(e, f)).length : cat.entries.length;
    this.total.textContent = f ? `${n} of ${cat.entries.length}` : String(n);
    const onToggle = (g: string) => {
      if (!this.collapsed.delete(g)) this.collapsed.add(g);
      this.drawList();
    };
    this.list.replaceChildren(listView(cat, { filter: f, selected: this.selected, collapsed: this.collapsed, onToggle }));
  }
}
