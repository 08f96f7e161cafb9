/**
 * The first vertical slice through the real pipeline (DynamoDB Local + stream router + SQS
 * emulator + compute executor + reference data plane), over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { dataPlaneReplicas, tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { budget } from '../helpers/budget';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('clusters');
});
afterAll(async () => {
  await p.stop();
});

async function replicaStatuses(sql: SqlClient): Promise<any[][]> {
  const r = await sql('SELECT replica_id, status FROM mz_internal.mz_cluster_replica_statuses ORDER BY replica_id');
  expect(r.status).toBe(200);
  return r.body.results[0].rows;
}

describe('managed cluster', () => {
  it('provisions REPLICATION FACTOR replicas, reports them online, and removes them on DROP', async () => {
    // Prepare: the SQL engine that answers the status reads below starts on a process's first query (not part of what is timed).
    const { sql, tenant } = await sqlClient(p);
    await sql('SELECT 1 FROM mz_clusters');

    // Act
    const created = await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)");

    // Assess
    expect({ status: created.status, body: created.body }).toEqual({ status: 200, body: { results: [{ ok: 'CREATE CLUSTER', notices: [] }] } });
    const t0 = Date.now();
    const limit = budget(2_000);
    const online = await eventually(async () => {
      const rows = await replicaStatuses(sql);
      return rows.length === 2 && rows.every((r) => r[1] === 'online') && rows;
    }, limit);
    expect(Date.now() - t0).toBeLessThan(limit);
    const replicas = await dataPlaneReplicas(p, tenant);
    expect(replicas.map((r) => r.resourceId).sort()).toEqual(online.map((r) => r[0]).sort());
    for (const r of replicas) {
      expect(r.owner).toMatchObject({ tenant, objectKind: 'cluster_replica' });
      expect(r.generation).toBe(1);
      expect(r.spec).toMatchObject({ size: '25cc' });
    }

    const shown = await sql('SHOW CLUSTER REPLICAS');
    expect(shown.body.results[0].rows).toEqual([
      ['c', 'r1', '25cc', true, ''],
      ['c', 'r2', '25cc', true, ''],
    ]);

    const dropped = await sql('DROP CLUSTER c');
    expect(dropped.body).toEqual({ results: [{ ok: 'DROP CLUSTER', notices: [] }] });
    await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 0, 5_000);
    expect(await replicaStatuses(sql)).toEqual([]);
    expect((await sql('SHOW CLUSTERS')).body.results[0].rows).toEqual([]);

    // Every effect settled, and each replica was created once and dropped once.
    await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state === 'applied'));
    const log = await p.dataPlane.actionLog(tenant);
    expect(log.filter((l) => l.action === 'create')).toHaveLength(2);
    expect(log.filter((l) => l.action === 'drop')).toHaveLength(2);
  });
});

describe('unmanaged cluster', () => {
  it('creates and drops replicas one by one', async () => {
    const { sql, tenant } = await sqlClient(p);

    const r1 = await sql("CREATE CLUSTER u REPLICAS (r1 (SIZE = '25cc'))");
    const r2 = await sql("CREATE CLUSTER REPLICA u.r2 (SIZE '50cc')");
    expect(r1.body.results).toEqual([{ ok: 'CREATE CLUSTER', notices: [] }]);
    expect(r2.body.results).toEqual([{ ok: 'CREATE CLUSTER REPLICA', notices: [] }]);
    await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 2);
    expect((await sql('SHOW CLUSTERS')).body.results[0].rows).toEqual([['u', 'r1 (25cc), r2 (50cc)', '']]);

    const drop = await sql('DROP CLUSTER REPLICA u.r2');
    expect(drop.body.results).toEqual([{ ok: 'DROP CLUSTER REPLICA', notices: [] }]);
    const left = await eventually(async () => {
      const rs = await dataPlaneReplicas(p, tenant);
      return rs.length === 1 && rs;
    });
    const r1Id = (await sql("SELECT id FROM mz_cluster_replicas WHERE name = 'r1'")).body.results[0].rows[0][0];
    expect(left[0]!.resourceId).toBe(r1Id);

    expect((await sql('DROP CLUSTER u CASCADE')).body.results).toEqual([{ ok: 'DROP CLUSTER', notices: [] }]);
    await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 0);
  });

  it('answers a multi-statement request as one transaction', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql("CREATE CLUSTER m REPLICAS (); CREATE CLUSTER REPLICA m.a (SIZE = '25cc'); SHOW CLUSTER REPLICAS");
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.ok ?? x.tag)).toEqual(['CREATE CLUSTER', 'CREATE CLUSTER REPLICA', 'SELECT 1']);
    expect(r.body.results[2].rows[0].slice(0, 3)).toEqual(['m', 'a', '25cc']);
  });
});

describe('planning errors', () => {
  it.each([
    ["CREATE CLUSTER c (SIZE = '25cc'); CREATE CLUSTER c (SIZE = '25cc')", '42P07', /cluster 'c' already exists/],
    ['DROP CLUSTER nope', '42704', /unknown cluster 'nope'/],
    ["CREATE CLUSTER REPLICA nope.r (SIZE = '25cc')", '42704', /unknown cluster 'nope'/],
    ["CREATE CLUSTER c (SIZE = '7cc')", '22023', /unknown cluster replica size 7cc/],
    ["CREATE CLUSTER c (SIZE = '25cc', COLOUR = 'blue')", '42601', /Expected one of .*SIZE.*, found identifier "colour"/],
    ["CREATE CLUSTER c (SIZE = '25cc', SIZE = '50cc')", '42601', /SIZE specified more than once/],
    ["CREATE CLUSTER mz_mine (SIZE = '25cc')", '42939', /reserved/],
    ["CREATE CLUSTER c (SIZE = '25cc'); CREATE CLUSTER REPLICA c.r9 (SIZE = '25cc')", '0A000', /managed cluster/],
  ])('%s → %s, nothing committed', async (query, code, message) => {
    const { sql, tenant } = await sqlClient(p);
    const r = await sql(query);
    expect(r.status).toBe(400);
    const err = r.body.results.at(-1).error;
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('DROP ... IF EXISTS of a missing object is a notice, not an error', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql('DROP CLUSTER IF EXISTS gone');
    expect(r.body.results).toEqual([{ ok: 'DROP CLUSTER', notices: [{ message: 'cluster "gone" does not exist, skipping', severity: 'notice' }] }]);
  });
});

describe('tenants', () => {
  it('never see or touch each other’s clusters', async () => {
    const a = await sqlClient(p);
    const b = await sqlClient(p);
    await a.sql("CREATE CLUSTER shared_name (SIZE = '25cc')");
    expect((await b.sql('SHOW CLUSTERS')).body.results[0].rows).toEqual([]);
    const drop = await b.sql('DROP CLUSTER shared_name');
    expect(drop.body.results[0].error.code).toBe('42704');
    // B may use the same name in its own catalog.
    expect((await b.sql("CREATE CLUSTER shared_name (SIZE = '25cc')")).status).toBe(200);
    expect((await a.sql('SHOW CLUSTERS')).body.results[0].rows).toHaveLength(1);
  });
});
