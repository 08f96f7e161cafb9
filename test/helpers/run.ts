/** A program run to its end, with what it printed: for tests of what a user sees in a terminal. */
import { spawn } from 'node:child_process';

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with exactly `env` (nothing inherited) and `input` on stdin (none: /dev/null). */
export function runProgram(command: string, args: readonly string[], o: { env: NodeJS.ProcessEnv; cwd?: string; input?: string }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: o.env, ...(o.cwd ? { cwd: o.cwd } : {}), stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(o.input);
  });
}
