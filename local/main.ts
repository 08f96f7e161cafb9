/**
 * `npm start`: the whole control plane on this machine, no cloud account and no Docker.
 * DynamoDB Local (catalog persisted under .data/ unless --in-memory) + the SQS emulator + the
 * stream router + the executors + the HTTP API on port 6876.
 */
import { Command } from 'commander';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { runtimeDir, runtimeFile, type LocalRuntimeInfo } from './runtime-info';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { generateAppPassword } from '../shared/auth/app-passwords';
import { defaultDataDir, JavaMissingError, LOCAL_REGION, startDynamoLocal, startSqsEmulator, type DynamoLocal, type SqsEmulator } from './emulators';
import { startPipeline, type Pipeline } from './pipeline';
import { realProber } from '../shared/probes/lazy';
import { loadCorsAllowOrigins } from '../shared/config';
import { CallRecorder } from '../shared/lambda/clients/call-recorder';

// Quiet by default on a terminal; POWERTOOLS_LOG_LEVEL=INFO shows every effect.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const DEFAULT_PORT = 6876;
const TENANT = 'default';

const program = new Command()
  .name('ddl-control-plane')
  .description('Run the DDL control plane locally on DynamoDB Local and an SQS emulator')
  .option('--in-memory', 'keep the catalog in memory (lost on exit) instead of under the data folder')
  .option('--data-dir <dir>', 'where DynamoDB Local keeps the catalog', defaultDataDir())
  .option('--port <port>', 'HTTP port (also the PORT variable)', process.env.PORT ?? String(DEFAULT_PORT))
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--fast', "the fast profile: quicker local mapping and queue settings instead of the deployed stack's (docs/operations.md)")
  .parse();

const opts = program.opts<{ inMemory?: boolean; dataDir: string; port: string; host: string; fast?: boolean }>();

/** The bootstrap password: DDL_APP_PASSWORD when set, else one kept beside the data so restarts print the same. */
function bootstrapPassword(dataDir: string | undefined): string {
  if (process.env.DDL_APP_PASSWORD) return process.env.DDL_APP_PASSWORD;
  if (!dataDir) return generateAppPassword();
  const file = join(dataDir, 'bootstrap-app-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const pw = generateAppPassword();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${pw}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return pw;
}

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
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${opts.port}`);
  const dataDir = opts.inMemory ? undefined : resolve(opts.dataDir);
  // CORS_ALLOW_ORIGINS: the local API Gateway and the DDL handler read it (local/http-server.ts,
  // local/resources.ts); a malformed value stops here, before the emulators start.
  let corsAllowOrigins: readonly string[] | undefined;
  try {
    corsAllowOrigins = loadCorsAllowOrigins(process.env);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  let ddb: DynamoLocal | undefined;
  let sqs: SqsEmulator | undefined;
  let pipeline: Pipeline | undefined;
  let stopping = false;

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
  // Never leave the JVM behind, even on a crash.
  process.on('exit', () => ddb?.process.kill('SIGKILL'));

  try {
    ddb = await startDynamoLocal(dataDir ? { dataDir: join(dataDir, 'dynamodb') } : {});
  } catch (err) {
    if (err instanceof JavaMissingError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  sqs = await startSqsEmulator();
  const sweepIntervalSeconds = Number(process.env.SWEEP_INTERVAL_SECONDS ?? 10);
  if (!Number.isFinite(sweepIntervalSeconds) || sweepIntervalSeconds < 0) throw new Error(`invalid SWEEP_INTERVAL_SECONDS ${process.env.SWEEP_INTERVAL_SECONDS}`);
  // RECORD_AWS_CALLS=<file>: every AWS call each function makes, one JSON line each, written on exit
  // (the calls the IAM sufficiency test evaluates; docs/deploy-aws.md).
  const recordTo = process.env.RECORD_AWS_CALLS;
  const recorder = recordTo ? new CallRecorder({ region: LOCAL_REGION, accountId: '000000000000' }) : undefined;
  if (recorder) process.on('exit', () => writeFileSync(recordTo!, recorder.calls.map((c) => JSON.stringify(c)).join('\n') + '\n'));
  pipeline = await startPipeline({
    ...(recorder ? { recorder } : {}), dynamodbEndpoint: ddb.endpoint, sqsEndpoint: sqs.endpoint, port, host: opts.host, profile: opts.fast ? 'fast' : 'deployed', sweepIntervalSeconds, secretsKey: secretsKey(dataDir), prober: realProber() });
  const password = await pipeline.passwords.create(TENANT, bootstrapPassword(dataDir), 'bootstrap');
  // Tools (ddlctl check / effects redrive / tenant create) find the running pipeline here.
  const runtime: LocalRuntimeInfo = {
    pid: process.pid,
    url: pipeline.url!,
    dynamodbEndpoint: ddb.endpoint,
    sqsEndpoint: sqs.endpoint,
    region: pipeline.config.region,
    config: pipeline.config,
    secretsTable: pipeline.secretsTable,
    startedAt: new Date().toISOString(),
  };
  mkdirSync(runtimeDir(dataDir), { recursive: true });
  writeFileSync(runtimeFile(dataDir), `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });
  process.on('exit', () => rmSync(runtimeFile(dataDir), { force: true }));

  const url = pipeline.url!;
  console.log(`ddl-control-plane is running
  endpoint:      ${url}/api/sql   (health: ${url}/api/health)
  console:       ${url}/
  cli:           npx ddlctl sql   (no flags needed locally)
  catalog:       ${dataDir ? `${dataDir} (kept across restarts)` : 'in memory (lost on exit)'}
  settings:      ${pipeline.profile.name} profile${opts.fast ? '' : " (the stack's; --fast for quicker local ones)"}
  tenant:        ${TENANT}
  app password:  ${password}${corsAllowOrigins ? `\n  CORS origins:  ${corsAllowOrigins.join(', ')}` : ''}

Try it:
  curl -s ${url}/api/sql \\
    -H "Authorization: Bearer ${password}" -H 'content-type: application/json' \\
    -d '{"query": "CREATE CLUSTER c (SIZE = '"'"'25cc'"'"', REPLICATION FACTOR = 2)"}'
  curl -s ${url}/api/sql \\
    -H "Authorization: Bearer ${password}" -H 'content-type: application/json' \\
    -d '{"query": "SELECT * FROM mz_internal.mz_cluster_replica_statuses"}'

Ctrl-C stops everything.`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
