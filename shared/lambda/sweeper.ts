/** The sweeper, and the EventBridge-scheduled sweeper Lambda's handler, built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Clients } from '../aws';
import type { Config } from '../config';
import type { DataPlane } from '../controllers/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import type { FullPassOptions } from '../sweeper/full-pass';
import { Sweeper } from '../sweeper/sweeper';
import { makeDataPlane } from './data-plane';

export function makeSweeper(cfg: Config, clients: Pick<Clients, 'doc' | 'sqs'>, logger: Logger, extra: { dataPlane?: DataPlane; prober?: Prober; secrets?: SecretStore; fullPass?: FullPassOptions | false; faults?: FaultInjector } = {}): Sweeper {
  return new Sweeper({ doc: clients.doc, sqs: clients.sqs, catalogTable: cfg.catalogTable, queueUrls: cfg.queueUrls, logger, ...extra });
}

/** The EventBridge-scheduled sweeper: one sweep per invocation, its figures as CloudWatch metrics (EMF). */
export function sweeperHandler(cfg: Config, clients: Pick<Clients, 'doc' | 'sqs'>, logger: Logger, metrics: Metrics, extra: { prober?: Prober; secrets?: SecretStore } = {}) {
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
