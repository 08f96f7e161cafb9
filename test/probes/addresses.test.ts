/**
 * Where a deployed probe may connect: never to loopback, link-local, instance-metadata (IPv4 and
 * IPv6) or, unless allowed, private addresses — by IP literal or by a name that resolves there —
 * and, without detailed errors, a closed port, a silent one and one that hangs up read the same.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, DEPLOYED_PRIVATE_PROBE_POLICY, DEPLOYED_PROBE_POLICY, LOCAL_PROBE_POLICY, probeNetworkPolicy } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import type { ConnectionProbeInput } from '../../shared/probes/types';
import { refusedPort, silentServer, type SilentServer } from './net';

const TIMEOUT_MS = 1_000;

describe('addressAllowed', () => {
  it.each([
    ['169.254.169.254', false, false],
    ['169.254.1.1', false, false],
    ['127.0.0.1', false, false],
    ['127.8.9.10', false, false],
    ['::1', false, false],
    ['::ffff:127.0.0.1', false, false],
    ['::ffff:169.254.169.254', false, false],
    ['fd00:ec2::254', false, false],
    ['fe80::1', false, false],
    ['0.0.0.0', false, false],
    ['10.1.2.3', false, true],
    ['172.20.0.5', false, true],
    ['192.168.1.1', false, true],
    ['fd12:3456::1', false, true],
    ['8.8.8.8', true, true],
    ['2606:4700:4700::1111', true, true],
    ['not-an-address', false, false],
  ])('%s: public %s, private %s; locally anything', (address, inPublic, inPrivate) => {
    // Assess
    expect(addressAllowed(address, DEPLOYED_PROBE_POLICY)).toBe(inPublic);
    expect(addressAllowed(address, DEPLOYED_PRIVATE_PROBE_POLICY)).toBe(inPrivate);
    expect(addressAllowed(address, LOCAL_PROBE_POLICY)).toBe(true);
  });

  it('is public by default, private or local only when the deployment says so', () => {
    // Assess
    expect(probeNetworkPolicy(undefined)).toBe(DEPLOYED_PROBE_POLICY);
    expect(probeNetworkPolicy('private')).toBe(DEPLOYED_PRIVATE_PROBE_POLICY);
    expect(probeNetworkPolicy('local')).toBe(LOCAL_PROBE_POLICY);
    expect(new RealProber().network).toBe(DEPLOYED_PROBE_POLICY);
  });
});

describe('a deployed probe', () => {
  let listening: SilentServer;
  beforeAll(async () => {
    listening = await silentServer();
  });
  afterAll(async () => {
    await listening.close();
  });

  const targets = (port: number): [string, ConnectionProbeInput][] => [
    ['postgres by IP', { type: 'postgres', options: { HOST: '127.0.0.1', PORT: String(port), USER: 'u' }, secrets: {} }],
    ['postgres by a name that resolves to loopback', { type: 'postgres', options: { HOST: 'localhost', PORT: String(port), USER: 'u' }, secrets: {} }],
    ['postgres at instance metadata', { type: 'postgres', options: { HOST: '169.254.169.254', PORT: '80', USER: 'u' }, secrets: {} }],
    ['postgres at IPv6 instance metadata', { type: 'postgres', options: { HOST: 'fd00:ec2::254', PORT: '80', USER: 'u' }, secrets: {} }],
    ['kafka', { type: 'kafka', options: { BROKER: `localhost:${port}` }, secrets: {} }],
    ['ssh', { type: 'ssh', options: { HOST: '::1', PORT: String(port) }, secrets: {} }],
    ['s3 endpoint', { type: 'aws', options: { ENDPOINT: `http://127.0.0.1:${port}`, 'ACCESS KEY ID': 'AKIA' }, secrets: { 'SECRET ACCESS KEY': 'wJalrXUtnFEMI-K7MDENG' } }],
    ['schema registry', { type: 'confluent-schema-registry', options: { URL: `http://localhost:${port}` }, secrets: {} }],
  ];

  it.each([
    ['public', DEPLOYED_PROBE_POLICY],
    ['private', DEPLOYED_PRIVATE_PROBE_POLICY],
  ] as const)('(%s ranges allowed) refuses loopback and metadata addresses without connecting', async (_name, network) => {
    // Prepare
    const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network });
    const before = listening.accepted;

    // Act
    const results = await Promise.all(targets(listening.port).map(async ([what, conn]) => [what, await prober.probeConnection(conn)] as const));

    // Assess
    for (const [what, r] of results) {
      expect(r, what).toMatchObject({ ok: false, fatal: true, error: expect.stringMatching(/^could not connect to .*: the address is not allowed$/) });
    }
    expect(listening.accepted).toBe(before);
  });
});

describe('without detailed network errors', () => {
  let hangsUp: Server;
  let hangsUpPort: number;
  let silent: SilentServer;
  beforeAll(async () => {
    hangsUp = createServer((s) => s.destroy());
    await new Promise<void>((resolve) => hangsUp.listen(0, '127.0.0.1', resolve));
    hangsUpPort = (hangsUp.address() as { port: number }).port;
    silent = await silentServer();
  });
  afterAll(async () => {
    await silent.close();
    await new Promise<void>((resolve) => hangsUp.close(() => resolve()));
  });

  it('a closed port, a silent one and one that hangs up read the same', async () => {
    // Prepare: loopback allowed here so the three can be reached; only the error detail is off.
    const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: { addresses: 'any', detailedNetworkErrors: false } });
    const closed = await refusedPort();
    const ports = [closed, silent.port, hangsUpPort];

    // Act
    const pg = await Promise.all(ports.map((port) => prober.probeConnection({ type: 'postgres', options: { HOST: '127.0.0.1', PORT: String(port), USER: 'u' }, secrets: {} })));
    const kafka = await Promise.all(ports.map((port) => prober.probeConnection({ type: 'kafka', options: { BROKER: `127.0.0.1:${port}` }, secrets: {} })));

    // Assess
    for (const [i, port] of ports.entries()) {
      expect(pg[i]).toMatchObject({ ok: false, fatal: false, error: `could not connect to 127.0.0.1:${port}` });
      expect(kafka[i]).toMatchObject({ ok: false, fatal: false, error: `could not connect to 127.0.0.1:${port}` });
    }
  });
});
