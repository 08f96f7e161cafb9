/**
 * The README's two-minute tour runs as written, twice in a row (a reader reruns it, or runs it
 * after docs/quickstart.md), with the answers its comments promise; and it leaves nothing that
 * would make the quickstart collide.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { ScriptedProber } from '../../shared/probes/fake';
import { sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const README = join(dirname(fileURLToPath(import.meta.url)), '../../README.md');

/** Each `sql "..."` line of the tour, with the SQLSTATE its comment promises (if any). */
function tour(markdown: string): { query: string; code?: string }[] {
  const section = markdown.slice(markdown.indexOf('## A two-minute tour'));
  const block = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
  return [...block.matchAll(/^sql "(.*)"(?:\s+#\s*(.*))?$/gm)].map((m) => {
    const code = /^([0-9A-Z]{5})\b/.exec(m[2] ?? '');
    return { query: m[1]!, ...(code ? { code: code[1]! } : {}) };
  });
}

let p: Pipeline;
let sql: SqlClient;
beforeAll(async () => {
  p = await testPipeline('tour', { prober: new ScriptedProber() });
  ({ sql } = await sqlClient(p));
});
afterAll(async () => {
  await p.stop();
});

describe("README's tour", () => {
  const steps = tour(readFileSync(README, 'utf8'));

  it('is found, and its curl shows connection errors on the chosen port', () => {
    expect(steps.length).toBeGreaterThan(8);
    const section = readFileSync(README, 'utf8');
    expect(section).toContain('sql() { curl -sS "http://127.0.0.1:${PORT:-6876}/api/sql"');
  });

  it('runs twice in a row with the answers it promises, then the quickstart can start', async () => {
    for (let round = 1; round <= 2; round++) {
      for (const { query, code } of steps) {
        const r = await sql(query);
        expect({ round, query, code: r.body.results?.[0]?.error?.code }).toEqual({ round, query, code });
      }
    }
    const quickstart = await sql("CREATE CLUSTER quickstart (SIZE = '25cc')");
    expect(quickstart.body.results?.[0]?.error).toBeUndefined();
  });
});
