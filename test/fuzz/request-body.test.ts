/**
 * Fuzz (fast-check) of whole requests, DESIGN.md invariant 8: random bodies (valid and invalid
 * shapes, wrong types, extra fields, deep nesting, huge strings, garbage, invalid UTF-8) with
 * random content types and headers (Idempotency-Key among them) are never answered ≥ 500; a 4xx
 * is always a JSON body whose error has a SQLSTATE `code` and a `message`; a refused request
 * commits nothing.
 *
 * The engine runs in a child process (sandbox.ts): a request that hangs or kills it is a failing
 * case with its input, not a dead test run.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { budget } from '../helpers/budget';
import { testPipeline, uniquePrefix } from '../helpers/pipeline';
import { httpRequest, type FuzzRequest } from './arbitraries';
import { assertProperty, excerpt, type Verdict } from './harness';
import { Sandbox } from './sandbox';
import { dynamodbEndpoint } from '../helpers/endpoints';

// Thousands of cases against the emulators: generous on a loaded 2-core CI machine.
vi.setConfig({ testTimeout: Math.max(600_000, budget(240_000)) });

let p: Pipeline;
let sandbox: Sandbox;
let tenant: string;
beforeAll(async () => {
  const prefix = uniquePrefix('fuzz-body');
  p = await testPipeline('fuzz-body', { workers: false, prefix });
  sandbox = await Sandbox.start({ dynamodbEndpoint: dynamodbEndpoint(), sqsEndpoint: inject('sqsEndpoint'), prefix, timeoutMs: 5_000 });
  tenant = `fb${Math.random().toString(36).slice(2, 10)}`;
  await sandbox.tenant(tenant);
});
afterAll(async () => {
  await sandbox?.stop();
  await p?.stop();
});

function expectKept(v: Verdict, r: FuzzRequest): void {
  const what = `${v.problem}\nbody: ${excerpt(r.body, 500)}\ncontent-type: ${String(r.contentType)}\nheaders: ${JSON.stringify(r.headers)}`;
  expect(v.problem, what).toBeUndefined();
}

describe('request body fuzz', () => {
  it('the engine answers every body, content type and Idempotency-Key below 500 (1500 cases)', async () => {
    await assertProperty(
      fc.asyncProperty(httpRequest, async (r) => {
        expectKept(await sandbox.runInProcess(tenant, r), r);
      }),
      { numRuns: 1500, endOnFailure: true },
    );
  });

  it('the HTTP API answers every request below 500 with a JSON error body (400 cases)', async () => {
    await assertProperty(
      fc.asyncProperty(httpRequest, async (r) => {
        expectKept(await sandbox.runHttp(tenant, r), r);
      }),
      { numRuns: 400, endOnFailure: true },
    );
  });
});
