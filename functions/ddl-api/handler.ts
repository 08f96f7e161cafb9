import { loadConfig } from '../../shared/config';
import { apiHandler } from '../../shared/lambda/api';
import { makeDynamoClients } from '../../shared/lambda/clients/dynamodb';
import { lazyAwsFingerprintKey, lazyAwsSecretStore } from '../../shared/lambda/lazy-secrets';
import { makeLogger } from '../../shared/lambda/logger';
import { probeNetworkPolicy } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';

const config = loadConfig(process.env);
// Secrets Manager and the probes' clients load on the first request that needs them.
export const handler = apiHandler(config, makeDynamoClients({ region: config.region }), makeLogger('ddl-api'), lazyAwsSecretStore(config), realProber({ network: probeNetworkPolicy(config.probeNetworks) }), lazyAwsFingerprintKey(config));
