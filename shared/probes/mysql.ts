/**
 * MySQL with mysql2: connect (TLS per SSL MODE), then Materialize's connection validation — the
 * replication settings a MySQL source needs (GTIDs, a full row binlog, commit order), checked for
 * a connection as for a source, as Materialize does — and for a new source the tables it names.
 * What is required and the words come from mysql-rules.ts (pure); this file reads the server.
 * Server errors keep their meaning: authentication, settings and missing tables are fatal;
 * everything network-shaped is transient.
 */
import type mysql from 'mysql2/promise';
import { SQLSTATE } from '../errors';
import { resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import {
  COMMIT_ORDER_VARIABLES,
  flavorOf,
  INVALID_SETTINGS,
  INVALID_SETTINGS_HINT,
  referencesSystemSchemas,
  replicationSettingProblems,
  requiredVariables,
  resolveReferences,
  settingsDetail,
  SYSTEM_SCHEMAS,
  type SystemVariables,
  type UpstreamTable,
} from './mysql-rules';
import { endpointOf, opt, viaTunnel } from './options';
import { addressRefused, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeResult, UpstreamReferences } from './types';

export async function probeMySql(
  conn: ConnectionProbeInput,
  timeoutMs: number,
  signal: AbortSignal,
  network: ProbeNetworkPolicy,
  source?: { readonly references?: UpstreamReferences },
): Promise<ProbeResult> {
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
    const query = async (sql: string): Promise<Record<string, unknown>[]> => (await client!.query({ sql, timeout: timeoutMs }))[0] as Record<string, unknown>[];

    const flavor = flavorOf(String((await query('SELECT @@version AS version'))[0]?.version ?? ''));
    // A required variable the server lacks fails the query with the server's own words, as in Materialize.
    const required = requiredVariables(flavor);
    const vars: Record<string, SystemVariables[string]> = { ...(await query(`SELECT ${required.map((v) => `@@${v} AS ${v}`).join(', ')}`))[0] } as SystemVariables;
    if (flavor === 'mysql') for (const v of COMMIT_ORDER_VARIABLES) vars[v] = await optionalVariable(query, v);
    const problems = replicationSettingProblems(flavor, vars);
    if (problems.length) return fail('mysql', INVALID_SETTINGS, { fatal: true, detail: settingsDetail(problems), hint: INVALID_SETTINGS_HINT });

    if (!source?.references) return ok('mysql');
    const system = referencesSystemSchemas(source.references);
    const rows = await query(
      "SELECT table_schema AS s, table_name AS n FROM information_schema.tables WHERE table_type = 'BASE TABLE'" +
        (system ? '' : ` AND table_schema NOT IN (${SYSTEM_SCHEMAS.map((x) => `'${x}'`).join(', ')})`) +
        ' ORDER BY table_schema, table_name',
    );
    const tables: UpstreamTable[] = rows.map((r) => ({ schema: String(r.s), name: String(r.n) }));
    const resolved = resolveReferences(tables, source.references);
    if ('error' in resolved) return fail('mysql', resolved.error, { fatal: true, sqlstate: SQLSTATE.invalidParameterValue, hint: resolved.hint });
    return ok('mysql');
  } catch (err) {
    return mysqlFailure(err, target);
  } finally {
    signal.removeEventListener('abort', close);
    client?.destroy();
  }
}

const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/** A variable only some versions have (MySQL 8.0 renamed `slave_*` to `replica_*`); undefined where it does not exist. */
async function optionalVariable(query: (sql: string) => Promise<Record<string, unknown>[]>, name: string): Promise<SystemVariables[string]> {
  try {
    return (await query(`SELECT @@${name} AS v`))[0]?.v as SystemVariables[string];
  } catch (err) {
    if ((err as { errno?: unknown }).errno === ER_UNKNOWN_SYSTEM_VARIABLE) return undefined;
    throw err;
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
const MYSQL_FATAL_CODES = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE', 'ER_UNKNOWN_SYSTEM_VARIABLE', 'HANDSHAKE_NO_SSL_SUPPORT']);
const MYSQL_HINTS: Readonly<Record<string, string>> = {
  ER_ACCESS_DENIED_ERROR: 'Check the USER of the connection and the PASSWORD secret',
  HANDSHAKE_NO_SSL_SUPPORT: 'Use SSL MODE disabled, or enable TLS on the server',
};

function mysqlFailure(err: unknown, target: string): ProbeResult {
  const e = err as { code?: unknown; errno?: unknown; sqlState?: unknown; sqlMessage?: unknown };
  if (typeof e?.sqlMessage === 'string' && typeof e.errno === 'number') {
    const code = String(e.code);
    const hint = MYSQL_HINTS[code];
    // mysql_async's words for a server's error, which Materialize shows: SQLSTATE first, then the number.
    return fail('mysql', `Server error: \`ERROR ${String(e.sqlState || 'HY000')} (${e.errno}): ${e.sqlMessage}'`, { fatal: MYSQL_FATAL_CODES.has(code), ...(hint ? { hint } : {}) });
  }
  if (e?.code === 'HANDSHAKE_NO_SSL_SUPPORT') return fail('mysql', `error performing TLS handshake: ${messageOf(err)}`, { fatal: true, hint: MYSQL_HINTS.HANDSHAKE_NO_SSL_SUPPORT! });
  const os = osError(err);
  if (os) return fail('mysql', `error connecting to server: ${os}`);
  const message = messageOf(err);
  if (isTimeout(err) || /timeout|timed out/i.test(message)) return timedOut('mysql', target);
  return fail('mysql', `error connecting to server: ${message}`);
}

/** MySQL's probe: the connection's checks, and for a source at CREATE the tables it names. */
export const MYSQL_PROBE: ConnectorProbe<'mysql'> = {
  type: 'mysql',
  connection: (conn, c) => probeMySql(conn, c.timeoutMs, c.signal, c.network),
  source: (conn, c, _options, references) => probeMySql(conn, c.timeoutMs, c.signal, c.network, { ...(references ? { references } : {}) }),
  target: (conn) => `${opt(conn.options, 'HOST') ?? ''}:${opt(conn.options, 'PORT') ?? 3306}`,
};
