/**
 * The reference data plane's reporter in AWS. Locally the runtime runs the reference data plane's
 * checks on a timer (local/pipeline.ts); in AWS nothing else runs its ingestions, so this
 * scheduled function does. EventBridge runs it once a minute at most, and connectors must
 * heartbeat every HEARTBEAT_INTERVAL_SECONDS (20 s), so one invocation runs a health round
 * (shared/dataplane/health-monitor.ts) every heartbeat interval while its time allows: three
 * rounds a minute. A warm container remembers what it sent, so it reports changes and heartbeats;
 * a cold one reports every connector once.
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
import { HEARTBEAT_INTERVAL_SECONDS } from '../dataplane/contract';
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

/** The reporter function's timeout (cdk/constructs/status-ingest.ts): room for three rounds 20 s apart ({@link reporterRounds}), ending before the next minute's invocation. */
export const REPORTER_TIMEOUT_SECONDS = 55;

/** What one round may take at most (probes are bounded at 5 s each and run side by side); a round is started only with this much time left. */
export const REPORTER_ROUND_ALLOWANCE_MS = 10_000;

/**
 * The start offsets (ms from the invocation's start) of the health rounds one invocation runs: one
 * every `intervalMs`, as many as start with {@link REPORTER_ROUND_ALLOWANCE_MS} of the remaining
 * time left. Always at least the first.
 */
export function reporterRounds(remainingMs: number, intervalMs: number): number[] {
  if (!(intervalMs > 0)) throw new Error(`the reporter's round interval must be positive, got ${intervalMs} ms`);
  const out = [0];
  while (out[out.length - 1]! + intervalMs + REPORTER_ROUND_ALLOWANCE_MS <= remainingMs) out.push(out[out.length - 1]! + intervalMs);
  return out;
}

export interface ReporterExtra {
  readonly prober?: Prober;
  readonly secrets?: SecretStore;
  /** The time source (tests run virtual time); default the wall clock. */
  readonly clock?: () => Date;
  /** Waits until the next round; default a timer. */
  readonly wait?: (ms: number) => Promise<void>;
}

export function referenceReporterHandler(cfg: ReporterConfig, clients: { doc: DynamoDBDocumentClient; sqs: SQSClient }, logger: Logger, extra: ReporterExtra = {}) {
  const clock = extra.clock ?? (() => new Date());
  const wait = extra.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const intervalMs = HEARTBEAT_INTERVAL_SECONDS * 1000;
  const monitor = new HealthMonitor({
    dataPlane: new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable),
    sqs: clients.sqs,
    queueUrl: cfg.statusQueueUrl,
    logger,
    // The rounds are the heartbeat clock: every round sends each running connector's heartbeat,
    // even one that starts a little less than an interval after the previous round's send.
    heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS / 2,
    clock,
    ...(extra.prober ? { prober: extra.prober } : {}),
    ...(extra.secrets ? { secrets: extra.secrets } : {}),
  });
  const handler = async (_event: ScheduledEvent, context: Context) => {
    const start = clock().getTime();
    let reports = 0;
    let changes = 0;
    const rounds = reporterRounds(context.getRemainingTimeInMillis(), intervalMs);
    for (const at of rounds) {
      const ahead = start + at - clock().getTime();
      if (ahead > 0) await wait(ahead);
      const sent = await monitor.checkAll();
      reports += sent.length;
      changes += sent.filter((r) => r.reason === 'change').length;
    }
    if (reports) logger.info('health reported', { reports, changes, rounds: rounds.length });
    return { reports, rounds: rounds.length };
  };
  return middy(handler).use(injectLambdaContext(logger));
}
