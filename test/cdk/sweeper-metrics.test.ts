/**
 * The sweeper alarms read metrics the sweeper Lambda emits through Powertools (EMF). This pins
 * the two together: one sweep by the real handler wiring (`sweeperHandler`, the same call as
 * functions/sweeper/handler.ts), with the Powertools environment the stack sets, against an empty
 * catalog on DynamoDB Local, emits in the namespace and with exactly the `service` dimension the
 * alarms use, under names the alarms and the dashboard know.
 */
import { randomBytes } from 'node:crypto';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Observability, SWEEPER_METRICS } from '../../cdk/constructs/observability';
import { LOCAL_CREDENTIALS } from '../../local/emulators';
import { lambdaContext } from '../../local/lambda-context';
import { ensureTable } from '../../local/resources';
import { makeClients } from '../../shared/aws';
import type { Config } from '../../shared/config';
import { CATALOG_TABLE, FULL_PASS_EVENT } from '../../shared/definitions';
import { makeLogger } from '../../shared/lambda/logger';
import { sweeperHandler } from '../../shared/lambda/wiring';
import { bareStack } from './helpers';
import { dynamodbEndpoint } from '../helpers/endpoints';

interface Emf {
  readonly _aws: { readonly CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  readonly [key: string]: unknown;
}

const REGION = 'eu-west-1';
let observability: Observability;
let config: Config;

beforeAll(async () => {
  // Prepare: the stack's Powertools environment, and an empty catalog
  observability = new Observability(bareStack(), 'Observability');
  vi.stubEnv('POWERTOOLS_SERVICE_NAME', observability.serviceName);
  vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', observability.metricsNamespace);
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
  const table = `t-sweeper-metrics-${randomBytes(3).toString('hex')}-catalog`;
  const clients = makeClients({ region: REGION, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: dynamodbEndpoint() } });
  await ensureTable(clients.ddb, CATALOG_TABLE, table);
  config = {
    region: REGION,
    catalogTable: table,
    dataPlaneTable: 'unused',
    queueUrls: { compute: 'http://unused/compute', storage: 'http://unused/storage', secrets: 'http://unused/secrets' },
    dlqUrls: {},
  };
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe('sweeper metrics', () => {
  it('are emitted in the alarms\' namespace, with only the service dimension, under SWEEPER_METRICS names', async () => {
    // Prepare: capture the EMF document instead of printing it
    const metrics = new Metrics();
    const published: Emf[] = [];
    vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => {
      published.push(metrics.serializeMetrics() as unknown as Emf);
      metrics.clearMetrics();
      return metrics;
    });
    const clients = makeClients({ region: REGION, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: dynamodbEndpoint() } });
    const handler = sweeperHandler(config, clients, makeLogger('sweeper'), metrics);

    // Act
    const report = await handler({} as ScheduledEvent, lambdaContext('sweeper'));

    // Assess
    expect(published).toHaveLength(1);
    const emf = published[0]!;
    const [directive] = emf._aws.CloudWatchMetrics;
    expect(directive!.Namespace).toBe(observability.metricsNamespace);
    expect(directive!.Dimensions).toEqual([['service']]);
    expect(emf.service).toBe(observability.serviceName);
    const emitted = directive!.Metrics.map((m) => m.Name);
    const known: string[] = Object.values(SWEEPER_METRICS);
    for (const name of emitted) expect(known).toContain(name);
    // Every metric an alarm watches is emitted on every sweep, FailedConnectors included (0 here).
    expect(emitted.sort()).toEqual([...known].sort());
    expect(emf[SWEEPER_METRICS.failedConnectors]).toBe(0);
    expect(emf[SWEEPER_METRICS.oldestPendingEffectAgeSeconds]).toBe(0);
    expect(emf[SWEEPER_METRICS.sweepTruncated]).toBe(0);
    // The every-minute schedule runs the due work only; the full pass has its own schedule.
    expect(report).toMatchObject({ truncated: false });
    expect(report).not.toHaveProperty('full');
  });

  it('the full-pass schedule runs the full pass alone', async () => {
    const clients = makeClients({ region: REGION, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: dynamodbEndpoint() } });
    const handler = sweeperHandler(config, clients, makeLogger('sweeper'), new Metrics());
    // An empty catalog: the pass runs over no tenant and completes.
    expect(await handler(FULL_PASS_EVENT, lambdaContext('sweeper'))).toMatchObject({ ran: true, tenants: 0, completed: true });
  });
});
