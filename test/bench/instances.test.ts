// The instances phase's pure part (bench/phases/instances.ts): passes of a level add up, and a
// level's rate is all its commits over all its passes' time (the single instance and the level
// alternate, single · level · level · single).
import { describe, expect, it } from 'vitest';
import { figures, sumPasses, type PassCounts } from '../../bench/phases/instances';
import { benchRows } from '../../bench/lib/rows';
import type { Results } from '../../bench/lib/report';

const pass = (instances: number, commits: number, seconds: number, o: Partial<PassCounts> = {}): PassCounts => ({
  instances,
  commits,
  seconds,
  answers40001: 0,
  catchUps: 0,
  logCatchUps: 0,
  fullLoadsAfterWarmUp: 0,
  cpuMs: commits * 2,
  ...o,
});

describe('the instances phase figures', () => {
  it('rates a level over all its passes, not as the mean of their rates', () => {
    // Prepare: a fast pass and a slow one (the machine slowed down between them).
    const passes = [pass(8, 288, 1, { catchUps: 40, logCatchUps: 20, cpuMs: 600 }), pass(8, 287, 3, { answers40001: 1, catchUps: 60, logCatchUps: 25, cpuMs: 900 })];

    // Act
    const f = figures(sumPasses(passes));

    // Assess: 575 commits in 4 s (the mean of the two rates would read 191.8).
    expect(f).toEqual({ instances: 8, commits: 575, commitsPerSecond: 143.8, answers40001: 1, catchUps: 100, logCatchUps: 45, fullLoadsAfterWarmUp: 0, cpuMsPerCommit: 2.61 });
  });

  it('refuses passes of different levels, or none', () => {
    expect(() => sumPasses([pass(1, 288, 1), pass(8, 288, 2)])).toThrow('passes of different levels: 1, 8 instances');
    expect(() => sumPasses([])).toThrow('no passes to add up');
  });

  it('names the alternation in the row, and a run from before it as it ran', () => {
    const row = { instances: 8, commits: 576, commitsPerSecond: 120, answers40001: 0, catchUps: 100, fullLoadsAfterWarmUp: 0, ofSingle: 0.6, singlePerSecond: 200 };
    const now = benchRows({ machine: { cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date: '2026-12-08', loadAverageAtStart: [1, 1, 1] }, quick: false, instances: [{ ...row, alternated: true }] } as Results);
    expect(now[0]!.measured).toMatch(/^120 commits\/s = 0\.60× one instance's 200 alternated with it \(single · level · level · single\) ·/);
    const before = benchRows({ machine: { cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date: '2026-12-07', loadAverageAtStart: [1, 1, 1] }, quick: false, instances: [row] } as Results);
    expect(before[0]!.measured).toMatch(/one instance's 200 just before ·/);
  });
});
