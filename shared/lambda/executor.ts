/** An effect executor's handler (one controller's queue → the data plane), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clients } from '../aws';
import type { Config } from '../config';
import type { DataPlane } from '../controllers/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { Controller } from '../definitions';
import { RETRY_POLICIES, type RetryPolicy } from '../effects/retry-policies';
import { createExecutorHandler } from '../executor/handler';
import type { SecretStore } from '../secrets/store';
import { makeDataPlane } from './data-plane';

export function executorHandler(
  cfg: Config,
  clients: Pick<Clients, 'doc' | 'sqs'>,
  controller: Controller,
  logger: Logger,
  faults?: FaultInjector,
  dataPlane?: DataPlane,
  policy: RetryPolicy = RETRY_POLICIES[`executor.${controller}`],
  secrets?: SecretStore,
) {
  return createExecutorHandler({
    doc: clients.doc,
    sqs: clients.sqs,
    catalogTable: cfg.catalogTable,
    queueUrl: cfg.queueUrls[controller],
    dataPlane: dataPlane ?? makeDataPlane(cfg, clients, faults),
    controller,
    policy,
    logger,
    ...(secrets ? { secrets } : {}),
    ...(faults ? { faults } : {}),
  });
}
