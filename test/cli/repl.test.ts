/**
 * `ddlctl sql` as a person uses it: the real CLI in a real pseudo-terminal (util-linux `script`
 * gives it one), typed into key by key, against a test pipeline. Ctrl-C, history and psql's
 * backslash commands; the same commands in a script read from stdin.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { budget } from '../helpers/budget';
import { sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../cli/ddlctl.mjs');

let p: Pipeline;
let sql: SqlClient;
let password: string;
let home: string;

beforeAll(async () => {
  p = await testPipeline('repl');
  ({ sql, password } = await sqlClient(p));
  home = mkdtempSync(join(tmpdir(), 'ddlctl-repl-'));
  const r = await sql(
    "CREATE CLUSTER c (SIZE = '25cc'); CREATE TABLE orders (id bigint); CREATE VIEW big_orders AS SELECT id FROM orders; CREATE DEFAULT INDEX IN CLUSTER c ON orders;" +
      // The same name in two schemas, of two kinds: \d must look in the schema it is given.
      'CREATE SCHEMA analytics; CREATE TABLE analytics.events (at timestamptz); CREATE VIEW events AS SELECT id FROM orders; CREATE INDEX events_at_idx IN CLUSTER c ON analytics.events (at)',
  );
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await p.stop();
  rmSync(home, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH, HOME: home, NO_COLOR: '1', TERM: 'xterm', DDLCTL_PASSWORD: password });
const shellQuote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
/** What a terminal shows once the cursor movements are gone (enough to read the text). */
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '');

/** The REPL in a pseudo-terminal: type into it and wait for what it prints. */
class Terminal {
  readonly child: ChildProcessWithoutNullStreams;
  output = '';
  readonly exited: Promise<number | null>;

  /** `columns`: a terminal that reports its width (the pty `script` makes reports none). */
  constructor(extraEnv: Record<string, string> = {}, columns?: number) {
    const cmd = [process.execPath, CLI, '--url', p.url!, 'sql'].map(shellQuote).join(' ');
    const sized = columns ? `stty cols ${columns} rows 40; exec ${cmd}` : cmd;
    this.child = spawn('script', ['-qfec', sized, '/dev/null'], { env: { ...env(), ...extraEnv } });
    this.child.stdout.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((r) => this.child.on('close', (code) => r(code)));
  }

  /** Waits until the screen text after `from` matches (the REPL answers over HTTP: no fixed delay). */
  async waitFor(re: RegExp, from = 0): Promise<string> {
    const deadline = Date.now() + budget(20_000);
    while (!re.test(plain(this.output.slice(from)))) {
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${re}; it shows:\n${plain(this.output)}`);
      if (this.child.exitCode !== null) throw new Error(`ddlctl exited (${this.child.exitCode}) before showing ${re}:\n${plain(this.output)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return plain(this.output.slice(from));
  }

  /** Types keys, then waits for the next prompt. */
  async type(keys: string, prompt = /ddlctl[=\-']> $/): Promise<string> {
    const from = this.output.length;
    this.child.stdin.write(keys);
    return this.waitFor(prompt, from);
  }

  async quit(): Promise<number | null> {
    this.child.stdin.write('\\q\r');
    return this.exited;
  }
}

describe('ddlctl sql in a terminal', () => {
  it('Ctrl-C clears the line being typed and the statement buffer, like psql', async () => {
    const t = new Terminal();
    await t.waitFor(/ddlctl=> $/);
    // The keys: a statement half typed, Ctrl-C, then a fresh command.
    await t.type('SHOW CLUSTERS', /SHOW CLUSTERS$/);
    await t.type('\x03', /\^C\n(ddlctl=> )+$/);
    // The statement buffer is empty (\p prints it), and \q then quits: nothing was sent.
    expect(await t.type('\\p\r')).toMatch(/^\\p\nQuery buffer is empty\.\nddlctl=> $/);
    expect(await t.quit()).toBe(0);
    expect(plain(t.output)).not.toMatch(/SqHOW|SHOW CLUSTERS\\/);
    expect(plain(t.output)).not.toContain('replicas');

    // On a continuation line too: the lines before Ctrl-C are gone, the next statement runs alone.
    const u = new Terminal();
    await u.waitFor(/ddlctl=> $/);
    await u.type('SELECT frobnicate\r', /ddlctl-> $/);
    await u.type('FROM nowhere', /FROM nowhere$/);
    await u.type('\x03', /\^C\n(ddlctl=> )+$/);
    const out = await u.type("SELECT name FROM mz_clusters WHERE name = 'c';\r");
    expect(out).toMatch(/ name\n------\n c\n\(1 row\)/);
    expect(out).not.toContain('ERROR');
    expect(await u.quit()).toBe(0);
  });

  it('history holds whole statements: one Up recalls a multi-line statement, and it runs again', async () => {
    const history = { DDLCTL_HISTORY: join(home, 'history-test') };
    const t = new Terminal(history);
    await t.waitFor(/ddlctl=> $/);
    await t.type('SELECT name\r', /ddlctl-> $/);
    await t.type('  FROM mz_clusters;\r');
    await t.type('\\dn\r');
    expect(await t.quit()).toBe(0);
    const file = readFileSync(history.DDLCTL_HISTORY, 'utf8').split('\n');
    expect(file).toEqual(['SELECT name\x01  FROM mz_clusters;', '\\dn', '\\q', '']);

    const u = new Terminal(history);
    await u.waitFor(/ddlctl=> $/);
    // Up three times: \q, \dn, then the statement, whole.
    await u.type('\x1b[A\x1b[A\x1b[A', /FROM mz_clusters;$/);
    const out = await u.type('\r');
    expect(out).toMatch(/ name\n------\n c\n\(1 row\)/);
    expect(await u.quit()).toBe(0);
  });

  it('history keeps statements that only name a secret, and leaves out the ones that hold a secret value', async () => {
    const history = { DDLCTL_HISTORY: join(home, 'history-secrets') };
    const t = new Terminal(history);
    await t.waitFor(/ddlctl=> $/);
    const typed = [
      "CREATE SECRET pgpass AS 'hunter2';",
      "CREATE CONNECTION pgc TO POSTGRES (HOST 'pg.repl.test', USER 'u', PASSWORD SECRET pgpass, DATABASE 'd') WITH (VALIDATE = false);",
      "ALTER SECRET pgpass AS 'hunter3';",
      'ALTER SECRET pgpass RENAME TO pgpass2;',
      'SHOW SECRETS;',
      "SELECT name FROM mz_secrets WHERE name = 'pgpass2';",
      "CREATE ROLE reader WITH PASSWORD 'hunter4';",
      "EXPLAIN EFFECTS FOR CREATE SECRET other AS 'hunter5';",
      'DROP CONNECTION pgc;',
      'DROP SECRET pgpass2;',
    ];
    for (const line of typed) await t.type(`${line}\r`);
    expect(await t.quit()).toBe(0);

    const file = readFileSync(history.DDLCTL_HISTORY, 'utf8');
    expect(file.split('\n')).toEqual([
      "CREATE CONNECTION pgc TO POSTGRES (HOST 'pg.repl.test', USER 'u', PASSWORD SECRET pgpass, DATABASE 'd') WITH (VALIDATE = false);",
      'ALTER SECRET pgpass RENAME TO pgpass2;',
      'SHOW SECRETS;',
      "SELECT name FROM mz_secrets WHERE name = 'pgpass2';",
      'DROP CONNECTION pgc;',
      'DROP SECRET pgpass2;',
      '\\q',
      '',
    ]);
    expect(file).not.toMatch(/hunter/);
  });

  it('Ctrl-L clears the screen and redraws the prompt with the line being typed, like psql', async () => {
    const t = new Terminal();
    await t.waitFor(/ddlctl=> $/);
    await t.type('SHOW CLUSTERS', /SHOW CLUSTERS$/);
    const from = t.output.length;
    t.child.stdin.write('\x0c');
    // The cursor home and the screen erased below it, then the prompt and the line again.
    await t.waitFor(/ddlctl=> SHOW CLUSTERS$/, from);
    expect(t.output.slice(from)).toMatch(/^(\x1b\[[0-9;]*[A-Za-z])*\x1b\[(1;1)?H(\x1b\[[0-9;]*[A-Za-z])*\x1b\[[02]?J/);
    // The line is still there to finish and run.
    expect(await t.type(';\r')).toMatch(/ name +\| replicas/);
    expect(await t.quit()).toBe(0);
  });

  it('a backslash command on a continuation line is a command; the statement goes on', async () => {
    const t = new Terminal();
    await t.waitFor(/ddlctl=> $/);
    await t.type('SELECT name\r', /ddlctl-> $/);
    const listed = await t.type('\\dt\r', /ddlctl-> $/);
    expect(listed).toMatch(/ name +\| comment\n-+\+-+\n orders +\|/);
    const out = await t.type('FROM mz_clusters;\r');
    expect(out).toMatch(/ name\n------\n c\n\(1 row\)/);
    // \q on a continuation line quits, like psql, instead of becoming part of the SQL.
    await t.type('SHOW CLUSTERS\r', /ddlctl-> $/);
    expect(await t.quit()).toBe(0);
    expect(plain(t.output)).not.toContain('ERROR');
  });
});

describe('Ctrl-C while a statement waits for its effects', () => {
  it('stops the wait (the statement stays committed), and the prompt goes on', async () => {
    // Provisioning fails (transiently) until the faults are cleared: the effect stays pending.
    p.faults.failNext(1000, 'transient', 'replica quota exceeded in us-east-1a');
    try {
      // Without a width the outcome is a line; with one, a spinner runs while it waits.
      for (const [name, columns] of [['slow', undefined], ['spun', 100]] as const) {
        const t = new Terminal({}, columns);
        await t.waitFor(/ddlctl=> $/);
        await t.type('\\wait\r');
        const from = t.output.length;
        t.child.stdin.write(`CREATE CLUSTER ${name} (SIZE = '25cc');\r`);
        await t.waitFor(columns ? /waiting for 1 effect/ : /CREATE CLUSTER\n/, from);
        t.child.stdin.write('\x03');
        const out = await t.waitFor(/ddlctl=> $/, from);
        expect(out).toMatch(/\^C\n[\s\S]*stopped waiting after [\d.]+s \(Ctrl-C\): 1 effect still pending; they go on: `ddlctl effects` lists them\n/);
        // Still at the prompt, and it works.
        expect(await t.type(`SELECT name FROM mz_clusters WHERE name = '${name}';\r`)).toMatch(new RegExp(` name\\n-+\\n ${name}\\n\\(1 row\\)`));
        expect(await t.quit()).toBe(0);
      }
    } finally {
      p.faults.clear();
    }
    expect((await sql('DROP CLUSTER slow CASCADE; DROP CLUSTER spun CASCADE')).status).toBe(200);
  });
});

/** ddlctl sql reading a script from stdin. */
function script(input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, '--url', p.url!, 'sql'], { env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('psql backslash commands', () => {
  it('\\l, \\dn, \\dt, \\d and \\d NAME map to SHOW statements', async () => {
    const r = await script(['\\l', '\\dn', '\\dt', '\\dv ord*', '\\d', '\\d orders'].join('\n'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const blocks = r.stdout.replace(/\n+$/, '').split('\n\n');
    expect(blocks[0]).toMatch(/^ name +\| comment\n-+\+-+\n materialize +\|/);
    expect(blocks[1]).toMatch(/ public +\|/);
    expect(blocks[2]).toMatch(/ orders +\|/);
    expect(blocks[3]).toMatch(/\(0 rows\)/); // no view matches ord*
    expect(blocks[4]).toMatch(/ big_orders +\| view/);
    expect(blocks[4]).toMatch(/ orders +\| table/);
    expect(blocks[5]).toMatch(/CREATE TABLE .*orders/);
    expect(blocks[6]).toMatch(/ orders_primary_idx +\| orders/);
  });

  it('\\d SCHEMA.NAME and SCHEMA.PATTERN look in that schema; a bare name in public', async () => {
    const r = await script(['\\d analytics.events', '\\d events', '\\dt analytics.*', '\\di ANALYTICS.ev*'].join('\n'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const blocks = r.stdout.replace(/\n+$/, '').split('\n\n');
    expect(blocks[0]).toMatch(/CREATE TABLE .*analytics.*events.*\(.*at timestamp/i);
    expect(blocks[1]).toMatch(/ events_at_idx +\| events +\| c +\|/);
    expect(blocks[2]).toMatch(/CREATE VIEW .*events.* AS SELECT id FROM .*orders/);
    expect(blocks[3]).toMatch(/\(0 rows\)/); // the view has no index
    expect(blocks[4]).toMatch(/^ name +\| comment\n-+\+-+\n events +\|.*\n\(1 row\)$/);
    expect(blocks[5]).toMatch(/ events_at_idx +\| events +\|.*\n\(1 row\)$/);
    expect(blocks).toHaveLength(6);
  });

  it('\\? lists the commands; an unknown command or object is an error with a hint, and exits 1', async () => {
    const r = await script('\\?\n\\frobnicate\n\\d no_such_thing\n\\d nowhere.orders\n\\d analytics.orders\n');
    expect(r.stdout).toMatch(/\\dt \\dv \\dm \\di \[PATTERN\]/);
    expect(r.stderr).toContain('invalid command \\frobnicate\nTry \\? for help.');
    expect(r.stderr).toContain('Did not find any object named "no_such_thing".');
    expect(r.stderr).toContain("unknown schema 'nowhere'");
    expect(r.stderr).toContain('Did not find any object named "analytics.orders".');
    expect(r.code).toBe(1);
  });

  it('runs the SQL before a backslash on the same line, and \\q ends the script', async () => {
    const r = await script("SELECT name FROM mz_clusters \\g\nSHOW CLUSTERS\n\\q\nSELECT 'never reached';\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ name\n------\n c\n\(1 row\)\n/);
    expect(r.stdout).not.toContain('never reached');
    expect(r.stdout).not.toContain('replicas');
  });
});
