/**
 * The whole stack with its defaults (reference data plane on), synthesized once with the real
 * handlers bundled by esbuild, then pinned resource by resource.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_ERROR_BODIES } from '../../cdk/constructs/ddl-api';
import { ESM_REQUIRE_BANNER, type FunctionName, REPO_ROOT } from '../../cdk/constructs/ddl-function';
import { ITEM_READ_WRITE_ACTIONS } from '../../cdk/constructs/defined-table';
import { SECRET_STORE_ACTIONS } from '../../cdk/constructs/effect-executor';
import { SWEEPER_METRICS } from '../../cdk/constructs/observability';
import { SWEEPER_ACCESS, type SweeperResource } from '../../cdk/constructs/sweeper';
import { DdlControlPlaneStack } from '../../cdk/stack';
import { loadConfig } from '../../shared/config';
import { ATTENTION_INDEX, CATALOG_TABLE, CONTROLLERS, DATAPLANE_TABLE, EFFECT_QUEUES, ENV } from '../../shared/definitions';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { ROUTER_FILTER_PATTERN } from '../../shared/router/routing';
import { fakeResolve, identityStatements, logicalId, statementsOfRole, testApp } from './helpers';

const execFileAsync = promisify(execFile);
const XRAY_ACTIONS = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
/**
 * Minified bundle budget of each function, in bytes: the DDL function's 400 KB is a product
 * requirement (cold start of the synchronous path); the others only guard against a bundle
 * swallowing the AWS SDK or another large dependency by accident.
 */
const BUNDLE_BUDGET: Record<FunctionName, number> = {
  'ddl-api': 400 * 1024,
  authorizer: 1024 * 1024,
  'stream-router': 1024 * 1024,
  'executor-compute': 1024 * 1024,
  'executor-storage': 1024 * 1024,
  'executor-secrets': 1024 * 1024,
  sweeper: 1024 * 1024,
};

let stack: DdlControlPlaneStack;
let template: Template;
let assemblyDir: string;

beforeAll(() => {
  // Prepare (once for the file: bundling seven functions is the slow part)
  const app = testApp();
  stack = new DdlControlPlaneStack(app, 'DdlControlPlane');
  template = Template.fromStack(stack);
  assemblyDir = app.synth().directory;
});

function functionsByName(): Record<FunctionName, string> {
  return {
    'stream-router': logicalId(stack.router.handler.function),
    'ddl-api': logicalId(stack.api.handler.function),
    authorizer: logicalId(stack.api.authorizerHandler.function),
    'executor-compute': logicalId(stack.executors.compute.handler.function),
    'executor-storage': logicalId(stack.executors.storage.handler.function),
    'executor-secrets': logicalId(stack.executors.secrets.handler.function),
    sweeper: logicalId(stack.sweeper.handler.function),
  };
}

describe('CatalogTable', () => {
  it('is built from CATALOG_TABLE: keys, stream view type, TTL, the attention GSI, on-demand', () => {
    // Assess
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: CATALOG_TABLE.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: CATALOG_TABLE.sortKey.name, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: CATALOG_TABLE.stream },
      TimeToLiveSpecification: { AttributeName: CATALOG_TABLE.ttlAttribute, Enabled: true },
      GlobalSecondaryIndexes: CATALOG_TABLE.globalSecondaryIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
  });

  it('has point-in-time recovery, deletion protection, encryption and is retained', () => {
    // Act
    const table = template.toJSON().Resources[logicalId(stack.catalog.table)];

    // Assess
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
    expect(table.Properties.Replicas).toEqual([
      expect.objectContaining({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
      }),
    ]);
  });
});

describe('ReferenceDataPlane (on by default)', () => {
  it('deploys the data plane table from DATAPLANE_TABLE, without a stream', () => {
    // Act
    const table = template.toJSON().Resources[logicalId(stack.dataPlane!.table.table)];

    // Assess
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: DATAPLANE_TABLE.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: DATAPLANE_TABLE.sortKey.name, KeyType: 'RANGE' },
    ]);
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: DATAPLANE_TABLE.ttlAttribute, Enabled: true });
    expect(table.Properties.StreamSpecification).toBeUndefined();
    expect(table.Properties.Replicas[0].PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled).toBe(true);
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 2);
  });
});

describe('EffectQueues', () => {
  it.each(EFFECT_QUEUES.map((d) => [d.controller, d] as const))(
    '%s: FIFO queue and FIFO DLQ, encrypted, redrive after the retry budget',
    (controller, definition) => {
      // Prepare
      const dlqId = logicalId(stack.queues.byController[controller].dlq);

      // Assess
      expect(definition.maxReceiveCount).toBe(RETRY_POLICIES[`executor.${controller}`].budget);
      template.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `${definition.name}.fifo`,
        FifoQueue: true,
        ContentBasedDeduplication: false,
        SqsManagedSseEnabled: true,
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        MessageRetentionPeriod: definition.retentionSeconds,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: definition.maxReceiveCount },
      });
      template.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `${definition.dlqName}.fifo`,
        FifoQueue: true,
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
    },
  );

  it('denies non-TLS access on every queue (enforceSSL)', () => {
    // Prepare
    const queues = Object.keys(template.findResources('AWS::SQS::Queue'));

    // Act
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    const guarded = policies
      .filter((p) =>
        (p.Properties.PolicyDocument.Statement as { Effect: string; Condition?: unknown }[]).some(
          (s) => s.Effect === 'Deny' && JSON.stringify(s.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
        ),
      )
      .flatMap((p) => (p.Properties.Queues as { Ref: string }[]).map((q) => q.Ref));

    // Assess
    expect(queues).toHaveLength(2 * EFFECT_QUEUES.length + 1);
    expect(guarded.sort()).toEqual(queues.sort());
  });
});

describe('StreamRouter', () => {
  it('reads the catalog stream with the safe defaults and an encrypted on-failure queue', () => {
    // Prepare
    const onFailure = logicalId(stack.router.onFailureQueue);

    // Assess
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.catalog.table), 'StreamArn'] },
      FunctionName: { Ref: logicalId(stack.router.handler.function) },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      MaximumRecordAgeInSeconds: 3600,
      MaximumRetryAttempts: RETRY_POLICIES['router.stream'].budget,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [onFailure, 'Arn'] } } },
    });
    expect(template.toJSON().Resources[onFailure].Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('filters to INSERTs of EFF# records, the same pattern the local runtime applies', () => {
    // Act
    const [mapping] = Object.values(
      template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: logicalId(stack.router.handler.function) } },
      }),
    );
    const filters = mapping!.Properties.FilterCriteria.Filters as { Pattern: string }[];

    // Assess
    expect(filters).toHaveLength(1);
    expect(JSON.parse(filters[0]!.Pattern)).toEqual(ROUTER_FILTER_PATTERN);
  });

  it('may send to every effect queue and read the stream, nothing else', () => {
    // Act
    const statements = statementsOfRole(template, logicalId(stack.router.handler.role));
    const sendTargets = statements
      .filter((s) => s.actions.includes('sqs:SendMessage'))
      .flatMap((s) => s.resources.map(fakeResolve));

    // Assess
    for (const { queue } of stack.queues.all) expect(sendTargets).toContain(`getatt:${logicalId(queue)}.Arn`);
    expect(sendTargets).toContain(`getatt:${logicalId(stack.router.onFailureQueue)}.Arn`);
    const streamRead = statements.filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
    expect(streamRead.flatMap((s) => s.actions).sort()).toEqual(
      ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'].sort(),
    );
    expect(streamRead.flatMap((s) => s.resources.map(fakeResolve))).toEqual(
      streamRead.flatMap((s) => s.resources).map(() => `getatt:${logicalId(stack.catalog.table)}.StreamArn`),
    );
  });
});

describe('EffectExecutor', () => {
  it.each(CONTROLLERS.map((c) => [c]))('%s: fed by its queue with partial batch responses', (controller) => {
    // Assess
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.queues.byController[controller].queue), 'Arn'] },
      FunctionName: { Ref: logicalId(stack.executors[controller].handler.function) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });

  it.each(CONTROLLERS.map((c) => [c]))('%s: catalog and data plane item access, scoped to tables and named indexes', (controller) => {
    // Prepare
    const catalog = logicalId(stack.catalog.table);
    const dataPlane = logicalId(stack.dataPlane!.table.table);

    // Act
    const statements = statementsOfRole(template, logicalId(stack.executors[controller].handler.role));
    const dynamo = statements.filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
    const resources = dynamo.flatMap((s) => s.resources.map(fakeResolve)).sort();

    // Assess
    expect([...new Set(dynamo.flatMap((s) => s.actions))].sort()).toEqual([...ITEM_READ_WRITE_ACTIONS].sort());
    expect([...new Set(resources)]).toEqual(
      [
        `getatt:${catalog}.Arn`,
        ...CATALOG_TABLE.globalSecondaryIndexes.map((i) => `getatt:${catalog}.Arn/index/${i.indexName}`),
        `getatt:${dataPlane}.Arn`,
      ].sort(),
    );
    const sqs = statements.filter((s) => s.actions.some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap((s) => s.actions)).toContain('sqs:ChangeMessageVisibility');
    expect(new Set(sqs.flatMap((s) => s.resources.map(fakeResolve)))).toEqual(
      new Set([`getatt:${logicalId(stack.queues.byController[controller].queue)}.Arn`]),
    );
  });

  it('only the secrets executor may touch secrets, and only ddl-control-plane/* ones', () => {
    // Act
    const bySecrets = identityStatements(template).filter((s) => s.actions.some((a) => a.startsWith('secretsmanager:')));
    const secretsRole = logicalId(stack.executors.secrets.handler.role);

    // Assess
    expect(bySecrets).toHaveLength(1);
    expect(statementsOfRole(template, secretsRole)).toContainEqual(bySecrets[0]);
    expect(bySecrets[0]!.actions.sort()).toEqual([...SECRET_STORE_ACTIONS].sort());
    expect(bySecrets[0]!.resources.map(fakeResolve)).toEqual([
      'arn:ref:AWS::Partition:secretsmanager:ref:AWS::Region:ref:AWS::AccountId:secret:ddl-control-plane/*',
    ]);
  });
});

describe('DdlApi', () => {
  it('POST /api/sql sits behind the REQUEST authorizer and the body validator', () => {
    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      AuthorizationType: 'CUSTOM',
      AuthorizerId: { Ref: logicalId(stack.api.authorizer) },
      RequestValidatorId: Match.anyValue(),
      RequestModels: { 'application/json': Match.anyValue() },
      Integration: Match.objectLike({ Type: 'AWS_PROXY' }),
    });
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 0,
    });
    template.hasResourceProperties('AWS::ApiGateway::RequestValidator', {
      ValidateRequestBody: true,
      ValidateRequestParameters: true,
    });
  });

  it('GET /api/health is open (the health check) and served by the same Lambda', () => {
    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      AuthorizationType: 'NONE',
      Integration: Match.objectLike({
        Type: 'AWS_PROXY',
        Uri: { 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [logicalId(stack.api.handler.function), 'Arn'] }])] },
      }),
    });
    const paths = Object.values(template.findResources('AWS::ApiGateway::Resource')).map((r) => r.Properties.PathPart);
    expect(paths.sort()).toEqual(['api', 'health', 'sql']);
  });

  it('answers auth failures, bad bodies, unknown routes and its own 5xx in the API error shape', () => {
    // Act
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((r) => ({
      type: r.Properties.ResponseType as string,
      status: r.Properties.StatusCode as string | undefined,
      body: JSON.parse(r.Properties.ResponseTemplates['application/json'] as string) as unknown,
    }));

    // Assess
    expect(responses).toEqual(
      expect.arrayContaining([
        { type: 'UNAUTHORIZED', status: '401', body: GATEWAY_ERROR_BODIES.unauthorized },
        { type: 'BAD_REQUEST_BODY', status: '400', body: GATEWAY_ERROR_BODIES.badRequestBody },
        { type: 'MISSING_AUTHENTICATION_TOKEN', status: '404', body: GATEWAY_ERROR_BODIES.noRoute },
        { type: 'DEFAULT_5XX', status: undefined, body: GATEWAY_ERROR_BODIES.serverError },
      ]),
    );
  });

  it('the request model is SQL_REQUEST_SCHEMA', () => {
    // Act
    const [model] = Object.values(template.findResources('AWS::ApiGateway::Model'));

    // Assess
    expect(model!.Properties.ContentType).toBe('application/json');
    expect(model!.Properties.Schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-04/schema#',
      oneOf: [
        expect.objectContaining({ required: ['query'], additionalProperties: false }),
        expect.objectContaining({ required: ['queries'], additionalProperties: false }),
      ],
    });
  });

  it('the stage is throttled, traced, and writes JSON access logs', () => {
    // Act
    const [stage] = Object.values(template.findResources('AWS::ApiGateway::Stage'));

    // Assess
    expect(stage!.Properties).toMatchObject({
      TracingEnabled: true,
      MethodSettings: [
        expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
      ],
      AccessLogSetting: { DestinationArn: { 'Fn::GetAtt': [logicalId(stack.api.accessLogGroup), 'Arn'] } },
    });
    expect(JSON.parse(stage!.Properties.AccessLogSetting.Format)).toHaveProperty('requestId', '$context.requestId');
  });

  it('the DDL Lambda has item read/write on the catalog (no TransactWriteItems pseudo-action); the authorizer only GetItem', () => {
    // Act
    const ddl = statementsOfRole(template, logicalId(stack.api.handler.role)).filter((s) =>
      s.actions.some((a) => a.startsWith('dynamodb:')),
    );
    const auth = statementsOfRole(template, logicalId(stack.api.authorizerHandler.role)).filter((s) =>
      s.actions.some((a) => a.startsWith('dynamodb:')),
    );

    // Assess
    expect(ddl.flatMap((s) => s.actions).sort()).toEqual([...ITEM_READ_WRITE_ACTIONS].sort());
    expect(auth).toHaveLength(1);
    expect(auth[0]!.actions).toEqual(['dynamodb:GetItem']);
    expect(auth[0]!.resources.map(fakeResolve)).toEqual([`getatt:${logicalId(stack.catalog.table)}.Arn`]);
  });
});

describe('Sweeper', () => {
  it('an EventBridge rule runs the sweeper every minute (a rule, not EventBridge Scheduler)', () => {
    // Prepare
    const sweeper = logicalId(stack.sweeper.handler.function);

    // Assess
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.resourceCountIs('AWS::Scheduler::Schedule', 0);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeper, 'Arn'] }, RetryPolicy: { MaximumEventAgeInSeconds: 60 } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [sweeper, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [logicalId(stack.sweeper.rule), 'Arn'] },
    });
  });

  it('a failed or late tick is dropped, not retried: the next tick does the same work', () => {
    // Assess
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(stack.sweeper.handler.function) },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    const fn = template.toJSON().Resources[logicalId(stack.sweeper.handler.function)];
    expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(fn.Properties.Timeout).toBe(60);
  });

  it('may do exactly what SWEEPER_ACCESS lists: index Query, catalog item calls, SendMessage to each queue', () => {
    // Prepare
    const catalog = logicalId(stack.catalog.table);
    const where: Record<SweeperResource, string[]> = {
      attentionIndex: [`getatt:${catalog}.Arn/index/${ATTENTION_INDEX}`],
      catalogTable: [`getatt:${catalog}.Arn`],
      effectQueues: stack.queues.all.map(({ queue }) => `getatt:${logicalId(queue)}.Arn`),
    };

    // Act
    const statements = statementsOfRole(template, logicalId(stack.sweeper.handler.role));
    const granted = new Set(statements.flatMap((s) => s.actions.flatMap((a) => s.resources.map((r) => `${a} on ${fakeResolve(r)}`))));

    // Assess: every listed call is granted where it is made, and nothing else is granted
    const expected = new Set([
      ...Object.values(SWEEPER_ACCESS).flatMap(({ action, on }) => where[on].map((r) => `${action} on ${r}`)),
      ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((a) => `${a} on getatt:${logicalId(stack.sweeper.handler.logGroup)}.Arn`),
      ...XRAY_ACTIONS.map((a) => `${a} on *`),
    ]);
    expect([...granted].sort()).toEqual([...expected].sort());
    expect(granted).not.toContain(`dynamodb:Query on getatt:${catalog}.Arn/index/*`);
    expect(granted).toContain(`dynamodb:Query on getatt:${catalog}.Arn/index/${ATTENTION_INDEX}`);
  });
});

describe('every function', () => {
  it('runs nodejs22.x on arm64 with active tracing, source maps and its own log group', () => {
    // Act
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));

    // Assess
    expect(functions).toHaveLength(7);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      // Lambda refuses an actively traced function whose role cannot write traces yet.
      const xray = identityStatements(template).filter((s) => s.actions.includes('xray:PutTraceSegments'));
      expect(xray.some((s) => (fn.DependsOn as string[]).includes(s.policy))).toBe(true);
    }
  });

  it('has the Powertools environment and the wiring that shared/config.ts loadConfig accepts', () => {
    // Act
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));

    // Assess
    for (const fn of functions) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, fakeResolve(v)]));
      expect(env).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'ddl-control-plane',
        POWERTOOLS_METRICS_NAMESPACE: 'DdlControlPlane',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        [ENV.catalogTable]: `ref:${logicalId(stack.catalog.table)}`,
        [ENV.dataPlaneTable]: `ref:${logicalId(stack.dataPlane!.table.table)}`,
      });
      expect(env[ENV.dataPlaneUrl]).toBeUndefined();
      for (const { definition, queue, dlq } of stack.queues.all) {
        expect(env[ENV.queueUrl(definition.controller)]).toBe(`ref:${logicalId(queue)}`);
        expect(env[ENV.dlqUrl(definition.controller)]).toBe(`ref:${logicalId(dlq)}`);
      }
      expect(() => loadConfig({ AWS_REGION: 'eu-west-1', ...env })).not.toThrow();
    }
  });

  it('has a role with no managed policies', () => {
    // Assess
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('least privilege', () => {
  it('no statement allows "*" or "service:*" actions, or uses NotAction/NotResource', () => {
    // Act
    const statements = identityStatements(template);

    // Assess
    expect(statements.length).toBeGreaterThan(0);
    for (const { policy, statement, actions } of statements) {
      expect(statement.Effect, policy).toBe('Allow');
      expect(statement.NotAction, policy).toBeUndefined();
      expect(statement.NotResource, policy).toBeUndefined();
      for (const action of actions) {
        expect(action, policy).not.toBe('*');
        expect(action, policy).not.toMatch(/^[a-z0-9-]+:\*$/);
      }
    }
  });

  it('Resource "*" appears only in the X-Ray statements (X-Ray has no resource-level permissions)', () => {
    // Act
    const wildcard = identityStatements(template).filter((s) => s.resources.includes('*'));

    // Assess: one X-Ray statement per function, and nothing else
    expect(wildcard).toHaveLength(Object.keys(template.findResources('AWS::Lambda::Function')).length);
    for (const s of wildcard) {
      expect(s.actions.sort(), s.policy).toEqual([...XRAY_ACTIONS].sort());
      expect(s.resources, s.policy).toEqual(['*']);
    }
  });
});

describe('Observability', () => {
  it('alarms on the depth of every DLQ and of the router on-failure queue', () => {
    // Prepare
    const queues = [...stack.queues.all.map((q) => q.dlq), stack.router.onFailureQueue];

    // Assess
    for (const queue of queues) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(queue), 'QueueName'] } }],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        AlarmActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
      });
    }
  });

  it('alarms on errors of every function and on API 5xx', () => {
    // Assess
    for (const id of Object.values(functionsByName())) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
        AlarmActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/ApiGateway', MetricName: '5XXError' });
  });

  it('alarms when an effect stays pending more than 5 minutes (the sweeper\'s Powertools metric)', () => {
    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'DdlControlPlane',
      MetricName: SWEEPER_METRICS.oldestPendingEffectAgeSeconds,
      Dimensions: [{ Name: 'service', Value: 'ddl-control-plane' }],
      Statistic: 'Maximum',
      Period: 300,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 300,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
      OKActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
    });
  });

  it('alarms on any failed connector (metric emitted by a later sweeper pass: missing is not breaching)', () => {
    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'DdlControlPlane',
      MetricName: SWEEPER_METRICS.failedConnectors,
      Dimensions: [{ Name: 'service', Value: 'ddl-control-plane' }],
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
    });
  });

  it('alarms on one sweeper error, and on a sweeper that stopped running (missing invocations are breaching)', () => {
    // Prepare
    const sweeper = logicalId(stack.sweeper.handler.function);

    // Assess
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: sweeper } }],
      Statistic: 'Sum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: sweeper } }],
      Statistic: 'Sum',
      Period: 300,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: logicalId(stack.observability.alarmTopic) }],
    });
  });

  it('every alarm notifies the topic on ALARM and on OK', () => {
    // Act
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));

    // Assess: 3 DLQs + on-failure queue, 7 functions, API 5xx, 3 sweeper alarms
    expect(alarms).toHaveLength(EFFECT_QUEUES.length + 1 + 7 + 1 + 3);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: logicalId(stack.observability.alarmTopic) }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: logicalId(stack.observability.alarmTopic) }]);
    }
  });

  it('the dashboard shows every sweeper metric', () => {
    // Act
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = fakeResolve(dashboard!.Properties.DashboardBody);

    // Assess
    for (const name of Object.values(SWEEPER_METRICS)) expect(body).toContain(`"${name}"`);
  });

  it('notifies an encrypted, TLS-only topic and draws a dashboard', () => {
    // Assess
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [logicalId(stack.observability.alarmTopicKey!), 'Arn'] },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });
});

describe('outputs', () => {
  it('exports the API URL, the table names, the queue URLs, the alarm topic, the sweeper and the dashboard', () => {
    // Act
    const outputs = Object.keys(template.toJSON().Outputs as object);

    // Assess
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'SqlEndpoint',
        'CatalogTableName',
        'DataPlaneTableName',
        ...CONTROLLERS.flatMap((c) => [`QueueUrl${c}`, `DlqUrl${c}`]),
        'AlarmTopicArn',
        'SweeperFunctionName',
        'DashboardName',
      ]),
    );
  });
});

describe('bundles', () => {
  it.each(Object.keys(BUNDLE_BUDGET).map((n) => [n as FunctionName]))(
    '%s: a minified ESM bundle with the require banner, within budget',
    (name) => {
      // Prepare
      const fn = template.toJSON().Resources[functionsByName()[name]];
      const assetDir = join(assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);

      // Act
      const files = readdirSync(assetDir);
      const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      const size = statSync(join(assetDir, 'index.mjs')).size;
      const map = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[] };

      // Assess
      console.info(`bundle ${name}: ${size} bytes (${(size / 1024).toFixed(1)} KiB)`);
      expect(files.sort()).toEqual(['index.mjs', 'index.mjs.map']);
      expect(bundle.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
      expect(map.sources.filter((s) => s.includes('node_modules/@aws-sdk/'))).toEqual([]);
      expect(size).toBeLessThanOrEqual(BUNDLE_BUDGET[name]);
    },
  );

  it('every bundle loads as an ES module in Node and exports handler (with the SDK provided, as in Lambda)', async () => {
    // Prepare: each bundle alone in a folder whose node_modules stands in for the runtime's SDK
    const resources = template.toJSON().Resources;
    const runs = Object.entries(functionsByName()).map(async ([name, id]) => {
      const fn = resources[id];
      const dir = mkdtempSync(join(tmpdir(), `bundle-${name}-`));
      const assetDir = join(assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
      copyFileSync(join(assetDir, 'index.mjs'), join(dir, 'index.mjs'));
      copyFileSync(join(assetDir, 'index.mjs.map'), join(dir, 'index.mjs.map'));
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, fakeResolve(v)]));
      try {
        // Act
        const { stdout } = await execFileAsync(
          process.execPath,
          ['--enable-source-maps', '--input-type=module', '-e', "const m = await import('./index.mjs'); console.log(typeof m.handler);"],
          { cwd: dir, env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', ...env }, timeout: 30_000 },
        );
        return [name, stdout.trim()] as const;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    // Assess
    expect(Object.fromEntries(await Promise.all(runs))).toEqual(
      Object.fromEntries(Object.keys(BUNDLE_BUDGET).map((name) => [name, 'function'])),
    );
  });
});
