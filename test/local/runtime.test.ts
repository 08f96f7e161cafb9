/**
 * `npm start` end to end, as a user runs it (local/main.ts in its own process group): what it
 * listens on, when it is ready, what it prints, how it refuses a second instance or a busy port,
 * and how it stops on Ctrl-C.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/emulators';
import { isAlive, type LocalRuntimeInfo } from '../../local/runtime-info';
import { DDLCTL, startLocalRuntime, type LocalRuntime } from '../helpers/local-runtime';
import { listeningSockets, processTree } from '../helpers/sockets';

const QUICKSTART = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/quickstart.md');
const PASSWORD = 'ddlp_runtime-test-0123456789abcdef0123456789abcdef';
const READY = /endpoint: +(http:\/\/[^\s]+)\/api\/sql/;

let cwd: string;
const running: LocalRuntime[] = [];

function start(args: string[], env: Record<string, string | undefined> = {}): LocalRuntime {
  const r = startLocalRuntime(args, { cwd, env });
  running.push(r);
  return r;
}

function sql(url: string, password: string, query: string): Promise<Response> {
  return fetch(`${url}/api/sql`, { method: 'POST', headers: { authorization: `Bearer ${password}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
}

function ddlctl(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [DDLCTL, ...args], { cwd, env: { PATH: process.env.PATH, HOME: cwd, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'npm-start-'));
});
afterAll(async () => {
  await Promise.all(running.map((r) => r.crash()));
  rmSync(cwd, { recursive: true, force: true });
});

describe('npm start --in-memory', () => {
  let a: LocalRuntime;
  let url: string;

  it('answers an authenticated request right after the first 200 from /api/health', async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    a = start(['--in-memory', '--port', String(port)], { DDL_APP_PASSWORD: PASSWORD });
    for (;;) {
      const health = await fetch(`${url}/api/health`).catch(() => undefined);
      if (health?.status === 200) break;
      if (a.child.exitCode !== null) throw new Error(`npm start exited: ${a.stderr()}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const r = await sql(url, PASSWORD, 'SHOW CLUSTERS');
    expect(r.status).toBe(200);
    await a.waitFor(READY);
  });

  it('listens on loopback addresses only: the API, DynamoDB Local and the SQS emulator', () => {
    const sockets = listeningSockets(processTree(a.pid));
    // Every server of the runtime was seen (so the check below looked at them all): the API and
    // the SQS emulator in the node process, DynamoDB Local in the JVM.
    expect(sockets.map((s) => s.port)).toContain(Number(new URL(url).port));
    expect(sockets.filter((s) => s.pid === a.pid).length).toBeGreaterThanOrEqual(2);
    expect(sockets.filter((s) => s.pid !== a.pid).length).toBeGreaterThanOrEqual(1);
    expect(sockets.filter((s) => !s.loopback)).toEqual([]);
  });

  it('keeps its runtime info per instance, and ddlctl finds the running one', async () => {
    const port = await freePort();
    const b = start(['--in-memory', '--port', String(port)]);
    await b.waitFor(READY);
    const files = readdirSync(join(cwd, '.data', 'instances')).sort();
    expect(files).toEqual([`${a.pid}.json`, `${b.pid}.json`].sort());
    // The newest instance is the default; its generated password comes with it.
    const newest = await ddlctl(['sql', '-c', 'SHOW CLUSTERS']);
    expect(newest).toMatchObject({ code: 0, stderr: '' });
    expect(await b.interrupt()).toBe(0);
    // Stopping one leaves the other's file in place, and ddlctl then finds that one.
    expect(readdirSync(join(cwd, '.data', 'instances'))).toEqual([`${a.pid}.json`]);
    const other = await ddlctl(['--url', url, 'sql', '-c', 'SHOW CLUSTERS'], { DDLCTL_PASSWORD: PASSWORD });
    expect(other.code).toBe(0);
    const found = await ddlctl(['check']);
    expect(found.code, found.stderr).toBe(0);
  });

  it('on Ctrl-C answers the requests in flight, stops quietly, and takes the JVM with it', async () => {
    const jvms = processTree(a.pid).filter((p) => p !== a.pid);
    expect(jvms.length).toBeGreaterThan(0);
    const answers: number[] = [];
    const requests = Array.from({ length: 20 }, (_, i) =>
      sql(url, PASSWORD, `CREATE TABLE t${i} (a int)`).then(
        (r) => void answers.push(r.status),
        () => undefined, // sent after the API stopped accepting: refused, not cut
      ),
    );
    await new Promise<void>((r) => {
      const first = setInterval(() => answers.length > 0 && (clearInterval(first), r()), 5);
    });
    expect(await a.interrupt()).toBe(0);
    await Promise.all(requests);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    expect(a.stderr()).toBe('');
    expect(a.stdout()).toMatch(/\nstopping…\n$/);
    expect(existsSync(join(cwd, '.data', 'instances', `${a.pid}.json`))).toBe(false);
    for (const pid of jvms) expect(isAlive(pid), `process ${pid} outlived npm start`).toBe(false);
  });
});

describe('npm start on a data folder', () => {
  let dataDir: string;
  let first: LocalRuntime;
  let firstUrl: string;

  it('prints the banner docs/quickstart.md shows', async () => {
    dataDir = join(cwd, 'data');
    first = start(['--data-dir', dataDir, '--port', String(await freePort())]);
    firstUrl = (await first.waitFor(/Ctrl-C stops everything\.\n/)) && first.stdout().match(READY)![1]!;
    const doc = /```\n(ddl-control-plane is running\n[\s\S]*?)\n```/.exec(readFileSync(QUICKSTART, 'utf8'))?.[1];
    expect(doc, 'docs/quickstart.md shows the banner').toBeDefined();
    const password = readFileSync(join(dataDir, 'bootstrap-app-password'), 'utf8').trim();
    const printed = first
      .stdout()
      .trim()
      .replaceAll(firstUrl, 'http://127.0.0.1:6876')
      .replace(/127\.0\.0\.1:\d+\/materialize/g, '127.0.0.1:6875/materialize')
      .replaceAll(dataDir, '/home/you/ddl-control-plane/.data')
      .replaceAll(password, /ddlp_[0-9a-f]+/.exec(doc!)![0]);
    expect(doc).toBe(printed);
    // The banner's examples work, and work again (rerunnable).
    for (const m of printed.matchAll(/"query": "([^"]+)"/g)) {
      for (let i = 0; i < 2; i++) expect((await sql(firstUrl, password, m[1]!)).status).toBe(200);
    }
    // And its psql line: the connection string of runtime.json, the app password as the password.
    const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as LocalRuntimeInfo;
    expect(first.stdout()).toContain(`PGPASSWORD=${password} psql ${info.pgUrl}`);
    const { stdout } = await promisify(execFile)('psql', ['-X', '-A', '-t', info.pgUrl!, '-c', "SELECT name FROM mz_schemas WHERE name = 'hello'"], { env: { ...process.env, PGPASSWORD: password } });
    expect(stdout.trim().split('\n').at(-1)).toBe('hello');
  });

  it('refuses a second instance on the same folder, saying which one holds it', async () => {
    const second = start(['--data-dir', dataDir, '--port', String(await freePort())]);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(`another npm start (pid ${first.pid}, ${firstUrl}) is already using the data folder ${dataDir}`);
    expect(second.stderr()).toContain('--in-memory');
    // The first one's files are untouched.
    expect((JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as LocalRuntimeInfo).pid).toBe(first.pid);
  });

  it('checks the port before starting anything, and names the option and the variable', async () => {
    const busy: Server = createServer();
    const port = await freePort();
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', r));
    try {
      const other = join(cwd, 'other');
      const r = start(['--data-dir', other, '--port', String(port)]);
      expect(await r.exited).toBe(1);
      expect(r.stderr()).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr()).toMatch(/--port <n>.*PORT variable/);
      expect(r.stderr()).not.toMatch(/\n\s+at /);
      // It stopped before taking the data folder or booting the emulators.
      expect(existsSync(other)).toBe(false);
    } finally {
      busy.close();
    }
  });

  it('after a crash starts again on the folder; a chosen weak password is warned about and replaces the generated one', async () => {
    const generated = readFileSync(join(dataDir, 'bootstrap-app-password'), 'utf8').trim();
    const jvms = processTree(first.pid).filter((p) => p !== first.pid);
    await first.crash();
    // The JVM follows its parent (its stdin closes), leaving the folder to the next instance.
    await expect.poll(() => jvms.filter(isAlive), { timeout: 30_000, interval: 100 }).toEqual([]);
    const again = start(['--data-dir', dataDir, '--port', String(await freePort())], { DDL_APP_PASSWORD: 'hunter2' });
    await again.waitFor(READY);
    const url = again.stdout().match(READY)![1]!;
    expect(again.stderr()).toMatch(/warning: DDL_APP_PASSWORD is easy to guess: it is 7 characters long/);
    expect(again.stdout()).toContain('(from DDL_APP_PASSWORD; earlier bootstrap passwords no longer work)');
    expect((await sql(url, 'hunter2', 'SHOW CLUSTERS')).status).toBe(200);
    expect((await sql(url, generated, 'SHOW CLUSTERS')).status).toBe(401);
    expect(existsSync(join(dataDir, 'bootstrap-app-password'))).toBe(false);
    expect(await again.interrupt()).toBe(0);
    expect(existsSync(join(dataDir, 'instance.lock'))).toBe(false);
  });
});
