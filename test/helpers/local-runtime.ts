/**
 * `npm start` as a user runs it: local/main.ts in a child process (its own process group, like a
 * terminal's foreground job), with helpers to read what it prints and to stop it as Ctrl-C does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = resolve(ROOT, 'local/main.ts');
export const DDLCTL = resolve(ROOT, 'cli/ddlctl.mjs');
/** tsx's loader by path: the runtime runs in another folder, where `--import tsx` would not resolve. */
const TSX = pathToFileURL(resolve(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface LocalRuntime {
  readonly child: ChildProcess;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>;
  /** Waits until stdout matches (rejects with the output if the process exits first). */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
  /** SIGINT to its process group, as Ctrl-C on a terminal; resolves with the exit code. */
  interrupt(): Promise<number | null>;
  /** SIGKILL to the process alone (a crash); resolves once it is gone. */
  crash(): Promise<void>;
}

export function startLocalRuntime(args: string[], o: { cwd: string; env?: Record<string, string | undefined> }): LocalRuntime {
  const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: undefined, PORT: undefined, PG_PORT: undefined, DDL_APP_PASSWORD: undefined, NO_COLOR: '1', ...o.env };
  // Instances run side by side: each takes a free Postgres port unless the test names one.
  if (!args.includes('--pg-port') && env.PG_PORT === undefined) args = [...args, '--pg-port', '0'];
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: o.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    wake();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    wake();
  });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (c, signal) => {
      code = c ?? (signal ? -1 : null);
      wake();
      r(code);
    }),
  );
  return {
    child,
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (re) =>
      new Promise((resolveMatch, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            waiters.delete(check);
            resolveMatch(m);
          } else if (code !== undefined) {
            waiters.delete(check);
            reject(new Error(`npm start exited (${code}) before printing ${re}\nstdout: ${out}\nstderr: ${err}`));
          }
        };
        waiters.add(check);
        check();
      }),
    async interrupt() {
      if (code === undefined) process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
    async crash() {
      if (code === undefined) child.kill('SIGKILL');
      await exited;
    },
  };
}
