/**
 * What the Postgres wire endpoint needs on a public network (its Fargate task, shared/pgwire/task.ts):
 * TLS only, negotiated the PostgreSQL way (SSLRequest, then 'S': what psql, psycopg2, pgjdbc and
 * lib/pq do by default) with a certificate from a secret that is read again for renewals; a health
 * port that turns 503 as the task drains; and a drain that answers the statements in flight, tells
 * idle sessions 57P01 and accepts nobody new. The server is the real one over a stand-in SQL API
 * (as in badinput.test.ts); the certificates are made with openssl.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type PeerCertificate } from 'node:tls';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../shared/api/sql-api';
import type { PgwireConfig } from '../../shared/config';
import { TlsCertificateError } from '../../shared/errors';
import { startPgServer, type PgServer } from '../../shared/pgwire/server';
import { startPgwireTask, type PgwireTask } from '../../shared/pgwire/task';
import { parseTlsCertificateSecret, secretTlsCertificate, type TlsCertificate } from '../../shared/secrets/tls-certificate';
import { fakePasswords, TEST_APP_PASSWORD } from '../helpers/pgwire';

const PASSWORD = TEST_APP_PASSWORD;
const logger = new Logger({ serviceName: 'pgwire-task-test', logLevel: 'SILENT' });

const passwords = fakePasswords;

/** Answers every statement `ok`; a statement waits for `gate` when one is set (a statement in flight). */
function fakeApi(o: { gate?: () => Promise<void> } = {}) {
  return {
    async run(_t: string, _p: string, statements: readonly { statement: { kind: string } }[]): Promise<ApiResponse> {
      await o.gate?.();
      return { status: 200, body: { results: statements.map(() => ({ ok: 'CREATE SCHEMA', notices: [] })) } };
    },
  };
}

/** Once armed, the next statement waits (in flight) until released; `entered` says it has reached the SQL API. */
function holdNextStatement() {
  let armed = false;
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  const held = new Promise<void>((r) => (release = r));
  return {
    arm: () => (armed = true),
    entered,
    release: () => release(),
    gate: () => {
      if (!armed) return Promise.resolve();
      enter();
      return held;
    },
  };
}

/** A self-signed certificate for `name` with its key, PEM (openssl, as a deployer would make a test one). */
function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const [keyFile, certFile] = [join(dir, `${name}.key`), join(dir, `${name}.crt`)];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${name}`], { stdio: 'ignore' });
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

// Made when the file loads: the bad-secret cases below are listed with them.
const dir = mkdtempSync(join(tmpdir(), 'pgwire-tls-'));
const first = makeCertificate(dir, 'first.example.com');
const second = makeCertificate(dir, 'second.example.com');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: PgServer | undefined;
let task: PgwireTask | undefined;
afterEach(async () => {
  await server?.close();
  await task?.stop();
  server = undefined;
  task = undefined;
});

const client = (port: number, extra: Partial<pg.ClientConfig> = {}) =>
  new pg.Client({ host: '127.0.0.1', port, user: 'materialize', password: PASSWORD, options: '--tenant=t1', ssl: { rejectUnauthorized: false }, ...extra });

/** The certificate a new session is served: SSLRequest, 'S', then the TLS handshake (no verification). */
async function servedCertificate(port: number): Promise<PeerCertificate> {
  const socket = connectTcp(port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]));
  const answer = await new Promise<Buffer>((r) => socket.once('data', r));
  expect(answer.toString()).toBe('S');
  const tls = connectTls({ socket, rejectUnauthorized: false });
  await new Promise<void>((r) => tls.once('secureConnect', () => r()));
  const cert = tls.getPeerCertificate();
  tls.destroy();
  return cert;
}

/** psql as the deployed endpoint's users run it (libpq's own SSLRequest negotiation). */
async function psql(port: number, sslmode: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      'psql',
      ['-X', '-A', '-t', '-c', 'CREATE SCHEMA s', `host=127.0.0.1 port=${port} user=materialize dbname=materialize options=--tenant=t1 sslmode=${sslmode}`],
      { env: { ...process.env, PGPASSWORD: PASSWORD, PGCONNECT_TIMEOUT: '20' } },
      (error, out, err) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

describe('TLS only (requireTls)', () => {
  it('psql with sslmode=require connects through the SSLRequest negotiation; sslmode=disable is refused with 28000', async () => {
    // Prepare
    server = await startPgServer({ api: fakeApi(), passwords, logger, port: 0, tls: first, requireTls: true });

    // Act
    const tls = await psql(server.port, 'require');
    const plain = await psql(server.port, 'disable');

    // Assess
    expect(tls.err).not.toMatch(/ERROR|FATAL/);
    expect(tls.code).toBe(0);
    expect(tls.out.trim()).toBe('CREATE SCHEMA');
    expect(plain.code).not.toBe(0);
    expect(plain.err).toMatch(/FATAL: {2}this server accepts TLS connections only: connect with sslmode=require/);
  });

  it('node-postgres over TLS runs statements; without TLS it gets 28000 and no password is asked for', async () => {
    // Prepare
    server = await startPgServer({ api: fakeApi(), passwords, logger, port: 0, tls: first, requireTls: true });
    const secure = client(server.port);
    const plain = client(server.port, { ssl: false });

    // Act
    await secure.connect();
    const r = await secure.query('CREATE SCHEMA s');
    const refused = await plain.connect().then(() => undefined, (e: { code?: string }) => e);
    await secure.end();

    // Assess
    expect(r.command).toBe('CREATE');
    expect(refused?.code).toBe('28000');
  });

  it('refuses to start with requireTls and no certificate', async () => {
    // Act + Assess
    await expect(startPgServer({ api: fakeApi(), passwords, logger, port: 0, requireTls: true })).rejects.toThrow('requireTls needs a certificate');
  });

  it('setTls serves a new certificate to new sessions', async () => {
    // Prepare
    server = await startPgServer({ api: fakeApi(), passwords, logger, port: 0, tls: first, requireTls: true });
    const before = await servedCertificate(server.port);

    // Act
    server.setTls(second);
    const after = await servedCertificate(server.port);

    // Assess
    expect(before.subject.CN).toBe('first.example.com');
    expect(after.subject.CN).toBe('second.example.com');
  });
});

describe('drain', () => {
  it('answers the statement in flight, then closes its session with 57P01; an idle session is closed at once; nobody new gets in', async () => {
    // Prepare
    const hold = holdNextStatement();
    server = await startPgServer({ api: fakeApi({ gate: hold.gate }), passwords, logger, port: 0, tls: first, requireTls: true });
    const busy = client(server.port);
    const idle = client(server.port);
    const idleErrors: { code?: string }[] = [];
    const busyErrors: { code?: string }[] = [];
    idle.on('error', (e) => idleErrors.push(e as { code?: string }));
    busy.on('error', (e) => busyErrors.push(e as { code?: string }));
    await busy.connect();
    await idle.connect();
    hold.arm();
    const inFlight = busy.query('CREATE SCHEMA s');
    await hold.entered;

    // Act
    const drained = server.drain(10_000);
    const idleClosed = new Promise<void>((r) => idle.on('end', () => r()));
    await idleClosed;
    const newcomer = await client(server.port).connect().then(() => undefined, (e: { code?: string }) => e);
    hold.release();
    const answer = await inFlight;
    await drained;

    // Assess
    // (node-postgres then reports the closed socket too, as it does after PostgreSQL's own 57P01.)
    expect(idleErrors[0]?.code).toBe('57P01');
    expect(answer.command).toBe('CREATE');
    expect(newcomer?.code).toBe('ECONNREFUSED');
    await expect.poll(() => busyErrors[0]?.code).toBe('57P01');
    expect(server.connections).toBe(0);
  });

  it('closes what is still open at the deadline', async () => {
    // Prepare
    server = await startPgServer({ api: fakeApi({ gate: () => new Promise(() => undefined) }), passwords, logger, port: 0, tls: first, requireTls: true });
    const stuck = client(server.port);
    stuck.on('error', () => undefined);
    await stuck.connect();
    void stuck.query('CREATE SCHEMA s').catch(() => undefined);
    await expect.poll(() => server!.connections).toBe(1);

    // Act
    const t0 = Date.now();
    await server.drain(300);

    // Assess
    expect(server.connections).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

describe('startPgwireTask', () => {
  const config: PgwireConfig = { port: 0, healthPort: 0, tlsSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:t-AbCdEf', drainSeconds: 10, maxConnections: 10 };
  const health = async (t: PgwireTask) => {
    const r = await fetch(`http://127.0.0.1:${t.healthPort}/health`);
    return { status: r.status, body: (await r.json()) as { status: string; connections: number } };
  };

  it('GET /health is 200 while it serves and 503 once it drains; stop() waits for the statement in flight', async () => {
    // Prepare
    const hold = holdNextStatement();
    task = await startPgwireTask({ api: fakeApi({ gate: hold.gate }), passwords, logger, config, host: '127.0.0.1', certificate: async () => parsed(first) });
    const c = client(task.port);
    c.on('error', () => undefined);
    await c.connect();
    const serving = await health(task);
    hold.arm();
    const inFlight = c.query('CREATE SCHEMA s');
    await hold.entered;

    // Act
    const stopped = task.stop();
    const draining = await health(task);
    hold.release();
    const answer = await inFlight;
    await stopped;

    // Assess
    expect(serving).toEqual({ status: 200, body: { status: 'ok', connections: 1 } });
    expect(draining.status).toBe(503);
    expect(draining.body.status).toBe('draining');
    expect(answer.command).toBe('CREATE');
    await expect(fetch(`http://127.0.0.1:${task.healthPort}/health`)).rejects.toThrow();
  });

  it('does not start without a usable certificate', async () => {
    // Act + Assess
    await expect(
      startPgwireTask({ api: fakeApi(), passwords, logger, config, host: '127.0.0.1', certificate: async () => parseTlsCertificateSecret('arn:x', 'not json') }),
    ).rejects.toBeInstanceOf(TlsCertificateError);
  });

  it('reads the certificate again: a failed read keeps the one in use, a renewed one is served to new sessions', async () => {
    // Prepare: what the secret holds now, and how many reads saw it
    let now: 'first' | 'unreadable' | 'second' = 'first';
    const reads = { first: 0, unreadable: 0, second: 0 };
    const certificate = async () => {
      reads[now]++;
      if (now === 'unreadable') throw new TlsCertificateError('arn:x', 'could not be read (AccessDeniedException)');
      return parsed(now === 'first' ? first : second);
    };
    task = await startPgwireTask({ api: fakeApi(), passwords, logger, config, host: '127.0.0.1', tlsRefreshMs: 50, certificate });
    const atStart = (await servedCertificate(task.port)).subject.CN;

    // Act
    now = 'unreadable';
    await expect.poll(() => reads.unreadable, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    const afterFailedReads = (await servedCertificate(task.port)).subject.CN;
    now = 'second';
    await expect.poll(() => reads.second, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const afterRenewal = (await servedCertificate(task.port)).subject.CN;

    // Assess
    expect([atStart, afterFailedReads, afterRenewal]).toEqual(['first.example.com', 'first.example.com', 'second.example.com']);
  });
});

describe('the TLS secret', () => {
  const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pgwire-tls-AbCdEf';
  const text = (o: object) => JSON.stringify(o);

  it('is {"certificate", "privateKey"} in PEM: the subject and expiry come back with them', () => {
    // Act
    const c = parseTlsCertificateSecret(ARN, text({ certificate: first.cert, privateKey: first.key }));

    // Assess
    expect(c.subject).toBe('CN=first.example.com');
    expect(c.notAfter.getTime()).toBeGreaterThan(Date.now());
    expect(c.key).toBe(first.key);
  });

  it.each([
    ['no SecretString', undefined, /has no SecretString/],
    ['not JSON (a bare key)', first.key, /is not JSON/],
    ['a field missing', text({ certificate: first.cert }), /must have the string fields "certificate" and "privateKey"/],
    ['a certificate that is not PEM', text({ certificate: 'MIIB...', privateKey: first.key }), /"certificate" is not a PEM certificate/],
    ['a key that is not PEM', text({ certificate: first.cert, privateKey: 'secret' }), /"privateKey" is not an unencrypted PEM private key/],
    ['the key of another certificate', text({ certificate: first.cert, privateKey: second.key }), /"privateKey" is not the key of the first certificate/],
  ])('refuses %s, naming the secret and never the key', (_case, secretText, message) => {
    // Act
    let error: unknown;
    try {
      parseTlsCertificateSecret(ARN, secretText);
    } catch (e) {
      error = e;
    }

    // Assess
    expect(error).toBeInstanceOf(TlsCertificateError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(ARN);
    for (const key of [first.key, second.key]) expect((error as Error).message).not.toContain(key.split('\n')[1]);
  });

  it('a failed read names the secret and the reason', async () => {
    // Prepare
    const reader = { readSecretString: async () => Promise.reject(Object.assign(new Error('User is not authorized'), { name: 'AccessDeniedException' })) };

    // Act + Assess
    await expect(secretTlsCertificate(reader, ARN)()).rejects.toThrow(`TLS certificate secret ${ARN}: could not be read (AccessDeniedException: User is not authorized)`);
  });
});

function parsed(c: { cert: string; key: string }): TlsCertificate {
  return parseTlsCertificateSecret('arn:test', JSON.stringify({ certificate: c.cert, privateKey: c.key }));
}
