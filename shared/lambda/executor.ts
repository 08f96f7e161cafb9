/** An effect executor's handler (one controller's queue → the data plane), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Clients } from '../aws';
import type { SqsSender } from '../clients/lazy';
import { tableStores } from '../catalog/stores';
import type { Config } from '../config';
import type { DataPlane } from '../dataplane/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { Controller } from '../definitions';
import { RETRY_POLICIES, type RetryPolicy } from '../effects/retry-policies';
import { createExecutorHandler } from '../executor/handler';
import type { SecretStore } from '../secrets/store';
import { makeDataPlane } from './data-plane';
import { makeAdmission } from './admission';

export interface ExecutorHandlerOptions {
  readonly config: Config;
  /** SQS may be a client loaded on first use (shared/clients/lazy.ts): an executor's typical message sends nothing. */
  readonly clients: Pick<Clients, 'doc'> & { readonly sqs: SqsSender };
  readonly controller: Controller;
  readonly logger: Logger;
  /** Fault injection for the reference data plane (tests, chaos). @default none */
  readonly faults?: FaultInjector;
  /** @default the data plane the config names (`makeDataPlane`) */
  readonly dataPlane?: DataPlane;
  /** @default the controller's named policy, `RETRY_POLICIES['executor.<controller>']` */
  readonly policy?: RetryPolicy;
  /** Needed by the secrets executor only. @default none */
  readonly secrets?: SecretStore;
}

export function executorHandler(o: ExecutorHandlerOptions) {
  const { config: cfg, clients, controller, faults, secrets } = o;
  return createExecutorHandler({
    ...tableStores(clients.doc, cfg.catalogTable),
    sqs: clients.sqs,
    queueUrl: cfg.queueUrls[controller],
    admission: { admission: makeAdmission(cfg, clients.doc), queueUrls: cfg.queueUrls },
    dataPlane: o.dataPlane ?? makeDataPlane(cfg, clients, faults),
    controller,
    policy: o.policy ?? RETRY_POLICIES[`executor.${controller}`],
    logger: o.logger,
    ...(secrets ? { secrets } : {}),
    ...(faults ? { faults } : {}),
  });
}
