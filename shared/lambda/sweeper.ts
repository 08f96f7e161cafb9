/** The sweeper, and the EventBridge-scheduled sweeper Lambda's handler, built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Clients } from '../aws';
import type { SqsSender } from '../clients/lazy';
import { tableStores } from '../catalog/stores';
import type { Config } from '../config';
import type { DataPlane } from '../dataplane/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import type { FullPassOptions } from '../sweeper/full-pass';
import { Sweeper } from '../sweeper/sweeper';
import { makeDataPlane } from './data-plane';
import { makeAdmission } from './admission';
import { FULL_PASS_EVENT } from '../definitions';

export function makeSweeper(cfg: Config, clients: Pick<Clients, 'doc'> & { readonly sqs: SqsSender }, logger: Logger, extra: { dataPlane?: DataPlane; prober?: Prober; secrets?: SecretStore; fullPass?: FullPassOptions | false; faults?: FaultInjector } = {}): Sweeper {
  return new Sweeper({ ...tableStores(clients.doc, cfg.catalogTable), sqs: clients.sqs, queueUrls: cfg.queueUrls, logger, admission: makeAdmission(cfg, clients.doc), ...extra });
}

/**
 * The share of an invocation's time a sweep may use before it stops starting new work. Half: a
 * sweep never runs past 50 % of its timeout, so a slow data plane or a large backlog makes sweeps
 * shorter and more frequent in effect (what is left stays due), never a timed-out invocation.
 */
export const SWEEP_TIME_BUDGET = 0.5;

/**
 * The EventBridge-scheduled sweeper. Two schedules invoke it: every minute, the due work (outbox
 * replay, staged commits, connector deadlines), its figures as CloudWatch metrics (EMF); and on
 * its own schedule ({@link FULL_PASS_EVENT}), the full pass, so the full pass's period does not
 * depend on the due work's. Both stop at {@link SWEEP_TIME_BUDGET} of the invocation's time.
 */
export function sweeperHandler(cfg: Config, clients: Pick<Clients, 'doc'> & { readonly sqs: SqsSender }, logger: Logger, metrics: Metrics, extra: { prober?: Prober; secrets?: SecretStore } = {}) {
  const sweeper = makeSweeper(cfg, clients, logger, { dataPlane: makeDataPlane(cfg, clients), ...extra });
  const handler = async (event: ScheduledEvent | typeof FULL_PASS_EVENT, context: Context) => {
    const deadline = Date.now() + Math.floor(context.getRemainingTimeInMillis() * SWEEP_TIME_BUDGET);
    if ('pass' in event && event.pass === FULL_PASS_EVENT.pass) return sweeper.fullPass(new Date(), deadline);
    const r = await sweeper.sweep(new Date(), { deadline, fullPass: false });
    metrics.addMetric('AttentionItemsRead', MetricUnit.Count, r.itemsRead);
    metrics.addMetric('ReplayedEffects', MetricUnit.Count, r.replayed);
    metrics.addMetric('DeadLetteredEffects', MetricUnit.Count, r.deadLettered);
    metrics.addMetric('OldestPendingEffectAgeSeconds', MetricUnit.Seconds, r.oldestPendingAgeSeconds);
    metrics.addMetric('FailedConnectors', MetricUnit.Count, r.connectors.failed);
    metrics.addMetric('SweepTruncated', MetricUnit.Count, r.truncated ? 1 : 0);
    return r;
  };
  return middy(handler).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}
