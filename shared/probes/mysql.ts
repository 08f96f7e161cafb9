/**
 * MySQL with mysql2: connect (TLS per SSL MODE), and for a source check the replication settings
 * Materialize's MySQL source needs (GTID-based row binlog). Server errors keep their meaning:
 * authentication and a refused configuration are fatal; everything network-shaped is transient.
 */
import type mysql from 'mysql2/promise';
import { resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { endpointOf, opt, viaTunnel } from './options';
import { addressRefused, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ProbeResult } from './types';

/** The system variables a MySQL source needs, with the value each must have (Materialize's list). */
export const MYSQL_REPLICATION_SETTINGS: readonly (readonly [string, string])[] = [
  ['log_bin', '1'],
  ['binlog_format', 'ROW'],
  ['binlog_row_image', 'FULL'],
  ['gtid_mode', 'ON'],
  ['enforce_gtid_consistency', 'ON'],
];

export async function probeMySql(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, source?: boolean): Promise<ProbeResult> {
  if (viaTunnel(conn)) return ok('mysql');
  const endpoint = endpointOf(conn, 3306);
  if ('error' in endpoint) return fail('mysql', endpoint.error, { fatal: true });
  const { host, port, user } = endpoint;
  const ssl = mysqlSsl(conn);
  if (typeof ssl === 'string') return fail('mysql', ssl, { fatal: true });
  const pin = await resolveForProbe(host, network);
  if (pin.refused) return addressRefused('mysql', `${host}:${port}`);
  const target = `${host}:${port}`;

  let client: mysql.Connection | undefined;
  let aborted = false;
  const close = () => {
    aborted = true;
    client?.destroy();
  };
  signal.addEventListener('abort', close, { once: true });
  try {
    // Loaded on a MySQL connection's first probe: the functions that probe keep it out of their cold start.
    const { default: driver } = await import('mysql2/promise');
    client = await driver.createConnection({
      host: pin.address ?? host,
      port,
      user,
      password: conn.secrets.PASSWORD ?? '',
      connectTimeout: timeoutMs,
      ...(ssl ? { ssl } : {}),
    });
    client.on('error', () => undefined);
    if (aborted) return timedOut('mysql', target);
    if (!source) return ok('mysql');
    const names = MYSQL_REPLICATION_SETTINGS.map(([n]) => `@@${n} AS ${n}`).join(', ');
    const [rows] = await client.query({ sql: `SELECT ${names}`, timeout: timeoutMs });
    const row = ((rows as Record<string, unknown>[])[0] ?? {}) as Record<string, unknown>;
    const wrong = MYSQL_REPLICATION_SETTINGS.filter(([n, want]) => String(row[n] ?? '').toUpperCase() !== want);
    if (wrong.length) {
      return fail('mysql', `Invalid MySQL system replication settings: ${wrong.map(([n, want]) => `${n}: expected ${want}, got ${String(row[n] ?? 'unset')}`).join('; ')}`, {
        fatal: true,
        hint: `Set ${wrong.map(([n, want]) => `${n} = ${want}`).join(', ')} on the MySQL server (see Materialize's MySQL source guide)`,
      });
    }
    return ok('mysql');
  } catch (err) {
    return mysqlFailure(err, target);
  } finally {
    signal.removeEventListener('abort', close);
    client?.destroy();
  }
}

/** SSL MODE (Materialize's MySQL modes) → mysql2's `ssl`; a string is a configuration error. */
function mysqlSsl(conn: ConnectionProbeInput): false | { rejectUnauthorized: boolean; ca?: string; cert?: string; key?: string } | string {
  const mode = (opt(conn.options, 'SSL MODE') ?? 'disabled').toLowerCase();
  const ca = opt(conn.options, 'SSL CERTIFICATE AUTHORITY') ?? conn.secrets['SSL CERTIFICATE AUTHORITY'];
  const cert = opt(conn.options, 'SSL CERTIFICATE') ?? conn.secrets['SSL CERTIFICATE'];
  const key = conn.secrets['SSL KEY'];
  const files = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  switch (mode) {
    case 'disabled':
      return false;
    case 'required':
      return { rejectUnauthorized: false, ...files };
    case 'verify_ca':
    case 'verify_identity':
      return { rejectUnauthorized: true, ...files };
    default:
      return `invalid SSL MODE: ${mode} (expected disabled, required, verify_ca or verify_identity)`;
  }
}

/** MySQL server errors retrying will not fix: access denied, unknown database, options refused. */
const MYSQL_FATAL_CODES = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE', 'HANDSHAKE_NO_SSL_SUPPORT']);
const MYSQL_HINTS: Readonly<Record<string, string>> = {
  ER_ACCESS_DENIED_ERROR: 'Check the USER of the connection and the PASSWORD secret',
  HANDSHAKE_NO_SSL_SUPPORT: 'Use SSL MODE disabled, or enable TLS on the server',
};

function mysqlFailure(err: unknown, target: string): ProbeResult {
  const e = err as { code?: unknown; errno?: unknown; sqlState?: unknown; sqlMessage?: unknown };
  if (typeof e?.sqlMessage === 'string' && typeof e.errno === 'number') {
    const code = String(e.code);
    const hint = MYSQL_HINTS[code];
    return fail('mysql', `db error: ERROR ${e.errno} (${String(e.sqlState || 'HY000')}): ${e.sqlMessage}`, { fatal: MYSQL_FATAL_CODES.has(code), ...(hint ? { hint } : {}) });
  }
  if (e?.code === 'HANDSHAKE_NO_SSL_SUPPORT') return fail('mysql', `error performing TLS handshake: ${messageOf(err)}`, { fatal: true, hint: MYSQL_HINTS.HANDSHAKE_NO_SSL_SUPPORT! });
  const os = osError(err);
  if (os) return fail('mysql', `error connecting to server: ${os}`);
  const message = messageOf(err);
  if (isTimeout(err) || /timeout|timed out/i.test(message)) return timedOut('mysql', target);
  return fail('mysql', `error connecting to server: ${message}`);
}
