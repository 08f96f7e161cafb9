import '../../shared/lambda/stack-traces';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { lazySqsClient } from '../../shared/clients/lazy';
import { lazyAwsSecretStore } from '../../shared/lambda/lazy-secrets';
import { makeLogger } from '../../shared/lambda/logger';
import { sweeperHandler } from '../../shared/lambda/sweeper';
import { probeNetworkPolicy } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';

const config = loadConfig(process.env);
const clients = { region: config.region };
// Namespace and service come from POWERTOOLS_METRICS_NAMESPACE / POWERTOOLS_SERVICE_NAME.
// Secrets Manager and the probes' clients load only when a connector is probed, SQS only when an effect is replayed.
export const handler = sweeperHandler(config, { ...makeDynamoClients(clients), sqs: lazySqsClient(clients) }, makeLogger('sweeper'), new Metrics(), { prober: realProber({ network: probeNetworkPolicy(config.probeNetworks) }), secrets: lazyAwsSecretStore(config) });
