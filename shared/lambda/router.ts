/** The stream router's handler (catalog stream → controller queues and status events), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clients } from '../aws';
import type { Config } from '../config';
import type { FaultInjector } from '../dataplane/faults';
import type { EventPublisher } from '../events/publisher';
import { createRouterHandler } from '../router/handler';
import { makeAdmission } from './admission';

/** Effects are sent only once admitted under their tenant's cap (shared/router/admission.ts). `events`: where status events go (the stack's bus in AWS, the event log locally); none: not published. */
export function routerHandler(cfg: Config, clients: Pick<Clients, 'sqs' | 'doc'>, logger: Logger, faults?: FaultInjector, events?: EventPublisher) {
  return createRouterHandler({ sqs: clients.sqs, queueUrls: cfg.queueUrls, logger, admission: makeAdmission(cfg, clients.doc), ...(faults ? { faults } : {}), ...(events ? { events } : {}) });
}
