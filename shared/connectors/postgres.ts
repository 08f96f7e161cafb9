/** PostgreSQL: connections and sources reading a publication's tables. Its probe is shared/probes/postgres.ts. */
import { SSL_NAMES } from './common';
import type { ConnectorDescriptor } from './types';

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
