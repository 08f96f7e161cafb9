/**
 * What a running `npm start` tells local tools (ddlctl) about itself, and the lock that keeps a
 * data folder to one instance. Kept free of the SDK and the emulators: ddlctl loads it.
 *
 * - With a data folder: `<data dir>/runtime.json` (mode 0600), written once the API is ready and
 *   removed on exit; `<data dir>/instance.lock` holds the pid of the one instance using the folder.
 * - With --in-memory: `<default data dir>/instances/<pid>.json`, one file per instance, so several
 *   in-memory instances (and one on the data folder) never overwrite or delete each other's.
 *
 * Which one a tool picks (`findRuntime`): the data folder's runtime.json when its process is alive,
 * else the most recently started live in-memory instance. `--runtime <file>` or `--url` choose.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../shared/config';

export interface LocalRuntimeInfo {
  readonly pid: number;
  readonly url: string;
  /** The Postgres wire endpoint, as a connection string (the app password is the password). */
  readonly pgUrl?: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly region: string;
  readonly config: Config;
  readonly secretsTable: string;
  readonly startedAt: string;
  /** The data folder; absent for an in-memory instance. */
  readonly dataDir?: string;
  /**
   * In-memory instances only (their password is in no file of the data folder): the bootstrap
   * app password, so `ddlctl sql` needs no flags there either. The file is 0600, like
   * `<data dir>/bootstrap-app-password`.
   */
  readonly bootstrapPassword?: string;
}

/** `.data` in the current directory: the data folder of `npm start` and ddlctl unless told otherwise. */
export function defaultDataDir(cwd = process.cwd()): string {
  return join(cwd, '.data');
}

export function runtimeFile(dataDir: string): string {
  return join(dataDir, 'runtime.json');
}

/** Where an in-memory instance describes itself: one file per process under the default data folder. */
export function instanceFile(baseDir: string, pid: number): string {
  return join(baseDir, 'instances', `${pid}.json`);
}

export function lockFile(dataDir: string): string {
  return join(dataDir, 'instance.lock');
}

/** Whether a process exists (one of another user counts: EPERM). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The runtime described by `file` if its process is alive; throws on a file that is not JSON. */
export function readRuntimeFile(file: string): LocalRuntimeInfo | undefined {
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, 'utf8')) as LocalRuntimeInfo;
  return isAlive(info.pid) ? info : undefined;
}

export interface FoundRuntime {
  readonly info: LocalRuntimeInfo;
  readonly file: string;
}

/** The runtime a tool should talk to (see the header), or undefined with the places it looked in. */
export function findRuntime(dataDir: string): { found?: FoundRuntime; lookedIn: string[] } {
  const main = runtimeFile(dataDir);
  const dir = join(dataDir, 'instances');
  const lookedIn = [main, join(dir, '<pid>.json')];
  const info = readRuntimeFile(main);
  if (info) return { found: { info, file: main }, lookedIn };
  const live: FoundRuntime[] = [];
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!/^\d+\.json$/.test(name)) continue;
    const file = join(dir, name);
    try {
      const i = readRuntimeFile(file);
      if (i) live.push({ info: i, file });
    } catch {
      // A file half-written by a starting instance: not a runtime yet.
    }
  }
  live.sort((a, b) => b.info.startedAt.localeCompare(a.info.startedAt));
  return { ...(live[0] ? { found: live[0] } : {}), lookedIn };
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    const url = (() => {
      try {
        return readRuntimeFile(runtimeFile(dataDir))?.url;
      } catch {
        return undefined;
      }
    })();
    super(
      `another npm start (pid ${holderPid}${url ? `, ${url}` : ''}) is already using the data folder ${dataDir}.\n` +
        '  Two instances on one folder would overwrite each other\'s catalog and runtime.json.\n' +
        '  Stop that one first (Ctrl-C in its terminal), or start this one with --data-dir <another folder> or --in-memory.',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * Takes the data folder for this process, or throws DataDirInUseError. The lock file holds the
 * holder's pid: a lock left by a process that died (kill -9, a crash, a reboot) is taken over.
 */
export function acquireDataDirLock(dataDir: string, pid = process.pid): { release(): void } {
  mkdirSync(dataDir, { recursive: true });
  const file = lockFile(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(file, 'utf8').trim());
      if (holder !== pid && isAlive(holder)) throw new DataDirInUseError(dataDir, holder);
      rmSync(file, { force: true });
      continue;
    }
    // Two starters that both found the same stale lock: the last writer wins, the other sees it.
    const holder = Number(readFileSync(file, 'utf8').trim());
    if (holder !== pid) throw new DataDirInUseError(dataDir, holder);
    return {
      release() {
        try {
          if (Number(readFileSync(file, 'utf8').trim()) === pid) rmSync(file, { force: true });
        } catch {
          // Already gone.
        }
      },
    };
  }
  throw new Error(`could not take the lock ${file}: it keeps reappearing; is another npm start starting on ${dataDir}?`);
}
