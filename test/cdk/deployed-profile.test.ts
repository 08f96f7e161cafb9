/**
 * `npm start` runs what the stack deploys: the local runtime's deployed profile
 * (local/profiles.ts) against the synthesized template, setting by setting. A setting changed on
 * one side only (a literal in a construct, or in the profile) fails here.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DdlControlPlaneStack } from '../../cdk/stack';
import { PROFILES } from '../../local/profiles';
import { CONTROLLERS, EFFECT_QUEUES, STREAM_MAPPING } from '../../shared/definitions';
import { BUNDLING_STACKS, logicalId, testApp } from './helpers';

let stack: DdlControlPlaneStack;
let template: Template;
const deployed = PROFILES.deployed;

beforeAll(() => {
  // Prepare: no bundling, the settings are all in the template.
  stack = new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [] }), 'DdlControlPlane');
  template = Template.fromStack(stack);
});

function mappingOf(functionLogicalId: string): Record<string, any> {
  const found = Object.values(template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: functionLogicalId } } }));
  expect(found).toHaveLength(1);
  return found[0]!.Properties;
}

describe('the deployed profile', () => {
  it("reads the catalog stream with the stack's mapping: batch size, bisect, retries, record age", () => {
    // Act
    const m = mappingOf(logicalId(stack.router.handler.function));

    // Assess
    expect({
      batchSize: deployed.stream.batchSize,
      bisectBatchOnError: deployed.stream.bisectBatchOnError,
      retryAttempts: deployed.stream.retryAttempts,
      maxRecordAgeSeconds: deployed.stream.maxRecordAgeSeconds,
    }).toEqual({
      batchSize: m.BatchSize,
      bisectBatchOnError: m.BisectBatchOnFunctionError,
      retryAttempts: m.MaximumRetryAttempts,
      maxRecordAgeSeconds: m.MaximumRecordAgeInSeconds,
    });
    // Lambda's poll rate is not in the template: four reads a second per shard.
    expect(deployed.stream.pollIntervalMs).toBe(1000 / STREAM_MAPPING.pollsPerSecondPerShard);
    expect(deployed.stream.pollIntervalMs).toBe(250);
  });

  it.each(CONTROLLERS.map((c) => [c]))("feeds the %s executor with the stack's batch size and concurrency", (controller) => {
    // Act
    const m = mappingOf(logicalId(stack.executors[controller].handler.function));

    // Assess
    expect({ batchSize: deployed.queuePolling.batchSize, maxConcurrency: deployed.queuePolling.maxConcurrency }).toEqual({
      batchSize: m.BatchSize,
      maxConcurrency: m.ScalingConfig.MaximumConcurrency,
    });
  });

  it.each(CONTROLLERS.map((c) => [c]))("creates the %s queue with the stack's visibility timeout and receive budget", (controller) => {
    // Act
    const q = template.toJSON().Resources[logicalId(stack.queues.byController[controller].queue)].Properties;
    const definition = EFFECT_QUEUES.find((d) => d.controller === controller)!;

    // Assess: the profile leaves both to the queue definitions the local resources are built from.
    expect(deployed.visibilityTimeoutSeconds).toBeUndefined();
    expect(q.VisibilityTimeout).toBe(definition.visibilityTimeoutSeconds);
    expect(q.RedrivePolicy.maxReceiveCount).toBe(definition.maxReceiveCount);
  });

  it("caches the authorizer's decisions as the stack's API Gateway does", () => {
    // Act
    const [authorizer] = Object.values(template.findResources('AWS::ApiGateway::Authorizer'));

    // Assess
    expect(deployed.authorizerCacheTtlSeconds).toBe(authorizer!.Properties.AuthorizerResultTtlInSeconds);
  });
});
