/**
 * The README's two-minute tour runs as written, twice in a row (a reader reruns it, or runs it
 * after docs/quickstart.md), with the answers its comments promise; and it leaves nothing that
 * would make the quickstart collide. Its `sql()` shell helper itself runs in bash, with curl and
 * jq (the pretest check asks for both), on the port PORT names.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { ScriptedProber } from '../../shared/probes/fake';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { runProgram } from '../helpers/run';

const README = join(dirname(fileURLToPath(import.meta.url)), '../../README.md');

/** Each `sql "..."` line of the tour, with its comment and the SQLSTATE the comment promises (if any). */
function tour(markdown: string): { query: string; comment: string; code?: string }[] {
  const section = markdown.slice(markdown.indexOf('## A two-minute tour'));
  const block = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
  return [...block.matchAll(/^sql "(.*)"(?:\s+#\s*(.*))?$/gm)].map((m) => {
    const code = /^([0-9A-Z]{5})\b/.exec(m[2] ?? '');
    return { query: m[1]!, comment: m[2] ?? '', ...(code ? { code: code[1]! } : {}) };
  });
}

/**
 * A bash script with only PATH and the given variables (what a user's shell would have exported).
 * --norc: bash reads ~/.bashrc when its stdin is a socket (node's pipes are), and this machine's
 * rc file is no part of the README.
 */
const shell = (script: string, args: readonly string[], env: Record<string, string>) => runProgram('bash', ['--norc', '-c', script, 'bash', ...args], { env: { PATH: process.env.PATH, ...env } });

let p: Pipeline;
let sql: SqlClient;
let password: string;
beforeAll(async () => {
  p = await testPipeline('tour', { prober: new ScriptedProber() });
  ({ sql, password } = await sqlClient(p));
});
afterAll(async () => {
  await p.stop();
});

describe("README's tour", () => {
  const steps = tour(readFileSync(README, 'utf8'));

  it('is found', () => {
    expect(steps.length).toBeGreaterThan(8);
  });

  it("its sql() helper, run as written in bash, answers on the PORT chosen and shows curl's error on a wrong one", async () => {
    const markdown = readFileSync(README, 'utf8');
    const helper = /^sql\(\) \{[\s\S]*?\}$/m.exec(markdown)?.[0];
    expect(helper, "README.md defines sql() { ... }").toBeDefined();
    // The answer the README shows for its first curl, which the helper sends the same way.
    const [, query, answer] = /-d '\{"query": "([^"]+)"\}'\n# (\{.*?\})\s/.exec(markdown)!;
    const port = new URL(p.url!).port;
    expect(port).not.toBe('6876');

    const answered = await shell(`${helper}\nsql "$1"`, [query!], { PORT: port, DDL_APP_PASSWORD: password });
    expect(answered).toEqual({ code: 0, stdout: `${answer}\n`, stderr: '' });

    const closed = String(await freePort());
    const refused = await shell(`${helper}\nsql "$1"`, [query!], { PORT: closed, DDL_APP_PASSWORD: password });
    expect(refused.stderr).toMatch(new RegExp(`^curl: \\(7\\) Failed to connect to 127\\.0\\.0\\.1 port ${closed}\\b`));
  });

  it('shows the replicas it makes by name beside their ids, offline (provisioning) at first and online a moment later, as it says', async () => {
    // A tenant of its own: the replicas read are the tour's alone.
    const { sql: own } = await sqlClient(p);
    const create = steps.find((x) => x.query.startsWith('CREATE CLUSTER tour'))!;
    const statuses = steps.find((x) => x.query.includes('mz_cluster_replica_statuses'))!;
    expect(statuses.comment).toMatch(/r1, r2: 'offline' \(provisioning\) for a moment, then 'online'/);
    expect(steps.indexOf(statuses)).toBe(steps.indexOf(create) + 1);
    const read = async () => {
      const r = await own(statuses.query);
      const cols = (r.body.results[0].desc.columns as { name: string }[]).map((c) => c.name);
      return (r.body.results[0].rows as unknown[][]).map((row) => Object.fromEntries(cols.map((c, i) => [c, row[i]])) as { name: string; replica_id: string; status: string; reason: string | null });
    };

    expect((await own(create.query)).status).toBe(200);
    const first = await read();

    expect(first.map((x) => x.name).sort()).toEqual(['r1', 'r2']);
    for (const x of first) {
      expect(x.replica_id).toMatch(/^u[0-9a-f]+$/);
      expect([x.status, x.reason]).toSatisfy(([status, reason]: [string, string | null]) => (status === 'offline' && reason === 'provisioning') || (status === 'online' && reason === null));
    }
    await eventually(async () => (await read()).every((x) => x.status === 'online'), 5_000);
    expect((await own('DROP CLUSTER tour CASCADE')).status).toBe(200);
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
