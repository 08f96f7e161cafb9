/** Authentication and request errors at the HTTP edge: a clear 4xx, and nothing committed. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../local/http-server';
import type { Pipeline } from '../../local/pipeline';
import { CORS_ALLOW_HEADERS, CORS_MAX_AGE_SECONDS } from '../../shared/api/cors';
import { UNAUTHORIZED_BODY } from '../../shared/api/handlers';
import { CORS_ALLOW_ORIGINS_ENV } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { apiHandler, authorizerHandler } from '../../shared/lambda/wiring';
import { awsFingerprintKey, fingerprintKeySecretName } from '../../shared/secrets/fingerprint-key';
import { tenantItems } from '../helpers/catalog';
import { FakeSecretsManager } from '../helpers/secrets-manager-fake';
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
    expect(err.message).toBe('Expected a keyword at the beginning of a statement, found identifier "frobnicate"');
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('reports positions in bytes, past multi-byte characters', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql("SELECT * FROM mz_clusters WHERE name = 'é' AND AND");
    expect(r.body.results[0].error).toMatchObject({ code: '42601', message: 'syntax error at or near "AND"' });
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

  it('remembers the body only as a keyed hash: a low-entropy secret cannot be checked against the table', async () => {
    // Prepare
    const { sql, tenant } = await sqlClient(p);
    const body = JSON.stringify({ query: "CREATE SECRET pin AS '1234'" });

    // Act
    const first = await sql('', { body, headers: { 'idempotency-key': 'pin' } });
    const again = await sql('', { body, headers: { 'idempotency-key': 'pin' } });

    // Assess
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [record] = (await tenantItems(p, tenant)).filter((i) => i.type === 'idempotency');
    expect(record!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(record!.fingerprint).not.toBe(createHash('sha256').update(body, 'utf8').digest('hex'));
  });

  it("keys the fingerprint with a deployment key read from (or created once in) Secrets Manager, under the stack's secret prefix", async () => {
    // Prepare: two cold instances racing for the key.
    const sm = new FakeSecretsManager();
    const prefix = 'ddl-control-plane/DdlControlPlaneStaging';
    const [a, b] = [awsFingerprintKey(sm.client, prefix), awsFingerprintKey(sm.client, prefix)];

    // Act
    const [ka, kb] = await Promise.all([a(), b()]);
    const later = await awsFingerprintKey(sm.client, prefix)();
    const otherStack = await awsFingerprintKey(sm.client, 'ddl-control-plane/DdlControlPlane')();

    // Assess
    expect(ka.length).toBe(32);
    expect(kb.equals(ka)).toBe(true);
    expect(later.equals(ka)).toBe(true);
    expect(otherStack.equals(ka)).toBe(false);
    expect([...sm.secrets.keys()].sort()).toEqual([fingerprintKeySecretName('ddl-control-plane/DdlControlPlane'), `${prefix}/.deployment/idempotency-fingerprint-key`]);
  });

  it('rejects a malformed key', async () => {
    const { sql } = await sqlClient(p);
    const r = await sql(create, { headers: { 'idempotency-key': 'has space' } });
    expect(r.status).toBe(400);
  });
});

describe('CORS (a browser page on another origin)', () => {
  const CONSOLE = 'https://console.example.com';
  const DEV = 'http://localhost:5173';
  const OTHER = 'https://evil.example.net';

  /**
   * The local API Gateway over p's tables with these CORS origins, wired as the pipeline wires it
   * (the handler's config and the gateway's option both carry them, as the stack does).
   */
  async function gateway(origins: readonly string[]) {
    const { corsAllowOrigins: _fromEnv, ...config } = p.config;
    const cfg = origins.length ? { ...config, corsAllowOrigins: origins } : config;
    const server = await startHttpServer({
      api: apiHandler(cfg, p.clients, makeLogger('ddl-api')),
      authorizer: authorizerHandler(cfg, p.clients, makeLogger('authorizer')),
      port: 0,
      corsAllowOrigins: origins,
    });
    const call = (path: string, init: { method?: string; origin?: string; headers?: Record<string, string>; body?: string } = {}) =>
      fetch(`${server.url}${path}`, {
        method: init.method ?? 'GET',
        headers: { ...(init.origin ? { origin: init.origin } : {}), ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
    return { ...server, call };
  }
  const preflight = { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } };
  const corsOf = (r: Response) => Object.fromEntries([...r.headers].filter(([k]) => k.startsWith('access-control-') || k === 'vary'));

  let listed: Awaited<ReturnType<typeof gateway>>;
  let any: Awaited<ReturnType<typeof gateway>>;
  let none: Awaited<ReturnType<typeof gateway>>;
  let password: string;
  beforeAll(async () => {
    [listed, any, none] = await Promise.all([gateway([CONSOLE, DEV]), gateway(['*']), gateway([])]);
    ({ password } = await sqlClient(p));
  });
  afterAll(async () => {
    await Promise.all([listed.stop(), any.stop(), none.stop()]);
  });
  const post = (origin: string | undefined, pw: string | null = password, extra: Record<string, string> = {}) => ({
    method: 'POST',
    ...(origin ? { origin } : {}),
    headers: { 'content-type': 'application/json', ...(pw ? { authorization: `Bearer ${pw}` } : {}), ...extra },
    body: JSON.stringify({ query: 'SHOW CLUSTERS' }),
  });

  it('answers a preflight from an allowed origin with 204 and the CORS headers, without the authorizer', async () => {
    for (const [path, methods] of [['/api/sql', 'POST'], ['/api/health', 'GET']] as const) {
      for (const origin of [CONSOLE, DEV]) {
        const r = await listed.call(path, { ...preflight, origin });
        expect(r.status).toBe(204);
        expect(await r.text()).toBe('');
        expect(corsOf(r)).toEqual({
          'access-control-allow-origin': origin,
          'access-control-allow-methods': methods,
          'access-control-allow-headers': CORS_ALLOW_HEADERS.join(','),
          'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
          vary: 'Origin',
        });
      }
    }
  });

  it('names no origin to a page on another origin, in a preflight or an answer', async () => {
    const pre = await listed.call('/api/sql', { ...preflight, origin: OTHER });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const r = await listed.call('/api/sql', post(OTHER));
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect(r.headers.get('access-control-expose-headers')).toBeNull();
    // The answer depends on the origin, so caches must key on it.
    expect(r.headers.get('vary')).toBe('Origin');
  });

  it('lets an allowed page read a real answer and its idempotent-replayed header', async () => {
    const r = await listed.call('/api/sql', post(CONSOLE));
    expect(r.status).toBe(200);
    expect(((await r.json()) as { results: { tag: string }[] }).results[0]!.tag).toMatch(/^SELECT/);
    expect(corsOf(r)).toEqual({ 'access-control-allow-origin': CONSOLE, 'access-control-expose-headers': 'idempotent-replayed', vary: 'Origin' });
    const health = await listed.call('/api/health', { origin: DEV });
    expect(health.headers.get('access-control-allow-origin')).toBe(DEV);
  });

  it('lets an allowed page read the gateway\'s own 401, 404 and 413 and the handler\'s errors', async () => {
    const unauthorized = await listed.call('/api/sql', post(CONSOLE, null));
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual(UNAUTHORIZED_BODY);
    expect(corsOf(unauthorized)).toMatchObject({ 'access-control-allow-origin': CONSOLE, vary: 'Origin' });
    const wrong = await listed.call('/api/sql', post(CONSOLE, 'ddlp_nope'));
    expect([wrong.status, wrong.headers.get('access-control-allow-origin')]).toEqual([401, CONSOLE]);
    const noRoute = await listed.call('/api/nothing', { origin: CONSOLE });
    expect([noRoute.status, noRoute.headers.get('access-control-allow-origin')]).toEqual([404, CONSOLE]);
    const tooLarge = await listed.call('/api/sql', { ...post(CONSOLE), body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    expect([tooLarge.status, tooLarge.headers.get('access-control-allow-origin')]).toEqual([413, CONSOLE]);
    const badSql = await listed.call('/api/sql', { ...post(DEV), body: JSON.stringify({ query: 'FROBNICATE' }) });
    expect([badSql.status, badSql.headers.get('access-control-allow-origin')]).toEqual([400, DEV]);
    // Refusals to another origin name no origin.
    const other = await listed.call('/api/sql', post(OTHER, null));
    expect([other.status, other.headers.get('access-control-allow-origin')]).toEqual([401, null]);
  });

  it('with "*", allows every origin and varies on none', async () => {
    const pre = await any.call('/api/sql', { ...preflight, origin: OTHER });
    expect(pre.status).toBe(204);
    expect(corsOf(pre)).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST' });
    for (const r of [await any.call('/api/sql', post(OTHER)), await any.call('/api/sql', post(OTHER, null))]) {
      expect(corsOf(r)).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'idempotent-replayed' });
    }
  });

  it('without configured origins, sends no CORS header at all and has no OPTIONS route', async () => {
    const pre = await none.call('/api/sql', { ...preflight, origin: CONSOLE });
    expect(pre.status).toBe(404);
    const answers = [pre, await none.call('/api/sql', post(CONSOLE)), await none.call('/api/sql', post(CONSOLE, null)), await none.call('/api/health', { origin: CONSOLE })];
    expect(answers.map((r) => r.status)).toEqual([404, 200, 401, 200]);
    for (const r of answers) expect(corsOf(r)).toEqual({});
  });

  it('npm start takes CORS_ALLOW_ORIGINS from the environment, for the gateway and the handler alike', async () => {
    process.env[CORS_ALLOW_ORIGINS_ENV] = `${CONSOLE}, ${DEV}`;
    let q: Pipeline;
    try {
      q = await testPipeline('api-cors', { workers: false });
    } finally {
      delete process.env[CORS_ALLOW_ORIGINS_ENV];
    }
    try {
      expect(q.config.corsAllowOrigins).toEqual([CONSOLE, DEV]);
      const pre = await fetch(`${q.url}/api/sql`, { method: 'OPTIONS', headers: { origin: DEV } });
      expect([pre.status, pre.headers.get('access-control-allow-origin')]).toEqual([204, DEV]);
      const { sql } = await sqlClient(q);
      const r = await sql('SHOW CLUSTERS', { headers: { origin: CONSOLE } });
      expect([r.status, r.headers.get('access-control-allow-origin')]).toEqual([200, CONSOLE]);
    } finally {
      await q.stop();
    }
  });
});
