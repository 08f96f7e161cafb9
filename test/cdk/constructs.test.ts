/**
 * Construct by construct: props are validated up front into ONE error that lists every
 * problem, and the non-default options do what their docs say. Nothing here is bundled.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { CatalogTable } from '../../cdk/constructs/catalog-table';
import { DdlApi } from '../../cdk/constructs/ddl-api';
import { DdlFunction } from '../../cdk/constructs/ddl-function';
import { EffectExecutor, EXECUTOR_TIMEOUT } from '../../cdk/constructs/effect-executor';
import { EffectQueues } from '../../cdk/constructs/effect-queues';
import { Observability, type PowertoolsLogLevel } from '../../cdk/constructs/observability';
import { InvalidPropsError } from '../../cdk/constructs/props-validation';
import { StreamRouter } from '../../cdk/constructs/stream-router';
import { Sweeper } from '../../cdk/constructs/sweeper';
import { minVisibilityTimeoutSeconds } from '../../shared/definitions';
import { BUNDLING_STACKS, bareStack, captureError, FIXTURE_ENTRY, identityStatements, logicalId, testApp } from './helpers';

function base(stack: Stack = bareStack()) {
  const catalog = new CatalogTable(stack, 'Catalog');
  const queues = new EffectQueues(stack, 'Queues');
  return { stack, catalog, queues };
}

function problemsOf(fn: () => unknown): readonly string[] {
  const error = captureError(fn);
  expect(error).toBeInstanceOf(InvalidPropsError);
  return (error as InvalidPropsError).problems;
}

describe('props validation: one error listing every problem', () => {
  it('CatalogTable', () => {
    // Prepare
    const stack = bareStack();
    const key = new kms.Key(stack, 'Key');

    // Act
    const problems = problemsOf(
      () => new CatalogTable(stack, 'Catalog', { tableName: ' ', pointInTimeRecoveryDays: 36, encryptionKey: key }),
    );

    // Assess
    expect(problems).toEqual([
      'tableName must not be empty',
      'pointInTimeRecoveryDays must be an integer in [1, 35], got 36',
      'encryptionKey needs a stack with an explicit region (env.region): TableV2 sets the key per replica region',
    ]);
  });

  it('EffectQueues', () => {
    // Act
    const problems = problemsOf(() => new EffectQueues(bareStack(), 'Queues', { dlqRetention: Duration.days(15) }));

    // Assess
    expect(problems).toEqual(['dlqRetention must be between 1 minute and 14 days, got 15 days']);
  });

  it('DdlFunction', () => {
    // Act
    const error = captureError(
      () =>
        new DdlFunction(bareStack(), 'Fn', {
          entry: '/nowhere/handler.js',
          memorySize: 64,
          timeout: Duration.minutes(16),
          environment: { 'BAD-NAME': 'x' },
        }),
    );

    // Assess
    expect((error as InvalidPropsError).problems).toEqual([
      'entry must be a .ts file, got /nowhere/handler.js',
      'entry /nowhere/handler.js does not exist',
      'memorySize must be an integer in [128, 10240], got 64',
      'timeout must be between 1 second and 15 minutes, got 16 minutes',
      'environment variable name BAD-NAME must match /^[A-Za-z][A-Za-z0-9_]*$/',
    ]);
    expect((error as Error).message).toMatch(/^Invalid props for Test\/Fn:\n {2}- entry must be a \.ts file/);
  });

  it('StreamRouter', () => {
    // Prepare
    const { stack, catalog, queues } = base();

    // Act
    const problems = problemsOf(
      () =>
        new StreamRouter(stack, 'Router', {
          catalog,
          queues,
          entry: FIXTURE_ENTRY,
          batchSize: 0,
          retryAttempts: -1,
          maxRecordAge: Duration.days(8),
        }),
    );

    // Assess
    expect(problems).toEqual([
      'batchSize must be an integer in [1, 10000], got 0',
      'retryAttempts must be an integer in [0, 10000], got -1',
      'maxRecordAge must be between 1 minute and 7 days, got 8 days',
    ]);
  });

  it('EffectExecutor: FIFO batch limit, concurrency floor, visibility timeout at least six times the timeout plus the batching window', () => {
    // Prepare
    const { stack, catalog, queues } = base();

    // Act
    const problems = problemsOf(
      () =>
        new EffectExecutor(stack, 'Exec', {
          controller: 'compute',
          catalog,
          queue: queues.byController.storage,
          entry: FIXTURE_ENTRY,
          batchSize: 11,
          maxConcurrency: 1,
          timeout: Duration.seconds(24),
          maxBatchingWindow: Duration.seconds(7),
        }),
    );

    // Assess: 6 × 24 s + 7 s = 151 s, over the queues' 150 s.
    expect(problems).toEqual([
      "queue is storage's, not compute's",
      'batchSize must be an integer in [1, 10], got 11',
      'maxConcurrency must be an integer in [2, 1000], got 1',
      "the queue's visibility timeout (2 minutes 30 seconds) must be at least six times the function timeout plus the batching window (6 × 24 seconds + 7 seconds = 151 seconds): shorten the timeout or raise visibilityTimeoutSeconds in shared/definitions.ts",
    ]);
  });

  it('EffectExecutor: the default timeout and no batching window fit the queues\' visibility timeout exactly', () => {
    // Prepare
    const { stack, catalog, queues } = base();

    // Act
    const ok = new EffectExecutor(stack, 'Exec', { controller: 'compute', catalog, queue: queues.byController.compute, entry: FIXTURE_ENTRY });
    const oneSecondWindow = problemsOf(
      () => new EffectExecutor(stack, 'Exec2', { controller: 'compute', catalog, queue: queues.byController.compute, entry: FIXTURE_ENTRY, maxBatchingWindow: Duration.seconds(1) }),
    );

    // Assess
    expect(ok.handler.function.timeout?.toSeconds()).toBe(EXECUTOR_TIMEOUT.toSeconds());
    expect(oneSecondWindow).toEqual([expect.stringMatching(/6 × 25 seconds \+ 1 second = 151 seconds/)]);
    expect(queues.byController.compute.definition.visibilityTimeoutSeconds).toBe(minVisibilityTimeoutSeconds(EXECUTOR_TIMEOUT.toSeconds()));
  });

  it('EffectExecutor: with an external data plane, the timeout covers one data plane call with its retries', () => {
    // Prepare
    const { stack, catalog, queues } = base();

    // Act: no dataPlaneTable = the external data plane
    const problems = problemsOf(
      () =>
        new EffectExecutor(stack, 'Exec', {
          controller: 'storage',
          catalog,
          queue: queues.byController.storage,
          entry: FIXTURE_ENTRY,
          timeout: Duration.seconds(10),
        }),
    );
    // The secrets controller never calls the data plane: no such floor.
    const secrets = new EffectExecutor(stack, 'Secrets', {
      controller: 'secrets',
      catalog,
      queue: queues.byController.secrets,
      entry: FIXTURE_ENTRY,
      timeout: Duration.seconds(10),
    });

    // Assess
    expect(problems).toEqual(['timeout must cover one call to the external data plane with its retries (19 seconds), got 10 seconds']);
    expect(secrets.handler.function).toBeDefined();
  });

  it('DdlApi', () => {
    // Prepare
    const { stack, catalog } = base();

    // Act
    const problems = problemsOf(
      () =>
        new DdlApi(stack, 'Api', {
          catalog,
          entry: FIXTURE_ENTRY,
          authorizerEntry: FIXTURE_ENTRY,
          stageName: 'no spaces allowed',
          throttlingRateLimit: 0,
          throttlingBurstLimit: 1.5,
          authorizerCacheTtl: Duration.hours(2),
        }),
    );

    // Assess
    expect(problems).toEqual([
      'stageName must match /^[A-Za-z0-9_-]{1,128}$/, got no spaces allowed',
      'throttlingRateLimit must be positive, got 0',
      'throttlingBurstLimit must be an integer in [0, 5000], got 1.5',
      'authorizerCacheTtl must be between 0 seconds and 1 hour, got 2 hours',
    ]);
  });

  it('Observability', () => {
    // Act
    const problems = problemsOf(
      () =>
        new Observability(bareStack(), 'Obs', {
          serviceName: '',
          metricsNamespace: '  ',
          logLevel: 'LOUD' as PowertoolsLogLevel,
          pendingEffectAgeThreshold: Duration.seconds(30),
        }),
    );

    // Assess
    expect(problems).toEqual([
      'serviceName must not be empty',
      'metricsNamespace must not be empty',
      'logLevel must be one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT, got LOUD',
      'pendingEffectAgeThreshold must be between 1 minute and 1 day, got 30 seconds',
    ]);
  });

  it('Sweeper: an EventBridge rate in whole minutes, at most hourly', () => {
    // Prepare
    const { stack, catalog, queues } = base();

    // Act
    const tooFast = problemsOf(() => new Sweeper(stack, 'Fast', { catalog, queues, entry: FIXTURE_ENTRY, interval: Duration.seconds(30) }));
    const fractional = problemsOf(
      () => new Sweeper(stack, 'Odd', { catalog, queues, entry: FIXTURE_ENTRY, interval: Duration.seconds(90) }),
    );
    const tooSlow = problemsOf(() => new Sweeper(stack, 'Slow', { catalog, queues, entry: FIXTURE_ENTRY, interval: Duration.hours(2) }));

    // Assess
    expect(tooFast).toEqual([
      'interval must be between 1 minute and 1 hour, got 30 seconds',
      'interval must be a whole number of minutes (an EventBridge rate), got 30 seconds',
    ]);
    expect(fractional).toEqual(['interval must be a whole number of minutes (an EventBridge rate), got 1 minute 30 seconds']);
    expect(tooSlow).toEqual(['interval must be between 1 minute and 1 hour, got 2 hours']);
  });

  it('CatalogTable refuses an index the definition does not have, and index writes', () => {
    // Prepare
    const { catalog } = base();

    // Act
    const error = captureError(() => catalog.indexArn('nope'));

    // Assess
    expect((error as Error).message).toBe('Test/Catalog: definition Catalog has no index nope');
    expect(() => catalog.grantIndexRead(new iam.AnyPrincipal(), 'attention', ['dynamodb:PutItem'])).toThrow(
      'Test/Catalog: an index only serves dynamodb:Query and dynamodb:Scan, not dynamodb:PutItem',
    );
  });
});

describe('options', () => {
  it('a customer managed key encrypts the catalog, and item grants include exactly the key use they need', () => {
    // Prepare
    const stack = new Stack(testApp({ [BUNDLING_STACKS]: [] }), 'Regional', { env: { region: 'eu-west-1' } });
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    const { queues } = base(stack);
    const cmkCatalog = new CatalogTable(stack, 'CmkCatalog', { encryptionKey: key, deletionProtection: false });

    // Act
    const executor = new EffectExecutor(stack, 'Exec', {
      controller: 'compute',
      catalog: cmkCatalog,
      queue: queues.byController.compute,
      entry: FIXTURE_ENTRY,
    });
    const template = Template.fromStack(stack);
    const statements = identityStatements(template);
    const keyStatements = statements.filter((s) => s.actions.some((a) => a.startsWith('kms:')));

    // Assess
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      Replicas: [
        {
          DeletionProtectionEnabled: false,
          SSESpecification: { KMSMasterKeyId: { 'Fn::GetAtt': [logicalId(key), 'Arn'] } },
          Region: 'eu-west-1',
          GlobalSecondaryIndexes: [{ IndexName: 'attention' }],
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 35 },
        },
      ],
    });
    expect(executor.handler.function).toBeDefined();
    expect(new Set(keyStatements.flatMap((s) => s.actions))).toEqual(
      new Set(['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']),
    );
  });

  it('a customer managed key encrypts the queues, and the executor may use it to receive', () => {
    // Prepare
    const stack = bareStack();
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    const catalog = new CatalogTable(stack, 'Catalog');
    const queues = new EffectQueues(stack, 'Queues', { encryptionKey: key });

    // Act
    new EffectExecutor(stack, 'Exec', {
      controller: 'secrets',
      catalog,
      queue: queues.byController.secrets,
      entry: FIXTURE_ENTRY,
      maxConcurrency: 20,
    });
    const template = Template.fromStack(stack);

    // Assess
    const queuesJson = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queuesJson).toHaveLength(6);
    for (const q of queuesJson) expect(q.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [logicalId(key), 'Arn'] });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 20 } });
    expect(identityStatements(template).flatMap((s) => s.actions)).toContain('kms:Decrypt');
  });

  it('a slower sweeper: the rule, the dropped-tick age and the not-running window follow the interval', () => {
    // Prepare
    const { stack, catalog, queues } = base();
    const observability = new Observability(stack, 'Obs', { pendingEffectAgeThreshold: Duration.minutes(10) });

    // Act
    const sweeper = new Sweeper(stack, 'Sweeper', { catalog, queues, entry: FIXTURE_ENTRY, interval: Duration.minutes(5) });
    const alarms = observability.addSweeper('sweeper', sweeper);
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [{ Arn: { 'Fn::GetAtt': [logicalId(sweeper.handler.function), 'Arn'] }, Id: 'Target0', RetryPolicy: { MaximumEventAgeInSeconds: 300 } }],
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 });
    const props = (alarm: IConstruct) => template.toJSON().Resources[logicalId(alarm)].Properties;
    expect(props(alarms.notRunning)).toMatchObject({ MetricName: 'Invocations', Period: 900, Threshold: 1, TreatMissingData: 'breaching' });
    expect(props(alarms.stuckEffects)).toMatchObject({ MetricName: 'OldestPendingEffectAgeSeconds', Threshold: 600 });
    expect(observability.functionErrorAlarms.sweeper).toBeDefined();
  });

  it('the sweeper may use a customer managed queue key to send, and the table key to read and write', () => {
    // Prepare
    const stack = new Stack(testApp({ [BUNDLING_STACKS]: [] }), 'Regional', { env: { region: 'eu-west-1' } });
    const tableKey = new kms.Key(stack, 'TableKey', { enableKeyRotation: true });
    const queueKey = new kms.Key(stack, 'QueueKey', { enableKeyRotation: true });
    const catalog = new CatalogTable(stack, 'Catalog', { encryptionKey: tableKey });
    const queues = new EffectQueues(stack, 'Queues', { encryptionKey: queueKey });

    // Act
    new Sweeper(stack, 'Sweeper', { catalog, queues, entry: FIXTURE_ENTRY });
    const keyStatements = identityStatements(Template.fromStack(stack)).filter((s) => s.actions.some((a) => a.startsWith('kms:')));
    const actionsOn = (key: kms.Key) =>
      new Set(keyStatements.filter((s) => JSON.stringify(s.resources).includes(logicalId(key))).flatMap((s) => s.actions));

    // Assess
    expect(actionsOn(queueKey)).toEqual(new Set(['kms:GenerateDataKey', 'kms:Decrypt']));
    expect(actionsOn(tableKey)).toEqual(new Set(['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']));
  });

  it('API throttling, cache TTL and stage name come from props', () => {
    // Prepare
    const { stack, catalog } = base();

    // Act
    new DdlApi(stack, 'Api', {
      catalog,
      entry: FIXTURE_ENTRY,
      authorizerEntry: FIXTURE_ENTRY,
      stageName: 'prod',
      throttlingRateLimit: 5,
      throttlingBurstLimit: 10,
      authorizerCacheTtl: Duration.seconds(30),
    });
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      MethodSettings: [{ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10, DataTraceEnabled: false, LoggingLevel: 'OFF', MetricsEnabled: true }],
    });
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 30 });
  });
});
