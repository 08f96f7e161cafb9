/**
 * The DDL surface end to end: every object kind through the real pipeline, its data-plane
 * resources (collections with read policies, ingestions, dataflows, exports), secrets in the
 * secret store, dependencies with RESTRICT and CASCADE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, type SqlClient, ok } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('ddl');
});
afterAll(async () => {
  await p.stop();
});


async function rows(sql: SqlClient, query: string): Promise<any[][]> {
  return (await ok(sql, query))[0].rows;
}

/** Waits until every effect of the tenant settled; returns the data plane's resources. */
async function settled(tenant: string) {
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
  return p.dataPlane.observe(tenant);
}

const SETUP = [
  "CREATE CLUSTER quickstart (SIZE = '25cc')",
  "CREATE SECRET pgpass AS 'hunter2-very-secret'",
  "CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', PORT 5432, USER 'mz', PASSWORD SECRET pgpass, DATABASE 'shop') WITH (VALIDATE = false)",
  "CREATE CONNECTION kafka_conn TO KAFKA (BROKER 'broker:9092', SECURITY PROTOCOL = 'PLAINTEXT') WITH (VALIDATE = false)",
  'CREATE SOURCE auction FROM LOAD GENERATOR AUCTION FOR ALL TABLES',
  "CREATE SOURCE pg_src IN CLUSTER quickstart FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (shop.public.orders AS orders)",
  'CREATE TABLE t (id int NOT NULL, amount numeric(10,2))',
  'CREATE VIEW big AS SELECT * FROM t WHERE amount > 100',
  'CREATE MATERIALIZED VIEW totals AS SELECT count(*) FROM big JOIN orders ON true',
  'CREATE INDEX totals_idx ON totals (count)',
  "CREATE SINK out FROM totals INTO KAFKA CONNECTION kafka_conn (TOPIC 'totals') FORMAT JSON ENVELOPE DEBEZIUM",
];

describe('every object kind', () => {
  it('creates catalog objects and exactly the data-plane resources they need', async () => {
    const { sql, tenant } = await sqlClient(p);
    const results = await ok(sql, SETUP.join(';\n'));
    expect(results.map((r) => r.ok)).toEqual([
      'CREATE CLUSTER',
      'CREATE SECRET',
      'CREATE CONNECTION',
      'CREATE CONNECTION',
      'CREATE SOURCE',
      'CREATE SOURCE',
      'CREATE TABLE',
      'CREATE VIEW',
      'CREATE MATERIALIZED VIEW',
      'CREATE INDEX',
      'CREATE SINK',
    ]);

    const resources = await settled(tenant);
    const byKind = (k: string) => resources.filter((r) => r.kind === k).map((r) => r.owner?.objectName).sort();
    // Sources, subsources, tables and materialized views keep collections, each with its read policy.
    expect(byKind('collection')).toEqual(['accounts', 'auction', 'auctions', 'bids', 'orders', 'organizations', 'pg_src', 't', 'totals', 'users']);
    for (const c of resources.filter((r) => r.kind === 'collection')) expect(c.readPolicy).toEqual({ kind: 'lag', lagMs: 1000 });
    expect(byKind('ingestion')).toEqual(['auction', 'pg_src']);
    expect(byKind('dataflow')).toEqual(['totals', 'totals_idx']);
    expect(resources.find((r) => r.kind === 'dataflow' && r.owner?.objectName === 'totals_idx')?.readPolicy).toEqual({ kind: 'lag', lagMs: 1000 });
    expect(byKind('export')).toEqual(['out']);
    expect(byKind('replica')).toEqual(['r1']);
    // The ingestion carries the connection's settings and a reference to the secret, never its value.
    const ingestion = resources.find((r) => r.kind === 'ingestion' && r.owner?.objectName === 'pg_src')!;
    expect(ingestion.spec).toMatchObject({ connector: { type: 'postgres', options: { HOST: 'db.internal', PUBLICATION: 'mz_source' } } });
    expect(JSON.stringify(ingestion.spec)).not.toContain('hunter2');
    const secretId = (ingestion.spec as any).connector.secretRefs.PASSWORD;
    expect(await p.secrets.get(tenant, secretId, 1)).toBe('hunter2-very-secret');

    expect(await rows(sql, 'SHOW SOURCES')).toEqual([
      ['accounts', 'subsource', null, ''],
      ['auction', 'load-generator', 'quickstart', ''],
      ['auctions', 'subsource', null, ''],
      ['bids', 'subsource', null, ''],
      ['orders', 'subsource', null, ''],
      ['organizations', 'subsource', null, ''],
      ['pg_src', 'postgres', 'quickstart', ''],
      ['users', 'subsource', null, ''],
    ]);
    expect(await rows(sql, 'SHOW CONNECTIONS')).toEqual([
      ['kafka_conn', 'kafka', ''],
      ['pg', 'postgres', ''],
    ]);
    expect(await rows(sql, 'SHOW INDEXES')).toEqual([['totals_idx', 'totals', 'quickstart', '{count}', '']]);
    expect(await rows(sql, "SELECT name, type FROM mz_objects WHERE type IN ('view', 'materialized-view', 'sink') ORDER BY name")).toEqual([
      ['big', 'view'],
      ['out', 'sink'],
      ['totals', 'materialized-view'],
    ]);
    // SHOW CREATE never shows the secret's value.
    expect(await rows(sql, 'SHOW CREATE SECRET pgpass')).toEqual([['materialize.public.pgpass', "CREATE SECRET pgpass AS '********'"]]);
  });

  it('mz_internal.mz_object_dependencies names the items each item reads or names', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, SETUP.join(';'));
    await settled(tenant);
    const names = new Map((await rows(sql, 'SELECT id, name FROM mz_objects')).map(([id, name]) => [id, name]));
    const deps = (await rows(sql, 'SELECT object_id, referenced_object_id FROM mz_internal.mz_object_dependencies')).map(([o, r]) => `${names.get(o)} -> ${names.get(r)}`);
    expect(deps.sort()).toEqual(
      [
        ...['accounts', 'auctions', 'bids', 'organizations', 'users'].map((sub) => `${sub} -> auction`),
        ...['big -> t', 'orders -> pg_src', 'out -> kafka_conn', 'out -> totals', 'pg -> pgpass', 'pg_src -> pg', 'totals -> big', 'totals -> orders', 'totals_idx -> totals'],
      ].sort(),
    );
  });

  it('refuses to drop what others depend on, and CASCADE takes every dependent with it', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, SETUP.join(';'));
    await settled(tenant);

    const restrict = await sql('DROP TABLE t');
    expect(restrict.status).toBe(400);
    expect(restrict.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop table "t": still depended upon by view "big"' });
    const secret = await sql('DROP SECRET pgpass');
    expect(secret.body.results[0].error.code).toBe('2BP01');
    const wrongType = await sql('DROP VIEW t');
    expect(wrongType.body.results[0].error).toMatchObject({ code: '42809', message: 't is a table not a view' });

    const explain = await rows(sql, 'EXPLAIN EFFECTS FOR DROP TABLE t CASCADE');
    expect(explain.filter((r) => r[0] === 'effect').map((r) => `${r[1]} ${r[2]} ${r[3]}`).sort()).toEqual([
      'drop compute.dataflow totals',
      'drop compute.dataflow totals_idx',
      'drop storage.collection t',
      'drop storage.collection totals',
      'drop storage.export out',
    ]);
    // EXPLAIN committed nothing.
    expect(await rows(sql, "SELECT name FROM mz_tables WHERE name = 't'")).toEqual([['t']]);

    await ok(sql, 'DROP TABLE t CASCADE');
    expect(await rows(sql, 'SHOW VIEWS')).toEqual([]);
    expect(await rows(sql, 'SHOW MATERIALIZED VIEWS')).toEqual([]);
    expect(await rows(sql, 'SHOW SINKS')).toEqual([]);
    const resources = await settled(tenant);
    expect(resources.filter((r) => ['t', 'totals', 'totals_idx', 'out'].includes(r.owner?.objectName ?? ''))).toEqual([]);
    // Dropping the source takes its subsources; the cluster has nothing left on it but the other source.
    await ok(sql, 'DROP SOURCE auction');
    const after = await settled(tenant);
    expect(after.filter((r) => r.kind === 'collection').map((r) => r.owner?.objectName).sort()).toEqual(['orders', 'pg_src']);
    const cluster = await sql('DROP CLUSTER quickstart');
    expect(cluster.body.results[0].error).toMatchObject({ code: '2BP01' });
    await ok(sql, 'DROP CLUSTER quickstart CASCADE; DROP CONNECTION pg; DROP SECRET pgpass');
    const empty = await settled(tenant);
    expect(empty).toEqual([]);
    expect(await p.secrets.list(tenant)).toEqual([]);
  });

  it('renames, alters secrets and clusters, and reads its own writes inside one request', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE SECRET s AS 'one'; CREATE TABLE t (a int)");
    await ok(sql, 'ALTER TABLE t RENAME TO t2');
    expect(await rows(sql, 'SHOW TABLES')).toEqual([['t2', '']]);
    expect((await sql('CREATE TABLE t2 (b int)')).body.results[0].error.code).toBe('42P07');
    await ok(sql, 'CREATE TABLE t (b int)');

    await ok(sql, "ALTER SECRET s AS 'two'");
    const secretId = (await rows(sql, "SELECT id FROM mz_secrets WHERE name = 's'"))[0]![0];
    await settled(tenant);
    expect(await p.secrets.list(tenant)).toMatchObject([{ secretId, generations: [2] }]);
    expect(await p.secrets.get(tenant, secretId, 2)).toBe('two');

    await ok(sql, "ALTER CLUSTER c SET (SIZE = '50cc', REPLICATION FACTOR = 2)");
    const replicas = (await settled(tenant)).filter((r) => r.kind === 'replica');
    expect(replicas.map((r) => r.spec.size)).toEqual(['50cc', '50cc']);
    expect(await rows(sql, 'SHOW CLUSTERS')).toEqual([['c', 'r1 (50cc), r2 (50cc)', '']]);

    // BEGIN ... ROLLBACK discards; the statements after it still commit.
    const r = await ok(sql, "BEGIN; CREATE TABLE gone (a int); ROLLBACK; CREATE TABLE kept (a int); SHOW TABLES");
    expect(r.map((x) => x.ok ?? x.tag)).toEqual(['BEGIN', 'CREATE TABLE', 'ROLLBACK', 'CREATE TABLE', 'SELECT 3']);
    expect(r[4].rows.map((x: any[]) => x[0])).toEqual(['kept', 't', 't2']);
  });

  it('answers name errors with their SQLSTATE and nothing committed', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, 'CREATE TABLE t (a int)');
    await settled(tenant);
    const before = await tenantItems(p, tenant);
    for (const [query, code] of [
      ['CREATE VIEW v AS SELECT * FROM nope', '42P01'],
      ['CREATE SOURCE s FROM LOAD GENERATOR COUNTER', '42704'],
      ["CREATE SOURCE s IN CLUSTER nope FROM LOAD GENERATOR COUNTER", '42704'],
      ['CREATE TABLE nodb.public.x (a int)', '42704'],
      // Materialize reserves the system's prefixes for schemas, clusters, replicas and roles, not items.
      ['CREATE SCHEMA mz_s', '42939'],
      ['CREATE INDEX ON nope (a)', '42P01'],
      ["CREATE CONNECTION c TO POSTGRES (HOST 'h', PASSWORD SECRET missing)", '42P01'],
    ] as const) {
      const r = await sql(query);
      expect(r.body.results[0].error?.code, query).toBe(code);
    }
    expect(await tenantItems(p, tenant)).toEqual(before);
  });
});
