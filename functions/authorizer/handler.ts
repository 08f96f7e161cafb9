import { makeClients } from '../../shared/aws';
import { loadConfig } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { authorizerHandler } from '../../shared/lambda/wiring';

const config = loadConfig(process.env);
export const handler = authorizerHandler(config, makeClients({ region: config.region }), makeLogger('authorizer'));
