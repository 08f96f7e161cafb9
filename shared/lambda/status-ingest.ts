/** The status-ingest function's handler (data-plane reports → connector statuses), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clients } from '../aws';
import { StatusStore } from '../catalog/status-store';
import type { Config } from '../config';
import { createStatusIngestHandler, type StatusIngestHandlerDeps } from '../status-ingest/handler';

export function statusIngestHandler(cfg: Config, clients: Pick<Clients, 'doc'>, logger: Logger, extra: Pick<StatusIngestHandlerDeps, 'onIngested' | 'clock'> = {}) {
  return createStatusIngestHandler({ statuses: new StatusStore(clients.doc, cfg.catalogTable), logger, ...extra });
}
