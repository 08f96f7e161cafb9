/**
 * The small probes (SSH bastion reachability, Confluent schema registry over HTTP, types with
 * nothing to probe), secret scrubbing, the never-throw contract, and the scripted prober.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectOf } from '../../shared/catalog/model';
import { resolveConnection } from '../../shared/catalog/connections';
import { ScriptedProber } from '../../shared/probes/fake';
import { REDACTED, scrubSecrets } from '../../shared/probes/namespace';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import type { ConnectionProbeInput } from '../../shared/probes/types';
import { refusedPort, silentServer, timed } from './net';

const TIMEOUT_MS = 1_000;
const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: LOCAL_PROBE_POLICY });

describe('ssh probe', () => {
  it('fails transiently on a refused port, ok on a listening one', async () => {
    // Prepare
    const refused = await refusedPort();
    const listening = await silentServer();
    try {
      // Act
      const down = await prober.probeConnection({ type: 'ssh', options: { HOST: '127.0.0.1', PORT: String(refused), USER: 'mz' }, secrets: {} });
      const up = await prober.probeConnection({ type: 'ssh', options: { HOST: '127.0.0.1', PORT: String(listening.port), USER: 'mz' }, secrets: {} });
      // Assess
      expect(down).toEqual({ ok: false, namespace: 'ssh', error: `error connecting to 127.0.0.1:${refused}: Connection refused (os error 111)`, fatal: false });
      expect(up).toEqual({ ok: true, namespace: 'ssh' });
      expect(listening.accepted).toBe(1);
    } finally {
      await listening.close();
    }
  });

  it('needs a HOST', async () => {
    expect(await prober.probeConnection({ type: 'ssh', options: {}, secrets: {} })).toMatchObject({ ok: false, namespace: 'ssh', fatal: true });
  });
});

describe('schema registry probe', () => {
  let server: Server;
  let url: string;
  const seen: IncomingMessage[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      const auth = req.headers.authorization;
      if (req.url?.includes('/locked/') && auth !== `Basic ${Buffer.from('registry-user:registry-pass').toString('base64')}`) {
        res.writeHead(401).end('{"error_code":40101}');
      } else if (req.url?.endsWith('/subjects')) {
        res.writeHead(200, { 'content-type': 'application/vnd.schemaregistry.v1+json' }).end('[]');
      } else {
        res.writeHead(500).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const csr = (URL: string, options: Record<string, string> = {}, secrets: Record<string, string> = {}): ConnectionProbeInput => ({
    type: 'confluent-schema-registry',
    options: { URL, ...options },
    secrets,
  });

  it('is ok when GET /subjects answers 200, under a path prefix too', async () => {
    expect(await prober.probeConnection(csr(url))).toEqual({ ok: true, namespace: 'schema-registry' });
    expect(await prober.probeConnection(csr(`${url}/open/`))).toEqual({ ok: true, namespace: 'schema-registry' });
    expect(seen.at(-1)?.url).toBe('/open/subjects');
  });

  it('sends USERNAME and the PASSWORD secret as basic auth, and fails fatally when refused', async () => {
    expect(await prober.probeConnection(csr(`${url}/locked`, { USERNAME: 'registry-user' }, { PASSWORD: 'registry-pass' }))).toEqual({ ok: true, namespace: 'schema-registry' });
    const denied = await prober.probeConnection(csr(`${url}/locked`, { USERNAME: 'registry-user' }, { PASSWORD: 'wrong-pass' }));
    expect(denied).toMatchObject({ ok: false, namespace: 'schema-registry', fatal: true, error: `authentication failed: HTTP 401 from ${url}` });
  });

  it('fails transiently on a refused port and times out on a silent one', async () => {
    const refused = await refusedPort();
    expect(await prober.probeConnection(csr(`http://127.0.0.1:${refused}`))).toEqual({
      ok: false,
      namespace: 'schema-registry',
      error: `error connecting to http://127.0.0.1:${refused}: Connection refused (os error 111)`,
      fatal: false,
    });
    const silent = await silentServer();
    try {
      const { result, ms } = await timed(() => prober.probeConnection(csr(`http://127.0.0.1:${silent.port}`)));
      expect(result).toMatchObject({ ok: false, fatal: false, error: `timed out connecting to http://127.0.0.1:${silent.port}` });
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await silent.close();
    }
  });
});

describe('types with nothing to probe', () => {
  it('are ok, under their namespace', async () => {
    expect(await prober.probeConnection({ type: 'aws-privatelink', options: { 'SERVICE NAME': 'com.amazonaws.vpce.x' }, secrets: {} })).toEqual({ ok: true, namespace: 'aws' });
    expect(await prober.probeSource({ type: 'ssh', options: { HOST: '127.0.0.1', PORT: String(await refusedPort()) }, secrets: {} }, {})).toMatchObject({ ok: false, namespace: 'ssh' });
  });
});

describe('the never-throw contract', () => {
  it('turns an exception inside a probe into a result, scrubbed', async () => {
    // Prepare: options that explode when read, with the secret in the explosion.
    const options = new Proxy({} as Record<string, string>, {
      get() {
        throw new Error('boom near hunter2-secret');
      },
      ownKeys() {
        throw new Error('boom near hunter2-secret');
      },
    });
    // Act
    const r = await prober.probeConnection({ type: 'postgres', options, secrets: { PASSWORD: 'hunter2-secret' } });
    // Assess
    expect(r).toMatchObject({ ok: false, namespace: 'postgres', error: expect.stringMatching(/^internal error while probing/) });
    expect(JSON.stringify(r)).not.toContain('hunter2-secret');
  });

  it('rejects a nonsensical timeout at construction', () => {
    expect(() => new RealProber({ timeoutMs: 0 })).toThrow(RangeError);
    expect(new RealProber().timeoutMs).toBe(5_000);
  });
});

describe('scrubSecrets', () => {
  it('removes every occurrence, longest secret first, URL-encoded forms too', () => {
    const secrets = { PASSWORD: 'p@ss word', 'SASL PASSWORD': 'p@ss', EMPTY: '' };
    expect(scrubSecrets('user p@ss word, again p@ss word, url p%40ss%20word, short p@ss', secrets)).toBe(
      `user ${REDACTED}, again ${REDACTED}, url ${REDACTED}, short ${REDACTED}`,
    );
    expect(scrubSecrets('nothing to hide', secrets)).toBe('nothing to hide');
  });

  it('never leaves a secret in the output (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }), (secret, parts) => {
        // A secret made of the marker's own character trivially "appears" in the marker.
        fc.pre(!secret.includes('*'));
        const text = parts.join(secret);
        expect(scrubSecrets(text, { S: secret })).not.toContain(secret);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('ScriptedProber', () => {
  it('answers ok by default and scripted results by HOST, broker and publication', async () => {
    // Prepare
    const prober = new ScriptedProber();
    const pgConn = { type: 'postgres', options: { HOST: 'db.internal', PORT: '5432' }, secrets: { PASSWORD: 'x' } };
    const kafkaConn = { type: 'kafka', options: { BROKERS: 'k1:9092,k2:9092' }, secrets: {} };
    prober.set('db.internal/gone_pub', { ok: false, namespace: 'postgres', error: 'publication "gone_pub" does not exist', fatal: true });
    prober.set('k2', { ok: false, namespace: 'kafka', error: 'error connecting to broker k2:9092: Connection refused (os error 111)' });
    // Act, Assess
    expect(await prober.probeConnection(pgConn)).toEqual({ ok: true, namespace: 'postgres' });
    expect(await prober.probeSource(pgConn, { PUBLICATION: 'mz_source' })).toEqual({ ok: true, namespace: 'postgres' });
    expect(await prober.probeSource(pgConn, { PUBLICATION: 'gone_pub' })).toMatchObject({ ok: false, fatal: true });
    expect(await prober.probeSink(kafkaConn, { TOPIC: 't' })).toMatchObject({ ok: false, namespace: 'kafka' });

    prober.set('db.internal', { ok: false, namespace: 'postgres', error: 'error connecting to server: Connection refused (os error 111)' });
    expect(await prober.probeConnection(pgConn)).toMatchObject({ ok: false });
    prober.delete('db.internal');
    expect(await prober.probeConnection(pgConn)).toMatchObject({ ok: true });
    expect(prober.calls.map((c) => c.kind)).toEqual(['connection', 'source', 'source', 'sink', 'connection', 'connection']);
  });
});

describe('connections through a tunnel', () => {
  it('are not probed directly (only the tunnel end can reach them)', async () => {
    const port = String(await refusedPort());
    expect(await prober.probeConnection({ type: 'postgres', options: { HOST: '127.0.0.1', PORT: port, USER: 'u', 'SSH TUNNEL': 'bastion' }, secrets: {} })).toEqual({ ok: true, namespace: 'postgres' });
    expect(await prober.probeSource({ type: 'kafka', options: { BROKER: `127.0.0.1:${port}`, 'AWS PRIVATELINK': 'pl' }, secrets: {} }, { TOPIC: 't' })).toEqual({ ok: true, namespace: 'kafka' });
  });

  it('include Kafka brokers with a tunnel each, as the catalog resolves them (resolveConnection), and a direct broker is still probed', async () => {
    const port = String(await refusedPort());
    const conn: ObjectOf<'connection'> = {
      id: 'u3', kind: 'connection', name: 'k', generation: 1, version: 1, dependents: 0, dependsOn: ['u1'], createdAt: '', updatedAt: '', owner: 'o',
      spec: { schemaId: 's', createSql: '', validate: true, connector: { type: 'kafka', options: { BROKERS: `127.0.0.1:${port}`, 'SECURITY PROTOCOL': 'plaintext' }, secretRefs: {}, connectionRefs: { [`BROKER 127.0.0.1:${port} SSH TUNNEL`]: 'u1' } } },
    };
    const input = await resolveConnection('t', conn, async () => undefined, undefined);
    expect(await prober.probeConnection(input)).toEqual({ ok: true, namespace: 'kafka' });
    const direct = await resolveConnection('t', { ...conn, spec: { ...conn.spec, connector: { ...conn.spec.connector, connectionRefs: {} } } }, async () => undefined, undefined);
    expect(await prober.probeConnection(direct)).toMatchObject({ ok: false, namespace: 'kafka' });
  });
});
