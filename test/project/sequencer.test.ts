/** The test sequencer (vitest.config.ts): long files first on a fresh clone, vitest's own order once it has durations. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestSpecification, Vitest } from 'vitest/node';
import { describe, expect, it } from 'vitest';
import { SLOW_FILES, SlowFilesFirst } from '../../vitest.config';

const ROOT = resolve(__dirname, '../..');

/** A Vitest context with a results cache of `durations` (path → ms) and file sizes `sizes`. */
function sequencer(durations: Record<string, number>, sizes: Record<string, number>) {
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => (key.slice(1) in durations ? { duration: durations[key.slice(1)], failed: false } : undefined),
      getFileStats: (key: string) => ({ size: sizes[key.slice(1)] ?? 0 }),
    },
  } as unknown as Vitest;
  return new SlowFilesFirst(ctx);
}

const spec = (path: string) => ({ moduleId: join(ROOT, path), project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } } }) as unknown as TestSpecification;
const paths = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(ROOT.length + 1));

describe('the test sequencer', () => {
  it('names files that exist', () => {
    for (const f of SLOW_FILES) expect(existsSync(join(ROOT, f)), f).toBe(true);
  });

  it('without durations, starts the slow files first, longest first, then the largest', async () => {
    const files = ['test/a.test.ts', SLOW_FILES[2]!, 'test/b.test.ts', SLOW_FILES[0]!];
    const sorted = await sequencer({}, { 'test/a.test.ts': 100, 'test/b.test.ts': 50_000, [SLOW_FILES[2]!]: 10, [SLOW_FILES[0]!]: 20 }).sort(files.map(spec));
    expect(paths(sorted)).toEqual([SLOW_FILES[0], SLOW_FILES[2], 'test/b.test.ts', 'test/a.test.ts']);
  });

  it('with durations, keeps vitest’s order: the longest last time first', async () => {
    const files = [SLOW_FILES[0]!, 'test/a.test.ts'];
    const sorted = await sequencer({ [SLOW_FILES[0]!]: 1_000, 'test/a.test.ts': 9_000 }, {}).sort(files.map(spec));
    expect(paths(sorted)).toEqual(['test/a.test.ts', SLOW_FILES[0]]);
  });
});
