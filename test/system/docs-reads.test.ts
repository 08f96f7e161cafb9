/**
 * The reads of Materialize's documentation (test/sql/corpus/materialize-docs-reads.sql), replayed
 * through POST /api/sql on the real emulators: the catalog SQL engine answers each with rows, or —
 * for what the catalog does not hold (user data, Materialize's introspection relations, a variable
 * we do not keep, WITH MUTUALLY RECURSIVE) — with a clear SQLSTATE and a message. Never XX000, never
 * a 500, never a crash; a few of them are checked for their answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { readCorpus } from '../helpers/corpus';
import { ok, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('docs-reads', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

/** The clear answers for what is not in the catalog. */
const CLEAR = new Set(['0A000', '42P01', '42703', '42704', '42883', '42601', '3F000', '22023']);

describe("the reads of Materialize's documentation", () => {
  it('answer rows, or a clear error with its SQLSTATE', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER compute_cluster (SIZE = '25cc'); CREATE TABLE t (a int); CREATE VIEW histograms AS SELECT 1 AS duration");
    const corpus = readCorpus('materialize-docs-reads.sql');
    expect(corpus.length).toBeGreaterThan(30);
    const bad: string[] = [];
    const answered: Record<string, number> = {};
    for (const s of corpus) {
      const r = await sql(s.sql);
      const where = `line ${s.line} (${s.source})`;
      // 200 with rows, or 400 with the statement's error (the API's shape for a failed request).
      if ((r.status !== 200 && r.status !== 400) || !Array.isArray(r.body?.results)) {
        bad.push(`${where}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
        continue;
      }
      for (const x of r.body.results as { error?: { code: string; message: string } }[]) {
        const key = x.error ? x.error.code : 'rows';
        answered[key] = (answered[key] ?? 0) + 1;
        if (x.error && (!CLEAR.has(x.error.code) || !x.error.message)) bad.push(`${where}: ${x.error.code} ${x.error.message}`);
      }
    }
    expect(bad, JSON.stringify(answered)).toEqual([]);
    // Most of them are answered with rows: the engine serves the catalog's SQL, not a subset.
    expect(answered.rows ?? 0).toBeGreaterThan(corpus.length / 2);
  });

  it('answers a JOIN with an aggregate and a CTE the way PostgreSQL does', async () => {
    const { sql } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER a (SIZE = '25cc', REPLICATION FACTOR = 2); CREATE CLUSTER b (SIZE = '25cc')");
    const [r] = await ok(
      sql,
      `WITH per AS (SELECT c.name, count(r.id) AS n FROM mz_clusters c LEFT JOIN mz_cluster_replicas r ON r.cluster_id = c.id GROUP BY c.name)
       SELECT name, n FROM per WHERE name = ANY(ARRAY['a', 'b']) ORDER BY name`,
    );
    // Numbers as Materialize's HTTP API gives them: strings of their digits.
    expect(r.rows, JSON.stringify(r)).toEqual([
      ['a', '2'],
      ['b', '1'],
    ]);
    expect(r.desc.columns.map((c: { name: string }) => c.name)).toEqual(['name', 'n']);
  });
});
