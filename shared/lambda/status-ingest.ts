/** The status-ingest function's handler (data-plane reports → connector statuses), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clients } from '../aws';
import { tableStores } from '../catalog/stores';
import type { Config } from '../config';
import { createStatusIngestHandler, type StatusIngestHandlerDeps } from '../status-ingest/handler';

export function statusIngestHandler(cfg: Config, clients: Pick<Clients, 'doc'>, logger: Logger, extra: Pick<StatusIngestHandlerDeps, 'onIngested' | 'clock'> = {}) {
  // Reads single objects only: no snapshot cache.
  const { catalog, statuses } = tableStores(clients.doc, cfg.catalogTable, { snapshotCacheObjects: 0 });
  return createStatusIngestHandler({ statuses, catalog, logger, ...extra });
}
