/** The DDL API Lambda's handler (SQL over HTTP), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import { createApiHandler } from '../api/handlers';
import { SqlApi } from '../api/sql-api';
import { appPasswords } from './authorizer';
import type { Clients } from '../aws';
import { CatalogStore } from '../catalog/store';
import type { Config } from '../config';
import type { Prober } from '../probes/types';
import type { FingerprintKey } from '../secrets/fingerprint-key';
import type { SecretStore } from '../secrets/store';
import { createEffectSender, type FastPathDeps } from '../router/fast-path';
import type { FaultInjector } from '../dataplane/faults';
import { makeAdmission } from './admission';

/** The SQL API of the DDL function, as its handler and the Postgres wire endpoint run it. */
export function sqlApiFor(
  cfg: Config,
  clients: Pick<Clients, 'doc'> & { readonly sqs?: FastPathDeps['sqs'] },
  logger: Logger,
  secrets?: SecretStore,
  prober?: Prober,
  fingerprintKey?: FingerprintKey,
  faults?: FaultInjector,
): SqlApi {
  const sendEffects = clients.sqs ? createEffectSender({ sqs: clients.sqs, queueUrls: cfg.queueUrls, logger, admission: makeAdmission(cfg, clients.doc), ...(faults ? { faults } : {}) }) : undefined;
  return new SqlApi({
    store: new CatalogStore(clients.doc, cfg.catalogTable),
    logger,
    ...(secrets ? { secrets } : {}),
    ...(prober ? { prober } : {}),
    ...(fingerprintKey ? { fingerprintKey } : {}),
    ...(sendEffects ? { sendEffects } : {}),
  });
}

/** With an SQS client, committed effects take the fast path to their queues (shared/router/fast-path.ts). */
export function apiHandler(
  cfg: Config,
  clients: Pick<Clients, 'doc'> & { readonly sqs?: FastPathDeps['sqs'] },
  logger: Logger,
  secrets?: SecretStore,
  prober?: Prober,
  fingerprintKey?: FingerprintKey,
  faults?: FaultInjector,
) {
  const api = sqlApiFor(cfg, clients, logger, secrets, prober, fingerprintKey, faults);
  // Without an API Gateway authorizer in front (LocalStack mode), the function checks app passwords itself, with the authorizer's cache setting.
  const passwords = cfg.authenticateInFunction ? appPasswords(cfg, clients) : undefined;
  return createApiHandler({ api, logger, ...(cfg.corsAllowOrigins ? { corsAllowOrigins: cfg.corsAllowOrigins } : {}), ...(passwords ? { passwords } : {}) });
}
