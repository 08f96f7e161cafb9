/**
 * The real `ddlctl` (`node cli/ddlctl.mjs`) in a child process, as a user runs it: with only PATH,
 * NO_COLOR and the variables a test gives it, and a HOME of its own (a fresh empty folder unless
 * given), so no user config, history or `.data/` of this checkout leaks in.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DDLCTL } from './local-runtime';

export interface DdlctlRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

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

export async function runDdlctl(args: readonly string[], o: DdlctlOptions = {}): Promise<DdlctlRun> {
  const fresh = o.home ? undefined : mkdtempSync(`${tmpdir()}/ddlctl-home-`);
  const home = o.home ?? fresh!;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ...o.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  try {
    return await new Promise<DdlctlRun>((resolve, reject) => {
      const child = spawn(process.execPath, [...(o.preload ?? []).flatMap((m) => ['--import', m]), DDLCTL, ...args], { cwd: o.cwd ?? home, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(o.input ?? '');
    });
  } finally {
    if (fresh) rmSync(fresh, { recursive: true, force: true });
  }
}
