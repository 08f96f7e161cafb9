/**
 * ddlctl end to end: the real CLI (`node cli/ddlctl.mjs`, a child process) against a test
 * pipeline, pointed at it with --url and DDLCTL_PASSWORD, or with a runtime.json written for it
 * (--runtime) as `npm start` writes one. HOME is a fresh folder: no user config or history leaks in.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_URL } from '../../cli/connection';
import { freePort } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import type { LocalRuntimeInfo } from '../../local/runtime-info';
import { StatusStore } from '../../shared/catalog/status-store';
import { ScriptedProber } from '../../shared/probes/fake';
import { transition } from '../../shared/status/transition';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { runDdlctl } from '../helpers/ddlctl';
import { dynamodbEndpoint } from '../helpers/endpoints';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../cli/ddlctl.mjs');
const REDIRECT_HOST = pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../helpers/redirect-host.mjs')).href;
/** A small retry budget so an effect reaches the DLQ in seconds (see test/executor/effects.test.ts). */
const FAST = { name: 'executor.compute', initialDelayMs: 0, factor: 2, capMs: 0, budget: 3 };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const prober = new ScriptedProber();
let p: Pipeline;
let home: string;
let runtimeFile: string;
let password: string;
let tenant: string;
let sql: SqlClient;

function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ...extra };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/** Runs ddlctl; `until` ends a long-running command (SIGINT) once its output matches. */
function ddlctl(args: string[], o: { env?: Record<string, string | undefined>; input?: string; cwd?: string; until?: RegExp; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: o.cwd ?? home,
      env: baseEnv({ DDLCTL_PASSWORD: password, ...o.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ddlctl ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, o.timeoutMs ?? 45_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (o.until?.test(stdout)) child.kill('SIGINT');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** ddlctl against the test pipeline's URL. */
const run = (args: string[], o: Parameters<typeof ddlctl>[1] = {}) => ddlctl(['--url', p.url!, ...args], o);
/** ddlctl against the test pipeline's runtime.json (the operator commands). */
const admin = (args: string[], o: Parameters<typeof ddlctl>[1] = {}) => ddlctl(['--runtime', runtimeFile, ...args], o);

async function settled(): Promise<void> {
  await eventually(async () => {
    const r = await sql("SELECT effect_id FROM mz_internal.mz_pending_effects WHERE state = 'pending'");
    return r.body.results[0].rows.length === 0;
  }, 15_000);
}

beforeAll(async () => {
  p = await testPipeline('cli', { prober, retryPolicyOverrides: { compute: FAST } });
  ({ sql, password, tenant } = await sqlClient(p));
  home = mkdtempSync(join(tmpdir(), 'ddlctl-'));
  runtimeFile = join(home, 'runtime.json');
  const info: LocalRuntimeInfo = {
    pid: process.pid,
    url: p.url!,
    dynamodbEndpoint: dynamodbEndpoint(),
    sqsEndpoint: inject('sqsEndpoint'),
    region: p.config.region,
    config: p.config,
    secretsTable: p.secretsTable,
    startedAt: new Date().toISOString(),
  };
  writeFileSync(runtimeFile, JSON.stringify(info));
});
afterAll(async () => {
  await p.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('ddlctl sql', () => {
  it('-c --wait runs a statement and waits for its effects; a SELECT prints an aligned table', async () => {
    const created = await run(['sql', '--wait', '-c', "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)"]);
    expect(created).toMatchObject({ code: 0, stdout: 'CREATE CLUSTER\n' });
    expect(created.stderr).toMatch(/effects applied/);
    // --wait returned only once the replicas were provisioned.
    const online = await sql("SELECT status FROM mz_internal.mz_cluster_replica_statuses");
    expect(online.body.results[0].rows).toEqual([['online'], ['online']]);

    const r = await run(['sql', '-c', 'SELECT name, size FROM mz_cluster_replicas ORDER BY name']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe([' name | size', '------+------', ' r1   | 25cc', ' r2   | 25cc', '(2 rows)', ''].join('\n'));
  });

  it('--json prints the response as the API sent it', async () => {
    const r = await run(['sql', '--json', '-c', "SELECT name FROM mz_clusters WHERE name = 'c'"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      results: [{ tag: 'SELECT 1', rows: [['c']], desc: { columns: [{ name: 'name', type_oid: 25, type_len: -1, type_mod: -1 }] }, notices: [] }],
    });
  });

  it('draws a caret under the error position, counting characters in multi-byte text', async () => {
    const line2 = "CREATE CLUSTER ünïcødé (SIZE = '25cc') FROBNICATE";
    const r = await run(['sql', '-c', `SHOW CLUSTERS;\n${line2}`]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(/^ERROR: {2}.*frobnicate.*\(SQLSTATE 42601\)$/);
    expect(lines[1]).toBe(`LINE 2: ${line2}`);
    expect(lines[2]).toBe(`${' '.repeat('LINE 2: '.length + line2.indexOf('FROBNICATE'))}^`);
    // Nothing of the request committed.
    expect((await sql("SELECT name FROM mz_clusters WHERE name = 'ünïcødé'")).body.results[0].rows).toEqual([]);
  });

  it('reads a script from stdin: statements over several lines, quotes holding ;', async () => {
    const r = await run(['sql'], { input: "SELECT name\n  FROM mz_clusters\n  WHERE name = 'a;b';\n-- a comment\nSHOW CLUSTERS\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(' name\n------\n(0 rows)');
    expect(r.stdout).toMatch(/ c +\| r1 \(25cc\), r2 \(25cc\)/);
  });

  it('--wait reports effects that end dead-lettered, and exits 1', async () => {
    p.faults.failNext(FAST.budget, 'transient', 'replica quota exceeded in us-east-1a');
    const r = await run(['sql', '--wait', '--timeout', '30', '-c', "CREATE CLUSTER dl (SIZE = '25cc')"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('CREATE CLUSTER\n');
    expect(r.stderr).toMatch(/dead-lettered after 3 attempts: ensure compute\.replica of r1 .*replica quota exceeded in us-east-1a/);
  });
});

describe('ddlctl effects', () => {
  it('lists the dead-lettered effect; redrive moves it back and it applies', async () => {
    const listed = await run(['effects']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/DEAD-LETTERED \(1\)\n.*\n.*\n r1 +\| ensure compute\.replica \| 1 +\| 3 /);
    expect(listed.stdout).toContain('0 pending, 0 failed, 1 dead-lettered');

    // The executor marks the effect before SQS moves the message: wait for the DLQ to hold it.
    await eventually(async () => {
      const a = await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.dlqUrls.compute, AttributeNames: ['ApproximateNumberOfMessages'] }));
      return a.Attributes?.ApproximateNumberOfMessages === '1';
    }, 15_000);
    const redriven = await admin(['effects', 'redrive', '--controller', 'compute']);
    expect(redriven.code).toBe(0);
    expect(redriven.stdout).toContain('compute: 1 message moved from the DLQ back to the queue');
    await settled();
    const after = await run(['effects']);
    expect(after.stdout).toContain('0 pending, 0 failed, 0 dead-lettered');
  });

  it('shows a failed effect with its error', async () => {
    p.faults.failNext(1, 'terminal', 'size 25cc is not offered in this region');
    const r = await run(['sql', '--wait', '-c', "CREATE CLUSTER bad (SIZE = '25cc')"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed: ensure compute\.replica of r1 \(generation 1\): size 25cc is not offered in this region/);
    const listed = await run(['effects', '--json']);
    const groups = JSON.parse(listed.stdout);
    expect(groups.failed).toHaveLength(1);
    expect(groups.failed[0]).toMatchObject({ object_name: 'r1', last_error: 'size 25cc is not offered in this region' });
    await sql('DROP CLUSTER bad CASCADE');
    await settled();
  });
});

describe('ddlctl status', () => {
  it('shows sources running, then stalled with the error, then the last error once recovered', async () => {
    const created = await sql(
      [
        "CREATE SECRET pgpass AS 'hunter2'",
        "CREATE CONNECTION pg TO POSTGRES (HOST 'pg.cli.test', USER 'u', PASSWORD SECRET pgpass, DATABASE 'shop')",
        "CREATE SOURCE shop IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (public.orders AS orders)",
      ].join('; '),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await settled();
    await p.reportHealth();
    let r = await run(['status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/SOURCES \(2\)\n name +\| type +\| status +\| since +\| error\n/);
    expect(r.stdout).toMatch(/ shop +\| postgres +\| running +\|/);
    expect(r.stdout, r.stdout).toMatch(/REPLICAS \(\d\)[\s\S]* c +\| r1 +\| u\w+ +\| 25cc +\| online/);

    prober.set('pg.cli.test', { ok: false, namespace: 'postgres', error: 'error connecting to server: Connection refused (os error 111)' });
    await p.reportHealth();
    r = await run(['status']);
    expect(r.stdout).toMatch(/ shop +\| postgres +\| stalled +\| \d+s ago +\| postgres: error connecting to server: Connection refused \(os error 111\)/);
    expect(r.stdout).toMatch(/\d+ not healthy/);
    expect(r.code, 'status exits 1 while something is not healthy').toBe(1);

    prober.delete('pg.cli.test');
    await p.reportHealth();
    r = await run(['status']);
    expect(r.stdout).toMatch(/ shop +\| postgres +\| running +\| \d+s ago +\| last error \d+s ago: postgres: error connecting to server/);
  });

  it('--watch redraws until interrupted', async () => {
    const r = await run(['status', '--watch', '--interval', '0.2'], { until: /REPLICAS[\s\S]*REPLICAS/ });
    expect(r.code).toBe(0);
    expect(r.stdout.match(/Ctrl-C to stop/g)!.length).toBeGreaterThanOrEqual(2);
  });
});

describe('ddlctl check', () => {
  it('exits 0 when catalog, outbox and data plane agree', async () => {
    const r = await admin(['check', '--tenant', tenant]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/checked 1 tenant\n/);
    expect(r.stdout).toMatch(/ orphans +\| 0 /);
    expect(r.stdout).toContain('clean: catalog, outbox and data plane agree');
  });

  it('exits 1 and names the problem when the data plane holds an orphan', async () => {
    const other = await sqlClient(p);
    await p.dataPlane.ensure('replica', { tenant: other.tenant, objectId: 'u0000000000ff', objectKind: 'replica', objectName: 'ghost' }, 1, { clusterId: 'u0000000000fe', size: '25cc' } as never);
    const r = await admin(['check', '--tenant', other.tenant]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ orphans +\| 1 /);
    expect(r.stdout).toContain(`${other.tenant}: orphans: replica u0000000000ff (ghost) has no live owner`);
    expect(r.stdout).toContain('NOT clean');
    const json = JSON.parse((await admin(['check', '--tenant', other.tenant, '--json'])).stdout);
    expect(json).toMatchObject({ tenants: 1, clean: false, counts: { orphans: 1 } });
  });

  it('exits 1 and names a connector status at a generation its object never had', async () => {
    const other = await sqlClient(p);
    await other.sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE ticks IN CLUSTER c FROM LOAD GENERATOR COUNTER");
    const id = (await other.sql("SELECT id FROM mz_sources WHERE name = 'ticks'")).body.results[0].rows[0][0] as string;
    const store = new StatusStore(p.clients.doc, p.config.catalogTable);
    const prev = await eventually(async () => {
      const s = await store.get(other.tenant, id);
      return s?.status === 'running' ? s : undefined;
    }, 15_000);
    // What a report from a generation nobody issued left before such reports were refused.
    const forged = transition(prev, { kind: 'source', dropped: false, generation: 1000, resourcePresent: true, replicas: 1, report: { status: 'failed', error: 'forged', details: null } }, new Date().toISOString());
    expect(await store.apply(other.tenant, { id, kind: 'source', name: 'ticks' }, forged, prev.version, { reportGeneration: 1000, reportSequence: 1 })).toBe(true);
    await eventually(async () => (await other.sql("SELECT effect_id FROM mz_internal.mz_pending_effects WHERE state = 'pending'")).body.results[0].rows.length === 0, 15_000);

    const r = await admin(['check', '--tenant', other.tenant]);

    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ statusesAhead +\| 1 /);
    expect(r.stdout).toContain(`${other.tenant}: statusesAhead: source ticks (${id}): status at generation 1000, the catalog at ${prev.generation}`);
  });

  it('without a runtime or --table says how to get one (exit 2)', async () => {
    const r = await ddlctl(['check'], { cwd: home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ddlctl check needs the local runtime: none running was found in .*runtime.json.*Start it with `npm start`/);
  });
});

describe('ddlctl tenant and password', () => {
  it('creates a tenant whose password works, adds a password, and refuses duplicates and unknown tenants', async () => {
    const name = `cli${Date.now().toString(36)}`;
    const created = await admin(['tenant', 'create', name]);
    expect(created.code).toBe(0);
    const first = created.stdout.trim();
    expect(first).toMatch(/^ddlp_[0-9a-f]{80}$/);
    expect(created.stderr).toContain(`created tenant ${name}`);

    const second = (await admin(['password', 'create', name])).stdout.trim();
    expect(second).toMatch(/^ddlp_/);
    expect(second).not.toBe(first);
    for (const pw of [first, second]) {
      const r = await run(['sql', '-c', 'SHOW CLUSTERS'], { env: { DDLCTL_PASSWORD: pw } });
      expect(r).toMatchObject({ code: 0, stdout: ' name | replicas | comment\n------+----------+---------\n(0 rows)\n' });
    }

    expect((await admin(['tenant', 'create', name])).stderr).toContain(`tenant ${name} already exists`);
    const unknown = await admin(['password', 'create', `${name}-nope`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no tenant ${name}-nope`);
    expect((await admin(['tenant', 'create', 'Bad Name'])).code).toBe(64);
  });
});

describe('against a deployed stack (--table and AWS credentials; the emulators stand in for AWS)', () => {
  /** What an operator's shell has: credentials, a region, and (here) the SDK's standard endpoint variables. */
  const aws = () => ({
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: p.config.region,
    AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint(),
    AWS_ENDPOINT_URL_SQS: inject('sqsEndpoint'),
  });

  it('tenant create, password create, check and redrive take the table and queues from flags', async () => {
    const name = `aws${Date.now().toString(36)}`;
    const created = await ddlctl(['tenant', 'create', name, '--table', p.config.catalogTable], { env: aws() });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`in table ${p.config.catalogTable} in ${p.config.region}`);
    const pw = (await ddlctl(['password', 'create', name, '--table', p.config.catalogTable], { env: aws() })).stdout.trim();
    expect((await run(['sql', '-c', 'SHOW CLUSTERS'], { env: { DDLCTL_PASSWORD: pw } })).code).toBe(0);

    const checked = await ddlctl(['check', '--table', p.config.catalogTable, '--dataplane-table', p.config.dataPlaneTable!, '--tenant', name], { env: aws() });
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('clean: catalog, outbox and data plane agree');
    const noDataPlane = await ddlctl(['check', '--table', p.config.catalogTable], { env: aws() });
    expect(noDataPlane.code).toBe(64);
    expect(noDataPlane.stderr).toContain('--dataplane-table');

    const redriven = await ddlctl(['effects', 'redrive', '--table', p.config.catalogTable, '--controller', 'storage', '--queue-url', p.config.queueUrls.storage, '--dlq-url', p.dlqUrls.storage], { env: aws() });
    expect(redriven.code).toBe(0);
    expect(redriven.stdout).toContain('storage: 0 messages moved');
    const fromEnv = await ddlctl(['effects', 'redrive', '--table', p.config.catalogTable], {
      env: { ...aws(), QUEUE_URL_SECRETS: p.config.queueUrls.secrets, DLQ_URL_SECRETS: p.dlqUrls.secrets },
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toContain('secrets: 0 messages moved');
    expect(fromEnv.stderr).toContain('skipped compute, storage: no queue URLs');
  });
});

describe('connection', () => {
  it('needs no flags locally: the url from runtime.json and the bootstrap password from the data folder', async () => {
    const dir = mkdtempSync(join(home, 'cwd-'));
    mkdirSync(join(dir, '.data'));
    writeFileSync(join(dir, '.data', 'runtime.json'), readFileSync(runtimeFile));
    writeFileSync(join(dir, '.data', 'bootstrap-app-password'), `${password}\n`);
    const r = await ddlctl(['sql', '-c', 'SELECT name FROM mz_clusters ORDER BY name'], { cwd: dir, env: { DDLCTL_PASSWORD: undefined } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(' c\n');
  });

  it('finds an in-memory instance (and its password) when the data folder has no live runtime.json', async () => {
    const dir = mkdtempSync(join(home, 'cwd-'));
    mkdirSync(join(dir, '.data', 'instances'), { recursive: true });
    const info = JSON.parse(readFileSync(runtimeFile, 'utf8')) as LocalRuntimeInfo;
    // A runtime.json left by a process that is gone, and an in-memory instance that runs (this one).
    writeFileSync(join(dir, '.data', 'runtime.json'), JSON.stringify({ ...info, pid: 2 ** 22 + 1, url: 'http://127.0.0.1:1' }));
    writeFileSync(join(dir, '.data', 'instances', `${process.pid}.json`), JSON.stringify({ ...info, bootstrapPassword: password }));
    const r = await ddlctl(['sql', '-c', 'SELECT name FROM mz_clusters ORDER BY name'], { cwd: dir, env: { DDLCTL_PASSWORD: undefined } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(' c\n');
    const checked = await ddlctl(['check', '--tenant', tenant], { cwd: dir });
    expect(checked.code).toBe(0);
  });

  it('says where it looked for a running npm start and how to point it elsewhere', async () => {
    const dir = mkdtempSync(join(home, 'cwd-'));
    const closed = await freePort();
    const down = await ddlctl(['sql', '-c', 'SHOW CLUSTERS'], { cwd: dir, env: { DDLCTL_URL: `http://127.0.0.1:${closed}` } });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`cannot reach http://127.0.0.1:${closed} (from DDLCTL_URL)`);
    const admin = await ddlctl(['check'], { cwd: dir });
    expect(admin.code).toBe(2);
    expect(admin.stderr).toContain(`none running was found in ${join(dir, '.data', 'runtime.json')} or ${join(dir, '.data', 'instances', '<pid>.json')}`);
    expect(admin.stderr).toContain('--data-dir');
  });

  it('finding no server, sql -c and status say what they looked for and how to point them (exit 2)', async () => {
    // Nothing listens where the default URL's requests go (see redirect-host.mjs for why not 6876 itself).
    const closed = await freePort();
    const nothingThere = { preload: [REDIRECT_HOST], env: { REDIRECT_HOST_FROM: new URL(DEFAULT_URL).host, REDIRECT_HOST_TO: `127.0.0.1:${closed}` } };
    // A folder with no .data at all (ddlctl run from elsewhere), and a checkout whose npm start
    // is gone with its runtime.json, the bootstrap password left behind.
    const elsewhere = mkdtempSync(join(home, 'cwd-'));
    const stopped = mkdtempSync(join(home, 'cwd-'));
    mkdirSync(join(stopped, '.data'));
    writeFileSync(join(stopped, '.data', 'bootstrap-app-password'), `${password}\n`);
    const cases = [elsewhere, stopped].flatMap((cwd) => [['sql', '-c', 'SHOW CLUSTERS'], ['status']].map((args) => ({ cwd, args })));
    const runs = await Promise.all(cases.map(({ cwd, args }) => runDdlctl(args, { ...nothingThere, cwd })));
    cases.forEach(({ cwd, args }, i) => {
      const r = runs[i]!;
      const what = `ddlctl ${args[0]} in ${cwd === stopped ? 'a checkout without runtime.json' : 'a folder without .data'}`;
      expect(r.code, what).toBe(2);
      expect(r.stdout, what).toBe('');
      expect(r.stderr, what).toContain(DEFAULT_URL);
      expect(r.stderr, what).toContain(`no running npm start found in ${join(cwd, '.data', 'runtime.json')} or ${join(cwd, '.data', 'instances', '<pid>.json')}`);
      expect(r.stderr, what).toContain('Point ddlctl at it with --url http://127.0.0.1:<port> (or DDLCTL_URL)');
      if (cwd === stopped) expect(r.stderr, what).toContain('ECONNREFUSED');
    });
  });

  it('reads url and password from ~/.config/ddlctl/config.json', async () => {
    mkdirSync(join(home, '.config', 'ddlctl'), { recursive: true });
    writeFileSync(join(home, '.config', 'ddlctl', 'config.json'), JSON.stringify({ url: p.url, password }));
    try {
      const r = await ddlctl(['sql', '-c', 'SHOW CLUSTERS'], { env: { DDLCTL_PASSWORD: undefined } });
      expect(r.code).toBe(0);
    } finally {
      rmSync(join(home, '.config'), { recursive: true, force: true });
    }
  });

  it('exits 2 with a message for a wrong password, an unreachable API, or no password at all', async () => {
    const wrong = await run(['sql', '-c', 'SHOW CLUSTERS'], { env: { DDLCTL_PASSWORD: 'ddlp_nope' } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/refused the app password from DDLCTL_PASSWORD \(HTTP 401\)/);

    const closed = await freePort();
    const down = await ddlctl(['--url', `http://127.0.0.1:${closed}`, 'status']);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`cannot reach http://127.0.0.1:${closed} (from --url): ECONNREFUSED`);
    expect(down.stderr).toContain('Point ddlctl at it with --url');

    const none = await ddlctl(['--url', 'https://api.example.invalid', 'status'], { env: { DDLCTL_PASSWORD: undefined } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no app password for https:\/\/api\.example\.invalid: set DDLCTL_PASSWORD/);
  });
});
