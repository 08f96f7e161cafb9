/**
 * PostgreSQL: connect (TLS per SSL MODE), and for a source check `wal_level = logical` and that
 * the publication exists. Server errors keep their SQLSTATE's meaning: authentication, a missing
 * database or publication are fatal; everything network-shaped is transient.
 */
import { isIP } from 'node:net';
import pg from 'pg';
import { resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { APPLICATION_NAME, endpointOf, opt, viaTunnel } from './options';
import { addressRefused, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeResult } from './types';

export async function probePostgres(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, source?: { publication: string }): Promise<ProbeResult> {
  if (viaTunnel(conn)) return ok('postgres');
  const o = conn.options;
  const endpoint = endpointOf(conn, 5432);
  if ('error' in endpoint) return fail('postgres', endpoint.error, { fatal: true });
  const { host, port, user } = endpoint;
  const ssl = pgSsl(conn);
  if (typeof ssl === 'string') return fail('postgres', ssl, { fatal: true });
  if (source && !source.publication) return fail('postgres', 'PUBLICATION option is required', { fatal: true });
  // Connect to the address that was checked, not to a second resolution of the name.
  const pin = await resolveForProbe(host, network);
  if (pin.refused) return addressRefused('postgres', `${host}:${port}`);

  const client = new pg.Client({
    host: pin.address ?? host,
    port,
    user,
    database: opt(o, 'DATABASE') ?? 'postgres',
    password: conn.secrets.PASSWORD,
    ssl: ssl && pin.address !== undefined && !isIP(host) ? { ...ssl, servername: host } : ssl,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs,
    application_name: APPLICATION_NAME,
  });
  // A server that goes away after the handshake reports through the pending call; without a
  // listener the 'error' event would crash the process.
  client.on('error', () => undefined);
  const close = () => void client.end().catch(() => undefined);
  signal.addEventListener('abort', close, { once: true });
  try {
    await client.connect();
    if (!source) return ok('postgres');
    const wal = await client.query<{ wal_level: string }>('SHOW wal_level');
    const level = wal.rows[0]?.wal_level ?? 'unknown';
    if (level !== 'logical') {
      return fail('postgres', `wal_level is "${level}", but logical replication requires wal_level = logical`, {
        fatal: true,
        hint: 'Set wal_level = logical in postgresql.conf and restart PostgreSQL',
      });
    }
    const pub = await client.query('SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = $1', [source.publication]);
    if (pub.rowCount === 0) {
      return fail('postgres', `publication ${quoteLiteralName(source.publication)} does not exist`, {
        fatal: true,
        hint: `Create it in the upstream database, e.g. CREATE PUBLICATION ${quoteIdent(source.publication)} FOR ALL TABLES`,
      });
    }
    return ok('postgres');
  } catch (err) {
    return pgFailure(err, `${host}:${port}`);
  } finally {
    signal.removeEventListener('abort', close);
    // Not awaited: ending a half-open connection can take as long as the server does to answer,
    // and the result is already known.
    close();
  }
}

/** SSL MODE → pg's `ssl`; a string is a configuration error. */
function pgSsl(conn: ConnectionProbeInput): false | { rejectUnauthorized: boolean; ca?: string; cert?: string; key?: string } | string {
  const mode = (opt(conn.options, 'SSL MODE') ?? 'disable').toLowerCase();
  const files = () => {
    const ca = opt(conn.options, 'SSL CERTIFICATE AUTHORITY') ?? conn.secrets['SSL CERTIFICATE AUTHORITY'];
    const cert = opt(conn.options, 'SSL CERTIFICATE') ?? conn.secrets['SSL CERTIFICATE'];
    const key = conn.secrets['SSL KEY'];
    return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  };
  switch (mode) {
    case 'disable':
      return false;
    case 'require':
      // libpq's `require`: encrypt, verify nothing.
      return { rejectUnauthorized: false, ...files() };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true, ...files() };
    default:
      return `invalid SSL MODE: ${mode} (expected disable, require, verify-ca or verify-full)`;
  }
}

/** SQLSTATE classes that retrying cannot fix without the user changing something. */
const PG_FATAL_CLASSES = new Set(['28', '3D', '42', '0A']);
const PG_HINTS: Readonly<Record<string, string>> = {
  '28P01': 'Check the USER of the connection and the PASSWORD secret',
  '28000': 'Check that pg_hba.conf allows this client, user and database',
  '3D000': 'Check the DATABASE option of the connection',
};

function pgFailure(err: unknown, target: string): ProbeResult {
  const e = err as { code?: unknown; severity?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string') {
    if (e.code === '57014') return timedOut('postgres', target);
    const fatal = PG_FATAL_CLASSES.has(e.code.slice(0, 2));
    const hint = PG_HINTS[e.code];
    return fail('postgres', `db error: ${e.severity}: ${String(e.message)}`, { fatal, ...(hint ? { hint } : {}) });
  }
  const os = osError(err);
  if (os) return fail('postgres', `error connecting to server: ${os}`);
  const message = messageOf(err);
  if (isTimeout(err) || /timeout/i.test(message)) return timedOut('postgres', target);
  if (/does not support SSL/i.test(message)) {
    return fail('postgres', `error performing TLS handshake: ${message}`, { fatal: true, hint: 'Use SSL MODE disable, or enable SSL on the server' });
  }
  return fail('postgres', `error connecting to server: ${message}`);
}

function quoteLiteralName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : quoteLiteralName(name);
}

/** PostgreSQL's probe: reachable, and for a source `wal_level = logical` and the PUBLICATION. */
export const POSTGRES_PROBE: ConnectorProbe<'postgres'> = {
  type: 'postgres',
  connection: (conn, c) => probePostgres(conn, c.timeoutMs, c.signal, c.network),
  source: (conn, c, options) => probePostgres(conn, c.timeoutMs, c.signal, c.network, { publication: opt(options, 'PUBLICATION') ?? '' }),
  target: (conn) => `${opt(conn.options, 'HOST') ?? ''}:${opt(conn.options, 'PORT') ?? 5432}`,
};
