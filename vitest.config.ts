import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global.ts'],
    setupFiles: ['test/setup/invariants.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The integration tests mostly wait on the emulators: two files at a time keep 2 cores busy
    // (vitest's default on 2 cores is one file at a time).
    maxWorkers: 2,
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
  },
});
