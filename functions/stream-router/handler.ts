import { makeClients } from '../../shared/aws';
import { loadConfig } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { routerHandler } from '../../shared/lambda/wiring';

const config = loadConfig(process.env);
export const handler = routerHandler(config, makeClients({ region: config.region }), makeLogger('stream-router'));
