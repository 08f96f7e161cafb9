import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { makeSqsClient } from '../../shared/clients/sqs';
import { executorHandler } from '../../shared/lambda/executor';
import { makeLogger } from '../../shared/lambda/logger';
import { awsSecretStore } from '../../shared/lambda/secrets';

const config = loadConfig(process.env);
const clients = { region: config.region };
// Every message this function serves reads or prunes Secrets Manager: its client loads at cold start.
export const handler = executorHandler({
  config,
  clients: { ...makeDynamoClients(clients), sqs: makeSqsClient(clients) },
  controller: 'secrets',
  logger: makeLogger('executor-secrets'),
  secrets: awsSecretStore(config),
});
