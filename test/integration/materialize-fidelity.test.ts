/**
 * Answers that must match Materialize's for the statements we serve: its wording and quoting of
 * errors, its naming rules, the sizes its own tests use, and the 0A000 refusal of what a control
 * plane does not do. Each case: setup committed first, then one statement and its answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('fidelity', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

async function run(setup: string, query: string): Promise<any> {
  const { sql } = await sqlClient(p);
  if (setup) {
    const r = await sql(setup);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const r = await sql(query);
  return r.body.results?.[r.body.results.length - 1] ?? r.body;
}

const CLUSTER = "CREATE CLUSTER quickstart (SIZE = '25cc')";

describe("Materialize's messages", () => {
  it.each([
    ['an item name taken by another kind names that kind and the full name in double quotes', `${CLUSTER}; CREATE MATERIALIZED VIEW v AS SELECT 1 AS a`, 'CREATE VIEW v AS SELECT 1 AS a', '42P07', 'materialized view "materialize.public.v" already exists'],
    ['an index name taken by a view says so', `${CLUSTER}; CREATE TABLE t (a int); CREATE VIEW v AS SELECT a FROM t`, 'CREATE INDEX v ON t (a)', '42P07', 'view "materialize.public.v" already exists'],
    ['a duplicate schema is named without its database', 'CREATE SCHEMA s', 'CREATE SCHEMA s', '42P06', "schema 's' already exists"],
    // plan_drop_item names the first dependent that prevents the drop.
    ['a drop with dependents names the first, minimally qualified and quoted', 'CREATE TABLE t (a int); CREATE VIEW v1 AS SELECT a FROM t; CREATE VIEW v2 AS SELECT a FROM t', 'DROP TABLE t', '2BP01', 'cannot drop table "t": still depended upon by view "v1"'],
    ['a cluster with dependents does not list them', `${CLUSTER}; CREATE TABLE t (a int); CREATE INDEX i IN CLUSTER quickstart ON t (a)`, 'DROP CLUSTER quickstart', '2BP01', 'cannot drop cluster "quickstart" because other objects depend on it'],
    ['an overlong identifier', '', `CREATE TABLE ${'a'.repeat(256)} (a int)`, '42622', 'identifier length exceeds 255 bytes'],
    ['"." is not a name', '', 'CREATE SCHEMA "."', '42601', 'invalid identifier: "."'],
    ['FOR ALL TABLES on a single-output load generator', CLUSTER, 'CREATE SOURCE c FROM LOAD GENERATOR COUNTER FOR ALL TABLES', '22023', 'FOR ALL TABLES is only valid for multi-output sources'],
    ['FOR TABLES on a single-output load generator', CLUSTER, 'CREATE SOURCE c FROM LOAD GENERATOR CLOCK FOR TABLES (x)', '22023', 'FOR TABLES (..) unsupported'],
    ['FOR SCHEMAS on a load generator', CLUSTER, 'CREATE SOURCE a FROM LOAD GENERATOR AUCTION FOR SCHEMAS (s)', '22023', 'FOR SCHEMAS (..) unsupported'],
    ['a view naming a column twice', 'CREATE TABLE t (a int, b int)', 'CREATE VIEW v AS SELECT b, a, b FROM t', '42701', 'column "b" specified more than once'],
    ['a view naming a column twice by alias', 'CREATE TABLE t (a int, b int)', 'CREATE VIEW v AS SELECT a, b AS a FROM t', '42701', 'column "a" specified more than once'],
    ['two unnamed literals', '', 'CREATE VIEW v AS SELECT 1, 2', '42701', 'column "?column?" specified more than once'],
    ['a column list longer than the query', `${CLUSTER}; CREATE TABLE t (a int)`, 'CREATE MATERIALIZED VIEW mv (x, y) AS SELECT a FROM t', '42P16', 'materialized view definition names 2 columns, but materialized view has 1 column'],
    ['a wildcard over the system catalog', '', 'CREATE VIEW v AS SELECT * FROM mz_tables', '42P16', 'cannot use wildcard expansions or NATURAL JOINs in a view that depends on system objects'],
    ['what is wrong with a statement comes before its taken name (table)', 'CREATE TABLE t (a int)', 'CREATE TABLE t (a int, b int, a int)', '42701', 'column "a" specified more than once'],
    ['what is wrong with a statement comes before its taken name (source)', `${CLUSTER}; CREATE SOURCE c FROM LOAD GENERATOR COUNTER`, 'CREATE SOURCE c FROM LOAD GENERATOR COUNTER FOR ALL TABLES', '22023', 'FOR ALL TABLES is only valid for multi-output sources'],
    ['an unknown size', '', "CREATE CLUSTER c (SIZE = 'huge')", '22023', 'unknown cluster replica size huge'],
  ])('%s', async (_name, setup, query, code, message) => {
    const r = await run(setup, query);
    expect(r.error).toMatchObject({ code, message });
  });
});

describe("Materialize's naming and sizes", () => {
  it('names the second default index of an object with a numeric suffix', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql(`${CLUSTER}; CREATE TABLE t (a int); CREATE DEFAULT INDEX ON t; CREATE DEFAULT INDEX ON t; CREATE INDEX ON t (a); CREATE INDEX ON t (a); SHOW INDEXES`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results.at(-1).rows.map((x: unknown[]) => x[0])).toEqual(['t_a_idx', 't_a_idx1', 't_primary_idx', 't_primary_idx1']);
  });

  it("accepts the testing sizes of Materialize's own tests", async () => {
    const { sql } = await sqlClient(p);
    const r = await sql("CREATE CLUSTER c (SIZE = 'scale=1,workers=1'); CREATE CLUSTER d (SIZE 'scale=2,workers=4,mem=8GiB', REPLICATION FACTOR 2)");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const bad = await run('', "CREATE CLUSTER e (SIZE = 'scale=3,workers=1')");
    expect(bad.error).toMatchObject({ code: '22023', message: 'unknown cluster replica size scale=3,workers=1' });
  });
});

describe('view bodies', () => {
  it("reads with PostgreSQL's parser what the first reader rejects, dependencies included", async () => {
    const { sql } = await sqlClient(p);
    const ok = await sql('CREATE TABLE u (a int); CREATE VIEW renamed (x, y) AS SELECT a, a FROM u; CREATE VIEW all_of_u AS SELECT *, a FROM u');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const r = await sql('CREATE TABLE t (a int); CREATE VIEW pairs AS VALUES (1, 2); CREATE VIEW firsts AS SELECT DISTINCT ON (a) a FROM t');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const drop = await sql('DROP TABLE t');
    expect(drop.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop table "t": still depended upon by view "firsts"' });
    const unknown = await sql('CREATE VIEW broken AS SELECT DISTINCT ON (a) a FROM nope');
    expect(unknown.body.results[0].error).toMatchObject({ code: '42P01', message: "unknown catalog item 'nope'" });
  });
});

describe('CREATE OR REPLACE', () => {
  it('drops the indexes of the replaced definition and refuses while anything else is built on it', async () => {
    const { sql } = await sqlClient(p);
    const setup = await sql(`${CLUSTER}; CREATE TABLE t (a int); CREATE MATERIALIZED VIEW mv AS SELECT a FROM t; CREATE INDEX mv_idx ON mv (a); CREATE VIEW v AS SELECT a FROM t; CREATE VIEW w AS SELECT a FROM v`);
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const mv = await sql('CREATE OR REPLACE MATERIALIZED VIEW mv AS SELECT a + 1 AS a FROM t; SHOW INDEXES');
    expect(mv.status, JSON.stringify(mv.body)).toBe(200);
    expect(mv.body.results[1].rows).toEqual([]);
    const v = await sql('CREATE OR REPLACE VIEW v AS SELECT 3 AS a');
    expect(v.body.results[0].error).toMatchObject({ code: '2BP01', message: 'cannot drop view "v": still depended upon by view "w"' });
    const self = await sql('CREATE OR REPLACE VIEW w AS SELECT a FROM w');
    expect(self.body.results[0].error).toMatchObject({ message: 'cannot replace view materialize.public.w: depended upon by new materialize.public.w definition' });
  });
});

describe('what a control plane does not do', () => {
  it.each([['INSERT INTO t VALUES (1)'], ['SELECT count(*) FROM t'], ['EXPLAIN SELECT 1']])('%s is refused as outside the control plane', async (query) => {
    const r = await run('CREATE TABLE t (a int)', query);
    expect(r.error.code).toBe('0A000');
    expect(r.error.message).toMatch(/outside the control plane/);
  });

  // A query that reads no user object goes to the SQL engine, and session commands to the request's
  // session: both are answered as Materialize answers them.
  it.each([
    ['SELECT 1', 'SELECT 1', [['1']]],
    ['SHOW search_path', 'SELECT 1', [['public']]],
    ["SET cluster = quickstart; SHOW cluster", 'SELECT 1', [['quickstart']]],
  ])('%s is answered as Materialize answers it', async (query, tag, rows) => {
    const r = await run('CREATE TABLE t (a int)', query);
    expect(r.error).toBeUndefined();
    expect(r.tag).toBe(tag);
    expect(r.rows).toEqual(rows);
  });
});
