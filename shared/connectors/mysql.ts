/** MySQL (and MariaDB): connections and sources reading a server's tables. Its probe is shared/probes/mysql.ts. */
import { iamWithoutPassword, requireHostAndUser, requireTlsIdentityPair, sslMode, tunnel, SSL_NAMES } from './common';
import { byName, optionError, type CheckedOption, type ConnectorDescriptor } from './types';
import { quoted } from '../mz-errors';

/** A MySQL connection, in Materialize's order. */
function mysqlConnectionCheck(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  iamWithoutPassword(given);
  requireTlsIdentityPair(given, at);
  const { mode, position } = sslMode(given, true);
  if (mode === undefined || mode === 'DISABLED') {
    if (given.has('AWS CONNECTION')) throw optionError('invalid CONNECTION: AWS IAM authentication requires SSL to be enabled', position ?? given.get('AWS CONNECTION')!.position);
  } else if (!['REQUIRED', 'REQUIRE', 'VERIFY_CA', 'VERIFY-CA', 'VERIFY_IDENTITY', 'VERIFY-IDENTITY'].includes(mode)) {
    throw optionError(`invalid CONNECTION: unknown SSL MODE ${quoted(mode)}`, position ?? at);
  }
  tunnel(given, 'MYSQL');
  requireHostAndUser(given, at);
}

export const MYSQL = {
  name: 'mysql',
  words: ['mysql'],
  connection: {
    options: {
      what: 'MySQL connection',
      names: ['AWS CONNECTION', 'AWS PRIVATELINK', 'HOST', 'PASSWORD', 'PORT', 'SSH TUNNEL', ...SSL_NAMES, 'SSL MODE', 'USER'],
      aliases: { USERNAME: 'USER' },
    },
    validateByDefault: true,
    // Materialize's checks: SSL MODE values, TLS identity, tunnel, required options (its connection planning).
    check: mysqlConnectionCheck,
  },
  source: {
    form: 'connection',
    options: { what: 'MySQL source', names: ['EXCLUDE COLUMNS', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
    formats: false,
    upstreamTables: { relation: 'mz_mysql_source_tables' },
  },
  dataPlane: true,
  probe: { reprobed: true },
} as const satisfies ConnectorDescriptor;
