/**
 * User-defined types (issue 18: CREATE TYPE, DROP TYPE, SHOW TYPES, SHOW CREATE TYPE, COMMENT ON
 * TYPE, list and map column types) through the local pipeline (SQL API, planner, DynamoDB Local):
 * what each answers, what the catalog and the system tables then show, that a type records no
 * effect, and that a failing statement leaves nothing of its request behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline, type SqlClient, ok } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('types', { workers: false });
});
afterAll(async () => {
  await p.stop();
});


const effects = (items: Record<string, any>[]) => items.filter((i) => i.type === 'effect');
const objects = (items: Record<string, any>[], kind: string) => items.filter((i) => i.type === 'object' && i.kind === kind && !i.dropped).map((i) => i.name).sort();

describe('CREATE TYPE', () => {
  it('keeps list, map and record types in the catalog alone, and tables use them (and anonymous lists and maps) as column types', async () => {
    const { sql, tenant } = await sqlClient(p);
    const before = effects(await tenantItems(p, tenant)).length;
    const created = await ok(
      sql,
      'CREATE TYPE int4_list AS LIST (ELEMENT TYPE = int4); CREATE TYPE int4_map AS MAP (KEY TYPE = text, VALUE TYPE = int4); CREATE TYPE point AS (x integer, y integer)',
    );
    expect(created.map((x) => x.ok)).toEqual(['CREATE TYPE', 'CREATE TYPE', 'CREATE TYPE']);
    const items = await tenantItems(p, tenant);
    expect(objects(items, 'type')).toEqual(['int4_list', 'int4_map', 'point']);
    // A type is catalog only: no effect.
    expect(effects(items).length).toBe(before);

    await ok(sql, 'CREATE SCHEMA other; CREATE TYPE other.l AS LIST (ELEMENT TYPE = int4_list); CREATE TABLE t (a int4_list, b int list, c map[text => other.l])');
    const [types] = await ok(sql, 'SHOW TYPES');
    expect(types!.rows).toEqual([['int4_list', ''], ['int4_map', ''], ['point', '']]);
    await ok(sql, "COMMENT ON TYPE other.l IS 'lists of lists'");
    const [otherTypes] = await ok(sql, 'SHOW TYPES FROM other');
    expect(otherTypes!.rows).toEqual([['l', 'lists of lists']]);
    const [show] = await ok(sql, 'SHOW CREATE TYPE int4_map');
    expect(show!.rows).toEqual([['materialize.public.int4_map', 'CREATE TYPE int4_map AS MAP (KEY TYPE = text, VALUE TYPE = int4)']]);
    const [columns] = await ok(sql, 'SHOW COLUMNS FROM t');
    expect(columns!.rows).toEqual([
      ['a', true, 'int4_list', ''],
      ['b', true, 'integer list', ''],
      ['c', true, 'map[text=>other.l]', ''],
    ]);

    const [mzTypes] = await ok(sql, "SELECT name, category FROM mz_types WHERE name <> 'l' ORDER BY name");
    expect(mzTypes!.rows).toEqual([['int4_list', 'list'], ['int4_map', 'map'], ['point', 'record']]);
    const [lists] = await ok(sql, 'SELECT id, element_id FROM mz_list_types');
    const id = (name: string) => items.find((i) => i.type === 'object' && i.name === name)!.id;
    expect(lists!.rows).toContainEqual([id('int4_list'), 'int4']);
    const [maps] = await ok(sql, 'SELECT key_id, value_id FROM mz_map_types');
    expect(maps!.rows).toEqual([['text', 'int4']]);
    const [objectsShown] = await ok(sql, "SHOW OBJECTS WHERE type = 'type'");
    expect(objectsShown!.rows).toEqual([['int4_list', 'type', ''], ['int4_map', 'type', ''], ['point', 'type', '']]);
  });

  it("answers Materialize's errors, and a failing statement leaves nothing of its request", async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, 'CREATE TYPE rectype AS (a int); CREATE VIEW int4 AS SELECT 1 AS a');
    const cases: [string, string, string][] = [
      ['CREATE TYPE m AS MAP (KEY TYPE = text)', 'XX000', 'VALUE TYPE option is required'],
      ['CREATE TYPE l AS LIST (ELEMENT TYPE = pg_enum)', '42704', 'type "pg_enum" does not exist'],
      [
        'CREATE TYPE l AS LIST (ELEMENT TYPE = int4 list)',
        'XX000',
        'CREATE TYPE ... AS LIST option ELEMENT TYPE can only use named data types, but found unnamed data type pg_catalog.int4 list. Use CREATE TYPE to create a named type first',
      ],
      ['CREATE TYPE whatever AS LIST (ELEMENT TYPE = int4, gus=int4)', '42601', 'Expected ELEMENT, found identifier "gus"'],
      ['CREATE TABLE t (a map[int => bool])', 'XX000', 'map key type must be text, got integer'],
      ['CREATE TYPE int4 AS (a int)', '42P07', 'view "materialize.public.int4" already exists'],
      ['CREATE VIEW rectype AS SELECT 1 AS a', '42P07', 'type "materialize.public.rectype" already exists'],
      ['SHOW TYPES FROM nope', '3F000', "unknown schema 'nope'"],
      ['SHOW TABLES FROM nope', '3F000', "unknown schema 'nope'"],
    ];
    for (const [q, code, message] of cases) {
      const r = await sql(q);
      expect(r.body.results[0].error, q).toMatchObject({ code, message });
    }
    const before = await tenantItems(p, tenant);
    const r = await sql('CREATE TYPE fine AS LIST (ELEMENT TYPE = text); CREATE TABLE u (a fine); CREATE TYPE broken AS LIST (ELEMENT TYPE = nope)');
    expect(r.status).not.toBe(200);
    const after = await tenantItems(p, tenant);
    expect(objects(after, 'type')).toEqual(objects(before, 'type'));
    expect(objects(after, 'table')).toEqual(objects(before, 'table'));
  });
});

describe('DROP TYPE', () => {
  it('refuses with 2BP01 while a table or a type uses the type, and CASCADE drops them through the normal DROP path', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, 'CREATE TYPE int4_list AS LIST (ELEMENT TYPE = int4); CREATE TYPE int4_list_list AS LIST (ELEMENT TYPE = int4_list); CREATE TABLE t1 (a int4_list)');
    let r = await sql('DROP TYPE int4_list');
    expect(r.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop type "int4_list": still depended upon by type "int4_list_list"' });
    r = await sql('DROP TYPE int4_list_list RESTRICT');
    expect(r.status).toBe(200);
    r = await sql('DROP TABLE t1; DROP TYPE int4_list; DROP TYPE IF EXISTS int4_list');
    expect(r.body.results.map((x: { ok?: string }) => x.ok)).toEqual(['DROP TABLE', 'DROP TYPE', 'DROP TYPE']);
    expect(r.body.results[2].notices.map((n: { message: string }) => n.message)).toEqual(['type "int4_list" does not exist, skipping']);

    await ok(sql, 'CREATE TYPE int4_list AS LIST (ELEMENT TYPE = int4); CREATE TYPE int4_list_list AS LIST (ELEMENT TYPE = int4_list); CREATE TABLE t2 (a int4_list_list)');
    const before = effects(await tenantItems(p, tenant)).length;
    await ok(sql, 'DROP TYPE int4_list CASCADE');
    const after = await tenantItems(p, tenant);
    expect(objects(after, 'type')).toEqual([]);
    expect(objects(after, 'table')).toEqual([]);
    // The table's collection goes with it; the types had none.
    const added = effects(after).length - before;
    expect(added).toBe(1);
    expect(effects(after).some((e) => e.intent === 'drop' && e.objectName === 't2')).toBe(true);
    const [types] = await ok(sql, 'SHOW TYPES');
    expect(types!.rows).toEqual([]);
  });

  it('sees the types a view casts to (CAST(... AS t), ::t), as Materialize does, and not a column alias of the same name', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE TYPE int4_list AS LIST (ELEMENT TYPE = int4); CREATE VIEW v1 AS SELECT * FROM (SELECT CAST('{2}' AS int4_list) AS a) AS s");
    let r = await sql('DROP TYPE int4_list');
    expect(r.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop type "int4_list": still depended upon by view "v1"' });
    await ok(sql, "DROP VIEW v1; CREATE VIEW v2 AS SELECT '{2}'::public.int4_list AS b");
    r = await sql('DROP TYPE int4_list');
    expect(r.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop type "int4_list": still depended upon by view "v2"' });
    await ok(sql, 'DROP VIEW v2; CREATE VIEW v3 AS SELECT 1 AS int4_list');
    await ok(sql, 'DROP TYPE int4_list');
  });
});
