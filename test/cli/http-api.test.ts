/**
 * docs/http-api.openapi.json describes what ddlctl, the console and every other client rely on:
 * real responses of a test pipeline, for every documented status, validate against the schema the
 * document gives for that status, and the document's own examples validate too.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const doc = JSON.parse(readFileSync(new URL('../../docs/http-api.openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'api', components: doc.components });

function validate(ref: string, value: unknown): string | undefined {
  const v = ajv.getSchema(`api${ref}`);
  if (!v) throw new Error(`no schema ${ref}`);
  return v(value) ? undefined : `${ref}: ${ajv.errorsText(v.errors)}`;
}

const sqlOp = doc.paths['/api/sql'].post;

/** The schema the document gives for this status of POST /api/sql. */
function responseRef(status: number): string {
  const r = sqlOp.responses[String(status)] ?? sqlOp.responses[`${String(status)[0]}XX`];
  expect(r, `status ${status} is documented`).toBeDefined();
  return r.content['application/json'].schema.$ref;
}

let p: Pipeline;
let sql: SqlClient;
beforeAll(async () => {
  p = await testPipeline('httpapi');
  ({ sql } = await sqlClient(p));
});
afterAll(async () => {
  await p.stop();
});

describe('docs/http-api.openapi.json', () => {
  it('documents the statuses the API answers, and its examples fit its schemas', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(sqlOp.responses).sort()).toEqual(['200', '400', '401', '409', '413', '415', '422', '5XX']);
    expect(sqlOp.parameters[0].$ref).toBe('#/components/parameters/IdempotencyKey');
    for (const [name, ex] of Object.entries<any>(sqlOp.requestBody.content['application/json'].examples)) {
      expect(validate('#/components/schemas/SqlRequest', ex.value), name).toBeUndefined();
    }
    for (const [status, r] of Object.entries<any>(sqlOp.responses)) {
      const c = r.content['application/json'];
      for (const [name, ex] of Object.entries<any>(c.examples ?? {})) expect(validate(c.schema.$ref, ex.value), `${status} ${name}`).toBeUndefined();
    }
  });

  it.each<[string, string | undefined, { body?: string; contentType?: string | null; password?: string | null; headers?: Record<string, string> }, number]>([
    ['a DDL statement', "CREATE CLUSTER c (SIZE = '25cc')", {}, 200],
    ['a read', 'SELECT name, managed, replication_factor FROM mz_clusters', {}, 200],
    ['a notice', 'CREATE SCHEMA IF NOT EXISTS public', {}, 200],
    ['EXPLAIN EFFECTS', 'EXPLAIN EFFECTS FOR DROP CLUSTER c', {}, 200],
    ['the extended shape', undefined, { body: JSON.stringify({ queries: [{ query: 'SHOW CLUSTERS', params: [] }, { query: 'SHOW SOURCES' }] }) }, 200],
    ['a syntax error', 'FROBNICATE', {}, 400],
    ['an error after a statement that is rolled back', "CREATE TABLE notes (body text); CREATE CLUSTER x (SIZE = '1cc')", {}, 400],
    ['a malformed body', undefined, { body: '{"q": 1}' }, 400],
    ['parameters', undefined, { body: JSON.stringify({ queries: [{ query: 'SHOW CLUSTERS', params: ['x'] }] }) }, 400],
    ['no password', 'SHOW CLUSTERS', { password: null }, 401],
    ['a wrong password', 'SHOW CLUSTERS', { password: 'ddlp_0000000000000000' }, 401],
    ['a body over 1 MiB', undefined, { body: JSON.stringify({ query: `-- ${'x'.repeat(1024 * 1024)}` }) }, 413],
    ['another content type', 'SHOW CLUSTERS', { contentType: 'text/plain' }, 415],
  ])('%s answers what the document says', async (_name, query, init, status) => {
    const r = await sql(query ?? '', init);
    expect(r.status).toBe(status);
    expect(validate(responseRef(status), r.body)).toBeUndefined();
  });

  it('Idempotency-Key: a replay answers the recorded response with its header; another body answers 422', async () => {
    const key = `k-${Date.now()}`;
    const first = await sql("CREATE CLUSTER idem (SIZE = '25cc')", { headers: { 'idempotency-key': key } });
    const again = await sql("CREATE CLUSTER idem (SIZE = '25cc')", { headers: { 'idempotency-key': key } });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    expect(again.body).toEqual(first.body);
    const other = await sql("CREATE CLUSTER idem2 (SIZE = '25cc')", { headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(validate(responseRef(422), other.body)).toBeUndefined();
    const bad = await sql('SHOW CLUSTERS', { headers: { 'idempotency-key': 'has space' } });
    expect([bad.status, bad.body.results[0].error.code]).toEqual([400, '22023']);
  });

  it('GET /api/health needs no password', async () => {
    const r = await fetch(`${p.url}/api/health`);
    expect(r.status).toBe(200);
    expect(validate('#/components/schemas/HealthResponse', await r.json())).toBeUndefined();
  });
});
