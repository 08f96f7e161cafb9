/** The data plane the executors and the sweeper act on. */
import type { Clients } from '../aws';
import { type Config, secretArnRegion } from '../config';
import type { DataPlane } from '../dataplane/contract';
import type { FaultInjector } from '../dataplane/faults';
import { HttpDataPlane, type HttpDataPlaneOptions } from '../dataplane/http-client';
import { ReferenceDataPlane } from '../dataplane/reference';
import { secretsManagerToken } from './data-plane-token';

/**
 * An external data plane (DATAPLANE_URL) when one is configured, else the reference one. Its bearer
 * token comes from Secrets Manager (DATAPLANE_TOKEN_SECRET_ARN, read on the first call) or, for
 * local use, from DATAPLANE_TOKEN.
 */
export function makeDataPlane(cfg: Config, clients: Pick<Clients, 'doc'>, faults?: FaultInjector): DataPlane {
  if (cfg.dataPlaneUrl) return new HttpDataPlane(cfg.dataPlaneUrl, dataPlaneTokenOption(cfg));
  if (cfg.dataPlaneTable) return new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable, faults ? { faults } : {});
  throw new Error('no data plane configured: set DATAPLANE_URL or DATAPLANE_TABLE');
}

function dataPlaneTokenOption(cfg: Config): Pick<HttpDataPlaneOptions, 'token'> {
  const arn = cfg.dataPlaneTokenSecretArn;
  // The secret's own region (the ARN is validated by loadConfig), which may differ from the function's.
  if (arn) return { token: secretsManagerToken(arn, secretArnRegion(arn) ?? cfg.region) };
  return cfg.dataPlaneToken ? { token: cfg.dataPlaneToken } : {};
}
