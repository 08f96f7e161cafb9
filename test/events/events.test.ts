/**
 * Status events end to end on the emulators: status changes written by the executors and the
 * status-ingest function reach the catalog stream, the router publishes them to the local event
 * log (the fake bus) once per transition, even when the whole stream is delivered again; they
 * read back through `GET /api/events` and `ddlctl events`, and `ddlctl restart` restarts a source.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { CHECKPOINT_TABLE, ensureTable } from '../../local/resources';
import { StreamPoller } from '../../local/stream-poller';
import { makeLogger } from '../../shared/lambda/logger';
import { routerHandler } from '../../shared/lambda/router';
import { ScriptedProber } from '../../shared/probes/fake';
import { eventually, sqlClient, testPipeline, uniquePrefix, type SqlClient } from '../helpers/pipeline';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../cli/ddlctl.mjs');
const HOST = 'pg.events.test';

const prober = new ScriptedProber();
let p: Pipeline;
let sql: SqlClient;
let tenant: string;
let password: string;
let home: string;
let sourceId: string;

/** Runs ddlctl; `whilst` runs once it printed `ready`, and Ctrl-C (SIGINT) ends it once its output matches `until`. */
function ddlctl(args: string[], o: { ready?: RegExp; whilst?: () => Promise<void>; until?: RegExp } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [CLI, '--url', p.url!, ...args], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', DDLCTL_PASSWORD: password },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let started = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (o.ready?.test(stdout) && !started) {
        started = true;
        o.whilst?.().catch(reject);
      }
      if (o.until?.test(stdout)) child.kill('SIGINT');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** The tenant's events for the source, as from → to. */
const transitions = () =>
  p.events
    .read(tenant, 0, 1000)
    .filter((e) => e.detail.object_id === sourceId && e.detailType === 'Connector Status Changed')
    .map((e) => `${e.detail.from ?? '∅'} → ${e.detail.to}`);

beforeAll(async () => {
  p = await testPipeline('events', { prober });
  ({ sql, tenant, password } = await sqlClient(p));
  home = mkdtempSync(join(tmpdir(), 'ddlctl-events-'));
  await sql(
    [
      "CREATE CLUSTER c (SIZE = '25cc')",
      "CREATE SECRET pgpass AS 'hunter2'",
      `CREATE CONNECTION pg TO POSTGRES (HOST '${HOST}', USER 'u', PASSWORD SECRET pgpass, DATABASE 'shop')`,
      "CREATE SOURCE shop IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (public.orders AS orders)",
    ].join('; '),
  );
  sourceId = (await sql("SELECT id FROM mz_sources WHERE name = 'shop'")).body.results[0].rows[0][0] as string;
  await eventually(async () => transitions().includes('created → starting'), 15_000);
  await p.reportHealth();
  await eventually(async () => transitions().includes('starting → running'), 15_000);
});
afterAll(async () => {
  await p.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('status events', () => {
  it('one event per transition, with tenant, name, from, to, error and hints', async () => {
    // Act: the upstream goes away; the data plane reports it twice (the same health again).
    prober.set(HOST, { ok: false, namespace: 'postgres', error: 'Connection refused (os error 111)', hint: 'Start the server.' });
    await p.reportHealth();
    await p.reportHealth();
    await eventually(async () => transitions().includes('running → stalled'), 15_000);

    // Assess
    expect(transitions()).toEqual(['∅ → created', 'created → starting', 'starting → running', 'running → stalled']);
    const stalled = p.events.read(tenant, 0, 1000).find((e) => e.detail.to === 'stalled')!;
    expect(stalled).toMatchObject({
      source: 'ddl-control-plane',
      detailType: 'Connector Status Changed',
      detail: { tenant, object_id: sourceId, object_name: 'shop', object_kind: 'source', error: 'postgres: Connection refused (os error 111)', hints: ['Start the server.'] },
    });
    prober.delete(HOST);
    await p.reportHealth();
    await eventually(async () => transitions().at(-1) === 'stalled → running', 15_000);
  });

  it('the whole stream delivered again publishes nothing new', async () => {
    // Prepare: a second mapping on the same stream, from its start (its own checkpoints).
    const before = p.events.all().length;
    const repeats = p.events.repeats;
    const checkpointTable = `${uniquePrefix('replay')}checkpoints`;
    await ensureTable(p.clients.ddb, CHECKPOINT_TABLE, checkpointTable);
    const streamArn = (await p.clients.ddb.send(new DescribeTableCommand({ TableName: p.config.catalogTable }))).Table!.LatestStreamArn!;
    const replay = new StreamPoller({
      streams: p.clients.streams,
      doc: p.clients.doc,
      streamArn,
      checkpointTable,
      handler: routerHandler(p.config, p.clients, makeLogger('replayed-router'), undefined, p.events),
      logger: makeLogger('replayed-mapping'),
    });

    // Act
    replay.start();
    try {
      await eventually(async () => p.events.repeats - repeats >= before, 30_000);
    } finally {
      await replay.stop();
    }

    // Assess
    expect(p.events.all()).toHaveLength(before);
  });

  it('GET /api/events answers the caller’s own events after a position, and refuses a bad one', async () => {
    const get = (query: string, pw = password) => fetch(`${p.url}/api/events${query}`, { headers: { authorization: `Bearer ${pw}` } });
    const all = (await (await get('')).json()) as { events: { seq: number; detail: { tenant: string } }[]; next: number };
    expect(all.events.length).toBeGreaterThanOrEqual(5);
    expect(all.events.every((e) => e.detail.tenant === tenant)).toBe(true);
    expect(all.next).toBe(all.events.at(-1)!.seq);
    const later = (await (await get(`?after=${all.events[2]!.seq}`)).json()) as { events: { seq: number }[] };
    expect(later.events.map((e) => e.seq)).toEqual(all.events.slice(3).map((e) => e.seq));

    const other = await sqlClient(p);
    expect(((await (await get('', other.password)).json()) as { events: unknown[] }).events).toEqual([]);
    const bad = await get('?after=-1');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { message: 'after must be an integer from 0 to 9007199254740991, got "-1"', code: '22023' } });
    expect((await fetch(`${p.url}/api/events`)).status).toBe(401);
  });

  it('ddlctl events prints them, one line each with the error and hints', async () => {
    const r = await ddlctl(['events']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/source {2}shop {2}∅ → created\n/);
    expect(r.stdout).toMatch(/source {2}shop {2}running → stalled {2}postgres: Connection refused \(os error 111\)\n {2}hint: Start the server\.\n/);
    expect(r.stdout).toMatch(/source {2}shop {2}stalled → running\n/);
    const json = (await ddlctl(['events', '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { detail: { to: string; object_kind: string } });
    // The source's own transitions (cluster c's replica going online is an event of its own).
    expect(json.filter((e) => e.detail.object_kind === 'source').map((e) => e.detail.to).slice(0, 4)).toEqual(['created', 'starting', 'running', 'stalled']);
    // A replica is named with its cluster.
    expect(r.stdout).toMatch(/replica {2}c\.r1 {2}∅ → online\n/);
  });

  it('ddlctl events --follow prints what happens while it runs, until Ctrl-C', async () => {
    const r = await ddlctl(['events', '--follow', '--interval', '0.2'], {
      ready: /stalled → running\n/,
      whilst: async () => {
        prober.set(HOST, { ok: false, namespace: 'postgres', error: 'the server went away' });
        await p.reportHealth();
      },
      until: /running → stalled {2}postgres: the server went away\n/,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    prober.delete(HOST);
    await p.reportHealth();
    await eventually(async () => transitions().at(-1) === 'stalled → running', 15_000);
  });

  it('ddlctl restart restarts the source: a new generation goes starting, then running, each an event', async () => {
    const n = transitions().length;
    const r = await ddlctl(['restart', 'shop']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/ALTER SOURCE/);
    expect(r.code).toBe(0);
    // The data plane may report the new generation running as soon as it is applied.
    await eventually(async () => transitions().slice(n).includes('running → starting'), 15_000);
    await p.reportHealth();
    await eventually(async () => transitions().slice(n).at(-1) === 'starting → running', 15_000);
    expect(transitions().slice(n)).toEqual(['running → starting', 'starting → running']);
    const unknown = await ddlctl(['restart', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no source or sink named nope/);
  });

  it('a DROP is one event from the state the source was in, not from nothing, and ddlctl events shows it', async () => {
    const last = transitions().at(-1)!.split(' → ')[1]!;
    expect((await sql('DROP SOURCE shop CASCADE')).status).toBe(200);
    await eventually(async () => transitions().at(-1)?.endsWith('→ dropped'), 15_000);
    expect(transitions().filter((t) => t.endsWith('→ dropped'))).toEqual([`${last} → dropped`]);
    const r = await ddlctl(['events']);
    expect(r.stdout).toContain(`source  shop  ${last} → dropped\n`);
    expect(r.stdout).not.toContain('∅ → dropped');
  });
});
