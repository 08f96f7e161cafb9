/** The DDL API Lambda's handler (SQL over HTTP), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import { createApiHandler } from '../api/handlers';
import { SqlApi } from '../api/sql-api';
import type { Clients } from '../aws';
import { CatalogStore } from '../catalog/store';
import type { Config } from '../config';
import type { Prober } from '../probes/types';
import type { FingerprintKey } from '../secrets/fingerprint-key';
import type { SecretStore } from '../secrets/store';

export function apiHandler(cfg: Config, clients: Pick<Clients, 'doc'>, logger: Logger, secrets?: SecretStore, prober?: Prober, fingerprintKey?: FingerprintKey) {
  const api = new SqlApi({ store: new CatalogStore(clients.doc, cfg.catalogTable), logger, ...(secrets ? { secrets } : {}), ...(prober ? { prober } : {}), ...(fingerprintKey ? { fingerprintKey } : {}) });
  return createApiHandler({ api, logger, ...(cfg.corsAllowOrigins ? { corsAllowOrigins: cfg.corsAllowOrigins } : {}) });
}
