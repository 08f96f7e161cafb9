/** The data plane the executors and the sweeper act on. */
import type { Clients } from '../aws';
import type { Config } from '../config';
import type { DataPlane } from '../controllers/contract';
import type { FaultInjector } from '../dataplane/faults';
import { HttpDataPlane } from '../dataplane/http-client';
import { ReferenceDataPlane } from '../dataplane/reference';

/** An external data plane (DATAPLANE_URL) when one is configured, else the reference one. */
export function makeDataPlane(cfg: Config, clients: Pick<Clients, 'doc'>, faults?: FaultInjector): DataPlane {
  if (cfg.dataPlaneUrl) return new HttpDataPlane(cfg.dataPlaneUrl, cfg.dataPlaneToken ? { token: cfg.dataPlaneToken } : {});
  if (cfg.dataPlaneTable) return new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable, faults ? { faults } : {});
  throw new Error('no data plane configured: set DATAPLANE_URL or DATAPLANE_TABLE');
}
