/**
 * Issue 18's webhook CHECK, Avro DOC ON and temporary views through the local pipeline (SQL API,
 * planner, DynamoDB Local, the executors and the reference data plane): what each answers, what
 * the catalog, the data plane and the system tables then hold, and that a failing statement (or
 * a temporary view) leaves nothing behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { eventually, ok, rows, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('check-doc-temp');
});
afterAll(async () => {
  await p?.stop();
});

const live = (items: Record<string, any>[], name: string) => items.find((i) => i.type === 'object' && i.name === name && !i.dropped);

/** What requests committed: the catalog's objects and version, and how many effects (their states move on their own). */
async function committed(tenant: string) {
  const items = await tenantItems(p, tenant);
  return {
    objects: items.filter((i) => i.type === 'object').map((i) => `${i.id} ${i.name} v${i.version}${i.dropped ? ' dropped' : ''}`).sort(),
    version: items.find((i) => i.type === 'catalog_version')?.v,
    effects: items.filter((i) => i.type === 'effect').length,
  };
}

/** Each request fails with its SQLSTATE and message; nothing is committed meanwhile. */
async function refusedWithNothingCommitted(sql: SqlClient, tenant: string, cases: readonly (readonly [string, string, string])[]): Promise<void> {
  const before = await committed(tenant);
  for (const [query, code, message] of cases) {
    const r = await sql(query);
    expect(r.status, query).toBe(400);
    expect(r.body.results.at(-1).error, query).toMatchObject({ code, message });
    expect(typeof r.body.results.at(-1).error.position, query).toBe('number');
  }
  expect(await committed(tenant)).toEqual(before);
}

/** The source's ingestion on the data plane once it is at `generation`. */
function ingestionAt(tenant: string, source: string, generation: number) {
  return eventually(async () => (await p.dataPlane.observe(tenant)).find((r) => r.kind === 'ingestion' && r.owner?.objectName === source && r.generation === generation), 20_000);
}

describe('webhook CHECK', () => {
  const SOURCE = "CREATE SOURCE hook IN CLUSTER c FROM WEBHOOK BODY FORMAT JSON INCLUDE HEADERS CHECK (WITH (HEADERS, BODY AS request_body, SECRET hook_key AS key) constant_time_eq(headers->'x-signature', key))";

  it('makes the secret a dependency, hands it to the data plane with the check, and prints the check back', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, `CREATE CLUSTER c (SIZE = '25cc'); CREATE SECRET hook_key AS 'k'; ${SOURCE}`);
    expect(await rows(sql, 'SHOW CREATE SOURCE hook')).toEqual([
      [
        'materialize.public.hook',
        "CREATE SOURCE hook IN CLUSTER c FROM WEBHOOK BODY FORMAT JSON INCLUDE HEADERS CHECK (WITH (HEADERS, BODY AS request_body, SECRET hook_key AS key) constant_time_eq(headers->'x-signature', key))",
      ],
    ]);
    const secretId = live(await tenantItems(p, tenant), 'hook_key')!.id;
    const first = await ingestionAt(tenant, 'hook', 1);
    expect(first.spec).toMatchObject({ connector: { type: 'webhook', secretRefs: { 'CHECK SECRET key': secretId }, options: { CHECK: expect.stringContaining('constant_time_eq') } } });

    const refused = await sql('DROP SECRET hook_key');
    expect(refused.status).toBe(400);
    expect(refused.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop secret "hook_key": still depended upon by source "hook"' });

    // A new value restarts the ingestion, which reads it.
    await ok(sql, "ALTER SECRET hook_key AS 'k2'");
    await ingestionAt(tenant, 'hook', 2);

    await ok(sql, 'DROP SECRET hook_key CASCADE');
    expect(await rows(sql, 'SHOW SOURCES')).toEqual([]);
    await eventually(async () => !(await p.dataPlane.observe(tenant)).some((r) => r.owner?.objectName === 'hook'), 20_000);
  });

  it("answers Materialize's errors with positions, and commits nothing", async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE SECRET hook_key AS 'k'; CREATE TABLE t (a int)");
    const hook = (check: string) => `CREATE SOURCE hook IN CLUSTER c FROM WEBHOOK BODY FORMAT TEXT CHECK (${check})`;
    await refusedWithNothingCommitted(sql, tenant, [
      [hook('WITH (BODY, SECRET nope) body = nope'), '42704', "unknown catalog item 'nope'"],
      [hook('WITH (BODY, SECRET t) body = t'), '42809', 't is a table not a secret'],
      [hook("WITH (HEADERS) hmac(field_that_does_not_exist, 'key', 'sha256') = decode(headers->'s', 'hex')"), '42703', 'column "field_that_does_not_exist" does not exist'],
      [hook("'foo' || 'bar'"), 'XX000', 'CHECK must have type boolean, not type text'],
      [hook("'a' = 'test'"), 'XX000', 'expression provided in CHECK does not reference any columns'],
      [hook("WITH (HEADERS) headers->'signature' IN (SELECT name FROM mz_tables)"), 'XX000', 'CHECK does not allow subqueries'],
      [hook("WITH (HEADERS) headers->'event_ts' = mz_now()::text"), 'XX000', 'expression provided in CHECK is not deterministic'],
      [hook("WITH (HEADERS, HEADERS) headers->'signature' = '42'"), '42702', 'column reference "headers" is ambiguous'],
      [hook('WITH (BODY) body = '), '42601', 'Expected an expression, found right parenthesis'],
    ]);
    // now() is allowed: webhook providers ask to refuse stale requests.
    await ok(sql, hook("WITH (HEADERS) (headers->'ts')::timestamp + INTERVAL '30s' >= now()"));
  });
});

describe('sink DOC ON', () => {
  const SETUP = [
    "CREATE CLUSTER c (SIZE = '25cc')",
    "CREATE CONNECTION k TO KAFKA (BROKER 'broker:9092', SECURITY PROTOCOL PLAINTEXT) WITH (VALIDATE = false)",
    "CREATE CONNECTION csr TO CONFLUENT SCHEMA REGISTRY (URL 'http://registry:8081') WITH (VALIDATE = false)",
    'CREATE TYPE point AS (x integer, y integer)',
    'CREATE TABLE t (c1 point, c2 text NOT NULL)',
    'CREATE TABLE other (a int)',
    "COMMENT ON TABLE t IS 'the table'",
    "COMMENT ON COLUMN t.c2 IS 'the key'",
  ].join('; ');
  const SINK =
    "CREATE SINK s IN CLUSTER c FROM t INTO KAFKA CONNECTION k (TOPIC 's') KEY (c2) NOT ENFORCED FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr (KEY DOC ON TYPE point = 'key doc on point', DOC ON COLUMN t.c1 = 'the point', VALUE DOC ON COLUMN point.y = 'y', DOC ON COLUMN other.a = 'a') ENVELOPE UPSERT";

  it('keeps the docs in the sink, with the comments of what it exports, and what they name is a dependency', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, SETUP);
    await ok(sql, SINK);
    expect(await rows(sql, 'SHOW CREATE SINK s')).toEqual([
      [
        'materialize.public.s',
        "CREATE SINK s IN CLUSTER c FROM t INTO KAFKA CONNECTION k (TOPIC = 's') KEY (c2) NOT ENFORCED FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr (KEY DOC ON TYPE point = 'key doc on point', DOC ON COLUMN t.c1 = 'the point', VALUE DOC ON COLUMN point.y = 'y', DOC ON COLUMN other.a = 'a', DOC ON TYPE materialize.public.t = 'the table', DOC ON COLUMN materialize.public.t.c2 = 'the key') ENVELOPE UPSERT",
      ],
    ]);
    const items = await tenantItems(p, tenant);
    const id = (name: string) => live(items, name)!.id;
    expect(live(items, 's')!.spec.avroDocs).toEqual({
      key: [
        { objectId: id('point'), doc: 'key doc on point' },
        { objectId: id('t'), column: 'c1', doc: 'the point' },
        { objectId: id('other'), column: 'a', doc: 'a' },
        { objectId: id('t'), doc: 'the table' },
        { objectId: id('t'), column: 'c2', doc: 'the key' },
      ],
      value: [
        { objectId: id('point'), column: 'y', doc: 'y' },
        { objectId: id('t'), column: 'c1', doc: 'the point' },
        { objectId: id('other'), column: 'a', doc: 'a' },
        { objectId: id('t'), doc: 'the table' },
        { objectId: id('t'), column: 'c2', doc: 'the key' },
      ],
    });
    await eventually(async () => (await p.dataPlane.observe(tenant)).some((r) => r.kind === 'export' && r.owner?.objectName === 's'), 20_000);
    const refused = await sql('DROP TABLE other');
    expect(refused.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop table "other": still depended upon by sink "s"' });
  });

  it("answers Materialize's errors, and commits nothing", async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, SETUP);
    const sink = (options: string) => `CREATE SINK bad IN CLUSTER c FROM t INTO KAFKA CONNECTION k (TOPIC 's') KEY (c2) NOT ENFORCED FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION csr (${options}) ENVELOPE UPSERT`;
    await refusedWithNothingCommitted(sql, tenant, [
      [sink("DOC ON COLUMN t.bad_column = 'comments'"), '42703', 'column "t.bad_column" does not exist'],
      [sink("DOC ON TYPE bad_table_name = 'comments'"), '42P01', "unknown catalog item 'bad_table_name'"],
      [sink('DOC ON TYPE t'), 'XX000', 'invalid DOC ON TYPE t option value: cannot be empty'],
      [sink('DOC ON COLUMN t.c1 = NULL'), 'XX000', 'invalid DOC ON COLUMN t.c1 option value: cannot use value as string'],
      [sink("DOC ON COLUMN t = 'comments'"), '42601', 'need to specify an object and a column'],
      [sink("DOC ON TYPE k = 'x'"), '42809', 'k is a connection not a relation or type'],
    ]);
  });
});

describe('temporary views', () => {
  it('live in the request that makes them: its later statements see them, the next request does not, and nothing is committed', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, 'CREATE TABLE base (a int); CREATE VIEW v1 AS SELECT a FROM base');
    const before = await committed(tenant);
    const results = await ok(
      sql,
      [
        'CREATE TEMPORARY VIEW temp_v AS SELECT a FROM base',
        'CREATE TEMP VIEW v1 AS SELECT 2 AS f2',
        'SHOW VIEWS FROM mz_temp',
        'SHOW VIEWS',
        "SELECT name FROM mz_views WHERE name LIKE 'temp%'",
        'SHOW CREATE VIEW temp_v',
        // The temporary v1 comes first: this drops it, and leaves the permanent one.
        'DROP VIEW v1',
        'SHOW VIEWS FROM mz_temp',
      ].join('; '),
    );
    expect(results.map((r) => r.ok ?? r.tag)).toEqual(['CREATE VIEW', 'CREATE VIEW', 'SELECT 2', 'SELECT 1', 'SELECT 1', 'SELECT 1', 'DROP VIEW', 'SELECT 1']);
    expect(results[2].rows).toEqual([['temp_v', ''], ['v1', '']]);
    expect(results[3].rows).toEqual([['v1', '']]);
    expect(results[4].rows).toEqual([['temp_v']]);
    expect(results[5].rows).toEqual([['mz_temp.temp_v', 'CREATE TEMPORARY VIEW temp_v AS SELECT a FROM base']]);
    expect(results[7].rows).toEqual([['temp_v', '']]);
    // Never committed: the catalog is as before, with no object and no effect of the request.
    expect(await committed(tenant)).toEqual(before);

    expect(await rows(sql, 'SHOW VIEWS FROM mz_temp')).toEqual([]);
    expect(await rows(sql, 'SHOW VIEWS')).toEqual([['v1', '']]);
    const gone = await sql('CREATE VIEW p AS SELECT * FROM temp_v');
    expect(gone.body.results[0].error).toMatchObject({ code: '42P01', message: "unknown catalog item 'temp_v'" });
  });

  it("keeps Materialize's rules: nothing permanent reads a temporary view, and what one reads is a dependency", async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, 'CREATE TABLE base (a int)');
    await refusedWithNothingCommitted(sql, tenant, [
      ['CREATE TEMP VIEW temp_v AS SELECT a FROM base; CREATE VIEW non_temp AS SELECT * FROM temp_v', 'XX000', "non-temporary items cannot depend on temporary item 'temp_v'"],
      ['CREATE TEMP VIEW mz_catalog.a AS SELECT 1', 'XX000', 'cannot create temporary item in non-temporary schema'],
      ['CREATE TEMP VIEW d AS SELECT 1; CREATE TEMP VIEW d AS SELECT 2', '42P07', 'view "mz_temp.d" already exists'],
      ['CREATE TEMP VIEW temp_v AS SELECT a FROM base; DROP TABLE base', '2BP01', 'cannot drop table "base": still depended upon by view "mz_temp.temp_v"'],
    ]);
    // CASCADE takes the temporary view with the table.
    await ok(sql, 'CREATE TEMP VIEW temp_v AS SELECT a FROM base; DROP TABLE base CASCADE');
    expect(live(await tenantItems(p, tenant), 'base')).toBeUndefined();
  });
});
