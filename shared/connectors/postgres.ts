/** PostgreSQL: connections and sources reading a publication's tables. Its probe is shared/probes/postgres.ts. */
import { requireHostAndUser, requireTlsIdentityPair, sslMode, tunnel, SSL_NAMES } from './common';
import { byName, optionError, type CheckedOption, type ConnectorDescriptor } from './types';
import { quoted } from '../mz-errors';

/** A PostgreSQL connection, in Materialize's order (its connection planning, src/sql/src/plan/statement/ddl/connection.rs). */
function postgresConnectionCheck(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  requireTlsIdentityPair(given, at);
  const { mode, position } = sslMode(given, false);
  // "prefer" is left out on purpose (Materialize: dubious security properties).
  if (mode !== undefined && !['disable', 'require', 'required', 'verify_ca', 'verify-ca', 'verify_full', 'verify-full'].includes(mode)) {
    throw optionError(`invalid CONNECTION: unknown SSL MODE ${quoted(mode)}`, position ?? at);
  }
  tunnel(given, 'POSTGRES');
  // Materialize also requires DATABASE, before HOST: not enforced here yet (connections without one exist in this repository's tools and tests).
  requireHostAndUser(given, at);
}

export const POSTGRES = {
  name: 'postgres',
  words: ['postgres'],
  connection: {
    options: {
      what: 'PostgreSQL connection',
      names: ['AWS PRIVATELINK', 'DATABASE', 'HOST', 'PASSWORD', 'PORT', 'SSH TUNNEL', ...SSL_NAMES, 'SSL MODE', 'USER'],
      aliases: { USERNAME: 'USER' },
    },
    validateByDefault: true,
    // Materialize's checks: TLS identity, SSL MODE values, tunnel, required options (its connection planning).
    check: postgresConnectionCheck,
  },
  source: {
    form: 'connection',
    options: { what: 'PostgreSQL source', names: ['PUBLICATION', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
    formats: false,
    upstreamTables: { relation: 'mz_postgres_source_tables' },
  },
  dataPlane: true,
  probe: { reprobed: true },
} as const satisfies ConnectorDescriptor;
