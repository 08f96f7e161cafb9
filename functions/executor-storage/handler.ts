import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { makeSqsClient } from '../../shared/clients/sqs';
import { executorHandler } from '../../shared/lambda/executor';
import { makeLogger } from '../../shared/lambda/logger';

const config = loadConfig(process.env);
const clients = { region: config.region };
export const handler = executorHandler({ config, clients: { ...makeDynamoClients(clients), sqs: makeSqsClient(clients) }, controller: 'storage', logger: makeLogger('executor-storage') });
