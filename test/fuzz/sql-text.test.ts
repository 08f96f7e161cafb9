/**
 * Fuzz (fast-check) of SQL text, DESIGN.md invariant 8: random SQL-ish text — statement templates
 * over the prelude's objects, mutated golden inputs, token soups, unicode, NULs, long runs — is
 * answered with a SQLSTATE, never with a crash or a 5xx.
 *
 * 1. `parse` throws nothing but the product's own errors (ControlPlaneError and its subclasses),
 *    with a byte position inside the text.
 * 2. The engine (`SqlApi.handle`: parse → plan → commit over the real catalog store) answers every
 *    text below 500, a 4xx with a `code` and a `message`, and commits nothing when it refuses.
 * 3. The same over HTTP, through the local API Gateway.
 *
 * The engine runs in a child process (sandbox.ts): an input that hangs it or kills its process is a
 * failing case with its input, not a dead test run. `npm run fuzz` runs the same generators longer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { budget } from '../helpers/budget';
import { testPipeline, uniquePrefix } from '../helpers/pipeline';
import { sqlText, type FuzzRequest } from './arbitraries';
import { assertProperty, checkParse, excerpt, type Verdict } from './harness';
import { Sandbox } from './sandbox';
import { dynamodbEndpoint } from '../helpers/endpoints';

// Thousands of cases against the emulators: generous on a loaded 2-core CI machine.
// A hang guard, not a speed goal: the sandbox's hang detector tells stuck from slow; a loaded 2-core CI machine took 290 s.
vi.setConfig({ testTimeout: Math.max(900_000, budget(240_000)) });

let p: Pipeline;
let sandbox: Sandbox;
beforeAll(async () => {
  const prefix = uniquePrefix('fuzz-sql');
  // Creates the tables and queues (and puts them under the suite-wide invariant checks).
  p = await testPipeline('fuzz-sql', { workers: false, prefix });
  sandbox = await Sandbox.start({ dynamodbEndpoint: dynamodbEndpoint(), sqsEndpoint: inject('sqsEndpoint'), prefix, timeoutMs: 5_000 });
});
afterAll(async () => {
  await sandbox?.stop();
  await p?.stop();
});

const asRequest = (query: string): FuzzRequest => ({ body: JSON.stringify({ query }), contentType: 'application/json', headers: {} });

/** A fresh tenant every `every` cases keeps snapshots small as random DDL commits. */
function tenants(label: string, every: number): () => Promise<string> {
  let n = 0;
  let current = '';
  return async () => {
    if (n++ % every === 0) {
      current = `${label}${n}x${Math.random().toString(36).slice(2, 8)}`;
      await sandbox.tenant(current);
    }
    return current;
  };
}

function expectKept(v: Verdict, input: string): void {
  expect(v.problem, `${v.problem}\ninput: ${excerpt(input, 500)}`).toBeUndefined();
}

describe('SQL text fuzz', () => {
  it('parse throws only the product’s errors, with a position inside the text (3000 cases)', async () => {
    await assertProperty(
      fc.property(sqlText, (text) => {
        const problem = checkParse(text);
        expect(problem, `${problem}\ninput: ${excerpt(text, 500)}`).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  it('the engine answers every text below 500 and commits nothing it refuses (1500 cases)', async () => {
    const tenant = tenants('fsq', 500);
    await assertProperty(
      fc.asyncProperty(sqlText, async (text) => {
        expectKept(await sandbox.runInProcess(await tenant(), asRequest(text)), text);
      }),
      { numRuns: 1500, endOnFailure: true },
    );
  });

  it('the HTTP API answers every text below 500 with a JSON error body (300 cases)', async () => {
    const tenant = tenants('fsh', 300);
    await assertProperty(
      fc.asyncProperty(sqlText, async (text) => {
        expectKept(await sandbox.runHttp(await tenant(), asRequest(text)), text);
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });
});
