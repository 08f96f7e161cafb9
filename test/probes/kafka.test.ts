/**
 * The Kafka probe (kafkajs admin client). There is no broker on this machine, so these cover
 * the unreachable paths against real sockets: a refused port, a server that accepts and never
 * answers, a server that hangs up at once, and option errors. Topic checks need a broker.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import { refusedPort, silentServer, timed } from './net';

const TIMEOUT_MS = 1_000;
const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: LOCAL_PROBE_POLICY });

describe('kafka probe', () => {
  it('reports a refused broker port as a transient kafka error, at once', async () => {
    // Prepare
    const port = await refusedPort();
    const conn = { type: 'kafka', options: { BROKER: `127.0.0.1:${port}` }, secrets: {} };
    // Act
    const { result, ms } = await timed(() => prober.probeConnection(conn));
    // Assess
    expect(result).toEqual({ ok: false, namespace: 'kafka', error: `error connecting to broker 127.0.0.1:${port}: Connection refused (os error 111)`, fatal: false });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    // Sources and sinks on that connection say the same.
    expect(await prober.probeSource(conn, { TOPIC: 'orders' })).toEqual(result);
    expect(await prober.probeSink(conn, { TOPIC: 'orders' })).toEqual(result);
  });

  it('times out on a broker that accepts and never answers, within timeoutMs plus a second', async () => {
    // Prepare
    const silent = await silentServer();
    try {
      // Act
      const { result, ms } = await timed(() => prober.probeConnection({ type: 'kafka', options: { BROKERS: `127.0.0.1:${silent.port}` }, secrets: {} }));
      // Assess
      expect(result).toEqual({ ok: false, namespace: 'kafka', error: `timed out connecting to 127.0.0.1:${silent.port}`, fatal: false });
      expect(silent.accepted).toBeGreaterThanOrEqual(1);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await silent.close();
    }
  });

  it('reports a server that hangs up at once as transient', async () => {
    // Prepare: what a TLS-only or SASL-only listener looks like to a plaintext client, roughly.
    const srv = createServer((s) => s.destroy());
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const port = (srv.address() as { port: number }).port;
    try {
      // Act
      const { result, ms } = await timed(() => prober.probeConnection({ type: 'kafka', options: { BROKER: `127.0.0.1:${port}` }, secrets: {} }));
      // Assess
      expect(result).toMatchObject({ ok: false, namespace: 'kafka', fatal: false });
      expect(result.error).toMatch(/127\.0\.0\.1:\d+/);
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
  });

  it('names every broker of a BROKERS list when none answers', async () => {
    const [a, b] = await Promise.all([silentServer(), silentServer()]);
    try {
      const r = await prober.probeConnection({ type: 'kafka', options: { BROKERS: `127.0.0.1:${a.port}, 127.0.0.1:${b.port}` }, secrets: {} });
      expect(r).toEqual({ ok: false, namespace: 'kafka', error: `timed out connecting to 127.0.0.1:${a.port},127.0.0.1:${b.port}`, fatal: false });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('answers bad options with fatal results, and never shows the SASL password', async () => {
    expect(await prober.probeConnection({ type: 'kafka', options: {}, secrets: {} })).toMatchObject({ ok: false, fatal: true, error: 'BROKER or BROKERS option is required' });
    expect(await prober.probeSource({ type: 'kafka', options: { BROKER: '127.0.0.1:9' }, secrets: {} }, {})).toMatchObject({ ok: false, fatal: true, error: 'TOPIC option is required' });
    expect(await prober.probeConnection({ type: 'kafka', options: { BROKER: 'b:9092', 'SECURITY PROTOCOL': 'CARRIER_PIGEON' }, secrets: {} })).toMatchObject({ ok: false, fatal: true });
    const secret = 'sasl-s3cret-value';
    const r = await prober.probeConnection({
      type: 'kafka',
      options: { BROKER: 'b:9092', 'SASL MECHANISMS': secret, 'SASL USERNAME': 'u' },
      secrets: { 'SASL PASSWORD': secret },
    });
    expect(r).toMatchObject({ ok: false, fatal: true, error: 'unsupported SASL MECHANISMS: ******** (expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)' });
  });

  it('uses SASL over TLS when SASL options are given, so a plaintext silent port still times out cleanly', async () => {
    const silent = await silentServer();
    try {
      const { result, ms } = await timed(() =>
        prober.probeConnection({
          type: 'kafka',
          options: { BROKER: `127.0.0.1:${silent.port}`, 'SASL MECHANISMS': 'SCRAM-SHA-256', 'SASL USERNAME': 'u' },
          secrets: { 'SASL PASSWORD': 'p' },
        }),
      );
      expect(result).toMatchObject({ ok: false, namespace: 'kafka', fatal: false, error: expect.stringContaining('timed out') });
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await silent.close();
    }
  });
});
