// The template records the engine's stand-in types (mzpg.regclass for pg_catalog.regclass, ...)
// when it is built (shared/pglite/host.ts), so an engine opening it does not look them up again:
// what it records is what the engine holds, each stand-in beside PostgreSQL's type of its name.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTemplate, PgliteHost } from '../../shared/pglite/host';
import { engineSchemaSql } from '../../shared/system/registry';
import { engineRows } from '../helpers/engine';

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
      const rows = await engineRows(
        host,
        `SELECT count(*) FILTER (WHERE t.typname = p.typname AND tn.nspname = 'mzpg' AND pn.nspname = 'pg_catalog')::int4 AS ok, count(*)::int4 AS n
           FROM (VALUES ${values}) AS v(engine, pg) JOIN pg_catalog.pg_type t ON t.oid = v.engine JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
           JOIN pg_catalog.pg_type p ON p.oid = v.pg JOIN pg_catalog.pg_namespace pn ON pn.oid = p.typnamespace`,
      );
      expect(rows).toEqual([[String(recorded.length), String(recorded.length)]]);
    } finally {
      await host.close();
    }
  }, 300_000);
});
