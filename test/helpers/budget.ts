/**
 * Time budgets that tell a slow machine from a stuck program. A loaded machine (CI beside other
 * CPU-bound work) gives each process a fraction of a core, so fixed wall-clock limits fail there
 * although nothing is wrong. Two tools:
 *
 * - `budget(ms)`: a wall-clock limit scaled by the share of a core this process gets right now
 *   (busy-loop for a moment, compare CPU time to wall time). About 1x on a quiet machine.
 * - `cpuTimeMs(pid)`: the CPU time a process has used (Linux /proc), so a hang detector can wait
 *   for a child to *spend* its budget instead of waiting for the clock: a stuck loop spends it, a
 *   starved process does not.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** How many times slower than on an idle machine this process runs now (≥ 1, at most 20). */
export function slowdown(sampleMs = 50): number {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let x = 0;
  while (performance.now() - t0 < sampleMs) x += Math.sqrt(x + 1);
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  const cpuMs = (used.user + used.system) / 1000;
  return x < 0 ? 1 : Math.min(20, Math.max(1, wall / Math.max(cpuMs, 1)));
}

let recent: { factor: number; at: number } | undefined;

/** `ms` scaled by how loaded the machine is now (measured at most once a second: polling helpers call this often). */
export function budget(ms: number): number {
  const now = performance.now();
  if (!recent || now - recent.at > 1_000) recent = { factor: slowdown(), at: now };
  return ms * recent.factor;
}

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

/**
 * Calls `onHang` when the process `pid` has used `cpuBudgetMs` of CPU time since the watch began
 * (busy and not answering: stuck), or after `wallCapMs` of wall time whatever it used (waiting on
 * something that never comes). Without /proc, the wall cap is scaled by `budget`. Returns a
 * function that ends the watch.
 */
export function watchForHang(pid: number | undefined, cpuBudgetMs: number, wallCapMs: number, onHang: (why: string) => void): () => void {
  const t0 = performance.now();
  const cpu0 = pid === undefined ? undefined : cpuTimeMs(pid);
  const cap = cpu0 === undefined ? budget(cpuBudgetMs) : wallCapMs;
  const timer = setInterval(() => {
    const wall = Math.round(performance.now() - t0);
    const cpu = pid === undefined || cpu0 === undefined ? undefined : cpuTimeMs(pid);
    if (cpu !== undefined && cpu - cpu0! >= cpuBudgetMs) {
      clearInterval(timer);
      onHang(`no answer after ${cpuBudgetMs} ms of CPU time (${wall} ms on the clock)`);
    } else if (wall >= cap) {
      clearInterval(timer);
      onHang(`no answer within ${wall} ms${cpu !== undefined ? ` (it used ${Math.round(cpu - cpu0!)} ms of CPU: waiting, not computing)` : ''}`);
    }
  }, 100);
  timer.unref();
  return () => clearInterval(timer);
}
