/**
 * Where ddlctl connects and with which app password, so that the local default needs no flags:
 *
 *   url:      --url, else DDLCTL_URL, else the config file's url, else the running `npm start`'s
 *             url (its runtime.json, or the newest in-memory instance: local/runtime-info.ts
 *             `findRuntime`), else http://127.0.0.1:6876
 *   password: DDLCTL_PASSWORD, else the config file's password, else DDL_APP_PASSWORD, else
 *             (only when talking to the local runtime) <data dir>/bootstrap-app-password, or the
 *             in-memory instance's own
 *
 * The config file is `$XDG_CONFIG_HOME/ddlctl/config.json` (default `~/.config/ddlctl/config.json`),
 * `{"url": "...", "password": "..."}`; DDLCTL_CONFIG names another file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { findRuntime, isAlive, type LocalRuntimeInfo } from '../local/runtime-info';
import { CliError, EXIT } from './errors';

export const DEFAULT_URL = 'http://127.0.0.1:6876';

export interface GlobalOptions {
  readonly url?: string;
  /** The local data folder (default `.data` in the current directory). */
  readonly dataDir?: string;
  /** A runtime.json to use instead of `<data dir>/runtime.json`. */
  readonly runtime?: string;
}

export interface FileConfig {
  readonly url?: string;
  readonly password?: string;
}

export interface Connection {
  readonly url: string;
  readonly password: string;
  /** Where the password came from, for error messages (never the password itself). */
  readonly passwordFrom: string;
  /** How the url was chosen, for "cannot reach" messages. */
  readonly urlFrom?: string;
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DDLCTL_CONFIG) return resolve(env.DDLCTL_CONFIG);
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'ddlctl', 'config.json');
}

export function readFileConfig(env: NodeJS.ProcessEnv = process.env): FileConfig {
  const file = configFile(env);
  if (!existsSync(file)) return {};
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof raw !== 'object' || raw === null) throw new Error('not a JSON object');
    const { url, password } = raw as Record<string, unknown>;
    return { ...(typeof url === 'string' ? { url } : {}), ...(typeof password === 'string' ? { password } : {}) };
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, EXIT.usage);
  }
}

export function dataDirOf(o: GlobalOptions): string {
  // The same default as local/emulators.ts `defaultDataDir()`, without loading the emulators.
  return resolve(o.dataDir ?? join(process.cwd(), '.data'));
}

export function runtimeFileOf(o: GlobalOptions): string {
  return o.runtime ? resolve(o.runtime) : join(dataDirOf(o), 'runtime.json');
}

/** The runtime, with the file it came from and the places looked in (for messages). */
export function locateRuntime(o: GlobalOptions): { info?: LocalRuntimeInfo; file?: string; lookedIn: string[] } {
  if (!o.runtime) {
    const { found, lookedIn } = findRuntime(dataDirOf(o));
    return found ? { info: found.info, file: found.file, lookedIn } : { lookedIn };
  }
  const file = resolve(o.runtime);
  if (!existsSync(file)) throw new CliError(`runtime file ${file} does not exist`, EXIT.usage);
  let info: LocalRuntimeInfo;
  try {
    info = JSON.parse(readFileSync(file, 'utf8')) as LocalRuntimeInfo;
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  return isAlive(info.pid) ? { info, file, lookedIn: [file] } : { lookedIn: [file] };
}

/** How ddlctl chose its url, for "cannot reach" messages: what it looked for and how to point it. */
export function urlOrigin(o: GlobalOptions, env: NodeJS.ProcessEnv = process.env): string {
  if (o.url) return 'from --url';
  if (env.DDLCTL_URL) return 'from DDLCTL_URL';
  if (readFileConfig(env).url) return `from ${configFile(env)}`;
  const { info, file, lookedIn } = locateRuntime(o);
  if (info) return `from ${file} (pid ${info.pid})`;
  return `the default: no running npm start found in ${lookedIn.join(' or ')}`;
}

/** The runtime, or an error that says how to get one. */
export function requireRuntime(o: GlobalOptions, what: string): LocalRuntimeInfo {
  const { info, lookedIn } = locateRuntime(o);
  if (!info) {
    throw new CliError(
      `${what} needs the local runtime: none running was found in ${lookedIn.join(' or ')}. Start it with \`npm start\`, pass --data-dir <its data folder> or --runtime <file>; for a deployed stack pass --table and AWS credentials`,
      EXIT.connection,
    );
  }
  return info;
}

export function resolveConnection(o: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const file = readFileConfig(env);
  const { info: runtime, lookedIn } = locateRuntime(o);
  const url = (o.url ?? env.DDLCTL_URL ?? file.url ?? runtime?.url ?? DEFAULT_URL).replace(/\/+$/, '');
  const conn = (password: string, passwordFrom: string): Connection => ({ url, password, passwordFrom, urlFrom: urlOrigin(o, env) });
  if (env.DDLCTL_PASSWORD) return conn(env.DDLCTL_PASSWORD, 'DDLCTL_PASSWORD');
  if (file.password) return conn(file.password, configFile(env));
  if (env.DDL_APP_PASSWORD) return conn(env.DDL_APP_PASSWORD, 'DDL_APP_PASSWORD');
  const local = url === (runtime?.url ?? DEFAULT_URL).replace(/\/+$/, '') || /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(url);
  if (runtime?.bootstrapPassword && url === runtime.url.replace(/\/+$/, '')) return conn(runtime.bootstrapPassword, `the in-memory instance (pid ${runtime.pid})`);
  const bootstrap = join(dataDirOf(o), 'bootstrap-app-password');
  if (local && existsSync(bootstrap)) {
    const password = readFileSync(bootstrap, 'utf8').trim();
    if (password) return conn(password, bootstrap);
  }
  if (!o.url && !env.DDLCTL_URL && !file.url && !runtime) {
    // Nothing said where the server is: that, not the password, is what the user has to fix.
    throw new CliError(
      `no running npm start found in ${lookedIn.join(' or ')}, and no app password for the default ${url}.\n` +
        `  Is \`npm start\` running? Point ddlctl at it with --url http://127.0.0.1:<port> (or DDLCTL_URL) with DDLCTL_PASSWORD, or --data-dir <its data folder>.`,
      EXIT.connection,
    );
  }
  throw new CliError(
    `no app password for ${url}: set DDLCTL_PASSWORD, or put {"url": "${url}", "password": "..."} in ${configFile(env)}` +
      (local ? ` (a local \`npm start\` keeps one in ${bootstrap})` : ''),
    EXIT.connection,
  );
}
