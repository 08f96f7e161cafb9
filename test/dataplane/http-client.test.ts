/**
 * The HTTP client's failure handling, against tiny fake servers: which failures are retried,
 * how many times (the policy's budget), and how each is classed for the executors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startDataPlaneServer } from '../../local/dataplane-server';
import type { DataPlane } from '../../shared/dataplane/contract';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import { DataPlaneError } from '../../shared/errors';
import { FAST_POLICY, fakeServer, json, owner, SPECS, type FakeServer } from './fixtures';
import { budget } from '../helpers/budget';

const O = owner('acme', 'replica', 'u7');
const OK = { changed: true, heldGeneration: 1 };

let servers: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

async function serve(handler: Parameters<typeof fakeServer>[0]): Promise<FakeServer> {
  const s = await fakeServer(handler);
  servers.push(s);
  return s;
}

function client(url: string, o: { token?: string; timeoutMs?: number } = {}): HttpDataPlane {
  return new HttpDataPlane(url, { policy: FAST_POLICY, ...o });
}

async function failure(p: Promise<unknown>): Promise<DataPlaneError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DataPlaneError);
  return err as DataPlaneError;
}

describe('requests', () => {
  it('sends the contract request: path, method, bearer token, JSON body', async () => {
    // Prepare
    const s = await serve((res) => json(res, 200, OK));

    // Act
    const result = await client(s.url, { token: 's3cret' }).ensure('replica', O, 1, SPECS.replica);

    // Assess
    expect(result).toEqual(OK);
    const [req] = s.requests;
    expect(req).toMatchObject({ method: 'PUT', path: '/v1/tenants/acme/resources/replica/u7' });
    expect(req!.headers.authorization).toBe('Bearer s3cret');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({ owner: O, generation: 1, spec: SPECS.replica });
  });

  it('sends no Authorization header without a token', async () => {
    const s = await serve((res) => json(res, 200, { resources: [] }));
    await client(s.url).observe('acme');
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('percent-encodes path segments', async () => {
    const s = await serve((res) => json(res, 200, OK));
    await client(s.url).drop('replica', owner('a b', 'replica', 'x/y?z'), 2);
    expect(s.requests[0]!.path).toBe('/v1/tenants/a%20b/resources/replica/x%2Fy%3Fz/drop');
  });

  it.each([
    ['/', '/v1/tenants/acme/resources'],
    ['/prefix', '/prefix/v1/tenants/acme/resources'],
    ['/prefix/v1/', '/prefix/v1/tenants/acme/resources'],
    ['/v1', '/v1/tenants/acme/resources'],
  ])('mounts the contract under the base URL path %s', async (base, expected) => {
    const s = await serve((res) => json(res, 200, { resources: [] }));
    await client(`${s.url}${base}`).observe('acme');
    expect(s.requests[0]!.path).toBe(expected);
  });
});

describe('transient failures are retried per the policy', () => {
  it('503 twice, then 200: succeeds on the third attempt', async () => {
    // Prepare
    const s = await serve((res, n) => (n <= 2 ? json(res, 503, { error: { message: 'warming up', transient: true } }) : json(res, 200, OK)));

    // Act
    const result = await client(s.url).ensure('replica', O, 1, SPECS.replica);

    // Assess
    expect(result).toEqual(OK);
    expect(s.requests).toHaveLength(3);
    expect(new Set(s.requests.map((r) => r.body)).size).toBe(1);
  });

  it('500 forever: a transient DataPlaneError with the server message once the budget is spent', async () => {
    // Prepare
    const s = await serve((res) => json(res, 500, { error: { message: 'disk on fire', transient: true } }));

    // Act
    const err = await failure(client(s.url).drop('replica', O, 2));

    // Assess
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/500 disk on fire/);
    expect(err.message).toMatch(/gave up after 3 attempts/);
    expect(s.requests).toHaveLength(FAST_POLICY.budget);
  });

  it('429 with Retry-After, and 408, are retried', async () => {
    const s = await serve((res, n) =>
      n === 1 ? json(res, 429, { error: { message: 'slow down', transient: true } }, { 'retry-after': '0' }) : n === 2 ? json(res, 408, '') : json(res, 200, OK),
    );
    expect(await client(s.url).ensure('replica', O, 1, SPECS.replica)).toEqual(OK);
    expect(s.requests).toHaveLength(3);
  });

  it('a hung server: each attempt times out, then a transient error', async () => {
    // Prepare: never answers
    const s = await serve(() => undefined);
    const started = Date.now();

    // Act
    const err = await failure(client(s.url, { timeoutMs: 100 }).observe('acme'));

    // Assess
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/no response within 100 ms/);
    expect(s.requests).toHaveLength(FAST_POLICY.budget);
    expect(Date.now() - started).toBeLessThan(budget(2_000));
  });

  it('a malformed 200 is transient: retried, and reported if it persists', async () => {
    // Prepare
    const s = await serve((res, n) => (n === 1 ? json(res, 200, '<html>oops</html>') : json(res, 200, { changed: 'yes', heldGeneration: -1 })));

    // Act
    const err = await failure(client(s.url).ensure('replica', O, 1, SPECS.replica));

    // Assess
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/malformed 200 response \(at changed, heldGeneration\)/);
    expect(s.requests).toHaveLength(3);
  });

  it('a malformed observe body is caught too', async () => {
    const s = await serve((res) => json(res, 200, { resources: [{ tenant: 'acme', kind: 'volcano' }] }));
    const err = await failure(client(s.url).observe('acme'));
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/resources\.0\.kind/);
  });

  it('connection refused is transient', async () => {
    // Prepare: a port that was just freed
    const s = await fakeServer(() => undefined);
    await s.stop();

    // Act
    const err = await failure(client(s.url).observe('acme'));

    // Assess
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/request failed: ECONNREFUSED/);
  });
});

describe('terminal failures are not retried', () => {
  it('422: terminal, with the server’s message', async () => {
    // Prepare
    const s = await serve((res) => json(res, 422, { error: { message: 'collection u7 does not exist', transient: false } }));

    // Act
    const err = await failure(client(s.url).setReadPolicy(O, 1, { kind: 'lag', lagMs: 1_000 }));

    // Assess
    expect(err.transient).toBe(false);
    expect(err.message).toBe('data plane PUT /v1/tenants/acme/resources/collection/u7/read-policy: 422 collection u7 does not exist');
    expect(s.requests).toHaveLength(1);
  });

  it('a 404 without a JSON body: terminal, with the text', async () => {
    const s = await serve((res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
    });
    const err = await failure(client(s.url).observe('acme'));
    expect(err.transient).toBe(false);
    expect(err.message).toMatch(/404 Not Found/);
  });

  it('a redirect: terminal (a misconfigured URL), not followed', async () => {
    const s = await serve((res) => {
      res.writeHead(302, { location: 'http://elsewhere.invalid/' });
      res.end();
    });
    const err = await failure(client(s.url, { token: 's3cret' }).observe('acme'));
    expect(err.transient).toBe(false);
    expect(err.message).toMatch(/unexpected redirect/);
    expect(s.requests).toHaveLength(1);
  });

  it('a wrong token: 401 from the data plane server, terminal', async () => {
    // Prepare
    const dataPlane = { observe: async () => [] } as unknown as DataPlane;
    const server = await startDataPlaneServer({ dataPlane, port: 0, token: 'right' });
    servers.push(server);

    // Act
    const wrong = await failure(client(server.url, { token: 'wrong' }).observe('acme'));
    const missing = await failure(client(server.url).observe('acme'));
    const right = await client(server.url, { token: 'right' }).observe('acme');

    // Assess
    expect(wrong.transient).toBe(false);
    expect(wrong.message).toMatch(/401 invalid bearer token/);
    expect(missing.message).toMatch(/401 missing bearer token/);
    expect(right).toEqual([]);
  });
});

describe('construction', () => {
  it('rejects a non-http URL', () => {
    expect(() => new HttpDataPlane('ftp://dp.example.com')).toThrow(/http\(s\)/);
  });
});
