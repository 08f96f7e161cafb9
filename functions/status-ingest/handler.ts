import '../../shared/lambda/stack-traces';
import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { makeLogger } from '../../shared/lambda/logger';
import { statusIngestHandler } from '../../shared/lambda/status-ingest';

const config = loadConfig(process.env);
export const handler = statusIngestHandler(config, makeDynamoClients({ region: config.region }), makeLogger('status-ingest'));
