/**
 * `npm test`'s pretest step: the suite needs Java 17+ (DynamoDB Local), Chromium (the console's
 * browser test), MariaDB's server (the MySQL source tests, test/helpers/mysql.ts), curl and jq
 * (test/cli/tour.test.ts runs the README's `sql()` shell helper, which uses both) and openssl (the
 * pgwire TLS tests make their certificates with it). Checked
 * before anything starts, with the one command that installs what is missing, instead of failures
 * minutes into the run.
 *
 *   npx tsx test/setup/prerequisites.ts      (exit 1 and the command when something is missing)
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where the console test looks for Chromium (test/console/console.test.ts). */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Where Debian and Homebrew put MariaDB's programs besides PATH (`/usr/sbin` is not on a user's PATH). */
const MARIADB_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).filter(Boolean).some((d) => executable(join(d, name)));
}

/** The first executable `name` on PATH or in MARIADB_DIRS. */
function findProgram(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...MARIADB_DIRS];
  return dirs.map((d) => join(d, name)).find(executable);
}

/** MariaDB's server, which the MySQL tests run (`MARIADBD_PATH` names another); undefined when there is none. */
export function mariadbdPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.MARIADBD_PATH) return executable(env.MARIADBD_PATH) ? env.MARIADBD_PATH : undefined;
  return findProgram('mariadbd', env);
}

/** `mariadb-install-db`, which makes a server's first data folder: beside the server, or on PATH. */
export function mariadbInstallDbPath(mariadbd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = dirname(mariadbd);
  return [join(dir, 'mariadb-install-db'), join(dir, '..', 'bin', 'mariadb-install-db')].find(executable) ?? findProgram('mariadb-install-db', env);
}

export const MARIADB_INSTALL = { debian: 'mariadb-server', macos: 'mariadb' } as const;

/** The major version of `java` on PATH, or undefined when there is none. */
export function javaMajor(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const r = spawnSync('java', ['-version'], { env, encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  // `openjdk version "17.0.15"`, `java version "1.8.0_392"`
  const m = /version "(\d+)(?:\.(\d+))?/.exec(`${r.stderr}${r.stdout}`);
  if (!m) return undefined;
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

export interface Missing {
  readonly what: string;
  readonly debian: string;
  readonly macos: string;
}

export function missingPrerequisites(env: NodeJS.ProcessEnv = process.env): Missing[] {
  const missing: Missing[] = [];
  const java = javaMajor(env);
  if (java === undefined || java < 17) {
    missing.push({ what: java === undefined ? 'Java 17+ (not found on PATH)' : `Java 17+ (found Java ${java})`, debian: 'openjdk-17-jre-headless', macos: 'openjdk@17' });
  }
  try {
    accessSync(chromiumPath(env), constants.X_OK);
  } catch {
    missing.push({ what: `Chromium (not at ${chromiumPath(env)}; CHROMIUM_PATH names another)`, debian: 'chromium', macos: '--cask chromium' });
  }
  if (!mariadbdPath(env)) {
    const where = env.MARIADBD_PATH ? `not at ${env.MARIADBD_PATH}` : 'no mariadbd on PATH or in /usr/sbin; MARIADBD_PATH names another';
    missing.push({ what: `MariaDB's server (${where})`, ...MARIADB_INSTALL });
  }
  // The README's tour helper, run as written by test/cli/tour.test.ts.
  for (const tool of ['curl', 'jq'] as const) {
    if (!onPath(tool, env)) missing.push({ what: `${tool} (not on PATH; the README's sql() helper uses it)`, debian: tool, macos: tool });
  }
  // The pgwire TLS tests (test/pgwire/task.test.ts, container.test.ts) make their certificates with it.
  if (!onPath('openssl', env)) missing.push({ what: 'openssl (not on PATH; the pgwire TLS tests make certificates with it)', debian: 'openssl', macos: 'openssl' });
  return missing;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export function prerequisitesMessage(missing: readonly Missing[]): string {
  return [
    `npm test needs ${listed(missing.map((m) => m.what))}.`,
    'Install with:',
    `  sudo apt-get install -y ${missing.map((m) => m.debian).join(' ')}     # Debian/Ubuntu`,
    `  ${missing.map((m) => `brew install ${m.macos}`).join(' && ')}     # macOS`,
    'then run npm test again.',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const missing = missingPrerequisites();
  if (missing.length) {
    console.error(prerequisitesMessage(missing));
    process.exit(1);
  }
}
