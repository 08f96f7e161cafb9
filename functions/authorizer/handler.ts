import '../../shared/lambda/stack-traces';
import { loadConfig } from '../../shared/config';
import { authorizerHandler } from '../../shared/lambda/authorizer';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { makeLogger } from '../../shared/lambda/logger';

const config = loadConfig(process.env);
export const handler = authorizerHandler(config, makeDynamoClients({ region: config.region }), makeLogger('authorizer'));
