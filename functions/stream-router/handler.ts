import '../../shared/lambda/stack-traces';
import { loadConfig } from '../../shared/config';
import { EventBridgePublisher } from '../../shared/events/publisher';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { lazyEventBridgeClient } from '../../shared/clients/lazy';
import { makeSqsClient } from '../../shared/clients/sqs';
import { makeLogger } from '../../shared/lambda/logger';
import { routerHandler } from '../../shared/lambda/router';

const config = loadConfig(process.env);
// EventBridge loads with the first status event to publish: most records are effects, not statuses.
const events = config.eventBusName ? new EventBridgePublisher(lazyEventBridgeClient({ region: config.region }), config.eventBusName) : undefined;
export const handler = routerHandler(config, { ...makeDynamoClients({ region: config.region }), sqs: makeSqsClient({ region: config.region }) }, makeLogger('stream-router'), undefined, events);
