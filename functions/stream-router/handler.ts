import { loadConfig } from '../../shared/config';
import { makeSqsClient } from '../../shared/lambda/clients/sqs';
import { makeLogger } from '../../shared/lambda/logger';
import { routerHandler } from '../../shared/lambda/router';

const config = loadConfig(process.env);
export const handler = routerHandler(config, { sqs: makeSqsClient({ region: config.region }) }, makeLogger('stream-router'));
