/**
 * `npm test`'s pretest step: the suite needs Java 17+ (DynamoDB Local) and Chromium (the console's
 * browser test). Checked before anything starts, with the one command that installs what is
 * missing, instead of failures minutes into the run.
 *
 *   npx tsx test/setup/prerequisites.ts      (exit 1 and the command when something is missing)
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Where the console test looks for Chromium (test/console/console.test.ts). */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

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
  return missing;
}

export function prerequisitesMessage(missing: readonly Missing[]): string {
  return [
    `npm test needs ${missing.map((m) => m.what).join(' and ')}.`,
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
