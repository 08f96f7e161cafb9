/**
 * The executors pointed at an HTTP data plane, the way a deployment with DATAPLANE_URL runs them:
 * config → makeDataPlane → HttpDataPlane → dataplane-server → the pipeline's reference data plane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDataPlaneServer, type DataPlaneServer } from '../../local/dataplane-server';
import type { Pipeline } from '../../local/pipeline';
import { QueuePoller } from '../../local/queue-poller';
import { configToEnv, loadConfig } from '../../shared/config';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { makeLogger } from '../../shared/lambda/logger';
import { executorHandler, makeDataPlane } from '../../shared/lambda/wiring';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

const TOKEN = 'executor-token';

describe('configuration', () => {
  const base = { CATALOG_TABLE: 'c', QUEUE_URL_COMPUTE: 'q1', QUEUE_URL_STORAGE: 'q2', QUEUE_URL_SECRETS: 'q3' };

  it('reads DATAPLANE_TOKEN and writes it back', () => {
    const cfg = loadConfig({ ...base, DATAPLANE_URL: 'https://dp.example.com', DATAPLANE_TOKEN: 's3cret' });
    expect(cfg.dataPlaneToken).toBe('s3cret');
    expect(configToEnv(cfg)).toMatchObject({ DATAPLANE_URL: 'https://dp.example.com', DATAPLANE_TOKEN: 's3cret' });
  });

  it('leaves the token out when unset or empty', () => {
    const cfg = loadConfig({ ...base, DATAPLANE_URL: 'https://dp.example.com', DATAPLANE_TOKEN: '' });
    expect(cfg.dataPlaneToken).toBeUndefined();
    expect(configToEnv(cfg)).not.toHaveProperty('DATAPLANE_TOKEN');
  });

  it('makeDataPlane: the HTTP client for DATAPLANE_URL, the reference one for DATAPLANE_TABLE', () => {
    const clients = {} as never;
    expect(makeDataPlane(loadConfig({ ...base, DATAPLANE_URL: 'https://dp.example.com/v1' }), clients)).toBeInstanceOf(HttpDataPlane);
    expect(makeDataPlane(loadConfig({ ...base, DATAPLANE_TABLE: 'dp' }), { doc: {} } as never)).toBeInstanceOf(ReferenceDataPlane);
  });
});

describe('the compute executor over HTTP', () => {
  let p: Pipeline;
  let server: DataPlaneServer;
  let poller: QueuePoller;

  beforeAll(async () => {
    // The pipeline's own executors stay off; ours reach its reference data plane over HTTP only.
    p = await testPipeline('dp-http', { workers: false });
    p.router.start();
    server = await startDataPlaneServer({ dataPlane: p.dataPlane, port: 0, token: TOKEN });
    const cfg = loadConfig({ ...configToEnv(p.config), DATAPLANE_TABLE: '', DATAPLANE_URL: server.url, DATAPLANE_TOKEN: TOKEN });
    poller = new QueuePoller({
      sqs: p.clients.sqs,
      queueUrl: cfg.queueUrls.compute,
      handler: executorHandler({ config: cfg, clients: p.clients, controller: 'compute', logger: makeLogger('executor-compute-http') }),
      logger: makeLogger('local-sqs-mapping-compute-http'),
      functionName: 'executor-compute',
      region: cfg.region,
    });
    poller.start();
  });
  afterAll(async () => {
    await poller?.stop();
    await p?.stop();
    await server?.stop();
  });

  it('provisions and removes a cluster’s replicas, each change made once', async () => {
    // Prepare
    const { sql, tenant } = await sqlClient(p);

    // Act
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 2)")).status).toBe(200);
    const replicas = await eventually(async () => {
      const r = (await p.dataPlane.observe(tenant)).filter((x) => x.kind === 'replica');
      return r.length === 2 && r;
    }, 5_000);
    expect((await sql('DROP CLUSTER c')).status).toBe(200);
    await eventually(async () => (await p.dataPlane.observe(tenant)).length === 0, 5_000);

    // Assess
    for (const r of replicas) expect(r.owner).toMatchObject({ tenant, objectKind: 'cluster_replica' });
    const actions = (await p.dataPlane.actionLog(tenant)).map((e) => e.action).sort();
    expect(actions).toEqual(['create', 'create', 'drop', 'drop']);
  });
});
