/**
 * The external data plane's bearer token from Secrets Manager (shared/lambda/data-plane-token.ts),
 * with a fake Secrets Manager: read once on first use, cached, read again once after a 401, and
 * never written to a log line or an error. Also its configuration (DATAPLANE_TOKEN_SECRET_ARN).
 */
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configToEnv, loadConfig } from '../../shared/config';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import { DataPlaneError } from '../../shared/errors';
import type { SecretStringReader } from '../../shared/clients/secrets-manager';
import { secretsManagerToken } from '../../shared/lambda/data-plane-token';
import { makeDataPlane } from '../../shared/lambda/wiring';
import { FAST_POLICY, fakeServer, json, owner, SPECS, type FakeServer } from '../dataplane/fixtures';
import { captureOutput, type CapturedOutput } from '../helpers/output';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ddl/dataplane-token-AbCdEf';
const FIRST = 'Tk1-first-dataplane-TOKEN-4f9e2';
const ROTATED = 'Tk2-rotated-dataplane-TOKEN-a81c7';
const O = owner('acme', 'replica', 'u7');
const OK = { changed: true, heldGeneration: 1 };

/** A Secrets Manager that holds one secret, counts its reads and can fail them. */
class FakeSecretsManager implements SecretStringReader {
  value: string | undefined = FIRST;
  reads = 0;
  ids: string[] = [];
  failWith: Error | undefined;
  loads = 0;

  async readSecretString(secretId: string): Promise<string | undefined> {
    this.reads++;
    this.ids.push(secretId);
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (this.failWith) throw this.failWith;
    return this.value;
  }

  /** The `reader` option: counts how often the client is "imported". */
  readonly reader = async (): Promise<SecretStringReader> => {
    this.loads++;
    return this;
  };
}

/** Everything written to stdout and stderr while the test runs. */
let output: CapturedOutput;
beforeEach(() => {
  output = captureOutput();
});

let servers: FakeServer[] = [];
afterEach(async () => {
  output.restore();
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  // Assess (every test): no token was written anywhere.
  for (const token of [FIRST, ROTATED]) expect(output.chunks.join('')).not.toContain(token);
});

/** A data plane that accepts one token at a time (`accepted.token`), 401 otherwise. */
async function dataPlaneAccepting(accepted: { token: string | undefined }): Promise<FakeServer> {
  const s = await fakeServer((res, _n, req) => {
    if (accepted.token !== undefined && req.headers.authorization === `Bearer ${accepted.token}`) json(res, 200, OK);
    else json(res, 401, { error: { message: 'invalid bearer token' } });
  });
  servers.push(s);
  return s;
}

/** The error `p` rejects with, shown as deeply as a logger would (message, stack, causes). */
async function rejection(p: Promise<unknown>): Promise<{ error: unknown; shown: string }> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return { error, shown: inspect(error, { depth: 10 }) + JSON.stringify(error) };
}

describe('secretsManagerToken', () => {
  it('loads the client and reads the secret only on the first get, then serves the cached token', async () => {
    // Prepare
    const sm = new FakeSecretsManager();
    const source = secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader });

    // Act
    const before = { loads: sm.loads, reads: sm.reads };
    const tokens = await Promise.all([source.get(), source.get(), source.get()]);
    tokens.push(await source.get());

    // Assess: nothing at construction; one load and one GetSecretValue for concurrent and later calls
    expect(before).toEqual({ loads: 0, reads: 0 });
    expect(tokens).toEqual([FIRST, FIRST, FIRST, FIRST]);
    expect(sm.loads).toBe(1);
    expect(sm.reads).toBe(1);
    expect(sm.ids).toEqual([ARN]);
  });

  it('trims the SecretString (a token saved with a trailing newline)', async () => {
    const sm = new FakeSecretsManager();
    sm.value = `${FIRST}\n`;
    expect(await secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader }).get()).toBe(FIRST);
  });

  it('reads again after the data plane rejected the cached token, and only for that token', async () => {
    // Prepare
    const sm = new FakeSecretsManager();
    const source = secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader });
    await source.get();

    // Act
    source.rejected('some-older-token'); // not the one held: nothing to forget
    const stillCached = await source.get();
    sm.value = ROTATED;
    source.rejected(FIRST);
    source.rejected(FIRST); // a second 401 to the same token shares the re-read
    const [a, b] = await Promise.all([source.get(), source.get()]);

    // Assess
    expect(stillCached).toBe(FIRST);
    expect([a, b]).toEqual([ROTATED, ROTATED]);
    expect(sm.reads).toBe(2);
  });

  it('does not keep a failed read: the next get reads again; the error names the secret, not a token', async () => {
    // Prepare
    const sm = new FakeSecretsManager();
    sm.failWith = Object.assign(new Error('User is not authorized to perform: secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' });
    const source = secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader });

    // Act
    const { error } = await rejection(source.get());
    sm.failWith = undefined;
    const token = await source.get();

    // Assess
    expect((error as Error).message).toBe(
      `could not read the data plane token from ${ARN}: AccessDeniedException: User is not authorized to perform: secretsmanager:GetSecretValue`,
    );
    expect(token).toBe(FIRST);
    expect(sm.reads).toBe(2);
  });

  it('retries a failed client load on the next get', async () => {
    // Prepare
    const sm = new FakeSecretsManager();
    let loads = 0;
    const source = secretsManagerToken(ARN, 'eu-west-1', {
      reader: async () => {
        if (++loads === 1) throw new Error('Cannot find module');
        return sm;
      },
    });

    // Act + Assess
    await rejection(source.get());
    expect(await source.get()).toBe(FIRST);
    expect(loads).toBe(2);
  });

  it.each([
    ['no SecretString (a binary secret)', undefined],
    ['an empty SecretString', '  \n'],
  ])('refuses %s', async (_case, value) => {
    const sm = new FakeSecretsManager();
    sm.value = value;
    const { error } = await rejection(secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader }).get());
    expect((error as Error).message).toBe(
      `the data plane token secret ${ARN} has no SecretString (or an empty one): store the token as its text`,
    );
  });
});

describe('HttpDataPlane with a token from Secrets Manager', () => {
  it('sends the token; after a rotation, one 401 makes it read the secret again and retry at once', async () => {
    // Prepare
    const accepted = { token: FIRST as string | undefined };
    const s = await dataPlaneAccepting(accepted);
    const sm = new FakeSecretsManager();
    const dp = new HttpDataPlane(s.url, { policy: FAST_POLICY, token: secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader }) });

    // Act
    await dp.ensure('replica', O, 1, SPECS.replica);
    await dp.ensure('replica', O, 1, SPECS.replica);
    sm.value = ROTATED; // rotation: the secret and the data plane move to a new token
    accepted.token = ROTATED;
    const afterRotation = await dp.ensure('replica', O, 1, SPECS.replica);
    await dp.ensure('replica', O, 1, SPECS.replica);

    // Assess
    expect(afterRotation).toEqual(OK);
    expect(s.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${FIRST}`, `Bearer ${FIRST}`, `Bearer ${FIRST}`, `Bearer ${ROTATED}`, `Bearer ${ROTATED}`]);
    expect(sm.reads).toBe(2);
  });

  it('reads the secret again only once per call when the data plane keeps answering 401; the error shows no token', async () => {
    // Prepare
    const s = await dataPlaneAccepting({ token: undefined });
    const sm = new FakeSecretsManager();
    const dp = new HttpDataPlane(s.url, { policy: FAST_POLICY, token: secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader }) });

    // Act
    const { error, shown } = await rejection(dp.ensure('replica', O, 1, SPECS.replica));

    // Assess: a 401 is terminal once the fresh token is refused too
    expect(error).toBeInstanceOf(DataPlaneError);
    expect((error as DataPlaneError).transient).toBe(false);
    expect((error as Error).message).toBe('data plane PUT /v1/tenants/acme/resources/replica/u7: 401 invalid bearer token');
    expect(s.requests).toHaveLength(2);
    expect(sm.reads).toBe(2);
    expect(shown).not.toContain(FIRST);
  });

  it('fails the call as transient when the secret cannot be read, with no request sent', async () => {
    // Prepare
    const s = await dataPlaneAccepting({ token: FIRST });
    const sm = new FakeSecretsManager();
    sm.failWith = Object.assign(new Error('connect ETIMEDOUT'), { name: 'TimeoutError' });
    const dp = new HttpDataPlane(s.url, { policy: FAST_POLICY, token: secretsManagerToken(ARN, 'eu-west-1', { reader: sm.reader }) });

    // Act
    const { error } = await rejection(dp.observe('acme'));

    // Assess: retried per the policy (each attempt asks Secrets Manager again), then transient
    expect(error).toBeInstanceOf(DataPlaneError);
    expect((error as DataPlaneError).transient).toBe(true);
    expect((error as Error).message).toBe(
      `data plane GET /v1/tenants/acme/resources: no bearer token: could not read the data plane token from ${ARN}: TimeoutError: connect ETIMEDOUT (gave up after ${FAST_POLICY.budget} attempts)`,
    );
    expect(sm.reads).toBe(FAST_POLICY.budget);
    expect(s.requests).toHaveLength(0);
  });

  it('with a fixed token (DATAPLANE_TOKEN), a 401 is terminal at once: there is nothing to read again', async () => {
    const s = await dataPlaneAccepting({ token: undefined });
    const { error, shown } = await rejection(new HttpDataPlane(s.url, { policy: FAST_POLICY, token: FIRST }).observe('acme'));
    expect((error as DataPlaneError).transient).toBe(false);
    expect(s.requests).toHaveLength(1);
    expect(shown).not.toContain(FIRST);
  });
});

describe('configuration: DATAPLANE_TOKEN_SECRET_ARN', () => {
  const base = { CATALOG_TABLE: 'c', QUEUE_URL_COMPUTE: 'q1', QUEUE_URL_STORAGE: 'q2', QUEUE_URL_SECRETS: 'q3', DATAPLANE_URL: 'https://dp.example.com' };

  it('reads the ARN and writes it back', () => {
    const cfg = loadConfig({ ...base, DATAPLANE_TOKEN_SECRET_ARN: ARN });
    expect(cfg.dataPlaneTokenSecretArn).toBe(ARN);
    expect(cfg.dataPlaneToken).toBeUndefined();
    expect(configToEnv(cfg)).toMatchObject({ DATAPLANE_TOKEN_SECRET_ARN: ARN });
    expect(configToEnv(cfg)).not.toHaveProperty('DATAPLANE_TOKEN');
  });

  it.each([
    'arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:dp-token-AbCdEf',
    'arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:a/b_c+d=e.f@g-AbCdEf',
  ])('accepts %s', (arn) => {
    expect(loadConfig({ ...base, DATAPLANE_TOKEN_SECRET_ARN: arn }).dataPlaneTokenSecretArn).toBe(arn);
  });

  it.each([
    'dp-token',
    'arn:aws:ssm:eu-west-1:123456789012:parameter/dp-token',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:',
    'arn:aws:secretsmanager:eu-west-1:12345:secret:dp-token',
  ])('refuses %s, naming the variable and the expected form', (arn) => {
    expect(() => loadConfig({ ...base, DATAPLANE_TOKEN_SECRET_ARN: arn })).toThrow(
      `invalid configuration: DATAPLANE_TOKEN_SECRET_ARN: must be the ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>), got "${arn}"`,
    );
  });

  it('refuses DATAPLANE_TOKEN and DATAPLANE_TOKEN_SECRET_ARN together, without showing the token', () => {
    // Act
    let message = '';
    try {
      loadConfig({ ...base, DATAPLANE_TOKEN: FIRST, DATAPLANE_TOKEN_SECRET_ARN: ARN });
    } catch (err) {
      message = (err as Error).message;
    }

    // Assess
    expect(message).toBe(
      'invalid configuration: set DATAPLANE_TOKEN_SECRET_ARN (the token in Secrets Manager, for AWS) or DATAPLANE_TOKEN (the token in plain, for local use), not both',
    );
    expect(message).not.toContain(FIRST);
  });

  it('makeDataPlane: an HTTP data plane that reads no secret until its first call', () => {
    const dp = makeDataPlane(loadConfig({ ...base, DATAPLANE_TOKEN_SECRET_ARN: ARN }), {} as never);
    expect(dp).toBeInstanceOf(HttpDataPlane);
  });
});
