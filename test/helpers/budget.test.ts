/** The hang detector of the fuzz sandbox (test/helpers/budget.ts) tells a starved process from a stuck one. */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuTimeMs, loadAdjustedClock, progressWatchdog, slowdown, watchForHang } from '../helpers/budget';

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

function busyLoop(): ChildProcess {
  child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return child;
}

describe('hang detection', () => {
  it('a process that gets no CPU is not called hung, however long it waits; once it spins, it is', async () => {
    const c = busyLoop();
    c.kill('SIGSTOP'); // starved: what a loaded machine does to a slow but healthy process, taken to the limit
    let why: string | undefined;
    const unwatch = watchForHang(c.pid, 300, 60_000, (w) => (why = w));
    try {
      // Four times the CPU budget on the clock, and nothing said.
      await new Promise((r) => setTimeout(r, 1_200));
      expect(why).toBeUndefined();
      c.kill('SIGCONT');
      await expect.poll(() => why, { timeout: 60_000, interval: 100 }).toMatch(/^no answer after 300 ms of CPU time \(\d+ ms on the clock\)$/);
    } finally {
      unwatch();
    }
  });

  it('a process that waits without computing is called hung at the wall-clock cap', async () => {
    child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    let why: string | undefined;
    const unwatch = watchForHang(child.pid, 60_000, 500, (w) => (why = w));
    try {
      await expect.poll(() => why, { timeout: 30_000, interval: 100 }).toMatch(/^no answer within \d+ ms \(it used \d+ ms of CPU: waiting, not computing\)$/);
    } finally {
      unwatch();
    }
  });

  it('reads CPU time, and measures the slowdown as at least 1', () => {
    expect(cpuTimeMs(process.pid)).toBeGreaterThan(0);
    expect(cpuTimeMs(2 ** 22 + 7)).toBeUndefined();
    expect(slowdown(20)).toBeGreaterThanOrEqual(1);
  });

  it('a run that keeps finishing steps is never called stalled, however long it takes; one that stops is, naming its last step', async () => {
    const w = progressWatchdog(1_000);
    let stalled: Error | undefined;
    w.stalled.catch((e: Error) => (stalled = e));
    try {
      // Three times the idle limit in total, one step every 100 ms.
      for (let i = 0; i < 30; i++) {
        w.beat(`step ${i}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(stalled).toBeUndefined();
      await expect.poll(() => stalled?.message, { timeout: 60_000, interval: 100 }).toMatch(/^no progress for \d+ ms on the clock \(1000 ms at an idle machine's speed\) after "step 29"$/);
    } finally {
      w.stop();
    }
  });

  it('the load-adjusted clock never runs faster than the wall clock', async () => {
    const clock = loadAdjustedClock();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    const adjusted = clock();
    expect(adjusted).toBeGreaterThan(0);
    expect(adjusted).toBeLessThanOrEqual(performance.now() - t0);
  });
});
