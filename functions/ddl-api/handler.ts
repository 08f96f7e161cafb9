import { makeClients } from '../../shared/aws';
import { loadConfig } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { apiHandler, awsSecretStore } from '../../shared/lambda/wiring';
import { realProber } from '../../shared/probes/lazy';

const config = loadConfig(process.env);
export const handler = apiHandler(config, makeClients({ region: config.region }), makeLogger('ddl-api'), awsSecretStore(config), realProber());
