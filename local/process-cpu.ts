/**
 * The CPU time a process has used (Linux /proc): how a wait tells a slow process from a stuck one.
 * A process starved by a loaded machine uses little CPU while it waits; a stuck or spinning one
 * uses its budget. Shared by the local runtime (emulator start-up) and the tests' hang detectors.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** CPU time (user + system) `pid` has used so far, in ms; undefined where /proc is not available or the process is gone. */
export function cpuTimeMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  ticksPerSecond ??= (() => {
    try {
      return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      return 100;
    }
  })();
  // Fields after the command name (in parentheses, may hold spaces): utime and stime are 14 and 15.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / ticksPerSecond;
}

