import { loadConfig } from '../../shared/config';
import { apiHandler } from '../../shared/lambda/api';
import { makeDynamoClients } from '../../shared/lambda/clients/dynamodb';
import { makeSqsClient } from '../../shared/lambda/clients/sqs';
import { lazyAwsFingerprintKey, lazyAwsSecretStore } from '../../shared/lambda/lazy-secrets';
import { makeLogger } from '../../shared/lambda/logger';
import { probeNetworkPolicy } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';

const config = loadConfig(process.env);
// Secrets Manager and the probes' clients load on the first request that needs them; SQS carries
// the fast path of committed effects (shared/effects/fast-path.ts).
const clients = { region: config.region };
export const handler = apiHandler(config, { ...makeDynamoClients(clients), sqs: makeSqsClient(clients) }, makeLogger('ddl-api'), lazyAwsSecretStore(config), realProber());
