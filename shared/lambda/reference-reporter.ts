/**
 * The reference data plane's reporter in AWS. Locally the runtime runs the reference data plane's
 * checks on a timer (local/pipeline.ts); in AWS nothing else runs its ingestions, so this
 * scheduled function does: one health round per invocation (shared/dataplane/health-monitor.ts),
 * reports and heartbeats to the status queue. A warm container remembers what it sent, so it
 * reports changes and heartbeats; a cold one reports every connector once.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { ENV } from '../definitions';
import { PROBE_NETWORKS_ENV } from '../config';
import { HealthMonitor } from '../dataplane/health-monitor';
import { ReferenceDataPlane } from '../dataplane/reference';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';

export const STATUS_QUEUE_URL_ENV = 'STATUS_QUEUE_URL';

export interface ReporterConfig {
  readonly region: string;
  readonly dataPlaneTable: string;
  readonly statusQueueUrl: string;
  /** The stack's secret name prefix (deploymentNames); undefined falls back to the store's default. */
  readonly secretNamePrefix?: string;
  /** Which networks the reporter's probes may reach (shared/probes/addresses.ts); the stack's setting. */
  readonly probeNetworks?: 'public' | 'private' | 'local';
}

export function loadReporterConfig(env: Record<string, string | undefined>): ReporterConfig {
  const nonEmpty = z.string().check(z.minLength(1));
  // Not z.url(): emulators hand out queue URLs such as http://sqs.us-east-1.127.0.0.1:4566/..., which it refuses.
  const parsed = z.object({ region: nonEmpty, dataPlaneTable: nonEmpty, statusQueueUrl: nonEmpty }).safeParse({
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    dataPlaneTable: env[ENV.dataPlaneTable],
    statusQueueUrl: env[STATUS_QUEUE_URL_ENV],
  });
  if (!parsed.success) {
    const names: Record<string, string> = { dataPlaneTable: ENV.dataPlaneTable, statusQueueUrl: STATUS_QUEUE_URL_ENV };
    throw new Error(`invalid configuration: ${parsed.error.issues.map((i) => `${names[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const probeNetworks = env[PROBE_NETWORKS_ENV];
  if (probeNetworks !== undefined && probeNetworks !== '' && !['public', 'private', 'local'].includes(probeNetworks)) {
    throw new Error(`invalid configuration: ${PROBE_NETWORKS_ENV}: expected public, private or local, got ${JSON.stringify(probeNetworks)}`);
  }
  return {
    ...parsed.data,
    ...(env[ENV.secretNamePrefix] ? { secretNamePrefix: env[ENV.secretNamePrefix] } : {}),
    ...(probeNetworks ? { probeNetworks: probeNetworks as ReporterConfig['probeNetworks'] } : {}),
  };
}

export function referenceReporterHandler(cfg: ReporterConfig, clients: { doc: DynamoDBDocumentClient; sqs: SQSClient }, logger: Logger, extra: { prober?: Prober; secrets?: SecretStore } = {}) {
  const monitor = new HealthMonitor({
    dataPlane: new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable),
    sqs: clients.sqs,
    queueUrl: cfg.statusQueueUrl,
    logger,
    ...extra,
  });
  const handler = async (_event: ScheduledEvent, _context: Context) => {
    const reports = await monitor.checkAll();
    if (reports.length) logger.info('health reported', { reports: reports.length, changes: reports.filter((r) => r.reason === 'change').length });
    return { reports: reports.length };
  };
  return middy(handler).use(injectLambdaContext(logger));
}
