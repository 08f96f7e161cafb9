/**
 * The polled views besides Objects (objects.ts): the effects not yet applied (and the DLQ), and
 * replica health. Each `load` reads what it shows through the SQL API and returns a fresh
 * element; the shell swaps it in.
 */
import type { Api } from './api';
import { ago, empty, h, table } from './dom';
import { REPLICA_RECONFIGURATIONS, replicasTable, withReconfigurations, type EffectRow, type ReplicaReconfigurationRow, type ReplicaRow, type ReplicaStatusRow } from './objects';


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
  const [clusters, replicaRows, statuses, reconfigurations] = await api.batch<[{ id: string; name: string }, ReplicaRow, ReplicaStatusRow, ReplicaReconfigurationRow]>([
    'SELECT id, name FROM mz_clusters ORDER BY name',
    'SELECT id, name, cluster_id, size, availability_zone FROM mz_cluster_replicas ORDER BY name',
    'SELECT replica_id, status, reason, updated_at FROM mz_internal.mz_cluster_replica_statuses',
    REPLICA_RECONFIGURATIONS,
  ]);
  const replicas = withReconfigurations(replicaRows, reconfigurations);
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
        h('h2', {}, h('a', { href: `#/objects/${encodeURIComponent(c.id)}` }, `cluster ${c.name}`), h('span', { class: 'count' }, String(rs.length))),
        rs.length === 0 ? empty('No replicas: sources and indexes on this cluster are paused.') : replicasTable(rs, st),
      );
    }),
  );
}
