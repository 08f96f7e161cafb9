/**
 * CREATE TABLE ... FROM SOURCE through the local pipeline: the table's collection and its
 * ingestion export reach the reference data plane, it reports its own status (mz_source_statuses,
 * type 'table'), SHOW TABLES and mz_tables list it, and DROP follows the source's dependents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tableStores } from '../../shared/catalog/stores';
import { Checker, isClean } from '../../shared/checker/checker';
import { settledDataPlane, tenantItems } from '../helpers/catalog';
import { eventually, rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('tblsrc');
});
afterAll(async () => {
  await p?.stop();
});

const settled = (tenant: string) => settledDataPlane(p, tenant);

const owned = (resources: Awaited<ReturnType<typeof settled>>, name: string) =>
  resources
    .filter((r) => r.owner?.objectName === name)
    .map((r) => r.kind)
    .sort();

describe('CREATE TABLE ... FROM SOURCE', () => {
  it('runs an ingestion export per table, shows it in SHOW TABLES, mz_tables and mz_source_statuses, and drops with its source', async () => {
    const { sql, tenant } = await sqlClient(p);
    const setup = await sql(
      [
        "CREATE CLUSTER ingest (SIZE = '25cc')",
        'CREATE SOURCE counter IN CLUSTER ingest FROM LOAD GENERATOR COUNTER',
        'CREATE SOURCE tpch IN CLUSTER ingest FROM LOAD GENERATOR TPCH',
        'CREATE TABLE counter_tbl FROM SOURCE counter',
        'CREATE TABLE orders FROM SOURCE tpch (REFERENCE orders)',
        'CREATE VIEW big_orders AS SELECT * FROM orders',
      ].join('; '),
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);

    let resources = await settled(tenant);
    expect(owned(resources, 'counter_tbl')).toEqual(['collection', 'ingestion']);
    expect(owned(resources, 'orders')).toEqual(['collection', 'ingestion']);
    // The export runs on the source's cluster with the source's generator and the upstream reference.
    const exportSpec = resources.find((r) => r.kind === 'ingestion' && r.owner?.objectName === 'orders')!.spec as any;
    const clusterId = (await rows(sql, "SELECT id FROM mz_clusters WHERE name = 'ingest'"))[0]![0];
    expect(exportSpec).toMatchObject({ clusterId, connector: { type: 'load-generator', options: { GENERATOR: 'TPCH', REFERENCE: 'orders' } } });

    expect((await rows(sql, 'SHOW TABLES')).map((r) => r[0])).toEqual(['counter_tbl', 'orders']);
    const sourceId = (await rows(sql, "SELECT id FROM mz_sources WHERE name = 'tpch'"))[0]![0];
    expect(await rows(sql, "SELECT source_id FROM mz_tables WHERE name = 'orders'")).toEqual([[sourceId]]);
    // The data plane's report moves the table's own status, like a source's.
    await eventually(async () => (await rows(sql, "SELECT status FROM mz_internal.mz_source_statuses WHERE name = 'orders'"))[0]?.[0] === 'running', 15_000);
    expect(await rows(sql, "SELECT type FROM mz_internal.mz_source_statuses WHERE name = 'orders'")).toEqual([['table']]);

    // RESTRICT: nothing is dropped, in Materialize's words.
    const refused = await sql('DROP SOURCE tpch');
    expect(refused.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop source "tpch": still depended upon by table "orders"' });

    // The table alone: its export and collection go, the source keeps running.
    expect((await sql('DROP TABLE counter_tbl')).status).toBe(200);
    resources = await settled(tenant);
    expect(owned(resources, 'counter_tbl')).toEqual([]);
    expect(owned(resources, 'counter')).toEqual(['collection', 'ingestion']);

    // CASCADE takes the table and the view on it.
    expect((await sql('DROP SOURCE tpch CASCADE')).status).toBe(200);
    resources = await settled(tenant);
    expect(owned(resources, 'orders')).toEqual([]);
    expect(owned(resources, 'tpch')).toEqual([]);
    expect((await rows(sql, 'SHOW TABLES')).map((r) => r[0])).toEqual([]);
    expect(await rows(sql, "SELECT status FROM mz_internal.mz_source_statuses WHERE name = 'orders'")).toEqual([]);

    const report = await new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane).check([tenant]);
    expect(report.problems).toEqual([]);
    expect(isClean(report.counts)).toBe(true);
  });

  it('answers a missing or unknown reference with Materialize\'s purification errors and commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER ingest (SIZE = '25cc'); CREATE SOURCE tpch IN CLUSTER ingest FROM LOAD GENERATOR TPCH")).status).toBe(200);
    const catalog = async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'object' || i.type === 'name' || i.type === 'txn');
    const before = await catalog();
    for (const [stmt, message] of [
      ['CREATE TABLE t FROM SOURCE tpch', 'multi-output sources require an external reference'],
      ['CREATE TABLE t FROM SOURCE tpch (REFERENCE nope)', 'reference to nope not found in source'],
    ]) {
      const r = await sql(stmt!);
      expect(r.body.results[0].error).toMatchObject({ code: '22023', message });
    }
    expect(await catalog()).toEqual(before);
  });
});
