import { loadConfig } from '../../shared/config';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { makeEventBridgeClient } from '../../shared/clients/eventbridge';
import { makeSqsClient } from '../../shared/clients/sqs';
import { makeLogger } from '../../shared/lambda/logger';
import { routerHandler } from '../../shared/lambda/router';

const config = loadConfig(process.env);
const events = config.eventBusName ? new EventBridgePublisher(makeEventBridgeClient({ region: config.region }), config.eventBusName) : undefined;
export const handler = routerHandler(config, { ...makeDynamoClients({ region: config.region }), sqs: makeSqsClient({ region: config.region }) }, makeLogger('stream-router'), undefined, events);
