import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in. Vitest starts the files that took longest last time first (its
 * results cache), so the last minutes of a run are not one worker running a long file alone while
 * the other idles. A fresh clone (CI) has no such cache, and vitest falls back to the largest file
 * first: the short chaos run, several minutes long in a 6 KB file, then started halfway through.
 * Without a cache, the files below (longest first, as measured in a fresh-clone `.ci/run` on a quiet
 * machine: 189 s down to 15 s) start first. Kept as measured before the workers' DynamoDB Locals
 * were restarted between files (test/setup/emulator-control.ts). The capacity test's bounds are
 * read in service order on DynamoDB Locals of its own, so the files beside it do not move them
 * (in milliseconds, a CPU burst beside it read 3.22 and 3.33 against its bound of 3).
 */
export const SLOW_FILES = [
  'test/integration/reconfigure.test.ts',
  'test/integration/crash-matrix-alter.test.ts',
  'test/integration/crash-matrix.test.ts',
  'test/conformance/conformance.test.ts',
  'test/effects/capacity.test.ts',
  'test/chaos/short.test.ts',
  'test/integration/crash-matrix-sources.test.ts',
  'test/catalog/races.test.ts',
  'test/cli/docs.test.ts',
  'test/router/admission.test.ts',
  'test/integration/iam.test.ts',
  'test/console/console.test.ts',
  'test/local/runtime.test.ts',
  'test/catalog/staged-races.test.ts',
  'test/catalog/staged.test.ts',
  'test/cli/ddlctl.test.ts',
  'test/integration/retain-history.test.ts',
  'test/integration/ddl.test.ts',
  'test/cli/tour.test.ts',
];

export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (f: TestSpecification) => relative(root, f.moduleId).split('\\').join('/');
    // Any file with a cached duration: vitest's own order already starts the long ones first.
    if (files.some((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`))) return sorted;
    const rank = (f: TestSpecification) => {
      const i = SLOW_FILES.indexOf(path(f));
      return i === -1 ? SLOW_FILES.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/invariants.ts'],
    // Outer bounds only, wide enough for a 2-core machine running CI beside other CPU-bound work
    // (8x slower than idle was measured). Hangs are caught sooner and by their cause: `eventually`
    // waits on a clock that runs at an idle machine's speed, the fuzz sandbox watches its child's CPU
    // time, and the chaos runs have a progress watchdog (test/helpers/budget.ts).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // The integration tests mostly wait on the emulators: two files at a time keep 2 cores busy
    // (vitest's default on 2 cores is one file at a time). Each worker gets its own DynamoDB Local
    // (test/setup/global.ts starts one per worker), so every worker added costs a JVM.
    maxWorkers: 2,
    // The long files start first, also on a fresh clone without vitest's results cache.
    sequence: { sequencer: SlowFilesFirst },
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
  },
});
