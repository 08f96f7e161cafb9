/** The stream router's handler (catalog stream → controller queues), built from a Config and its SQS client. */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clients } from '../aws';
import type { Config } from '../config';
import type { FaultInjector } from '../dataplane/faults';
import { createRouterHandler } from '../router/handler';

export function routerHandler(cfg: Config, clients: Pick<Clients, 'sqs'>, logger: Logger, faults?: FaultInjector) {
  return createRouterHandler({ sqs: clients.sqs, queueUrls: cfg.queueUrls, logger, ...(faults ? { faults } : {}) });
}
