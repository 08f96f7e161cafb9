/**
 * A real MySQL-protocol server for tests: a private MariaDB (Debian's `mariadb-server`, no
 * Docker) on a free loopback port, with a fresh data folder made by `mariadb-install-db` in a
 * temp folder of its own, a row-based binary log, and one user (`root`@`127.0.0.1`, a random
 * password) for the connection under test. `stop()` then `start()` reuses the folder and the port
 * (tests stop it to simulate an outage); `close()` stops it and deletes the folder.
 *
 * Nothing is read from the checkout: the programs come from the system and the data lives under
 * the temp dir, so a checkout in a folder other users cannot enter works too. MariaDB refuses to
 * run as root unless told to, so as root it runs with `--user=root` (the temp folder is root's,
 * 0700, so no other user could run it there anyway).
 *
 *   const db = await startMariaDb();
 *   await db.sql('CREATE TABLE shop.orders (id int primary key)');
 *   ... db.connectionOptions() → { HOST, PORT, USER } for a CREATE CONNECTION ... TO MYSQL
 *   await db.close();
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from '../../local/emulators';
import { MARIADB_INSTALL, mariadbdPath, mariadbInstallDbPath } from '../setup/prerequisites';
import { budget } from './budget';

export interface StartMariaDbOptions {
  /** More `mariadbd` flags, e.g. ['--binlog-format=MIXED']. */
  readonly flags?: readonly string[];
  /** @default a random password */
  readonly password?: string;
}

export interface TestMySql {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly dataDir: string;
  /** Is the server running now? */
  readonly running: boolean;
  /** Runs one statement as the test user on a fresh connection; the rows of a SELECT. */
  sql<R = Record<string, unknown>>(query: string, params?: unknown[]): Promise<R[]>;
  /** Options of a CREATE CONNECTION ... TO MYSQL for this server (PASSWORD is a secret). */
  connectionOptions(): Record<string, string>;
  /** Stops the server (a clean shutdown); the data folder stays. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again on the same folder and port. Idempotent. */
  start(): Promise<void>;
  /** Stops it and deletes the data folder. */
  close(): Promise<void>;
  /** The server's recent error log lines (for a failing test's message). */
  log(): string;
}

const HOST = '127.0.0.1';
const USER = 'root';
const run = promisify(execFile);

/** Thrown at once when MariaDB is not installed, with the command that installs it. */
export class MariaDbMissingError extends Error {
  constructor(what: string) {
    super(
      `${what}: the MySQL tests run a private MariaDB server.\n` +
        `  Install with: sudo apt-get install -y ${MARIADB_INSTALL.debian}     # Debian/Ubuntu\n` +
        `                brew install ${MARIADB_INSTALL.macos}     # macOS\n` +
        '  (MARIADBD_PATH names a mariadbd elsewhere.)',
    );
    this.name = 'MariaDbMissingError';
  }
}

export async function startMariaDb(opts: StartMariaDbOptions = {}): Promise<TestMySql> {
  const server = mariadbdPath();
  if (!server) throw new MariaDbMissingError(process.env.MARIADBD_PATH ? `MariaDB's server is not at ${process.env.MARIADBD_PATH}` : "MariaDB's server is not installed (no mariadbd on PATH or in /usr/sbin)");
  const installDb = mariadbInstallDbPath(server);
  if (!installDb) throw new MariaDbMissingError(`mariadb-install-db is not beside ${server} nor on PATH`);
  const asRoot = userInfo().uid === 0 ? ['--user=root'] : [];
  const password = opts.password ?? `pw-${randomBytes(9).toString('base64url')}`;
  const base = mkdtempSync(join(tmpdir(), 'ddl-test-mariadb-'));
  const dataDir = join(base, 'data');
  const errorLog = join(base, 'error.log');
  const log = () => {
    try {
      return readFileSync(errorLog, 'utf8').slice(-8_000);
    } catch {
      return '';
    }
  };

  try {
    // --no-defaults first (the script only looks there): nothing from /etc/mysql or ~/.my.cnf.
    await run(installDb, ['--no-defaults', ...asRoot, `--datadir=${dataDir}`, '--skip-test-db', '--skip-name-resolve'], { timeout: Math.round(budget(120_000)) });
  } catch (err) {
    await rm(base, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed for ${dataDir}: ${(err as Error).message}`);
  }
  // Run at every start, as the server's first statements: the test user with its password, whatever the install made.
  const initFile = join(base, 'init.sql');
  const quoted = password.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
  writeFileSync(initFile, `CREATE OR REPLACE USER '${USER}'@'${HOST}' IDENTIFIED BY '${quoted}';\nGRANT ALL PRIVILEGES ON *.* TO '${USER}'@'${HOST}' WITH GRANT OPTION;\n`, { mode: 0o600 });

  let port = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const connect = () => mysql.createConnection({ host: HOST, port, user: USER, password, connectTimeout: 5_000 });
  const spawnServer = async (): Promise<'ready' | 'port taken'> => {
    const proc = spawn(
      server,
      [
        '--no-defaults',
        ...asRoot,
        `--datadir=${dataDir}`,
        `--port=${port}`,
        `--bind-address=${HOST}`,
        `--socket=${join(base, 'mysqld.sock')}`,
        `--pid-file=${join(base, 'mysqld.pid')}`,
        `--log-error=${errorLog}`,
        `--init-file=${initFile}`,
        '--skip-name-resolve',
        // What Materialize's MySQL source needs of the binary log (MariaDB's GTIDs are always on).
        '--server-id=1',
        '--log-bin=binlog',
        '--binlog-format=ROW',
        '--binlog-row-image=FULL',
        // Quick starts and stops in outage tests.
        '--innodb-buffer-pool-size=16M',
        '--innodb-flush-log-at-trx-commit=0',
        '--sync-binlog=0',
        ...(opts.flags ?? []),
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    let gone = false;
    exited = new Promise<void>((resolve) =>
      proc.once('exit', () => {
        gone = true;
        // A server that dies on its own is not running either.
        if (child === proc) child = undefined;
        resolve();
      }),
    );
    const deadline = Date.now() + budget(60_000);
    for (;;) {
      if (gone) {
        if (/Address already in use/i.test(log())) return 'port taken';
        throw new Error(`MariaDB exited while starting on ${HOST}:${port} (${dataDir}):\n${log()}`);
      }
      try {
        const c = await connect();
        await c.end();
        return 'ready';
      } catch (err) {
        if (Date.now() > deadline) {
          proc.kill('SIGKILL');
          throw new Error(`MariaDB did not accept connections on ${HOST}:${port} within the deadline: ${(err as Error).message}\n${log()}`);
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const start = async () => {
    if (child) return;
    if (port) {
      // A restart keeps its port: the connection under test names it.
      if ((await spawnServer()) === 'port taken') throw new Error(`MariaDB could not listen on ${HOST}:${port} again: the port was taken while it was stopped`);
      return;
    }
    // A free port can be taken before the server binds it: try another.
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      if ((await spawnServer()) === 'ready') return;
      if (attempt === 4) throw new Error(`MariaDB found no free port:\n${log()}`);
    }
  };
  const stop = async () => {
    const proc = child;
    if (!proc) return;
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), budget(30_000));
    await exited;
    clearTimeout(killer);
  };

  try {
    await start();
  } catch (err) {
    await stop().catch(() => undefined);
    process.removeListener('exit', killOnExit);
    await rm(base, { recursive: true, force: true });
    throw err;
  }

  return {
    host: HOST,
    get port() {
      return port;
    },
    user: USER,
    password,
    dataDir,
    get running() {
      return child !== undefined;
    },
    async sql<R>(query: string, params: unknown[] = []): Promise<R[]> {
      const c = await connect();
      c.on('error', () => undefined);
      try {
        const [rows] = await c.query(query, params);
        return (Array.isArray(rows) ? rows : []) as R[];
      } finally {
        await c.end();
      }
    },
    connectionOptions: () => ({ HOST, PORT: String(port), USER }),
    stop,
    start,
    async close() {
      await stop();
      process.removeListener('exit', killOnExit);
      await rm(base, { recursive: true, force: true });
    },
    log,
  };
}
