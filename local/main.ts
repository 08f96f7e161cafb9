/**
 * `npm start`: the whole control plane on this machine, no cloud account and no Docker.
 * DynamoDB Local (catalog persisted under .data/ unless --in-memory) + the SQS emulator + the
 * stream router + the executors + the HTTP API on port 6876.
 */
import { Command } from 'commander';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { acquireDataDirLock, DataDirInUseError, defaultDataDir, instanceFile, runtimeFile, type LocalRuntimeInfo } from './runtime-info';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { generateAppPassword, tokenId, type AppPasswords } from '../shared/auth/app-passwords';
import { JavaMissingError, LOCAL_REGION, startDynamoLocal, startSqsEmulator, type DynamoLocal, type SqsEmulator } from './emulators';
import { EVENTS_FILE, EventLog } from './event-log';
import { startPipeline, type Pipeline } from './pipeline';
import { LOCAL_PROBE_POLICY } from '../shared/probes/addresses';
import { realProber } from '../shared/probes/lazy';
import { loadCorsAllowOrigins } from '../shared/config';
import { CallRecorder } from '../shared/clients/call-recorder';
import { banner, portInUseMessage, weakPasswordReason } from './banner';

// Quiet by default on a terminal; POWERTOOLS_LOG_LEVEL=INFO shows every effect.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const DEFAULT_PORT = 6876;
/** Materialize's SQL port (and its HTTP one, 6876, is ours above). */
const DEFAULT_PG_PORT = 6875;
const TENANT = 'default';

const program = new Command()
  .name('ddl-control-plane')
  .description('Run the DDL control plane locally on DynamoDB Local and an SQS emulator')
  .option('--in-memory', 'keep the catalog in memory (lost on exit) instead of under the data folder')
  .option('--data-dir <dir>', 'where DynamoDB Local keeps the catalog', defaultDataDir())
  .option('--port <port>', 'HTTP port (also the PORT variable)', process.env.PORT ?? String(DEFAULT_PORT))
  .option('--pg-port <port>', 'Postgres wire port (also the PG_PORT variable)', process.env.PG_PORT ?? String(DEFAULT_PG_PORT))
  .option('--host <host>', 'address to listen on (HTTP and Postgres)', '127.0.0.1')
  .option('--fast', "the fast profile: quicker local mapping and queue settings instead of the deployed stack's (docs/operations.md)")
  .parse();

const opts = program.opts<{ inMemory?: boolean; dataDir: string; port: string; pgPort: string; host: string; fast?: boolean }>();

interface Bootstrap {
  readonly password: string;
  readonly from: 'generated' | 'DDL_APP_PASSWORD';
  /** Token ids of earlier bootstrap passwords of this data folder, to revoke. */
  readonly revoke: readonly string[];
  /** Records this password as the folder's bootstrap password (after it is in the catalog). */
  commit(): void;
}

/**
 * The bootstrap password: DDL_APP_PASSWORD when set, else one generated once and kept beside the
 * data so restarts print the same. One bootstrap password is valid at a time: when it changes,
 * the previous one (its token id is kept in bootstrap-token-id) is revoked.
 */
function bootstrapPassword(dataDir: string | undefined): Bootstrap {
  const chosen = process.env.DDL_APP_PASSWORD;
  if (!dataDir) return { password: chosen || generateAppPassword(), from: chosen ? 'DDL_APP_PASSWORD' : 'generated', revoke: [], commit: () => undefined };
  mkdirSync(dataDir, { recursive: true });
  const generatedFile = join(dataDir, 'bootstrap-app-password');
  const idFile = join(dataDir, 'bootstrap-token-id');
  const generated = existsSync(generatedFile) ? readFileSync(generatedFile, 'utf8').trim() : undefined;
  const password = chosen || generated || generateAppPassword();
  const earlier = new Set<string>();
  if (existsSync(idFile)) earlier.add(readFileSync(idFile, 'utf8').trim());
  if (generated) earlier.add(tokenId(generated));
  earlier.delete(tokenId(password));
  return {
    password,
    from: chosen ? 'DDL_APP_PASSWORD' : 'generated',
    revoke: [...earlier].filter(Boolean),
    commit() {
      if (chosen) rmSync(generatedFile, { force: true });
      else if (!generated) {
        writeFileSync(generatedFile, `${password}\n`, { mode: 0o600 });
        chmodSync(generatedFile, 0o600);
      }
      writeFileSync(idFile, `${tokenId(password)}\n`, { mode: 0o600 });
    },
  };
}

/** Fails fast, before the emulators take seconds to boot, when the API's port is taken. */
async function checkPortFree(host: string, port: number, kind: 'http' | 'pg' = 'http'): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolveFree, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new StartupError(portInUseMessage(host, port, kind)) : err));
    probe.listen(port, host, () => probe.close(() => resolveFree()));
  });
}

/** A refusal to start with a message for the terminal (no stack trace). */
class StartupError extends Error {}

/** The local secret store's AES-256 key, kept beside the catalog (0600) so values survive restarts. */
function secretsKey(dataDir: string | undefined): Buffer {
  if (!dataDir) return randomBytes(32);
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  const key = randomBytes(32);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
  return key;
}

async function main(): Promise<void> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new StartupError(`invalid port ${JSON.stringify(opts.port)} (from ${process.env.PORT !== undefined && opts.port === process.env.PORT ? 'PORT' : '--port'}): use 0-65535`);
  const dataDir = opts.inMemory ? undefined : resolve(opts.dataDir);
  // CORS_ALLOW_ORIGINS: the local API Gateway and the DDL handler read it (local/http-server.ts,
  // local/resources.ts); a malformed value stops here, before the emulators start.
  let corsAllowOrigins: readonly string[] | undefined;
  try {
    corsAllowOrigins = loadCorsAllowOrigins(process.env);
  } catch (err) {
    throw new StartupError((err as Error).message);
  }
  const pgPort = Number(opts.pgPort);
  if (!Number.isInteger(pgPort) || pgPort < 0 || pgPort > 65535) throw new StartupError(`invalid Postgres port ${JSON.stringify(opts.pgPort)} (from ${process.env.PG_PORT !== undefined && opts.pgPort === process.env.PG_PORT ? 'PG_PORT' : '--pg-port'}): use 0-65535`);
  await checkPortFree(opts.host, port);
  await checkPortFree(opts.host, pgPort, 'pg');
  const lock = dataDir ? acquireDataDirLock(dataDir) : undefined;
  const bootstrap = bootstrapPassword(dataDir);
  if (bootstrap.from === 'DDL_APP_PASSWORD') {
    const weak = weakPasswordReason(bootstrap.password);
    if (weak) console.error(`warning: DDL_APP_PASSWORD is easy to guess: ${weak}. Anyone who can reach the API can try passwords; unset it to get a generated one.`);
  }
  let ddb: DynamoLocal | undefined;
  let sqs: SqsEmulator | undefined;
  let pipeline: Pipeline | undefined;
  let stopping = false;
  // Where this instance describes itself for ddlctl (local/runtime-info.ts).
  const infoFile = dataDir ? runtimeFile(dataDir) : instanceFile(defaultDataDir(), process.pid);

  // In order: the API stops accepting and drains its requests, then the workers, then the
  // emulators they use. The JVM runs in its own process group, so Ctrl-C reaches only us.
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    await pipeline?.stop().catch(() => undefined);
    await sqs?.stop().catch(() => undefined);
    await ddb?.stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGHUP', () => void shutdown(0));
  // Never leave the JVM behind, even on a crash.
  process.on('exit', () => {
    ddb?.process.kill('SIGKILL');
    rmSync(infoFile, { force: true });
    lock?.release();
  });

  ddb = await startDynamoLocal({ ...(dataDir ? { dataDir: join(dataDir, 'dynamodb') } : {}), ownProcessGroup: true });
  sqs = await startSqsEmulator();
  const sweepIntervalSeconds = Number(process.env.SWEEP_INTERVAL_SECONDS ?? 10);
  if (!Number.isFinite(sweepIntervalSeconds) || sweepIntervalSeconds < 0) throw new StartupError(`invalid SWEEP_INTERVAL_SECONDS ${process.env.SWEEP_INTERVAL_SECONDS}`);
  // The password is in place before the API listens: the first 200 from /api/health means ready.
  const beforeServing = async (passwords: AppPasswords) => {
    await passwords.create(TENANT, bootstrap.password, 'bootstrap');
    for (const id of bootstrap.revoke) await passwords.revoke(id);
    bootstrap.commit();
  };
  // RECORD_AWS_CALLS=<file>: every AWS call each function makes, one JSON line each, written on exit
  // (the calls the IAM sufficiency test evaluates; docs/deploy-aws.md).
  const recordTo = process.env.RECORD_AWS_CALLS;
  const recorder = recordTo ? new CallRecorder({ region: LOCAL_REGION, accountId: '000000000000' }) : undefined;
  if (recorder) process.on('exit', () => writeFileSync(recordTo!, recorder.calls.map((c) => JSON.stringify(c)).join('\n') + '\n'));
  pipeline = await startPipeline({
    ...(recorder ? { recorder } : {}),
    profile: opts.fast ? 'fast' : 'deployed',
    dynamodbEndpoint: ddb.endpoint, sqsEndpoint: sqs.endpoint, port, host: opts.host, pgPort, pg: { defaultTenant: TENANT }, pgEngineAtStart: true, sweepIntervalSeconds, healthIntervalSeconds: 5, secretsKey: secretsKey(dataDir), prober: realProber({ network: LOCAL_PROBE_POLICY }), beforeServing,
    // Status events (the stack's EventBridge bus, locally): kept with the catalog, or in memory.
    eventLog: new EventLog(dataDir ? join(dataDir, EVENTS_FILE) : undefined) });
  const url = pipeline.url!;
  const pgUrl = `postgres://materialize@${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${pipeline.pgPort}/materialize`;
  const runtime: LocalRuntimeInfo = {
    pid: process.pid,
    url,
    pgUrl,
    dynamodbEndpoint: ddb.endpoint,
    sqsEndpoint: sqs.endpoint,
    region: pipeline.config.region,
    config: pipeline.config,
    secretsTable: pipeline.secretsTable,
    startedAt: new Date().toISOString(),
    ...(dataDir ? { dataDir } : { bootstrapPassword: bootstrap.password }),
  };
  mkdirSync(dirname(infoFile), { recursive: true });
  writeFileSync(infoFile, `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });

  console.log(banner({ url, pgUrl, ...(dataDir ? { dataDir } : {}), tenant: TENANT, password: bootstrap.password, passwordFrom: bootstrap.from, ...(corsAllowOrigins ? { corsAllowOrigins } : {}) }));
}

main().catch((err) => {
  if (err instanceof StartupError || err instanceof DataDirInUseError || err instanceof JavaMissingError) console.error(err.message);
  else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') console.error(portInUseMessage(opts.host, Number(opts.port)));
  else console.error(err);
  process.exit(1);
});
