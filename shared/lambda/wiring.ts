/**
 * Builds each Lambda's dependencies from a validated Config. The functions/ entry points call
 * these once per cold start; the local runtime and tests call them with their own config.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { AppPasswords } from '../auth/app-passwords';
import type { Clients } from '../aws';
import { CatalogStore } from '../catalog/store';
import type { Config } from '../config';
import type { DataPlane } from '../controllers/contract';
import type { FaultInjector } from '../dataplane/faults';
import { HttpDataPlane } from '../dataplane/http-client';
import { ReferenceDataPlane } from '../dataplane/reference';
import type { Controller } from '../definitions';
import { RETRY_POLICIES, type RetryPolicy } from '../effects/retry-policies';
import { createApiHandler, createAuthorizerHandler } from '../api/handlers';
import { SqlApi } from '../api/sql-api';
import { createExecutorHandler } from '../executor/handler';
import { createRouterHandler } from '../router/handler';
import { Sweeper } from '../sweeper/sweeper';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AwsSecretStore } from '../secrets/aws-store';
import type { SecretStore } from '../secrets/store';
import type { Prober } from '../probes/types';
import type { FullPassOptions } from '../sweeper/full-pass';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context, ScheduledEvent } from 'aws-lambda';

/** An external data plane (DATAPLANE_URL) when one is configured, else the reference one. */
export function makeDataPlane(cfg: Config, clients: Clients, faults?: FaultInjector): DataPlane {
  if (cfg.dataPlaneUrl) return new HttpDataPlane(cfg.dataPlaneUrl, cfg.dataPlaneToken ? { token: cfg.dataPlaneToken } : {});
  if (cfg.dataPlaneTable) return new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable, faults ? { faults } : {});
  throw new Error('no data plane configured: set DATAPLANE_URL or DATAPLANE_TABLE');
}

/** In AWS, secret values live in Secrets Manager. */
export function awsSecretStore(cfg: Config): SecretStore {
  return new AwsSecretStore(new SecretsManagerClient({ region: cfg.region }));
}

export function apiHandler(cfg: Config, clients: Clients, logger: Logger, secrets?: SecretStore, prober?: Prober) {
  return createApiHandler({ api: new SqlApi({ store: new CatalogStore(clients.doc, cfg.catalogTable), logger, ...(secrets ? { secrets } : {}), ...(prober ? { prober } : {}) }), logger });
}

export function authorizerHandler(cfg: Config, clients: Clients, logger: Logger) {
  return createAuthorizerHandler({ passwords: new AppPasswords(clients.doc, cfg.catalogTable), logger });
}

export function routerHandler(cfg: Config, clients: Clients, logger: Logger, faults?: FaultInjector) {
  return createRouterHandler({ sqs: clients.sqs, queueUrls: cfg.queueUrls, logger, ...(faults ? { faults } : {}) });
}

export function executorHandler(
  cfg: Config,
  clients: Clients,
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

export function makeSweeper(cfg: Config, clients: Clients, logger: Logger, extra: { dataPlane?: DataPlane; prober?: Prober; secrets?: SecretStore; fullPass?: FullPassOptions | false; faults?: FaultInjector } = {}): Sweeper {
  return new Sweeper({ doc: clients.doc, sqs: clients.sqs, catalogTable: cfg.catalogTable, queueUrls: cfg.queueUrls, logger, ...extra });
}

/** The EventBridge-scheduled sweeper: one sweep per invocation, its figures as CloudWatch metrics (EMF). */
export function sweeperHandler(cfg: Config, clients: Clients, logger: Logger, metrics: Metrics, extra: { prober?: Prober; secrets?: SecretStore } = {}) {
  const sweeper = makeSweeper(cfg, clients, logger, { dataPlane: makeDataPlane(cfg, clients), ...extra });
  const handler = async (_event: ScheduledEvent, _context: Context) => {
    const r = await sweeper.sweep();
    metrics.addMetric('AttentionItemsRead', MetricUnit.Count, r.itemsRead);
    metrics.addMetric('ReplayedEffects', MetricUnit.Count, r.replayed);
    metrics.addMetric('DeadLetteredEffects', MetricUnit.Count, r.deadLettered);
    metrics.addMetric('OldestPendingEffectAgeSeconds', MetricUnit.Seconds, r.oldestPendingAgeSeconds);
    metrics.addMetric('FailedConnectors', MetricUnit.Count, r.connectors.failed);
    return r;
  };
  return middy(handler).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}
