/**
 * Suite-wide invariant, checked after every test (DESIGN.md invariant 3): every collection-bearing
 * object whose effects have settled has its collection — or its index arrangement — in the data
 * plane WITH a read policy (test/helpers/read-policies.ts). Every test file loads this file, so it
 * imports nothing heavy up front: the check and its AWS SDK commands load on the first test that
 * has a live pipeline, and pure unit test files never load them.
 */
import fc from 'fast-check';
import { afterAll, afterEach, expect, inject } from 'vitest';
import { dynamodbIndex } from '../helpers/endpoints';
import { livePipelines } from '../helpers/live-pipelines';

afterEach(async () => {
  if (livePipelines.size === 0) return;
  const { missingReadPolicies } = await import('../helpers/read-policies');
  for (const p of livePipelines) expect(await missingReadPolicies(p)).toEqual([]);
});

// After the file (the setup file's hook runs after the file's own): the worker's DynamoDB Local is
// restarted if it has done enough work to have slowed down (test/setup/emulator-control.ts).
afterAll(async () => {
  const r = await fetch(`${inject('emulatorControl')}/dynamodb/${dynamodbIndex()}/after-file`, { method: 'POST' });
  if (!r.ok) throw new Error(`restarting this worker's DynamoDB Local: ${r.status} ${await r.text()}`);
});

// Property tests explore new inputs on every local run; CI replays one fixed seed so a landing
// never depends on luck (`npm run fuzz` is the place for long random runs).
if (process.env.CI || process.env.FAST_CHECK_SEED) fc.configureGlobal({ seed: Number(process.env.FAST_CHECK_SEED ?? 20261130) });
