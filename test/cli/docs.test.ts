/**
 * The examples in docs/sql-reference.md run as written: every ```sql block, statement by
 * statement, top to bottom, in a fresh tenant (upstream checks scripted to succeed). A change to
 * the SQL surface that breaks an example fails here, not in a reader's terminal.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { ScriptedProber } from '../../shared/probes/fake';
import { sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '../../docs/sql-reference.md');

/** Statements of every ```sql block: each ends with `;` at the end of a line. */
function examples(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) => b.split(/;\s*\n/).map((s) => s.trim()).filter(Boolean));
}

let p: Pipeline;
let sql: SqlClient;
beforeAll(async () => {
  p = await testPipeline('docs', { prober: new ScriptedProber() });
  ({ sql } = await sqlClient(p));
});
afterAll(async () => {
  await p.stop();
});

describe('docs/sql-reference.md', () => {
  const statements = examples(readFileSync(DOC, 'utf8'));

  it('has examples of every kind of statement', () => {
    const starts = new Set(statements.map((s) => s.split(/\s+/).slice(0, 2).join(' ').toUpperCase()));
    for (const k of ['CREATE CLUSTER', 'CREATE SOURCE', 'CREATE SINK', 'CREATE CONNECTION', 'CREATE SECRET', 'CREATE TABLE', 'CREATE VIEW', 'CREATE MATERIALIZED', 'CREATE INDEX', 'CREATE DEFAULT', 'CREATE DATABASE', 'CREATE SCHEMA', 'ALTER CLUSTER', 'ALTER SECRET', 'ALTER CONNECTION', 'VALIDATE CONNECTION', 'DROP SOURCE', 'SHOW CLUSTERS', 'SHOW CREATE', 'SELECT NAME,', 'EXPLAIN EFFECTS', 'BEGIN', 'COMMIT']) {
      expect(starts, k).toContain(k);
    }
  });

  // One test per statement, in order: each gets the whole test timeout, so a loaded machine that
  // is slow over all of them does not fail the file, while one statement that hangs still does.
  statements.forEach((q, i) => {
    it(`runs example ${i + 1}: ${q.replace(/\s+/g, ' ').slice(0, 60)}`, async () => {
      const r = await sql(q);
      expect({ q, status: r.status, error: r.body.results?.[0]?.error }).toEqual({ q, status: 200, error: undefined });
    });
  });
});
