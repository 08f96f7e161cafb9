/** Authentication and request errors at the HTTP edge: a clear 4xx, and nothing committed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('api', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const CREATE = "CREATE CLUSTER c (SIZE = '25cc')";

describe('authentication', () => {
  it('refuses a request without an app password with a 401 JSON error', async () => {
    const { sql, tenant } = await sqlClient(p);
    const r = await sql(CREATE, { password: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { message: 'missing or invalid app password', code: '28P01' } });
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('refuses a wrong password and one of the right shape that was never issued', async () => {
    const { sql } = await sqlClient(p);
    expect((await sql(CREATE, { password: 'nope' })).status).toBe(401);
    expect((await sql(CREATE, { password: `ddlp_${'0'.repeat(80)}` })).status).toBe(401);
  });

  it('accepts HTTP Basic with the tenant as user, and refuses another tenant’s name', async () => {
    const { tenant, password } = await sqlClient(p);
    const basic = (user: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const call = (user: string) =>
      fetch(`${p.url}/api/sql`, { method: 'POST', headers: { authorization: basic(user), 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SHOW CLUSTERS' }) });
    expect((await call(tenant)).status).toBe(200);
    expect((await call('someone-else')).status).toBe(401);
  });

  it('serves the health check without authentication', async () => {
    const r = await fetch(`${p.url}/api/health`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: 'ok' });
  });
});

describe('malformed requests', () => {
  it.each([
    ['malformed JSON', '{"query": ', 'application/json', 400, '08P01', /not valid JSON/],
    ['a body of the wrong shape', '{"sql": "SHOW CLUSTERS"}', 'application/json', 400, '08P01', /must be \{"query"/],
    ['an empty body', '', 'application/json', 400, '08P01', /empty/],
    ['the wrong content type', '{"query": "SHOW CLUSTERS"}', 'text/plain', 415, '08P01', /content type/],
  ])('%s', async (_name, body, contentType, status, code, message) => {
    const { sql, tenant } = await sqlClient(p);
    const r = await sql('', { body, contentType });
    expect(r.status).toBe(status);
    const err = r.body.results[0].error;
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('answers an unknown statement with 42601 and the byte position of the problem', async () => {
    const { sql, tenant } = await sqlClient(p);
    const r = await sql(`${CREATE}; FROBNICATE the catalog`);
    expect(r.status).toBe(400);
    const err = r.body.results[0].error;
    expect(err.code).toBe('42601');
    expect(err.position).toBe(CREATE.length + 2);
    expect(err.message).toMatch(/^Expected .*, found FROBNICATE$/);
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('reports positions in bytes, past multi-byte characters', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql("SELECT * FROM mz_clusters WHERE name = 'é' AND ?");
    expect(r.body.results[0].error.position).toBe(Buffer.byteLength("SELECT * FROM mz_clusters WHERE name = 'é' AND "));
  });
});

describe('Idempotency-Key', () => {
  const create = "CREATE CLUSTER idem (SIZE = '25cc', REPLICATION FACTOR = 2)";

  it('returns the first response to a retry without committing again', async () => {
    const { sql, tenant } = await sqlClient(p);
    const first = await sql(create, { headers: { 'idempotency-key': 'retry-1' } });
    const again = await sql(create, { headers: { 'idempotency-key': 'retry-1' } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await tenantItems(p, tenant)).filter((i) => i.type === 'txn')).toHaveLength(1);
    // Without the key the same statement is a new request, and fails on the existing name.
    expect((await sql(create)).body.results[0].error.code).toBe('42P07');
  });

  it('refuses the same key with another body (422), and commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql(create, { headers: { 'idempotency-key': 'k' } });
    const before = await tenantItems(p, tenant);
    const other = await sql("CREATE CLUSTER other (SIZE = '25cc')", { headers: { 'idempotency-key': 'k' } });
    expect(other.status).toBe(422);
    expect(other.body.results[0].error.message).toMatch(/already used with a different request body/);
    expect(await tenantItems(p, tenant)).toEqual(before);
  });

  it('commits once when concurrent requests race with one key', async () => {
    const { sql, tenant } = await sqlClient(p);
    const responses = await Promise.all(Array.from({ length: 6 }, () => sql(create, { headers: { 'idempotency-key': 'race' } })));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const r of responses) expect(r.body).toEqual(responses[0]!.body);
    expect((await tenantItems(p, tenant)).filter((i) => i.type === 'txn')).toHaveLength(1);
  });

  it('rejects a malformed key', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql(create, { headers: { 'idempotency-key': 'has space' } });
    expect(r.status).toBe(400);
  });
});
