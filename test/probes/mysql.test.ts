/**
 * The MySQL probe (mysql2) on real sockets: a refused port, a server that accepts and never
 * answers, and a tiny fake server that refuses the client with a MySQL ERR packet instead of a
 * handshake (what MySQL sends a host it does not allow). A real server's answers (login,
 * replication settings, tables) are in test/integration/mysql-source.test.ts, against MariaDB;
 * the rules applied to them in mysql-rules.test.ts.
 */
import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import { refusedPort, silentServer, timed } from './net';

const TIMEOUT_MS = 1_000;
const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: LOCAL_PROBE_POLICY });
// The probe loads its driver on first use; load it here so the timings below are the probe's.
beforeAll(async () => {
  await import('mysql2/promise');
});
const mysqlConn = (port: number, extra: Record<string, string> = {}) => ({ type: 'mysql', options: { HOST: '127.0.0.1', PORT: String(port), USER: 'mz', ...extra }, secrets: { PASSWORD: 'hunter2' } });

/** A MySQL ERR packet as the server's first packet: header (length, sequence 0), 0xff, error code, message. */
function errPacket(code: number, message: string): Buffer {
  const body = Buffer.concat([Buffer.from([0xff, code & 0xff, code >> 8]), Buffer.from(message)]);
  const header = Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, body.length >> 16, 0]);
  return Buffer.concat([header, body]);
}

describe('mysql probe', () => {
  it('reports a refused port as a transient mysql error, at once, for connections and sources alike', async () => {
    // Prepare
    const port = await refusedPort();
    // Act
    const { result, ms } = await timed(() => prober.probeConnection(mysqlConn(port)));
    // Assess
    expect(result).toEqual({ ok: false, namespace: 'mysql', error: 'error connecting to server: Connection refused (os error 111)', fatal: false });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(await prober.probeSource(mysqlConn(port), {})).toEqual(result);
  });

  it('times out on a server that accepts and never sends its handshake', async () => {
    // Prepare
    const silent = await silentServer();
    try {
      // Act
      const { result, ms } = await timed(() => prober.probeConnection(mysqlConn(silent.port)));
      // Assess
      expect(result).toEqual({ ok: false, namespace: 'mysql', error: `timed out connecting to 127.0.0.1:${silent.port}`, fatal: false });
      expect(silent.accepted).toBeGreaterThanOrEqual(1);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    } finally {
      await silent.close();
    }
  });

  it('shows the server\'s own error when it refuses the client, without the password', async () => {
    // Prepare: the server answers the connection with ERR 1130 instead of a handshake.
    const srv = createServer((s) => s.end(errPacket(1130, "Host '127.0.0.1' is not allowed to connect to this MySQL server")));
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const port = (srv.address() as { port: number }).port;
    try {
      // Act
      const result = await prober.probeConnection(mysqlConn(port));
      // Assess
      expect(result).toMatchObject({ ok: false, namespace: 'mysql', fatal: false });
      // mysql_async's words, which Materialize shows: SQLSTATE, then the error number.
      expect(result.error).toBe("Server error: `ERROR HY000 (1130): Host '127.0.0.1' is not allowed to connect to this MySQL server'");
      expect(JSON.stringify(result)).not.toContain('hunter2');
    } finally {
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    }
  });

  it('answers option errors before touching the network', async () => {
    expect(await prober.probeConnection({ type: 'mysql', options: { PORT: '3306', USER: 'mz' }, secrets: {} })).toEqual({ ok: false, namespace: 'mysql', error: 'HOST option is required', fatal: true });
    expect(await prober.probeConnection(mysqlConn(3306, { 'SSL MODE': 'sometimes' }))).toMatchObject({ ok: false, fatal: true, error: expect.stringMatching(/^invalid SSL MODE: sometimes/) });
    // A tunnelled connection is reachable only from where the tunnel ends: not probed from here.
    expect(await prober.probeConnection(mysqlConn(1, { 'SSH TUNNEL': 'bastion' }))).toEqual({ ok: true, namespace: 'mysql' });
  });
});
