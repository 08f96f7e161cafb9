/**
 * The pgwire container's entry as ECS runs it, minus Docker: the image directory staged at synth
 * (cdk/constructs/pgwire-service.ts `stagePgwireImage`: the esbuild bundle, PGlite's WebAssembly
 * beside its chunk), started with `node index.mjs` and the task's environment, on the real
 * emulators. It reads its TLS certificate from "Secrets Manager" (a one-secret stand-in over HTTP,
 * reached through the SDK's standard AWS_ENDPOINT_URL_SECRETS_MANAGER: there is no emulator), checks
 * app passwords against the catalog table (SCRAM with a tenant named, cleartext without), runs DDL
 * and catalog queries through the DDL function's SqlApi, and drains on SIGTERM.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PGWIRE_ENTRY, stagePgwireImage } from '../../cdk/constructs/pgwire-service';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { configToEnv } from '../../shared/config';
import { ENV } from '../../shared/definitions';
import { dynamodbEndpoint } from '../helpers/endpoints';
import { eventually, rows, sqlClient, testPipeline } from '../helpers/pipeline';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:pgwire-tls-AbCdEf';

let p: Pipeline;
let tenant: string;
let password: string;
let http: Awaited<ReturnType<typeof sqlClient>>['sql'];
let dir: string;
let secrets: Server;
let child: ChildProcess;
let output = '';
let exited: Promise<number | null>;
let pgPort: number;
let healthPort: number;

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Secrets Manager's GetSecretValue (JSON 1.1 protocol) for one secret; anything else is refused as the service would. */
function fakeSecretsManager(secretString: string): Promise<Server> {
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const input = JSON.parse(body || '{}') as { SecretId?: string };
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target === 'secretsmanager.GetSecretValue' && input.SecretId === SECRET_ARN) {
        res.end(JSON.stringify({ ARN: SECRET_ARN, Name: 'pgwire-tls', SecretString: secretString, VersionId: 'v1', VersionStages: ['AWSCURRENT'] }));
        return;
      }
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

beforeAll(async () => {
  p = await testPipeline('pgwire-container', { workers: false });
  ({ sql: http, tenant, password } = await sqlClient(p));
  dir = mkdtempSync(join(tmpdir(), 'pgwire-container-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt'), '-days', '30', '-subj', '/CN=pgwire.test'], { stdio: 'ignore' });
  secrets = await fakeSecretsManager(JSON.stringify({ certificate: readFileSync(join(dir, 'tls.crt'), 'utf8'), privateKey: readFileSync(join(dir, 'tls.key'), 'utf8') }));
  stagePgwireImage(PGWIRE_ENTRY, join(dir, 'image'), true);
  [pgPort, healthPort] = [await freePort(), await freePort()];
  child = spawn(process.execPath, ['--enable-source-maps', join(dir, 'image', 'app', 'index.mjs')], {
    cwd: join(dir, 'image', 'app'),
    env: {
      PATH: process.env.PATH,
      ...configToEnv(p.config),
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint(),
      AWS_ENDPOINT_URL_SQS: inject('sqsEndpoint'),
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secrets.address() as AddressInfo).port}`,
      [ENV.pgPort]: String(pgPort),
      [ENV.pgwireHealthPort]: String(healthPort),
      [ENV.pgwireTlsSecretArn]: SECRET_ARN,
      [ENV.pgwireDrainSeconds]: '20',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  exited = new Promise((r) => child.on('exit', (code) => r(code)));
  await eventually(async () => (await fetch(`http://127.0.0.1:${healthPort}/health`)).status === 200, 60_000, 200).catch((err: Error) => {
    throw new Error(`${err.message}\n--- task output ---\n${output}`);
  });
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  secrets?.close();
  await p?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function psql(args: string[], conninfo: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile('psql', ['-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...args, conninfo], { env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '30' } }, (error, out, err) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

const conninfo = (extra: string) => `host=127.0.0.1 port=${pgPort} user=materialize dbname=materialize ${extra}`;

describe('the pgwire container entry (node index.mjs from the staged image)', () => {
  it('serves psql over TLS with SCRAM against the catalog: a DDL commits (HTTP sees it) and a catalog query runs in the bundled SQL engine', { timeout: 120_000 }, async () => {
    // Act
    const ddl = await psql(['-c', 'CREATE SCHEMA via_pgwire'], conninfo(`sslmode=require options=--tenant=${tenant}`));
    const read = await psql(['-c', "SELECT name FROM mz_schemas WHERE name = 'via_pgwire'"], conninfo(`sslmode=require options=--tenant=${tenant}`));

    // Assess
    expect(ddl.err, output).not.toMatch(/ERROR|FATAL/);
    expect(ddl.out.trim()).toBe('CREATE SCHEMA');
    expect(read.err, output).not.toMatch(/ERROR|FATAL/);
    expect(read.out.trim()).toBe('via_pgwire');
    expect(await rows(http, "SELECT name FROM mz_schemas WHERE name = 'via_pgwire'")).toEqual([['via_pgwire']]);
  });

  it('takes a cleartext password that names its tenant (inside TLS), refuses a wrong one (28P01) and any session without TLS (28000)', { timeout: 120_000 }, async () => {
    // Act
    const cleartext = await psql(['-c', 'SHOW SCHEMAS'], conninfo('sslmode=require'));
    const wrongPassword = `${password.slice(0, -1)}${password.endsWith('0') ? '1' : '0'}`;
    const wrong = await new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'materialize', password: wrongPassword, ssl: { rejectUnauthorized: false } }).connect().then(
      () => undefined,
      (e: { code?: string }) => e,
    );
    const plain = await psql(['-c', 'SHOW SCHEMAS'], conninfo(`sslmode=disable options=--tenant=${tenant}`));

    // Assess
    expect(cleartext.code, cleartext.err).toBe(0);
    expect(cleartext.out).toMatch(/via_pgwire/);
    expect(wrong?.code).toBe('28P01');
    expect(plain.code).not.toBe(0);
    expect(plain.err).toMatch(/accepts TLS connections only/);
  });

  it('on SIGTERM (an ECS stop): an idle session is told 57P01 and the process exits 0, logging as the functions do', { timeout: 120_000 }, async () => {
    // Prepare
    const idle = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'materialize', password, options: `--tenant=${tenant}`, ssl: { rejectUnauthorized: false } });
    const errors: { code?: string }[] = [];
    idle.on('error', (e) => errors.push(e as { code?: string }));
    await idle.connect();

    // Act
    child.kill('SIGTERM');
    const code = await exited;

    // Assess
    expect(code, output).toBe(0);
    expect(errors[0]?.code).toBe('57P01');
    // Powertools JSON lines, as the functions write them (the service is the logger's own name, as `ddl-api` is the DDL function's).
    const lines = output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; level: string; service: string });
    expect(lines.map((l) => l.message)).toEqual(expect.arrayContaining(['TLS certificate', 'serving', 'stop requested', 'draining', 'stopped']));
    expect(new Set(lines.map((l) => l.service))).toEqual(new Set(['pgwire']));
  });
});
