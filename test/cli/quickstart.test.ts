/**
 * docs/quickstart.md runs as written, and runs again: the ```sql blocks of §3, §4 and §8, sent
 * statement by statement as `ddlctl sql` sends what is typed at its prompt, print what the blocks
 * right after them show (ddlctl's own rendering: tags, tables, errors with their caret: §4's source is
 * refused, as Materialize's purification reads the missing upstream); §5's
 * `ddlctl status` has the sections, columns, statuses and "all healthy" line of its sample and
 * exits 0. Then the whole quickstart runs
 * AGAIN on the same catalog (a reader who did §8 starts over) with the same outcomes.
 *
 * §7 is left out: it needs a real PostgreSQL with logical replication. The upstream of §4,
 * `db.example.internal`, answers as the real prober answers a host name that does not resolve.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlClient as CliClient } from '../../cli/client';
import { runQuery } from '../../cli/commands/sql';
import { scan } from '../../cli/statements';
import type { Pipeline } from '../../local/pipeline';
import { ScriptedProber } from '../../shared/probes/fake';
import { fail, osError } from '../../shared/probes/outcome';
import { runDdlctl } from '../helpers/ddlctl';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '../../docs/quickstart.md');
const markdown = readFileSync(DOC, 'utf8');

/** The text of `## <n>. ...` up to the next `## `. */
function section(n: number): string {
  const start = markdown.indexOf(`\n## ${n}. `);
  expect(start, `docs/quickstart.md has a section ${n}`).toBeGreaterThan(0);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

interface Block {
  readonly sql: string;
  /** The ``` block right after it: what the prompt prints. None: every statement succeeds. */
  readonly answer?: string;
}

function sqlBlocks(text: string): Block[] {
  return [...text.matchAll(/```sql\n([\s\S]*?)\n```(?:\s*\n```\n([\s\S]*?)\n```)?/g)].map((m) => ({ sql: m[1]!, ...(m[2] !== undefined ? { answer: m[2] } : {}) }));
}

/** The block of a ```bash command that prints the ``` block right after it. */
function shownOutput(text: string, command: string): string {
  const m = new RegExp(`\`\`\`bash\\n${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\`\`\`\\s*\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  expect(m, `docs/quickstart.md shows what \`${command}\` prints`).not.toBeNull();
  return m![1]!;
}

/**
 * The requests the prompt sends for these lines: the typed text goes once its last token is `;`
 * (cli/statements.ts `scan`, the rule the REPL applies line by line), lines joined as typed.
 */
function requests(lines: string): string[] {
  const out: string[] = [];
  let buffer = '';
  for (const line of lines.split('\n')) {
    buffer = buffer === '' ? line : `${buffer}\n${line}`;
    const s = scan(buffer);
    if (s.empty) buffer = '';
    else if (s.terminated) [out[out.length], buffer] = [buffer, ''];
  }
  expect(buffer, 'every statement of the quickstart ends with ;').toBe('');
  return out;
}

/** Colours are on when CI or FORCE_COLOR is set: compare the text. */
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

const prober = new ScriptedProber();
let p: Pipeline;
let sql: SqlClient;
let password: string;
let cli: CliClient;
/** The tenant's objects before the quickstart: what §8 leaves. */
let before: string[];

const objectNames = async (): Promise<string[]> => (await sql('SELECT type, name FROM mz_objects ORDER BY name')).body.results[0].rows.map((r: string[]) => r.join(' '));

beforeAll(async () => {
  p = await testPipeline('quickstart', { prober });
  ({ sql, password } = await sqlClient(p));
  cli = new CliClient({ url: p.url!, password, passwordFrom: 'the test' });
  // What RealProber's Postgres probe answers when the host name does not resolve (ENOTFOUND).
  prober.set('db.example.internal', fail('postgres', `error connecting to server: ${osError({ code: 'ENOTFOUND' })}`));
  before = await objectNames();
});
afterAll(async () => {
  await p.stop();
});

/** A reader types slower than effects apply: each statement finds the last one's effects done. */
async function settled(): Promise<void> {
  await eventually(async () => (await sql("SELECT effect_id FROM mz_internal.mz_pending_effects WHERE state = 'pending'")).body.results[0].rows.length === 0, 15_000);
}

/** What ddlctl prints for these requests: each one's output, then a blank line (as the REPL does). */
async function printedFor(queries: readonly string[]): Promise<string> {
  const printed: string[] = [];
  const io = { out: (s: string) => printed.push(s), err: (s: string) => printed.push(s) };
  for (const query of queries) {
    await settled();
    await runQuery(cli, query, { timeout: 60 }, io);
    printed.push('');
  }
  return plain(printed.join('\n')).trimEnd();
}

/** What the prompt prints for these lines typed into it. */
const typed = (lines: string) => printedFor(requests(lines));

/** Runs a section's ```sql blocks; each prints what the block after it shows, or only successes. */
async function runSection(n: number): Promise<void> {
  const blocks = sqlBlocks(section(n));
  expect(blocks.length, `section ${n} has SQL`).toBeGreaterThan(0);
  for (const b of blocks) {
    const printed = await typed(b.sql);
    if (b.answer !== undefined) expect(printed, b.sql).toBe(b.answer);
    else expect(printed.split('\n').filter((l) => l !== '' && !/^[A-Z]+( [A-Z]+)*$/.test(l)), `${b.sql}\nprinted only command tags`).toEqual([]);
  }
}

/**
 * A `ddlctl status` frame with what changes from run to run taken out: column widths (cells
 * trimmed, rules shortened), the ages in `since` and object ids.
 */
function statusShape(text: string): string[] {
  return plain(text)
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/\b\d+[smhd] ago\b/g, '<age>').replace(/\bu[0-9a-f]{12}\b/g, '<id>'))
    .map((line) => (/^-+(\+-+)*$/.test(line) ? '---' : line.includes('|') ? line.split('|').map((c) => c.trim()).join(' | ') : line));
}

describe.each([1, 2])('docs/quickstart.md, run %i on the same catalog', (round) => {
  it('§3: a cluster and a first source', async () => {
    await runSection(3);
  });

  it('§4: a Postgres connection refused by its upstream, then created unvalidated, and a caret under a typo', async () => {
    await runSection(4);
  });

  it('§5: ddlctl status shows the sample (the source on the missing database was refused) and exits 0', async () => {
    // The data plane reports each source's health as it starts the ingestion: no sweep to wait for.
    await eventually(async () => {
      const rows: string[][] = (await sql('SELECT name, status FROM mz_internal.mz_source_statuses ORDER BY name')).body.results[0].rows;
      return JSON.stringify(rows) === JSON.stringify([['counter', 'running']]);
    });
    const status = await runDdlctl(['--url', p.url!, 'status'], { env: { DDLCTL_PASSWORD: password } });
    expect(status.stderr).toBe('');
    expect(statusShape(status.stdout)).toEqual(statusShape(shownOutput(section(5), 'npx ddlctl status')));
    expect(status.code, 'ddlctl status exits 0 when all is healthy').toBe(0);
  });

  it(`§8: the clean-up leaves the catalog ready for ${round === 1 ? 'a second run' : 'a third'}`, async () => {
    await runSection(8);
    await settled();
    expect(await objectNames()).toEqual(before);
  });
});
