import { makeClients } from '../../shared/aws';
import { loadConfig } from '../../shared/config';
import { makeLogger } from '../../shared/lambda/logger';
import { sweeperHandler } from '../../shared/lambda/wiring';

const config = loadConfig(process.env);
export const handler = sweeperHandler(config, makeClients({ region: config.region }), makeLogger('sweeper'));
