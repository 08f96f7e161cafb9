import '../../shared/lambda/stack-traces';
import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { lazySqsClient } from '../../shared/clients/lazy';
import { executorHandler } from '../../shared/lambda/executor';
import { makeLogger } from '../../shared/lambda/logger';
import { lazyAwsSecretStore } from '../../shared/lambda/lazy-secrets';

const config = loadConfig(process.env);
const clients = { region: config.region };
// Secrets Manager and SQS load on first use: a duplicate delivery (the effect already settled) needs
// neither, and a message that does need Secrets Manager pays its load where it would have paid the
// client's first call anyway.
export const handler = executorHandler({
  config,
  clients: { ...makeDynamoClients(clients), sqs: lazySqsClient(clients) },
  controller: 'secrets',
  logger: makeLogger('executor-secrets'),
  secrets: lazyAwsSecretStore(config),
});
