/**
 * Cluster replica status events end to end on the emulators: the executor's writes of a replica's
 * row in mz_cluster_replica_statuses reach the catalog stream, and the router publishes one
 * "Cluster Replica Status Changed" event per change (status or reason) to the local event log,
 * none for a rewrite of the same status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import type { LoggedEventWire } from '../../cli/client';
import { renderEvent } from '../../cli/commands/events';
import { StatusStore } from '../../shared/catalog/status-store';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

let p: Pipeline;
let sql: SqlClient;
let tenant: string;

const replicaEvents = () =>
  p.events
    .read(tenant, 0, 1000)
    .filter((e) => e.detailType === 'Cluster Replica Status Changed')
    .map((e) => ({ cluster: e.detail.cluster_name, name: e.detail.object_name, change: `${e.detail.from ?? '∅'} → ${e.detail.to}`, error: e.detail.error, id: e.detail.object_id }));

beforeAll(async () => {
  p = await testPipeline('replica-events');
  ({ sql, tenant } = await sqlClient(p));
});
afterAll(async () => {
  await p.stop();
});

/** Replica names are unique in this tenant's test, so the name finds the replica. */
async function replicaId(name: string): Promise<string> {
  const r = await sql(`SELECT id FROM mz_cluster_replicas WHERE name = '${name}'`);
  const rows = r.body.results?.[0]?.rows as string[][] | undefined;
  if (rows?.length !== 1) throw new Error(`expected one replica ${name}: ${JSON.stringify(r.body)}`);
  return rows[0]![0]!;
}

describe('replica status events', () => {
  it('a new replica going online is one event from nothing; rewriting the same status adds none; going offline adds one', async () => {
    // Act: the executor applies the replica and writes its row.
    await sql("CREATE CLUSTER u REPLICAS (ru (SIZE = '25cc'))");
    await eventually(async () => replicaEvents().length === 1, 15_000);
    const id = await replicaId('ru');

    // Assess
    expect(replicaEvents()).toEqual([{ cluster: 'u', name: 'ru', change: '∅ → online', error: null, id }]);

    // Act: the same status written again (another apply of the same generation), then a change.
    const statuses = new StatusStore(p.clients.doc, p.config.catalogTable);
    const row = await statuses.listReplicaStatuses(tenant);
    const generation = row.find((r) => r.replicaId === id)!.generation;
    const cluster = { id: row.find((r) => r.replicaId === id)!.clusterId!, name: 'u' };
    await statuses.writeReplicaStatus(statuses.replicaStatusItem(tenant, id, { online: true, reason: null, generation, present: true, now: new Date(), name: 'ru', cluster }));
    await statuses.writeReplicaStatus(statuses.replicaStatusItem(tenant, id, { online: false, reason: 'host lost', generation, present: true, now: new Date(), name: 'ru', cluster }));
    await eventually(async () => replicaEvents().length === 2, 15_000);

    // Assess: the rewrite published nothing (its stream record came before the change's).
    expect(replicaEvents()).toEqual([
      { cluster: 'u', name: 'ru', change: '∅ → online', error: null, id },
      { cluster: 'u', name: 'ru', change: 'online → offline', error: 'host lost', id },
    ]);
    const [stored] = (await statuses.listReplicaStatuses(tenant)).filter((r) => r.replicaId === id);
    expect(stored).toMatchObject({ status: 'offline', reason: 'host lost' });
  });

  it("a replica the data plane refuses for good is one event to offline, with the data plane's reason", async () => {
    // Prepare
    p.faults.failNext(1, 'terminal', 'size 25cc is not offered in this region');

    // Act
    await sql("CREATE CLUSTER v REPLICAS (rv (SIZE = '25cc'))");
    const id = await replicaId('rv');
    await eventually(async () => replicaEvents().some((e) => e.id === id), 15_000);

    // Assess
    expect(replicaEvents().filter((e) => e.id === id)).toEqual([{ cluster: 'v', name: 'rv', change: '∅ → offline', error: 'size 25cc is not offered in this region', id }]);
  });

  it("names the cluster, so two clusters' r1 are told apart, in the events and in ddlctl events", async () => {
    // Act
    await sql("CREATE CLUSTER east (SIZE = '25cc'); CREATE CLUSTER west (SIZE = '25cc')");
    const ids = (await sql("SELECT c.name, r.id FROM mz_cluster_replicas r JOIN mz_clusters c ON c.id = r.cluster_id WHERE c.name IN ('east', 'west')")).body.results[0].rows as [string, string][];
    await eventually(async () => ids.every(([, id]) => replicaEvents().some((e) => e.id === id)), 15_000);

    // Assess
    for (const [cluster, id] of ids) expect(replicaEvents().filter((e) => e.id === id)).toEqual([{ cluster, name: 'r1', change: '∅ → online', error: null, id }]);
    const lines = p.events.read(tenant, 0, 1000).filter((e) => ids.some(([, id]) => id === e.detail.object_id)).map((e) => renderEvent(e as LoggedEventWire).replace(/\x1b\[[0-9;]*m/g, ''));
    expect(lines.map((l) => l.split('  ').slice(1).join('  ')).sort()).toEqual(['replica  east.r1  ∅ → online', 'replica  west.r1  ∅ → online']);
  });
});
