/**
 * The `dataPlaneUrl` context variant: no reference data plane, the executors get DATAPLANE_URL.
 * Bundling is switched off here: this file is about wiring, and the default stack's test
 * already bundles the same entries.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATA_PLANE_CALL_WORST_CASE, EXECUTOR_TIMEOUT } from '../../cdk/constructs/effect-executor';
import { InvalidPropsError } from '../../cdk/constructs/props-validation';
import { DATA_PLANE_URL_CONTEXT, DdlControlPlaneStack } from '../../cdk/stack';
import { loadConfig } from '../../shared/config';
import { CONTROLLERS, EFFECT_QUEUES, ENV } from '../../shared/definitions';
import { BUNDLING_STACKS, captureError, fakeResolve, logicalId, statementsOfRole, testApp } from './helpers';

const URL = 'https://dataplane.example.com/v1';

let stack: DdlControlPlaneStack;
let template: Template;

beforeAll(() => {
  // Prepare
  const app = testApp({ [DATA_PLANE_URL_CONTEXT]: URL, [BUNDLING_STACKS]: [] });
  stack = new DdlControlPlaneStack(app, 'DdlControlPlane');
  template = Template.fromStack(stack);
});

describe('with CDK context dataPlaneUrl', () => {
  it('deploys no reference data plane: the catalog is the only table', () => {
    // Assess
    expect(stack.dataPlane).toBeUndefined();
    expect(stack.dataPlaneUrl).toBe(URL);
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    expect(Object.keys(template.toJSON().Outputs as object)).not.toContain('DataPlaneTableName');
  });

  it('gives every function DATAPLANE_URL and no DATAPLANE_TABLE, a wiring loadConfig accepts', () => {
    // Act
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));

    // Assess
    expect(functions).toHaveLength(8);
    for (const fn of functions) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, fakeResolve(v)]));
      expect(env[ENV.dataPlaneUrl]).toBe(URL);
      expect(env[ENV.dataPlaneTable]).toBeUndefined();
      expect(loadConfig({ AWS_REGION: 'eu-west-1', ...env }).dataPlaneUrl).toBe(URL);
    }
  });

  it.each(CONTROLLERS.map((c) => [c]))('%s executor: DynamoDB access to the catalog only', (controller) => {
    // Prepare
    const catalog = logicalId(stack.catalog.table);

    // Act
    const dynamo = statementsOfRole(template, logicalId(stack.executors[controller].handler.role)).filter((s) =>
      s.actions.some((a) => a.startsWith('dynamodb:')),
    );

    // Assess
    for (const resource of dynamo.flatMap((s) => s.resources.map(fakeResolve))) {
      expect(resource.startsWith(`getatt:${catalog}.Arn`)).toBe(true);
    }
  });
});

describe('the sweeper with an external data plane', () => {
  it('has DynamoDB access to the catalog only (it observes the data plane over HTTP)', () => {
    // Prepare
    const catalog = logicalId(stack.catalog.table);

    // Act
    const dynamo = statementsOfRole(template, logicalId(stack.sweeper.handler.role)).filter((s) =>
      s.actions.some((a) => a.startsWith('dynamodb:')),
    );

    // Assess
    expect(dynamo.length).toBeGreaterThan(0);
    for (const resource of dynamo.flatMap((s) => s.resources.map(fakeResolve))) {
      expect(resource.startsWith(`getatt:${catalog}.Arn`)).toBe(true);
    }
  });
});

describe('executors with an external data plane', () => {
  it.each([
    ['compute', 1],
    ['storage', 1],
    ['secrets', 10],
  ] as const)('%s: batch size %i, 25 s timeout within the 30 s visibility timeout', (controller, batchSize) => {
    // Prepare
    const fn = logicalId(stack.executors[controller].handler.function);

    // Act
    const timeout = template.toJSON().Resources[fn].Properties.Timeout as number;

    // Assess: one HTTP call may take DATA_PLANE_CALL_WORST_CASE (19 s), so the effects that go to
    // the data plane come one per invocation; the secrets executor's go to Secrets Manager.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fn },
      BatchSize: batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(timeout).toBe(EXECUTOR_TIMEOUT.toSeconds());
    expect(timeout).toBeGreaterThanOrEqual(DATA_PLANE_CALL_WORST_CASE.toSeconds());
    expect(timeout).toBeLessThanOrEqual(EFFECT_QUEUES.find((d) => d.controller === controller)!.visibilityTimeoutSeconds);
  });
});

describe('an invalid dataPlaneUrl', () => {
  it('fails with one message naming the context key', () => {
    // Prepare
    const app = testApp({ [DATA_PLANE_URL_CONTEXT]: 'ftp://nope', [BUNDLING_STACKS]: [] });

    // Act
    const error = captureError(() => new DdlControlPlaneStack(app, 'DdlControlPlane'));

    // Assess
    expect(error).toBeInstanceOf(InvalidPropsError);
    expect((error as InvalidPropsError).problems).toEqual([
      'dataPlaneUrl (prop or context "dataPlaneUrl") must be an http(s) URL, got "ftp://nope"',
    ]);
  });
});
