/** SQL Server: connections and sources reading a database's tables (change data capture). Its probe is shared/probes/sql-server.ts. */
import { iamWithoutPassword, requireHostAndUser, sslMode, tunnel, SSL_NAMES } from './common';
import { byName, optionError, type CheckedOption, type ConnectorDescriptor } from './types';
import { quoted } from '../mz-errors';

/** A SQL Server connection, in Materialize's order. */
function sqlServerConnectionCheck(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  iamWithoutPassword(given);
  const { mode, position } = sslMode(given, true);
  if (mode === 'VERIFY_CA' && !given.has('SSL CERTIFICATE AUTHORITY')) {
    throw optionError("invalid CONNECTION: SSL MODE 'verify_ca' requires SSL CERTIFICATE AUTHORITY", position ?? at);
  }
  if (mode !== undefined && !['DISABLED', 'REQUIRED', 'VERIFY', 'VERIFY_CA'].includes(mode)) throw optionError(`invalid CONNECTION: unknown SSL MODE ${quoted(mode)}`, position ?? at);
  tunnel(given, 'SQL SERVER');
  // Materialize also requires DATABASE (after HOST) and PASSWORD (last): not enforced here yet (connections without them exist in this repository's tests).
  requireHostAndUser(given, at);
}

export const SQL_SERVER = {
  name: 'sql-server',
  words: ['sql', 'server'],
  connection: {
    options: {
      what: 'SQL Server connection',
      names: ['AWS PRIVATELINK', 'DATABASE', 'HOST', 'PASSWORD', 'PORT', 'SSH TUNNEL', ...SSL_NAMES, 'SSL MODE', 'USER'],
      aliases: { USERNAME: 'USER' },
    },
    validateByDefault: true,
    // Materialize's checks: SSL MODE values, TLS identity, tunnel, required options (its connection planning).
    check: sqlServerConnectionCheck,
  },
  source: {
    form: 'connection',
    options: { what: 'SQL Server source', names: ['EXCLUDE COLUMNS', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
    formats: false,
    upstreamTables: { relation: 'mz_sql_server_source_tables' },
  },
  dataPlane: true,
  probe: { reprobed: true },
} as const satisfies ConnectorDescriptor;
