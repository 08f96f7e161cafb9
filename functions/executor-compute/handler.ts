import '../../shared/lambda/stack-traces';
import { loadConfig } from '../../shared/config';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { lazySqsClient } from '../../shared/clients/lazy';
import { executorHandler } from '../../shared/lambda/executor';
import { makeLogger } from '../../shared/lambda/logger';

const config = loadConfig(process.env);
const clients = { region: config.region };
// SQS loads on first use: a message whose settle frees no slot for a next effect sends nothing.
export const handler = executorHandler({ config, clients: { ...makeDynamoClients(clients), sqs: lazySqsClient(clients) }, controller: 'compute', logger: makeLogger('executor-compute') });
