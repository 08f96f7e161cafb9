/**
 * COMMENT ON through the SQL API: the comment is catalog metadata (no effect, no new generation),
 * shown by mz_internal.mz_comments and the comment column of SHOW, replaced, removed with NULL,
 * dropped with its object, and a failing COMMENT in a request leaves nothing of the request behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('comment', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const rows = async (sql: SqlClient, q: string) => {
  const r = await sql(q);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.results[0].rows as unknown[][];
};
const comments = (sql: SqlClient) => rows(sql, 'SELECT id, object_type, object_sub_id, comment FROM mz_internal.mz_comments ORDER BY id, object_sub_id');

describe('COMMENT ON', () => {
  it('sets, replaces and removes comments on objects and table columns, as mz_comments and SHOW show them', async () => {
    const { sql } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE TABLE t (a int, b text)")).status).toBe(200);
    const [[tableId]] = (await rows(sql, "SELECT id FROM mz_tables WHERE name = 't'")) as [[string]];
    const [[clusterId]] = (await rows(sql, "SELECT id FROM mz_clusters WHERE name = 'c'")) as [[string]];
    const r = await sql("COMMENT ON TABLE t IS 'orders'; COMMENT ON COLUMN t.b IS 'free text'; COMMENT ON CLUSTER c IS 'lab'");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results.map((x: { ok?: string }) => x.ok)).toEqual(['COMMENT', 'COMMENT', 'COMMENT']);
    const sorted = (xs: unknown[][]) => [...xs].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    expect(sorted(await comments(sql))).toEqual(
      sorted([
        [tableId, 'table', null, 'orders'],
        [tableId, 'table', '2', 'free text'],
        [clusterId, 'cluster', null, 'lab'],
      ]),
    );
    expect(await rows(sql, 'SHOW TABLES')).toEqual([['t', 'orders']]);
    const [cluster] = await rows(sql, "SHOW CLUSTERS LIKE 'c'");
    expect([cluster![0], cluster![cluster!.length - 1]]).toEqual(['c', 'lab']);

    expect((await sql("COMMENT ON TABLE t IS 'orders, one row each'; COMMENT ON COLUMN t.b IS NULL")).status).toBe(200);
    expect(sorted(await comments(sql))).toEqual(
      sorted([
        [tableId, 'table', null, 'orders, one row each'],
        [clusterId, 'cluster', null, 'lab'],
      ]),
    );
    // No comment: an empty string in SHOW, as in Materialize.
    expect((await sql('CREATE TABLE u (a int)')).status).toBe(200);
    expect(await rows(sql, "SHOW TABLES LIKE 'u'")).toEqual([['u', '']]);
  });

  it('is metadata only: no effect, no new generation; EXPLAIN EFFECTS says so', async () => {
    const { sql, tenant } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc')")).status).toBe(200);
    const before = await tenantItems(p, tenant);
    const effectsBefore = before.filter((i) => i.type === 'effect').length;
    const generation = (items: Record<string, unknown>[]) => items.find((i) => i.type === 'object' && i.kind === 'cluster')?.generation;
    const explained = await sql("EXPLAIN EFFECTS FOR COMMENT ON CLUSTER c IS 'x'");
    expect(explained.status, JSON.stringify(explained.body)).toBe(200);
    expect(JSON.stringify(explained.body)).not.toMatch(/ensure|drop_replica|provision/i);
    expect((await sql("COMMENT ON CLUSTER c IS 'x'")).status).toBe(200);
    const after = await tenantItems(p, tenant);
    expect(after.filter((i) => i.type === 'effect').length).toBe(effectsBefore);
    expect(generation(after)).toBe(generation(before));
  });

  it("answers Materialize's errors, and a failing COMMENT leaves nothing of its request", async () => {
    const { sql } = await sqlClient(p);
    expect((await sql('CREATE TABLE t (a int); CREATE VIEW v AS SELECT 1 AS a')).status).toBe(200);
    const cases: [string, string, string][] = [
      ["COMMENT ON COLUMN t.zzz IS 'x'", '42703', 'column "t.zzz" does not exist'],
      // plan_comment's InvalidObjectType: the object types as Materialize's ObjectType spells them.
      ["COMMENT ON TABLE v IS 'x'", '42809', 'VIEW v is not a TABLE'],
      ["COMMENT ON TABLE nope IS 'x'", '42P01', "unknown catalog item 'nope'"],
      [`COMMENT ON TABLE t IS '${'x'.repeat(1025)}'`, '22023', 'provided comment was 1025 bytes long, max size is 1024 bytes'],
    ];
    for (const [q, code, message] of cases) {
      const r = await sql(q);
      expect(r.body.results[0].error, q).toMatchObject({ code, message });
    }
    const r = await sql("COMMENT ON TABLE t IS 'kept?'; COMMENT ON COLUMN t.zzz IS 'x'");
    expect(r.status).not.toBe(200);
    expect(await comments(sql)).toEqual([]);
  });

  it('takes the four-part column names the Terraform provider and dbt send (database.schema.table.column)', async () => {
    const { sql } = await sqlClient(p);
    expect((await sql('CREATE TABLE t (a int, b text)')).status).toBe(200);
    const [[tableId]] = (await rows(sql, "SELECT id FROM mz_tables WHERE name = 't'")) as [[string]];
    const r = await sql(`COMMENT ON COLUMN "materialize"."public"."t"."b" IS 'four parts'; COMMENT ON COLUMN public.t.a IS 'three parts'`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await comments(sql)).toEqual([
      [tableId, 'table', '1', 'three parts'],
      [tableId, 'table', '2', 'four parts'],
    ]);
    // Five parts name no column: the name's relation has four (Materialize's name resolution refuses it).
    const five = await sql("COMMENT ON COLUMN x.materialize.public.t.b IS 'x'");
    expect(five.body.results[0].error.code).toBe('42601');
  });

  it('drops the comments with their object', async () => {
    const { sql } = await sqlClient(p);
    expect((await sql("CREATE TABLE t (a int); COMMENT ON TABLE t IS 'x'; COMMENT ON COLUMN t.a IS 'y'")).status).toBe(200);
    expect(await comments(sql)).toHaveLength(2);
    expect((await sql('DROP TABLE t')).status).toBe(200);
    expect(await comments(sql)).toEqual([]);
  });
});
