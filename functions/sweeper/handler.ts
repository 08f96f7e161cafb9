import { Metrics } from '@aws-lambda-powertools/metrics';
import { makeClients } from '../../shared/aws';
import { loadConfig } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { awsSecretStore, sweeperHandler } from '../../shared/lambda/wiring';
import { realProber } from '../../shared/probes/lazy';

const config = loadConfig(process.env);
// Namespace and service come from POWERTOOLS_METRICS_NAMESPACE / POWERTOOLS_SERVICE_NAME.
export const handler = sweeperHandler(config, makeClients({ region: config.region }), makeLogger('sweeper'), new Metrics(), { prober: realProber(), secrets: awsSecretStore(config) });
