/**
 * The polled views: objects by kind with live connector badges and a per-connector history
 * timeline, the effects not yet applied (and the DLQ), and replica health. Each `load` reads
 * what it shows through the SQL API and returns a fresh element; the shell swaps it in.
 */
import { lit, type Api } from './api';
import { ago, badge, empty, h, table } from './dom';

interface ConnectorStatus {
  id: string;
  name: string;
  type: string;
  last_status_change_at: string | null;
  status: string;
  error: string | null;
  details: string | null;
}

interface HistoryRow {
  occurred_at: string;
  status: string;
  error: string | null;
  details: string | null;
}

interface Details {
  hints?: string[];
  namespaced?: Record<string, string>;
}

function parseDetails(raw: string | null): Details {
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Details;
  } catch {
    return {};
  }
}

/** Hints and per-namespace errors of a status or history row. */
function detailsBlock(raw: string | null): HTMLElement | null {
  const d = parseDetails(raw);
  const items = [
    ...(d.hints ?? []).map((x) => h('li', { class: 'hint' }, h('b', {}, 'hint '), x)),
    ...Object.entries(d.namespaced ?? {}).map(([ns, e]) => h('li', { class: 'ns' }, h('b', {}, `${ns} `), e)),
  ];
  return items.length ? h('ul', { class: 'details' }, items) : null;
}

const KINDS: readonly { type: string; title: string }[] = [
  { type: 'connection', title: 'Connections' },
  { type: 'secret', title: 'Secrets' },
  { type: 'table', title: 'Tables' },
  { type: 'view', title: 'Views' },
  { type: 'materialized-view', title: 'Materialized views' },
  { type: 'index', title: 'Indexes' },
];

function connectorList(kind: 'source' | 'sink', rows: readonly ConnectorStatus[], selected: string | undefined): HTMLElement {
  if (rows.length === 0) return empty(`No ${kind}s.`);
  return h(
    'ul',
    { class: 'objects' },
    rows.map((r) =>
      h(
        'li',
        { class: r.id === selected ? 'selected' : '', 'data-name': r.name },
        h('a', { href: `#/objects/${encodeURIComponent(r.id)}` }, r.name),
        h('span', { class: 'muted' }, ` ${r.type}`),
        badge(r.status),
        r.error ? h('div', { class: 'error-line' }, r.error) : null,
      ),
    ),
  );
}

function card(title: string, count: number, body: HTMLElement): HTMLElement {
  return h('section', { class: 'card' }, h('h2', {}, title, h('span', { class: 'count' }, String(count))), body);
}

export async function loadObjects(api: Api, selected: string | undefined): Promise<HTMLElement> {
  const [clusters, objects, sources, sinks] = await Promise.all([
    api.records<{ id: string; name: string; managed: boolean; size: string | null; replication_factor: number | null }>('SELECT * FROM mz_clusters ORDER BY name'),
    api.records<{ id: string; name: string; type: string; cluster_id: string | null }>('SELECT id, name, type, cluster_id FROM mz_objects ORDER BY name'),
    api.records<ConnectorStatus>('SELECT * FROM mz_internal.mz_source_statuses ORDER BY name'),
    api.records<ConnectorStatus>('SELECT * FROM mz_internal.mz_sink_statuses ORDER BY name'),
  ]);
  const left = h(
    'div',
    { class: 'column' },
    card('Sources', sources.length, connectorList('source', sources, selected)),
    card('Sinks', sinks.length, connectorList('sink', sinks, selected)),
    card(
      'Clusters',
      clusters.length,
      clusters.length
        ? h('ul', { class: 'objects' }, clusters.map((c) => h('li', {}, h('span', {}, c.name), h('span', { class: 'muted' }, c.managed ? ` ${c.size ?? ''} × ${c.replication_factor ?? 1}` : ' unmanaged'))))
        : empty('No clusters.'),
    ),
    ...KINDS.map((k) => {
      const of = objects.filter((o) => o.type === k.type);
      return of.length ? card(k.title, of.length, h('ul', { class: 'objects' }, of.map((o) => h('li', {}, o.name)))) : null;
    }).filter((x): x is HTMLElement => x !== null),
  );
  const conn = [...sources.map((s) => ({ ...s, kind: 'source' as const })), ...sinks.map((s) => ({ ...s, kind: 'sink' as const }))].find((s) => s.id === selected);
  const right = h('div', { class: 'column detail' }, conn ? await timeline(api, conn) : h('section', { class: 'card' }, empty('Select a source or sink to see its history.')));
  return h('div', { class: 'split' }, left, right);
}

async function timeline(api: Api, c: ConnectorStatus & { kind: 'source' | 'sink' }): Promise<HTMLElement> {
  const rel = c.kind === 'source' ? 'mz_source_status_history WHERE source_id' : 'mz_sink_status_history WHERE sink_id';
  const history = await api.records<HistoryRow>(`SELECT occurred_at, status, error, details FROM mz_internal.${rel} = ${lit(c.id)} ORDER BY occurred_at DESC LIMIT 100`);
  return h(
    'section',
    { class: 'card timeline-card', id: 'timeline' },
    h('h2', {}, `${c.kind} ${c.name}`, badge(c.status)),
    h('p', { class: 'muted' }, `${c.type} · ${c.id} · since `, ago(c.last_status_change_at)),
    c.error ? h('div', { class: 'error-box' }, c.error) : null,
    detailsBlock(c.details),
    h('h3', {}, 'History'),
    history.length === 0
      ? empty(c.type === 'subsource' ? 'A subsource shares its source’s status: see the source.' : 'No history yet.')
      : h(
          'ol',
          { class: 'timeline' },
          history.map((x) =>
            h(
              'li',
              { class: `event event-${x.status}` },
              h('div', { class: 'when' }, ago(x.occurred_at), h('span', { class: 'muted' }, ` ${new Date(x.occurred_at).toLocaleTimeString()}`)),
              badge(x.status),
              x.error ? h('div', { class: 'error-line' }, x.error) : null,
              detailsBlock(x.details),
            ),
          ),
        ),
  );
}

interface EffectRow {
  effect_id: string;
  object_name: string;
  controller: string;
  kind: string;
  intent: string;
  generation: number;
  state: string;
  attempts: number;
  last_error: string | null;
  dead_lettered: boolean;
  created_at: string;
}

export async function loadEffects(api: Api): Promise<HTMLElement> {
  const rows = await api.records<EffectRow>('SELECT * FROM mz_internal.mz_pending_effects ORDER BY created_at');
  const groups = [
    { title: 'Pending', id: 'pending', rows: rows.filter((e) => e.state === 'pending' && !e.dead_lettered), none: 'Nothing pending: every committed change is on the data plane.' },
    { title: 'Failed', id: 'failed', rows: rows.filter((e) => e.state === 'failed'), none: 'No failed effects.' },
    { title: 'Dead-lettered (DLQ)', id: 'dlq', rows: rows.filter((e) => e.state === 'pending' && e.dead_lettered), none: 'The dead-letter queues are empty.' },
  ];
  return h(
    'div',
    { class: 'column wide' },
    groups.map((g) =>
      h(
        'section',
        { class: 'card', id: `effects-${g.id}` },
        h('h2', {}, g.title, h('span', { class: 'count' }, String(g.rows.length))),
        g.rows.length === 0
          ? empty(g.none)
          : table(
              ['object', 'effect', 'generation', 'attempts', 'age', 'last error', 'effect id'],
              g.rows.map((e) => [e.object_name, `${e.intent} ${e.controller}.${e.kind}`, e.generation, e.attempts, ago(e.created_at), e.last_error ? h('span', { class: 'error-line' }, e.last_error) : '', h('code', {}, e.effect_id)]),
            ),
        g.id === 'dlq' && g.rows.length ? h('p', { class: 'muted' }, 'Fix the cause (the last error says what it was), then run ', h('code', {}, 'ddlctl effects redrive'), '.') : null,
      ),
    ),
  );
}

export async function loadReplicas(api: Api): Promise<HTMLElement> {
  const [clusters, replicas, statuses] = await Promise.all([
    api.records<{ id: string; name: string }>('SELECT id, name FROM mz_clusters ORDER BY name'),
    api.records<{ id: string; name: string; cluster_id: string; size: string; availability_zone: string | null }>('SELECT * FROM mz_cluster_replicas ORDER BY name'),
    api.records<{ replica_id: string; status: string; reason: string | null; updated_at: string | null }>('SELECT * FROM mz_internal.mz_cluster_replica_statuses'),
  ]);
  const st = new Map(statuses.map((s) => [s.replica_id, s]));
  if (clusters.length === 0) return h('div', { class: 'column wide' }, h('section', { class: 'card' }, empty('No clusters yet.')));
  return h(
    'div',
    { class: 'column wide' },
    clusters.map((c) => {
      const rs = replicas.filter((r) => r.cluster_id === c.id);
      return h(
        'section',
        { class: 'card' },
        h('h2', {}, `cluster ${c.name}`, h('span', { class: 'count' }, String(rs.length))),
        rs.length === 0
          ? empty('No replicas: sources and indexes on this cluster are paused.')
          : table(
              ['replica', 'size', 'zone', 'status', 'reason', 'since'],
              rs.map((r) => {
                const s = st.get(r.id);
                return [r.name, r.size, r.availability_zone ?? '', badge(s?.status ?? 'offline'), s?.reason ?? '', ago(s?.updated_at)];
              }),
            ),
      );
    }),
  );
}
