/** SQL Server: connections and sources reading a database's tables (change data capture). Its probe is shared/probes/sql-server.ts. */
import { databaseConnectionCheck, SSL_NAMES } from './common';
import type { ConnectorDescriptor } from './types';

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
    // Materialize's SSL MODE values (its connection planning).
    check: databaseConnectionCheck(['disabled', 'required', 'verify', 'verify_ca']),
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
