/**
 * The real `ddlctl` (`node cli/ddlctl.mjs`) in a child process, as a user runs it: with only PATH,
 * NO_COLOR and the variables a test gives it, and a HOME of its own (a fresh empty folder unless
 * given), so no user config, history or `.data/` of this checkout leaks in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DDLCTL } from './local-runtime';
import { runProgram, type Finished } from './run';

export interface DdlctlOptions {
  /** Variables besides PATH, HOME and NO_COLOR; undefined removes one. */
  readonly env?: Record<string, string | undefined>;
  /** Where it runs (where it looks for `.data/`); default HOME. */
  readonly cwd?: string;
  readonly home?: string;
  /** Modules node loads before ddlctl (`--import`). */
  readonly preload?: readonly string[];
  readonly input?: string;
}

export async function runDdlctl(args: readonly string[], o: DdlctlOptions = {}): Promise<Finished> {
  const fresh = o.home ? undefined : mkdtempSync(`${tmpdir()}/ddlctl-home-`);
  const home = o.home ?? fresh!;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ...o.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  try {
    return await runProgram(process.execPath, [...(o.preload ?? []).flatMap((m) => ['--import', m]), DDLCTL, ...args], { env, cwd: o.cwd ?? home, ...(o.input !== undefined ? { input: o.input } : {}) });
  } finally {
    if (fresh) rmSync(fresh, { recursive: true, force: true });
  }
}
