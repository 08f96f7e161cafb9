/**
 * `ddlctl status`: every source, sink and replica with its status in colour and its error (or,
 * for one that recovered, its last error), from the status tables. `--watch` redraws every 2 s.
 */
import pc from 'picocolors';
import type { SqlClient } from '../client';
import { ago, colourStatus, heading, table } from '../render';

interface ConnectorRow {
  id: string;
  name: string;
  type: string;
  last_status_change_at: string | null;
  status: string;
  error: string | null;
  /** jsonb: an object (a string from older servers). */
  details: { hints?: string[] } | string | null;
}

interface HistoryRow {
  occurred_at: string;
  id: string;
  status: string;
  error: string | null;
}

/** A row of mz_internal.mz_cluster_replica_reconfigurations: the replica's part in a reconfiguration under way. */
export interface ReplicaReconfiguration {
  readonly role: string;
  readonly strategy: string;
  readonly on_timeout: string;
  readonly deadline: string;
}

export interface StatusSnapshot {
  readonly sources: readonly (ConnectorRow & { last_error?: HistoryRow })[];
  readonly sinks: readonly (ConnectorRow & { last_error?: HistoryRow })[];
  readonly replicas: readonly {
    cluster: string;
    replica: string;
    id: string;
    size: string;
    status: string;
    reason: string | null;
    updated_at: string | null;
    reconfiguration?: ReplicaReconfiguration;
  }[];
}

function lastErrors(rows: readonly HistoryRow[]): Map<string, HistoryRow> {
  const out = new Map<string, HistoryRow>();
  for (const r of rows) if (!out.has(r.id)) out.set(r.id, r);
  return out;
}

export async function readStatus(client: SqlClient): Promise<StatusSnapshot> {
  // The SELECT subset reads one relation per statement: the joins happen here.
  const [sources, sinks, sourceHistory, sinkHistory, clusters, replicas, replicaStatuses, reconfigurations] = await Promise.all([
    client.records<ConnectorRow>('SELECT * FROM mz_internal.mz_source_statuses ORDER BY name'),
    client.records<ConnectorRow>('SELECT * FROM mz_internal.mz_sink_statuses ORDER BY name'),
    client.records<HistoryRow & { source_id: string }>('SELECT occurred_at, source_id, status, error FROM mz_internal.mz_source_status_history WHERE error IS NOT NULL ORDER BY occurred_at DESC').then((rs) => rs.map((r) => ({ ...r, id: r.source_id }))),
    client.records<HistoryRow & { sink_id: string }>('SELECT occurred_at, sink_id, status, error FROM mz_internal.mz_sink_status_history WHERE error IS NOT NULL ORDER BY occurred_at DESC').then((rs) => rs.map((r) => ({ ...r, id: r.sink_id }))),
    client.records<{ id: string; name: string }>('SELECT id, name FROM mz_clusters'),
    client.records<{ id: string; name: string; cluster_id: string; size: string }>('SELECT id, name, cluster_id, size FROM mz_cluster_replicas'),
    client.records<{ replica_id: string; status: string; reason: string | null; updated_at: string | null }>('SELECT * FROM mz_internal.mz_cluster_replica_statuses'),
    client.records<ReplicaReconfiguration & { replica_id: string }>('SELECT replica_id, role, strategy, on_timeout, deadline FROM mz_internal.mz_cluster_replica_reconfigurations'),
  ]);
  const srcErr = lastErrors(sourceHistory);
  const sinkErr = lastErrors(sinkHistory);
  const clusterName = new Map(clusters.map((c) => [c.id, c.name]));
  const statusOf = new Map(replicaStatuses.map((s) => [s.replica_id, s]));
  const reconfigurationOf = new Map(reconfigurations.map(({ replica_id, ...r }) => [replica_id, r]));
  return {
    sources: sources.map((s) => ({ ...s, ...(srcErr.has(s.id) ? { last_error: srcErr.get(s.id)! } : {}) })),
    sinks: sinks.map((s) => ({ ...s, ...(sinkErr.has(s.id) ? { last_error: sinkErr.get(s.id)! } : {}) })),
    replicas: replicas
      .map((r) => {
        const st = statusOf.get(r.id);
        const reconfiguration = reconfigurationOf.get(r.id);
        return {
          cluster: clusterName.get(r.cluster_id) ?? r.cluster_id,
          replica: r.name,
          id: r.id,
          size: r.size,
          status: st?.status ?? 'offline',
          reason: st?.reason ?? null,
          updated_at: st?.updated_at ?? null,
          ...(reconfiguration ? { reconfiguration } : {}),
        };
      })
      .sort((a, b) => `${a.cluster}.${a.replica}`.localeCompare(`${b.cluster}.${b.replica}`)),
  };
}

/** The error column: the current error and hints, else the last error it recovered from. */
function errorCell(r: ConnectorRow & { last_error?: HistoryRow }, now: number): string {
  const hints: string[] = (() => {
    try {
      const d = typeof r.details === 'string' ? (JSON.parse(r.details) as { hints?: string[] }) : r.details;
      return d?.hints ?? [];
    } catch {
      return [];
    }
  })();
  const lines: string[] = [];
  if (r.error) lines.push(pc.red(r.error));
  for (const h of hints) lines.push(pc.dim(`hint: ${h}`));
  if (!r.error && r.last_error?.error) lines.push(pc.dim(`last error ${ago(r.last_error.occurred_at, now)}: ${r.last_error.error}`));
  return lines.join('\n');
}

/** `pending, wait until ready (ON TIMEOUT = ROLLBACK) until 2026-...`: what happens to the replica, and by when. */
export function reconfigurationCell(r: ReplicaReconfiguration): string {
  const onTimeout = r.strategy === 'wait until ready' ? ` (ON TIMEOUT = ${r.on_timeout.toUpperCase()})` : '';
  return `${r.role}, ${r.strategy}${onTimeout} until ${r.deadline}`;
}

/** Sources and sinks stalled or failed, and replicas not online: `ddlctl status` exits 1 when any. */
export function unhealthy(s: StatusSnapshot): number {
  return [...s.sources, ...s.sinks].filter((r) => r.status === 'stalled' || r.status === 'failed').length + s.replicas.filter((r) => r.status !== 'online').length;
}

export function renderStatus(s: StatusSnapshot, now: number = Date.now()): string {
  const out: string[] = [];
  const connectors = (title: string, rows: StatusSnapshot['sources']) => {
    out.push(heading(title, rows.length));
    if (rows.length === 0) out.push(pc.dim('  none'));
    else
      out.push(
        table(
          ['name', 'type', 'status', 'since', 'error'],
          rows.map((r) => [r.name, r.type, colourStatus(r.status), ago(r.last_status_change_at, now), errorCell(r, now)]),
        ),
      );
    out.push('');
  };
  connectors('SOURCES', s.sources);
  connectors('SINKS', s.sinks);
  out.push(heading('REPLICAS', s.replicas.length));
  // The reconfiguration column only while some cluster is being reconfigured.
  const reconfiguring = s.replicas.some((r) => r.reconfiguration);
  if (s.replicas.length === 0) out.push(pc.dim('  none'));
  else
    out.push(
      table(
        // The id beside the name: the status relations, events and logs name a replica by its id.
        ['cluster', 'replica', 'id', 'size', 'status', 'reason', 'since', ...(reconfiguring ? ['reconfiguration'] : [])],
        s.replicas.map((r) => [
          r.cluster,
          r.replica,
          pc.dim(r.id),
          r.size,
          colourStatus(r.status),
          r.reason ?? '',
          ago(r.updated_at, now),
          ...(reconfiguring ? [r.reconfiguration ? reconfigurationCell(r.reconfiguration) : ''] : []),
        ]),
      ),
    );
  const bad = unhealthy(s);
  out.push('', bad === 0 ? pc.green('all healthy') : pc.yellow(`${bad} not healthy`));
  return out.join('\n');
}

export async function watch(render: () => Promise<string>, intervalSeconds: number, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    let text: string;
    try {
      text = await render();
    } catch (err) {
      text = pc.red((err as Error).message);
    }
    const header = pc.dim(`every ${intervalSeconds}s · ${new Date().toLocaleTimeString()} · Ctrl-C to stop`);
    // Clear the screen and home the cursor only on a terminal; a pipe gets plain frames.
    process.stdout.write(`${process.stdout.isTTY ? '\x1b[2J\x1b[H' : ''}${header}\n\n${text}\n`);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, intervalSeconds * 1000);
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
