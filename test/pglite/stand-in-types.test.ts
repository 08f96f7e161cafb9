// The template records the engine's stand-in types (mzpg.regclass for pg_catalog.regclass, ...)
// when it is built (shared/pglite/host.ts), so an engine opening it does not look them up again:
// what it records is what the engine holds, each stand-in beside PostgreSQL's type of its name.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTemplate, PgliteHost } from '../../shared/pglite/host';
import { engineSchemaSql } from '../../shared/system/registry';

const cacheDir = mkdtempSync(join(tmpdir(), 'stand-ins-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe("the template's stand-in types", () => {
  it("are the engine's own: each a mzpg base type named as the pg_catalog type it is sent as", async () => {
    const template = await ensureTemplate(engineSchemaSql(), cacheDir);
    const recorded = JSON.parse(readFileSync(join(template, '.stand-in-types.json'), 'utf8')) as [number, number][];
    expect(recorded.length).toBeGreaterThan(0);
    const host = await PgliteHost.open({ schemaSql: engineSchemaSql(), templateDir: template });
    try {
      const values = recorded.map(([engine, pg]) => `(${engine}::oid, ${pg}::oid)`).join(', ');
      const r = await host.run({
        sql: `SELECT count(*) FILTER (WHERE t.typname = p.typname AND tn.nspname = 'mzpg' AND pn.nspname = 'pg_catalog')::int4 AS ok, count(*)::int4 AS n
                FROM (VALUES ${values}) AS v(engine, pg) JOIN pg_catalog.pg_type t ON t.oid = v.engine JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
                JOIN pg_catalog.pg_type p ON p.oid = v.pg JOIN pg_catalog.pg_namespace pn ON pn.oid = p.typnamespace`,
        paramTypes: [],
        params: [],
        paramFormats: [],
        resultFormats: [],
        session: { user: 'materialize', database: 'materialize', settings: {} },
        loads: [],
        maxRows: 10,
      });
      expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
      if (!r.ok) return;
      // One DataRow: 'D', length, 2 columns, then each as length + text.
      const row = r.rows;
      const first = row.readInt32BE(7);
      const ok = Number(row.subarray(11, 11 + first).toString());
      const n = Number(row.subarray(15 + first).toString());
      expect([ok, n]).toEqual([recorded.length, recorded.length]);
    } finally {
      await host.close();
    }
  }, 300_000);
});
