import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/lambda/clients/dynamodb';
import { makeSqsClient } from '../../shared/lambda/clients/sqs';
import { executorHandler } from '../../shared/lambda/executor';
import { makeLogger } from '../../shared/lambda/logger';
import { awsSecretStore } from '../../shared/lambda/secrets';

const config = loadConfig(process.env);
const clients = { region: config.region };
// Every message this function serves reads or prunes Secrets Manager: its client loads at cold start.
export const handler = executorHandler(config, { ...makeDynamoClients(clients), sqs: makeSqsClient(clients) }, 'secrets', makeLogger('executor-secrets'), undefined, undefined, undefined, awsSecretStore(config));
