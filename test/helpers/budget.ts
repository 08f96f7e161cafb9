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
import { cpuTimeMs } from '../../local/process-cpu';

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

/**
 * A clock that runs at the speed of an idle machine: each tick adds the wall time since the last
 * one divided by the slowdown measured now. A wait measured on it tells slow from stuck even when
 * the load changes during the wait (a budget measured once at the start does not).
 */
export function loadAdjustedClock(): () => number {
  let last = performance.now();
  let elapsed = 0;
  return () => {
    const now = performance.now();
    const wall = now - last;
    last = now;
    // budget(1) is the slowdown now, measured at most once a second.
    elapsed += wall / budget(1);
    return elapsed;
  };
}

/**
 * A progress watchdog for long in-process runs (the chaos runs): `beat(what)` after each step;
 * `stalled` rejects when no step has finished within `idleMs` on the load-adjusted clock, naming
 * the last step. A run that is slow but moving is never stopped; one that stops moving is, whatever
 * its total length. `stop()` ends the watch.
 */
export function progressWatchdog(idleMs: number): { beat: (what: string) => void; stalled: Promise<never>; stop: () => void } {
  let clock = loadAdjustedClock();
  let last = 'start';
  let wallSince = performance.now();
  let reject!: (e: Error) => void;
  const stalled = new Promise<never>((_, r) => (reject = r));
  stalled.catch(() => undefined);
  const timer = setInterval(() => {
    if (clock() >= idleMs) {
      clearInterval(timer);
      reject(new Error(`no progress for ${Math.round(performance.now() - wallSince)} ms on the clock (${idleMs} ms at an idle machine's speed) after "${last}"`));
    }
  }, 500);
  timer.unref();
  return {
    beat: (what) => {
      last = what;
      clock = loadAdjustedClock();
      wallSince = performance.now();
    },
    stalled,
    stop: () => clearInterval(timer),
  };
}

export { cpuTimeMs } from '../../local/process-cpu';

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
