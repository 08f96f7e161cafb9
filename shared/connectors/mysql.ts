/** MySQL (and MariaDB): connections and sources reading a server's tables. Its probe is shared/probes/mysql.ts. */
import { databaseConnectionCheck, SSL_NAMES } from './common';
import type { ConnectorDescriptor } from './types';

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
    // Materialize's SSL MODE values (its connection planning).
    check: databaseConnectionCheck(['disabled', 'required', 'verify_ca', 'verify_identity']),
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
