/**
 * The SQL Server probe (tedious). No SQL Server runs here, so these cover real sockets: a
 * refused port and a server that accepts and never answers its prelogin, plus option errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import { refusedPort, silentServer, timed } from './net';

const TIMEOUT_MS = 1_000;
const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: LOCAL_PROBE_POLICY });
// The probe loads its driver on first use; load it here so the timings below are the probe's.
beforeAll(async () => {
  await import('tedious');
});
const conn = (port: number, extra: Record<string, string> = {}) => ({ type: 'sql-server', options: { HOST: '127.0.0.1', PORT: String(port), USER: 'sa', DATABASE: 'shop', ...extra }, secrets: { PASSWORD: 'hunter2' } });

describe('sql server probe', () => {
  it('reports a refused port as a transient sql-server error, at once, for connections and sources alike', async () => {
    // Prepare
    const port = await refusedPort();
    // Act
    const { result, ms } = await timed(() => prober.probeConnection(conn(port)));
    // Assess
    expect(result).toEqual({ ok: false, namespace: 'sql-server', error: 'error connecting to server: Connection refused (os error 111)', fatal: false });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(await prober.probeSource(conn(port), {})).toEqual(result);
  });

  it('times out on a server that accepts and never answers', async () => {
    // Prepare
    const silent = await silentServer();
    try {
      // Act
      const { result, ms } = await timed(() => prober.probeConnection(conn(silent.port)));
      // Assess
      expect(result).toEqual({ ok: false, namespace: 'sql-server', error: `timed out connecting to 127.0.0.1:${silent.port}`, fatal: false });
      expect(silent.accepted).toBeGreaterThanOrEqual(1);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    } finally {
      await silent.close();
    }
  });

  it('answers option errors before touching the network', async () => {
    expect(await prober.probeConnection({ type: 'sql-server', options: { HOST: 'db' }, secrets: {} })).toEqual({ ok: false, namespace: 'sql-server', error: 'USER option is required', fatal: true });
    expect(await prober.probeConnection(conn(1433, { 'SSL MODE': 'sometimes' }))).toMatchObject({ ok: false, fatal: true, error: expect.stringMatching(/^invalid SSL MODE: sometimes/) });
    expect(await prober.probeConnection(conn(1, { 'AWS PRIVATELINK': 'pl' }))).toEqual({ ok: true, namespace: 'sql-server' });
  });
});
