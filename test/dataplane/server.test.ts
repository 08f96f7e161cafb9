/**
 * The local data-plane server: request validation (400 with a message that points at the
 * problem), the bearer token, and how data-plane errors become statuses the client classes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDataPlaneServer, type DataPlaneServer } from '../../local/dataplane-server';
import type { DataPlane } from '../../shared/dataplane/contract';
import { FaultInjector } from '../../shared/dataplane/faults';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import type { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { DataPlaneError } from '../../shared/errors';
import { FAST_POLICY, newTenant, owner, referenceDataPlane, SPECS } from './fixtures';

const TOKEN = 'server-token';
const faults = new FaultInjector();
let ref: ReferenceDataPlane;
let server: DataPlaneServer;
let dp: HttpDataPlane;

beforeAll(async () => {
  ref = await referenceDataPlane('dp-server', faults);
  server = await startDataPlaneServer({ dataPlane: ref, port: 0, token: TOKEN });
  dp = new HttpDataPlane(server.url, { token: TOKEN, policy: FAST_POLICY });
});
afterAll(async () => {
  await server.stop();
});

async function call(method: string, path: string, body?: unknown, token: string | null = TOKEN) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const O = owner('acme', 'replica', 'u7');
const PATH = '/v1/tenants/acme/resources/replica/u7';

describe('request validation', () => {
  it.each([
    ['not JSON', '{"owner":', /not valid JSON/],
    ['an empty body', '', /empty/],
    ['no generation', { owner: O, spec: SPECS.replica }, /^invalid ensure replica request: generation: required$/],
    ['a negative generation', { owner: O, generation: -1, spec: SPECS.replica }, /generation: Too small/],
    ['a fractional generation', { owner: O, generation: 1.5, spec: SPECS.replica }, /generation: .*expected int/],
    ['another kind’s spec', { owner: O, generation: 1, spec: SPECS.collection }, /spec\.clusterId.*spec\.size/s],
    ['an unknown spec field', { owner: O, generation: 1, spec: { ...SPECS.replica, sise: '50cc' } }, /spec: Unrecognized key: "sise"/],
    ['an unknown top-level field', { owner: O, generation: 1, spec: SPECS.replica, force: true }, /Unrecognized key: "force"/],
    ['an empty owner field', { owner: { ...O, objectName: '' }, generation: 1, spec: SPECS.replica }, /owner\.objectName/],
    ['an owner of another tenant', { owner: { ...O, tenant: 'evil' }, generation: 1, spec: SPECS.replica }, /owner\.tenant "evil" does not match the path's tenant "acme"/],
    ['an owner of another resource', { owner: { ...O, objectId: 'u8' }, generation: 1, spec: SPECS.replica }, /owner\.objectId "u8" does not match/],
  ])('ensure with %s is a 400 that says why', async (_what, body, message) => {
    // Act
    const r = await call('PUT', PATH, body);

    // Assess
    expect(r.status).toBe(400);
    expect(r.body.error.transient).toBe(false);
    expect(r.body.error.message).toMatch(message);
  });

  it('an unknown kind is a 400 listing the kinds', async () => {
    const r = await call('PUT', '/v1/tenants/acme/resources/volcano/u7', { owner: O, generation: 1, spec: {} });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('unknown resource kind "volcano"; expected one of replica, dataflow, collection, ingestion, export');
  });

  it('a read policy with a bad lag is a 400', async () => {
    const r = await call('PUT', '/v1/tenants/acme/resources/collection/u7/read-policy', { owner: O, generation: 1, policy: { kind: 'lag', lagMs: '1s' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/policy\.lagMs/);
  });

  it.each([
    ['GET', '/v2/health', 404],
    ['GET', '/v1/tenants/acme', 404],
    ['PUT', '/v1/tenants/acme/resources/replica/u7/read-policy', 404],
    ['POST', '/v1/tenants/acme/resources/replica/u7/explode', 404],
    ['DELETE', PATH, 405],
    ['POST', '/v1/tenants/acme/resources', 405],
    ['GET', '/v1/tenants/%E0%A4%A/resources', 400],
  ])('%s %s → %i', async (method, path, status) => {
    const r = await call(method, path, method === 'GET' ? undefined : {});
    expect(r.status).toBe(status);
    expect(r.body.error.transient).toBe(false);
    if (status === 405) expect(r.headers.get('allow')).toBeTruthy();
  });

  it('a body over the limit is a 413', async () => {
    const r = await call('PUT', PATH, { owner: O, generation: 1, spec: { clusterId: 'x'.repeat(1_100_000), size: '1' } });
    expect(r.status).toBe(413);
  });
});

describe('authentication', () => {
  it('health needs no token', async () => {
    const r = await call('GET', '/v1/health', undefined, null);
    expect(r).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it.each([
    ['no token', null, 'missing bearer token (Authorization: Bearer <token>)'],
    ['a wrong token', 'nope', 'invalid bearer token'],
  ])('%s is a 401 with WWW-Authenticate', async (_what, token, message) => {
    const r = await call('GET', '/v1/tenants/acme/resources', undefined, token);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.body).toEqual({ error: { message, transient: false } });
  });

  it('a server without a token accepts any caller', async () => {
    const open = await startDataPlaneServer({ dataPlane: ref, port: 0 });
    try {
      expect((await fetch(`${open.url}/v1/tenants/acme/resources`)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});

describe('data-plane errors over HTTP', () => {
  it('a transient data-plane error is a 503 the client retries through', async () => {
    // Prepare
    const tenant = newTenant();
    faults.failNext(1, 'transient', 'injected: throttled');
    const calls = faults.calls;

    // Act
    const result = await dp.ensure('replica', owner(tenant, 'replica'), 1, SPECS.replica);

    // Assess
    expect(result).toEqual({ changed: true, heldGeneration: 1 });
    expect(faults.calls - calls).toBe(2);
  });

  it('a terminal data-plane error is a 422: the client fails at once, with the message', async () => {
    // Prepare
    faults.failNext(1, 'terminal', 'injected: quota exceeded');
    const calls = faults.calls;

    // Act
    const err = await dp.ensure('replica', owner(newTenant(), 'replica'), 1, SPECS.replica).catch((e: unknown) => e);

    // Assess
    expect(err).toBeInstanceOf(DataPlaneError);
    expect(err).toMatchObject({ transient: false, message: expect.stringMatching(/422 injected: quota exceeded$/) });
    expect(faults.calls - calls).toBe(1);
  });

  it('a persistent transient error exhausts the client’s budget', async () => {
    faults.failNext(FAST_POLICY.budget, 'transient', 'injected: down');
    const err = await dp.drop('replica', owner(newTenant(), 'replica'), 1).catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: true, message: expect.stringMatching(/503 injected: down \(gave up after 3 attempts\)/) });
  });

  it('an unexpected error is a bare 500: details never leak, the operator sees them', async () => {
    // Prepare
    const seen: unknown[] = [];
    const broken = { observe: async () => Promise.reject(new Error('secret connection string')) } as unknown as DataPlane;
    const s = await startDataPlaneServer({ dataPlane: broken, port: 0, onError: (e) => seen.push(e) });

    try {
      // Act
      const res = await fetch(`${s.url}/v1/tenants/acme/resources`);

      // Assess
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: { message: 'internal error', transient: true } });
      expect((seen[0] as Error).message).toBe('secret connection string');
    } finally {
      await s.stop();
    }
  });
});
