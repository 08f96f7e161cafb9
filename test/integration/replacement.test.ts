/**
 * CREATE REPLACEMENT MATERIALIZED VIEW and ALTER MATERIALIZED VIEW ... APPLY REPLACEMENT through
 * the local pipeline (issue 30): the replacement's dataflow reaches the data plane beside its
 * target's, the system relations and SHOW CREATE show it, applying it gives the target the
 * replacement's body and cluster at a new generation (its dataflow ensured again, the
 * replacement's dropped), and a replacement with another schema commits nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { settledDataPlane } from '../helpers/catalog';
import { rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('replacement');
});
afterAll(async () => {
  await p?.stop();
});

describe('replacement materialized views', () => {
  it('hydrates a replacement beside its target and applies it under the target’s name', async () => {
    const { sql, tenant } = await sqlClient(p);
    const setup = await sql(
      [
        "CREATE CLUSTER quickstart (SIZE = '25cc')",
        "CREATE CLUSTER other (SIZE = '25cc')",
        'CREATE TABLE t (a int, b text)',
        'CREATE MATERIALIZED VIEW mv AS SELECT a, b FROM t',
        'CREATE REPLACEMENT MATERIALIZED VIEW mv_r FOR mv IN CLUSTER other AS SELECT a, b FROM t WHERE a > 1',
      ].join('; '),
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    let resources = await settledDataPlane(p, tenant);
    const dataflow = (name: string) => resources.find((r) => r.kind === 'dataflow' && r.owner?.objectName === name);
    expect(dataflow('mv')).toBeDefined();
    expect(dataflow('mv_r')).toBeDefined();
    const mvId = dataflow('mv')!.owner!.objectId;
    const before = dataflow('mv')!.generation;

    const ids = await rows(sql, "SELECT id, name FROM mz_materialized_views WHERE name IN ('mv', 'mv_r') ORDER BY name");
    expect(ids.map((r) => r[1])).toEqual(['mv', 'mv_r']);
    expect(await rows(sql, 'SELECT id, target_id FROM mz_internal.mz_replacements')).toEqual([[ids[1]![0], ids[0]![0]]]);
    expect((await rows(sql, 'SHOW CREATE MATERIALIZED VIEW mv_r'))[0]![1]).toContain('REPLACEMENT MATERIALIZED VIEW');
    // The target cannot go while its replacement depends on it.
    const drop = await sql('DROP MATERIALIZED VIEW mv');
    expect(drop.status).toBe(400);
    expect(drop.body.results.at(-1).error.code).toBe('2BP01');

    const applied = await sql('ALTER MATERIALIZED VIEW mv APPLY REPLACEMENT mv_r');
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    resources = await settledDataPlane(p, tenant);
    expect(dataflow('mv_r')).toBeUndefined();
    expect(dataflow('mv')!.owner!.objectId).toBe(mvId);
    expect(dataflow('mv')!.generation).toBeGreaterThan(before);
    const createSql = (await rows(sql, 'SHOW CREATE MATERIALIZED VIEW mv'))[0]![1];
    expect(createSql).toContain('WHERE a > 1');
    expect(createSql).toContain('IN CLUSTER');
    expect(await rows(sql, "SELECT c.name FROM mz_materialized_views m JOIN mz_clusters c ON m.cluster_id = c.id WHERE m.name = 'mv'")).toEqual([['other']]);
    expect(await rows(sql, 'SELECT count(*) FROM mz_internal.mz_replacements')).toEqual([['0']]);
    expect(await rows(sql, "SELECT name FROM mz_materialized_views WHERE name = 'mv_r'")).toEqual([]);
  });

  it('refuses a replacement whose columns differ from its target’s, committing nothing', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql(
      "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE TABLE t (a int, b text); CREATE MATERIALIZED VIEW mv AS SELECT a, b FROM t; CREATE REPLACEMENT MATERIALIZED VIEW mv_r FOR mv AS SELECT a FROM t",
    );
    expect(r.status).toBe(400);
    expect(r.body.results.at(-1).error).toMatchObject({ code: '0A000', message: 'replacement schema differs from target schema' });
    expect(await rows(sql, "SELECT name FROM mz_tables WHERE name = 't'")).toEqual([]);
  });
});
