import { makeClients } from '../../shared/aws';
import { loadConfig } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { executorHandler, awsSecretStore } from '../../shared/lambda/wiring';

const config = loadConfig(process.env);
export const handler = executorHandler(config, makeClients({ region: config.region }), 'secrets', makeLogger('executor-secrets'), undefined, undefined, undefined, awsSecretStore(config));
