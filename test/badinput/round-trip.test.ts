/**
 * The valid edge of bad input: names Materialize accepts however much they look like trouble
 * (`#`, `.` and `%` inside quoted identifiers go into DynamoDB sort keys; 255-byte identifiers of
 * multi-byte characters), requests with no statement at all, and exactly the statement limit.
 * Each round-trips: create, SHOW, SHOW CREATE, drop — and never collides with another name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { partitionItems, tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline, type SqlClient, ok } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('roundtrip', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

/** Runs SQL that must succeed; returns each statement's result. */

/** The first column of a SHOW (the names), sorted. */
async function names(sql: SqlClient, show: string): Promise<string[]> {
  const [r] = await ok(sql, show);
  return r.rows.map((row: unknown[]) => row[0] as string).sort();
}

/** Quotes an identifier the way SQL reads it back. */
const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Names whose escaped keys would collide if `#`, `.` or `%` were not escaped (or escaped without escaping `%`). */
const KEY_BREAKERS = ['a.b', 'a%2eb', 'a%252eb', 'a#b', 'a%23b', 'a%b', 'a%25b', 'a', 'b', 'a..b', '#', '%', 'T#x', 'NAME#item#x', 'a"b'];

describe('names with key-breaking characters are valid and round-trip', () => {
  it('clusters: every name coexists, shows as created, SHOW CREATE quotes it, and drops alone', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, KEY_BREAKERS.map((n) => `CREATE CLUSTER ${q(n)} (SIZE = '25cc')`).join('; '));
    expect(await names(sql, 'SHOW CLUSTERS')).toEqual([...KEY_BREAKERS].sort());
    // One uniqueness guard per name: none shares a key with another.
    const guards = (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'name' && String(i.sk).startsWith('NAME#cluster#'));
    expect(new Set(guards.map((g) => g.sk)).size).toBe(KEY_BREAKERS.length);
    for (const n of KEY_BREAKERS) {
      const [r] = await ok(sql, `SHOW CREATE CLUSTER ${q(n)}`);
      expect(r.rows[0][1]).toBe(`CREATE CLUSTER ${/^[a-z_][a-z0-9_]*$/.test(n) ? n : q(n)} (SIZE = '25cc', REPLICATION FACTOR = 1)`);
    }
    // Dropping one leaves every look-alike in place, and its name is free again.
    await ok(sql, 'DROP CLUSTER "a.b"');
    expect(await names(sql, 'SHOW CLUSTERS')).toEqual(KEY_BREAKERS.filter((n) => n !== 'a.b').sort());
    await ok(sql, `CREATE CLUSTER "a.b" (SIZE = '25cc')`);
    const dup = await sql(`CREATE CLUSTER "a%2eb" (SIZE = '25cc')`);
    expect(dup.status).toBe(400);
    expect(dup.body.results[0].error).toMatchObject({ code: '42P07', message: "cluster 'a%2eb' already exists" });
    await ok(sql, KEY_BREAKERS.map((n) => `DROP CLUSTER ${q(n)}`).join('; '));
    expect(await names(sql, 'SHOW CLUSTERS')).toEqual([]);
  });

  it('tables: "x.y" in public is not y in schema x, and `#`/`%` names stay apart', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE SCHEMA x; CREATE TABLE x.y (a int); CREATE TABLE "x.y" (b int); CREATE TABLE "x#y" (c int); CREATE TABLE "x%2ey" (d int); CREATE TABLE "x%y" (e int)');
    expect(await names(sql, 'SHOW TABLES')).toEqual(['x#y', 'x%2ey', 'x%y', 'x.y']);
    expect(await names(sql, 'SHOW TABLES FROM x')).toEqual(['y']);
    const [quoted, dotted] = await ok(sql, 'SHOW CREATE TABLE "x.y"; SHOW CREATE TABLE x.y');
    expect(quoted.rows).toEqual([['materialize.public."x.y"', 'CREATE TABLE "x.y" (b int)']]);
    expect(dotted.rows).toEqual([['materialize.x.y', 'CREATE TABLE x.y (a int)']]);
    // A view reads the quoted one, and the drop order follows the dependency, not the look-alike.
    await ok(sql, 'CREATE VIEW v AS SELECT b FROM "x.y"');
    const blocked = await sql('DROP TABLE "x.y"');
    expect(blocked.status).toBe(400);
    expect(blocked.body.results[0].error).toMatchObject({ code: '2BP01' });
    expect(blocked.body.results[0].error.message).toMatch(/^cannot drop table "x\.y": still depended upon by view "v"$/);
    await ok(sql, 'DROP TABLE x.y');
    expect(await names(sql, 'SHOW TABLES FROM x')).toEqual([]);
    await ok(sql, 'DROP TABLE "x.y" CASCADE; DROP TABLE "x#y", "x%2ey", "x%y"');
    expect(await names(sql, 'SHOW TABLES')).toEqual([]);
    expect(await names(sql, 'SHOW VIEWS')).toEqual([]);
  });

  it('databases and schemas: database "d.s" is not schema s of database d', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, 'CREATE DATABASE "d.s"; CREATE DATABASE d; CREATE SCHEMA d.s; CREATE SCHEMA d."s#1"; CREATE SCHEMA "d.s"."%"');
    expect(await names(sql, 'SHOW DATABASES')).toEqual(['d', 'd.s', 'materialize']);
    expect(await names(sql, 'SHOW SCHEMAS FROM d')).toEqual(['public', 's', 's#1']);
    expect(await names(sql, 'SHOW SCHEMAS FROM "d.s"')).toEqual(['%', 'public']);
    await ok(sql, 'CREATE TABLE "d.s"."%".t (a int); CREATE TABLE d.s.t (a int)');
    await ok(sql, 'DROP DATABASE "d.s"');
    expect(await names(sql, 'SHOW DATABASES')).toEqual(['d', 'materialize']);
    expect(await names(sql, 'SHOW TABLES FROM d.s')).toEqual(['t']);
    await ok(sql, 'DROP DATABASE d');
    expect(await names(sql, 'SHOW DATABASES')).toEqual(['materialize']);
  });

  it('replicas: "r.1", "r%2e1" and "r#1" in one cluster', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, `CREATE CLUSTER u REPLICAS ("r.1" (SIZE = '25cc'), "r%2e1" (SIZE = '25cc'), "r#1" (SIZE = '25cc'))`);
    const [r] = await ok(sql, 'SHOW CLUSTER REPLICAS');
    expect(r.rows.map((row: unknown[]) => row.slice(0, 2)).sort()).toEqual([
      ['u', 'r#1'],
      ['u', 'r%2e1'],
      ['u', 'r.1'],
    ]);
    await ok(sql, 'DROP CLUSTER REPLICA u."r.1"');
    const [after] = await ok(sql, 'SHOW CLUSTER REPLICAS');
    expect(after.rows.map((row: unknown[]) => row[1]).sort()).toEqual(['r#1', 'r%2e1']);
    await ok(sql, 'DROP CLUSTER u');
  });

  it('identifiers of exactly 255 bytes, in one-, two-, three- and four-byte characters', async () => {
    const { sql } = await sqlClient(p);
    const longest = ['a'.repeat(255), `${'é'.repeat(127)}a`, '€'.repeat(85), `${'😀'.repeat(63)}abc`];
    for (const n of longest) expect(Buffer.byteLength(n, 'utf8')).toBe(255);
    await ok(sql, longest.map((n) => `CREATE TABLE ${q(n)} (a int)`).join('; '));
    expect(await names(sql, 'SHOW TABLES')).toEqual([...longest].sort());
    await ok(sql, longest.map((n) => `DROP TABLE ${q(n)}`).join('; '));
    expect(await names(sql, 'SHOW TABLES')).toEqual([]);
  });
});

describe('requests with no statement, and exactly the statement limit', () => {
  // Materialize answers a query with no statement with an empty result list.
  it.each([
    ['an empty query', ''],
    ['only whitespace', ' \n\t '],
    ['only a line comment', '-- nothing here'],
    ['only block comments', '/* a */ /* b /* nested */ */'],
    ['only semicolons', ';;;'],
    ['comments and semicolons', '; -- c\n; /* c */ ;'],
  ])('%s answers 200 with no results and commits nothing', async (_name, query) => {
    const { sql, tenant } = await sqlClient(p);
    const r = await sql(query);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ results: [] });
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('an empty extended-mode list answers 200 with no results', async () => {
    const { sql, tenant } = await sqlClient(p);
    const r = await sql('', { body: JSON.stringify({ queries: [] }) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ results: [] });
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('1000 statements (the limit) are served', async () => {
    const { sql } = await sqlClient(p);
    const results = await ok(sql, 'SHOW CLUSTERS;'.repeat(1000));
    expect(results).toHaveLength(1000);
  });
});
