/**
 * The local runtime with the deployed profile (what `npm start` runs by default): the queues and
 * mappings carry the stack's settings, and a statement still goes from commit to the data plane.
 * The local API Gateway reuses an authorizer decision only while the profile's cache TTL lasts.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../local/http-server';
import type { Pipeline } from '../../local/pipeline';
import { PROFILES } from '../../local/profiles';
import { CONTROLLERS, EFFECT_QUEUES, EXECUTOR_MAPPING } from '../../shared/definitions';
import { dataPlaneReplicas } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('deployed', { profile: 'deployed' });
});
afterAll(async () => {
  await p?.stop();
});

describe('the deployed profile', () => {
  it("creates every effect queue with the stack's visibility timeout and receive budget", async () => {
    for (const c of CONTROLLERS) {
      // Act
      const a = await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.config.queueUrls[c], AttributeNames: ['VisibilityTimeout', 'RedrivePolicy'] }));
      const definition = EFFECT_QUEUES.find((d) => d.controller === c)!;

      // Assess
      expect(Number(a.Attributes!.VisibilityTimeout)).toBe(definition.visibilityTimeoutSeconds);
      expect(JSON.parse(a.Attributes!.RedrivePolicy!).maxReceiveCount).toBe(definition.maxReceiveCount);
    }
  });

  it('applies a statement end to end with batches of 10 and at most 5 executors in flight per queue', async () => {
    // Prepare
    const { sql, tenant } = await sqlClient(p);

    // Act
    for (let i = 0; i < 6; i++) expect((await sql(`CREATE CLUSTER c${i} (SIZE = '25cc', REPLICATION FACTOR = 2)`)).status).toBe(200);

    // Assess
    await eventually(async () => (await dataPlaneReplicas(p, tenant)).length === 12, 30_000);
    expect(p.profile.name).toBe('deployed');
    expect(PROFILES.deployed.queuePolling.batchSize).toBe(EXECUTOR_MAPPING.batchSize.referenceDataPlane);
    expect(p.pollers.compute.peakInFlight).toBeLessThanOrEqual(EXECUTOR_MAPPING.maxConcurrency);
  });
});

describe('the local authorizer cache', () => {
  async function gateway(ttl: number) {
    let invocations = 0;
    const allow: APIGatewayAuthorizerResult = { principalId: 't', policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }] }, context: { tenant: 't' } };
    const server = await startHttpServer({
      api: async () => ({ statusCode: 200, body: '{}' }),
      authorizer: async () => {
        invocations++;
        return allow;
      },
      port: 0,
      authorizerCacheTtlSeconds: ttl,
      corsAllowOrigins: [],
    });
    const call = () => fetch(`${server.url}/api/sql`, { method: 'POST', headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, body: '{"query":"SELECT 1"}' });
    return { server, call, invocations: () => invocations };
  }

  it('runs the authorizer on every request with a TTL of 0 (the deployed setting)', async () => {
    // Prepare
    const g = await gateway(PROFILES.deployed.authorizerCacheTtlSeconds);

    // Act
    for (let i = 0; i < 3; i++) expect((await g.call()).status).toBe(200);
    await g.server.stop();

    // Assess
    expect(g.invocations()).toBe(3);
  });

  it('reuses the decision for the same Authorization header while a positive TTL lasts', async () => {
    // Prepare
    const g = await gateway(300);

    // Act
    for (let i = 0; i < 3; i++) expect((await g.call()).status).toBe(200);
    await g.server.stop();

    // Assess
    expect(g.invocations()).toBe(1);
  });
});
