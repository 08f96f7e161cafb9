/**
 * Statement kinds of issue 18 (part A) through the local pipeline (SQL API, planner, DynamoDB
 * Local): ALTER TABLE ... ADD COLUMN, SHOW COLUMNS, SHOW SUBSOURCES. Each: what it answers, what the catalog then shows, which
 * effects it records, and that a failing statement leaves nothing of its request behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline, type SqlClient, ok } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('statement-kinds', { workers: false });
});
afterAll(async () => {
  await p.stop();
});


describe('ALTER TABLE ... ADD COLUMN', () => {
  it('adds a nullable column that SHOW CREATE TABLE shows, as catalog metadata only (no effect, no new generation)', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, 'CREATE TABLE t (a int NOT NULL); CREATE VIEW v AS SELECT * FROM t');
    const before = await tenantItems(p, tenant);
    const table = (items: Record<string, any>[]) => items.find((i) => i.type === 'object' && i.kind === 'table' && i.name === 't')!;
    const effects = (items: Record<string, any>[]) => items.filter((i) => i.type === 'effect').length;

    const explained = await ok(sql, 'EXPLAIN EFFECTS FOR ALTER TABLE t ADD COLUMN b text');
    expect(explained[0]!.rows).toEqual([['catalog', 'update', 'table', 't', 'generation 1']]);

    const r = await ok(sql, 'ALTER TABLE t ADD COLUMN b text');
    expect(r[0]!.ok).toBe('ALTER TABLE');
    const after = await tenantItems(p, tenant);
    expect(effects(after)).toBe(effects(before));
    expect(table(after).generation).toBe(table(before).generation);
    expect(table(after).version).toBeGreaterThan(table(before).version);

    const [show] = await ok(sql, 'SHOW CREATE TABLE t');
    expect(show!.rows).toEqual([['materialize.public.t', 'CREATE TABLE t (a int NOT NULL, b text)']]);
    // The view keeps the definition it was created with.
    const [view] = await ok(sql, 'SHOW CREATE VIEW v');
    expect(view!.rows![0]![1]).toBe('CREATE VIEW v AS SELECT * FROM t');
  });

  it("answers Materialize's errors and notices, and a failing ADD COLUMN leaves nothing of its request", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE TABLE t (a int)');
    const skipped = await ok(sql, 'ALTER TABLE t ADD COLUMN IF NOT EXISTS a text; ALTER TABLE IF EXISTS nope ADD COLUMN a text');
    expect(skipped.map((x) => x.notices?.map((n: { message: string }) => n.message))).toEqual([['column "a" of relation "t" already exists, skipping'], ['table "nope" does not exist, skipping']]);
    const cases: [string, string, string][] = [
      ['ALTER TABLE t ADD COLUMN a text', '42701', 'column "a" of relation "t" already exists'],
      ['ALTER TABLE t ADD COLUMN b nope', '42704', 'type "nope" does not exist'],
      ['ALTER TABLE nope ADD COLUMN b text', '42P01', "unknown catalog item 'nope'"],
      ['ALTER TABLE t ADD COLUMN b text NOT NULL', '42601', 'Expected end of statement, found NOT'],
    ];
    for (const [q, code, message] of cases) {
      const r = await sql(q);
      expect(r.body.results[0].error, q).toMatchObject({ code, message });
    }
    const r = await sql('ALTER TABLE t ADD COLUMN b text; ALTER TABLE t ADD COLUMN a text');
    expect(r.status).not.toBe(200);
    const [show] = await ok(sql, 'SHOW CREATE TABLE t');
    expect(show!.rows![0]![1]).toBe('CREATE TABLE t (a int)');
  });
});

describe('SHOW COLUMNS and SHOW SUBSOURCES', () => {
  it("show a table's columns (added ones included) and a source's subsources, with Materialize's messages", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE TABLE t (a int NOT NULL); COMMENT ON COLUMN t.a IS 'key'; CREATE SOURCE auction IN CLUSTER c FROM LOAD GENERATOR AUCTION FOR ALL TABLES");
    await ok(sql, 'ALTER TABLE t ADD COLUMN b timestamp');
    const [columns] = await ok(sql, 'SHOW COLUMNS FROM t');
    expect(columns!.rows).toEqual([
      ['a', false, 'integer', 'key'],
      ['b', true, 'timestamp without time zone', ''],
    ]);
    const [subsources] = await ok(sql, "SHOW SUBSOURCES ON auction WHERE name <> 'users'");
    expect(subsources!.rows).toEqual([
      ['accounts', 'subsource'],
      ['auctions', 'subsource'],
      ['bids', 'subsource'],
      ['organizations', 'subsource'],
    ]);
    const cases: [string, string, string][] = [
      ['SHOW COLUMNS FROM nope', '42P01', "unknown catalog item 'nope'"],
      ['SHOW COLUMNS FROM c', '42P01', "unknown catalog item 'c'"],
      ['SHOW SUBSOURCES ON t', 'XX000', 'cannot show subsources on materialize.public.t because it is a table'],
    ];
    for (const [q, code, message] of cases) {
      const r = await sql(q);
      expect(r.body.results[0].error, q).toMatchObject({ code, message });
    }
  });
});

describe('SELECT ... FROM (SHOW ...)', () => {
  it("serves the SHOW's output as the relation read, with the SELECT subset's columns, WHERE, ORDER BY and LIMIT", async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE TABLE t (a int NOT NULL, b text); CREATE SOURCE counter IN CLUSTER c FROM LOAD GENERATOR COUNTER");
    const show = (await ok(sql, 'SHOW SOURCES'))[0]!.rows!;
    expect((await ok(sql, 'SELECT * FROM (SHOW SOURCES)'))[0]!.rows).toEqual(show);
    expect((await ok(sql, 'SELECT name FROM (SHOW SOURCES)'))[0]!.rows).toEqual(show.map((r: unknown[]) => [r[0]]));
    expect((await ok(sql, "SELECT name FROM (SHOW CLUSTERS) WHERE name = 'c'"))[0]!.rows).toEqual([['c']]);
    expect((await ok(sql, 'SELECT name, nullable FROM (SHOW COLUMNS FROM t) ORDER BY name DESC LIMIT 1'))[0]!.rows).toEqual([['b', true]]);
    const [unknown] = (await sql('SELECT nope FROM (SHOW TABLES)')).body.results;
    expect(unknown.error).toMatchObject({ code: '42703' });
    const [create] = (await sql('SELECT create_sql FROM (SHOW CREATE TABLE t)')).body.results;
    expect(create.error).toMatchObject({ code: '0A000', message: 'SHOW CREATE in a subquery is not supported by this control plane', position: 24 });
  });
});
