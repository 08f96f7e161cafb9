/**
 * SQL Server with tedious: connect (TLS per SSL MODE), and for a source check that the database
 * has change data capture enabled and allows snapshot isolation, which Materialize's SQL Server
 * source reads through. A failed login or a database not set up for CDC is fatal; everything
 * network-shaped is transient.
 */
import type { Connection } from 'tedious';
import { resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { endpointOf, opt, viaTunnel } from './options';
import { addressRefused, errorChain, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeResult } from './types';

export async function probeSqlServer(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, source?: boolean): Promise<ProbeResult> {
  if (viaTunnel(conn)) return ok('sql-server');
  const o = conn.options;
  const endpoint = endpointOf(conn, 1433);
  if ('error' in endpoint) return fail('sql-server', endpoint.error, { fatal: true });
  const { host, port, user } = endpoint;
  const tls = sqlServerTls(opt(o, 'SSL MODE'));
  if (typeof tls === 'string') return fail('sql-server', tls, { fatal: true });
  const pin = await resolveForProbe(host, network);
  if (pin.refused) return addressRefused('sql-server', `${host}:${port}`);
  const target = `${host}:${port}`;
  const database = opt(o, 'DATABASE');

  // Loaded on a SQL Server connection's first probe: the functions that probe keep it out of their cold start.
  const tedious = await import('tedious');
  const client = new tedious.Connection({
    server: pin.address ?? host,
    authentication: { type: 'default', options: { userName: user, password: conn.secrets.PASSWORD ?? '' } },
    options: {
      port,
      ...(database ? { database } : {}),
      ...tls,
      connectTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      appName: 'ddl-control-plane-probe',
    },
  });
  // A server that goes away after login reports through the pending call.
  client.on('error', () => undefined);
  const close = () => client.close();
  signal.addEventListener('abort', close, { once: true });
  try {
    await new Promise<void>((resolve, reject) => client.connect((err) => (err ? reject(err) : resolve())));
    if (!source) return ok('sql-server');
    const row = await firstRow(tedious, client, 'SELECT CAST(is_cdc_enabled AS int) AS cdc, CAST(snapshot_isolation_state AS int) AS snapshot FROM sys.databases WHERE name = DB_NAME()');
    if (row?.cdc !== 1) {
      return fail('sql-server', `CDC is not enabled for database ${database ?? '(the login default)'}`, { fatal: true, hint: 'Run EXEC sys.sp_cdc_enable_db in the database, then enable CDC on each table the source reads' });
    }
    if (row.snapshot !== 1) {
      return fail('sql-server', `snapshot isolation is not allowed in database ${database ?? '(the login default)'}`, { fatal: true, hint: 'Run ALTER DATABASE ... SET ALLOW_SNAPSHOT_ISOLATION ON' });
    }
    return ok('sql-server');
  } catch (err) {
    return sqlServerFailure(err, target);
  } finally {
    signal.removeEventListener('abort', close);
    client.close();
  }
}

function firstRow(tedious: typeof import('tedious'), client: Connection, sql: string): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    let first: Record<string, unknown> | undefined;
    const req = new tedious.Request(sql, (err) => (err ? reject(err) : resolve(first)));
    req.on('row', (columns: { metadata: { colName: string }; value: unknown }[]) => {
      first ??= Object.fromEntries(columns.map((c) => [c.metadata.colName, c.value]));
    });
    client.execSql(req);
  });
}

/** SSL MODE (Materialize's SQL Server modes) → tedious's encryption options; a string is a configuration error. */
function sqlServerTls(mode: string | undefined): { encrypt: boolean; trustServerCertificate: boolean } | string {
  switch ((mode ?? 'required').toLowerCase()) {
    case 'disabled':
      return { encrypt: false, trustServerCertificate: true };
    case 'required':
      return { encrypt: true, trustServerCertificate: true };
    case 'verify':
    case 'verify_ca':
      return { encrypt: true, trustServerCertificate: false };
    default:
      return `invalid SSL MODE: ${mode} (expected disabled, required, verify or verify_ca)`;
  }
}

function sqlServerFailure(err: unknown, target: string): ProbeResult {
  const codes = [...errorChain(err)].map((e) => e.code);
  if (codes.includes('ELOGIN')) return fail('sql-server', `login failed: ${messageOf(err)}`, { fatal: true, hint: 'Check the USER of the connection, the PASSWORD secret and DATABASE' });
  if (codes.includes('ETIMEOUT') || isTimeout(err)) return timedOut('sql-server', target);
  const os = osError(err);
  if (os) return fail('sql-server', `error connecting to server: ${os}`);
  return fail('sql-server', `error connecting to server: ${messageOf(err)}`);
}

/** SQL Server's probe: reachable and signed in, and for a source change data capture. */
export const SQL_SERVER_PROBE: ConnectorProbe<'sql-server'> = {
  type: 'sql-server',
  connection: (conn, c) => probeSqlServer(conn, c.timeoutMs, c.signal, c.network),
  source: (conn, c) => probeSqlServer(conn, c.timeoutMs, c.signal, c.network, true),
  target: (conn) => `${opt(conn.options, 'HOST') ?? ''}:${opt(conn.options, 'PORT') ?? 1433}`,
};
