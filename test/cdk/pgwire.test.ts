/**
 * The Postgres wire endpoint in AWS (cdk/constructs/pgwire-service.ts): off by default, on with
 * `-c pgwire=true -c pgwireTlsSecretArn=...`, and every bad context value refused with one message
 * naming it. Bundling is off for the template tests (the image directory then holds only its
 * Dockerfile); one test stages the real image directory with esbuild and runs its entry.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidPropsError } from '../../cdk/constructs/props-validation';
import { PGWIRE_CPU_ALARM_PERCENT } from '../../cdk/constructs/observability';
import { PGWIRE_BASE_IMAGE, PGWIRE_ENTRY, PgwireService, stagePgwireImage } from '../../cdk/constructs/pgwire-service';
import {
  DdlControlPlaneStack,
  LOCALSTACK_CONTEXT,
  PGWIRE_CERTIFICATE_ARN_CONTEXT,
  PGWIRE_CONTEXT,
  PGWIRE_TLS_SECRET_ARN_CONTEXT,
} from '../../cdk/stack';
import { loadConfig, loadPgwireConfig } from '../../shared/config';
import { ENV, PGWIRE_DEFAULTS } from '../../shared/definitions';
import { SHIPPED_TEMPLATE, shippedTemplate } from '../../shared/pglite/host';
import { engineSchemaSql } from '../../shared/system/registry';
import { BUNDLING_STACKS, captureError, fakeResolve, logicalId, statementsOfRole, testApp } from './helpers';

const run = promisify(execFile);
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ddl/pgwire-tls-AbCdEf';
const ON = { [PGWIRE_CONTEXT]: 'true', [PGWIRE_TLS_SECRET_ARN_CONTEXT]: SECRET_ARN };

function synth(context: Record<string, unknown>): { stack: DdlControlPlaneStack; template: Template } {
  const stack = new DdlControlPlaneStack(testApp({ ...context, [BUNDLING_STACKS]: [] }), 'DdlControlPlane');
  return { stack, template: Template.fromStack(stack) };
}

/** The message of the InvalidPropsError a stack with this context throws. */
function refusal(context: Record<string, unknown>): string {
  const error = captureError(() => synth(context));
  expect(error).toBeInstanceOf(InvalidPropsError);
  return (error as Error).message;
}

describe('off by default', () => {
  it('makes no VPC, cluster, service, load balancer or endpoint output', () => {
    // Act
    const { stack, template } = synth({});

    // Assess
    expect(stack.pgwire).toBeUndefined();
    for (const type of ['AWS::EC2::VPC', 'AWS::EC2::NatGateway', 'AWS::ECS::Cluster', 'AWS::ECS::Service', 'AWS::ECS::TaskDefinition', 'AWS::ElasticLoadBalancingV2::LoadBalancer', 'AWS::ApplicationAutoScaling::ScalableTarget']) {
      template.resourceCountIs(type, 0);
    }
    expect(Object.keys(template.findOutputs('*')).filter((o) => o.startsWith('Pgwire'))).toEqual([]);
  });

  it('-c pgwire=false is off too', () => {
    // Act
    const { stack, template } = synth({ [PGWIRE_CONTEXT]: 'false' });

    // Assess
    expect(stack.pgwire).toBeUndefined();
    template.resourceCountIs('AWS::ECS::Service', 0);
  });
});

describe('on with -c pgwire=true -c pgwireTlsSecretArn=...', () => {
  let stack: DdlControlPlaneStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = synth(ON));
  });
  const pgwire = () => stack.pgwire!;

  it('a Fargate service on arm64 in the private subnets, no public IP, new tasks before old ones leave, rollback on failure', () => {
    // Act
    const subnets = template.findResources('AWS::EC2::Subnet');
    const privateSubnets = Object.keys(subnets).filter((id) => (subnets[id]!.Properties.Tags as { Key: string; Value: string }[]).some((t) => t.Key === 'aws-cdk:subnet-type' && t.Value === 'Private'));
    const service = Object.values(template.findResources('AWS::ECS::Service'))[0]!;

    // Assess
    template.resourceCountIs('AWS::ECS::Service', 1);
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      Cpu: '512',
      Memory: '1024',
      NetworkMode: 'awsvpc',
    });
    expect(service.Properties).toMatchObject({
      LaunchType: 'FARGATE',
      DeploymentConfiguration: { MinimumHealthyPercent: 100, MaximumPercent: 200, DeploymentCircuitBreaker: { Enable: true, Rollback: true } },
      NetworkConfiguration: { AwsvpcConfiguration: { AssignPublicIp: 'DISABLED' } },
    });
    expect(privateSubnets).toHaveLength(2);
    expect((service.Properties.NetworkConfiguration.AwsvpcConfiguration.Subnets as { Ref: string }[]).map((s) => s.Ref).sort()).toEqual(privateSubnets.sort());
  });

  it('a two-AZ VPC with one NAT gateway, the DynamoDB and S3 gateway endpoints and a flow log', () => {
    // Assess
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::Subnet', 4);
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    const endpoints = Object.values(template.findResources('AWS::EC2::VPCEndpoint')).map((e) => JSON.stringify(e.Properties.ServiceName));
    expect(endpoints.some((s) => s.includes('.dynamodb'))).toBe(true);
    expect(endpoints.some((s) => s.includes('.s3'))).toBe(true);
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT', LogDestinationType: 'cloud-watch-logs' });
  });

  it('the container: the image asset, ports 6875 and 8080, the node health check, a stop timeout above the drain, logs to its own group (30 days)', () => {
    // Act
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!;
    const container = task.Properties.ContainerDefinitions[0];

    // Assess
    expect(container.PortMappings).toEqual([
      { ContainerPort: 6875, Name: 'pgwire', Protocol: 'tcp' },
      { ContainerPort: 8080, Name: 'health', Protocol: 'tcp' },
    ]);
    expect(container.HealthCheck.Command.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(container.HealthCheck.Command[3]).toContain('http://127.0.0.1:8080/health');
    expect(container.StopTimeout).toBe(PGWIRE_DEFAULTS.stopTimeoutSeconds);
    expect(PGWIRE_DEFAULTS.drainSeconds).toBeLessThan(PGWIRE_DEFAULTS.stopTimeoutSeconds);
    expect(container.LogConfiguration).toMatchObject({ LogDriver: 'awslogs', Options: { 'awslogs-group': { Ref: logicalId(pgwire().logGroup) }, mode: 'non-blocking' } });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    expect(JSON.stringify(container.Image)).toContain('cdk-hnb659fds-container-assets');
  });

  it('the environment is the functions\' wiring that loadConfig accepts, plus the pgwire settings loadPgwireConfig accepts', () => {
    // Act
    const task = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!;
    const env = Object.fromEntries((task.Properties.ContainerDefinitions[0].Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, fakeResolve(e.Value)]));
    const ddl = Object.values(template.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Description?.startsWith('SQL over HTTP'))!;
    const ddlEnv = Object.fromEntries(Object.entries(ddl.Properties.Environment.Variables as Record<string, unknown>).map(([k, v]) => [k, fakeResolve(v)]));

    // Assess: the DDL function's wiring, Powertools included, without its Lambda-only NODE_OPTIONS (the image sets it)
    const { NODE_OPTIONS: _lambdaOnly, ...shared } = ddlEnv;
    expect(env).toMatchObject(shared);
    expect(env).toMatchObject({
      [ENV.pgwireTlsSecretArn]: SECRET_ARN,
      [ENV.pgPort]: '6875',
      [ENV.pgwireHealthPort]: '8080',
      [ENV.passwordCacheSeconds]: String(stack.api.passwordCacheSeconds),
    });
    expect(() => loadConfig({ ...env, AWS_REGION: 'eu-west-1' })).not.toThrow();
    expect(loadPgwireConfig(env)).toEqual({ port: 6875, healthPort: 8080, tlsSecretArn: SECRET_ARN, drainSeconds: PGWIRE_DEFAULTS.drainSeconds, maxConnections: 1000 });
  });

  it('an internet-facing NLB in the public subnets whose TCP listener on 6875 passes TLS through to the tasks (no certificate on the NLB)', () => {
    // Act
    const subnets = template.findResources('AWS::EC2::Subnet');
    const publicSubnets = Object.keys(subnets).filter((id) => subnets[id]!.Properties.MapPublicIpOnLaunch === true);
    const nlb = Object.values(template.findResources('AWS::ElasticLoadBalancingV2::LoadBalancer'))[0]!;
    const listener = Object.values(template.findResources('AWS::ElasticLoadBalancingV2::Listener'))[0]!;

    // Assess
    expect(nlb.Properties).toMatchObject({ Type: 'network', Scheme: 'internet-facing' });
    expect((nlb.Properties.Subnets as { Ref: string }[]).map((s) => s.Ref).sort()).toEqual(publicSubnets.sort());
    expect(nlb.Properties.LoadBalancerAttributes).toContainEqual({ Key: 'load_balancing.cross_zone.enabled', Value: 'true' });
    expect(listener.Properties).toMatchObject({ Port: 6875, Protocol: 'TCP' });
    expect(listener.Properties.Certificates).toBeUndefined();
  });

  it('the target group: IP targets on 6875, HTTP health checks on 8080 /health, a 30 s deregistration delay that leaves open sessions to the task\'s drain', () => {
    // Assess
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 6875,
      Protocol: 'TCP',
      TargetType: 'ip',
      HealthCheckProtocol: 'HTTP',
      HealthCheckPort: '8080',
      HealthCheckPath: '/health',
      TargetGroupAttributes: Match.arrayWith([
        { Key: 'deregistration_delay.timeout_seconds', Value: '30' },
        { Key: 'deregistration_delay.connection_termination.enabled', Value: 'false' },
      ]),
    });
  });

  it('security groups: 6875 open to the allowed ranges on the NLB; the tasks reachable from the NLB alone, on 6875 and 8080', () => {
    // Act
    const nlbSg = logicalId(pgwire().loadBalancerSecurityGroup);
    const taskSg = logicalId(pgwire().taskSecurityGroup);
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')).filter((r) => JSON.stringify(r.Properties.GroupId).includes(taskSg));
    const nlb = template.findResources('AWS::EC2::SecurityGroup')[nlbSg]!;

    // Assess
    expect(nlb.Properties.SecurityGroupIngress).toEqual([{ CidrIp: '0.0.0.0/0', Description: 'Postgres clients (TLS inside)', FromPort: 6875, IpProtocol: 'tcp', ToPort: 6875 }]);
    expect(ingress.map((r) => [r.Properties.FromPort, fakeResolve(r.Properties.SourceSecurityGroupId)]).sort()).toEqual([
      [6875, `getatt:${nlbSg}.GroupId`],
      [8080, `getatt:${nlbSg}.GroupId`],
    ]);
    expect(template.findResources('AWS::EC2::SecurityGroup')[taskSg]!.Properties.SecurityGroupIngress).toBeUndefined();
  });

  it('the task role holds exactly the DDL function\'s grants (grantSqlApi) and GetSecretValue on the TLS secret; ECS alone may assume it', () => {
    // Act
    const grantsOf = (role: string) =>
      new Set(
        statementsOfRole(template, role)
          .filter((s) => !s.actions.every((a) => a.startsWith('xray:') || a.startsWith('logs:')))
          .flatMap((s) => s.actions.flatMap((a) => s.resources.map((r) => `${a} on ${fakeResolve(r)}`))),
      );
    const task = grantsOf(logicalId(pgwire().taskRole));
    const ddl = grantsOf(logicalId(stack.api.handler.role));
    const role = template.findResources('AWS::IAM::Role')[logicalId(pgwire().taskRole)]!;

    // Assess
    expect(ddl.size).toBeGreaterThan(5);
    expect([...task].sort()).toEqual([...ddl, `secretsmanager:GetSecretValue on ${SECRET_ARN}`].sort());
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('scales between 2 and 6 tasks: target tracking on CPU (60 %) and steps on open connections per healthy task', () => {
    // Act
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const connectionAlarms = alarms.filter((a) => JSON.stringify(a.Properties.Metrics ?? []).includes('flows / healthy'));

    // Assess
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 2, MaxCapacity: 6, ScalableDimension: 'ecs:service:DesiredCount' });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: { PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' }, TargetValue: 60 },
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: Match.objectLike({ AdjustmentType: 'ChangeInCapacity', StepAdjustments: [{ MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 250, ScalingAdjustment: 1 }, { MetricIntervalLowerBound: 250, ScalingAdjustment: 2 }] }),
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: Match.objectLike({ StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }] }),
    });
    // The upper alarm at 250 connections per task, the lower at 125; both on ActiveFlowCount over HealthyHostCount.
    expect(connectionAlarms.map((a) => a.Properties.Threshold).sort((x, y) => x - y)).toEqual([125, 250]);
    for (const a of connectionAlarms) expect(JSON.stringify(a.Properties.Metrics)).toMatch(/ActiveFlowCount[\s\S]*HealthyHostCount|HealthyHostCount[\s\S]*ActiveFlowCount/);
  });

  it('alarms on an unhealthy task, on no healthy task (missing data breaching) and on high CPU, notifying the alarm topic like every other alarm', () => {
    // Act
    const alarms = stack.observability.pgwireAlarms.pgwire!;
    const topic = logicalId(stack.observability.alarmTopic);
    const props = (a: { node: { defaultChild?: unknown } }) => template.findResources('AWS::CloudWatch::Alarm')[logicalId(a as never)]!.Properties;

    // Assess
    expect(props(alarms.unhealthyTargets)).toMatchObject({ MetricName: 'UnHealthyHostCount', Namespace: 'AWS/NetworkELB', Statistic: 'Minimum', Period: 300, Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(props(alarms.noHealthyTargets)).toMatchObject({ MetricName: 'HealthyHostCount', Statistic: 'Maximum', Threshold: 1, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching' });
    expect(props(alarms.cpuHigh)).toMatchObject({ MetricName: 'CPUUtilization', Namespace: 'AWS/ECS', Threshold: PGWIRE_CPU_ALARM_PERCENT, ComparisonOperator: 'GreaterThanThreshold' });
    for (const a of Object.values(alarms)) {
      expect(props(a).AlarmActions).toEqual([{ Ref: topic }]);
      expect(props(a).OKActions).toEqual([{ Ref: topic }]);
    }
  });

  it('outputs the endpoint and a psql URL with sslmode=require', () => {
    // Act
    const outputs = template.findOutputs('*');

    // Assess
    expect(fakeResolve(outputs.PgwireEndpoint!.Value)).toBe(`getatt:${logicalId(pgwire().loadBalancer)}.DNSName`);
    expect(fakeResolve(outputs.PgwireUrl!.Value)).toBe(`postgres://materialize@getatt:${logicalId(pgwire().loadBalancer)}.DNSName:6875/materialize?sslmode=require`);
  });

  it('stages the image for linux/arm64 from a directory with the Dockerfile (synth needs no Docker)', () => {
    // Act
    const app = testApp({ ...ON, [BUNDLING_STACKS]: [] });
    new DdlControlPlaneStack(app, 'DdlControlPlane');
    const dir = app.synth().directory;
    const assets = JSON.parse(readFileSync(join(dir, 'DdlControlPlane.assets.json'), 'utf8')) as { dockerImages: Record<string, { source: { directory: string; platform: string } }> };
    const images = Object.values(assets.dockerImages);

    // Assess
    expect(images).toHaveLength(1);
    expect(images[0]!.source.platform).toBe('linux/arm64');
    expect(readFileSync(join(dir, images[0]!.source.directory, 'Dockerfile'), 'utf8')).toContain(`FROM ${PGWIRE_BASE_IMAGE}`);
  });
});

describe('bad context values are refused with one message naming them', () => {
  it.each([
    ['pgwire=true without a certificate', { [PGWIRE_CONTEXT]: 'true' }, /"pgwire=true" needs -c pgwireTlsSecretArn=.*TLS only/],
    ['a certificate without pgwire=true', { [PGWIRE_TLS_SECRET_ARN_CONTEXT]: SECRET_ARN }, /"pgwireTlsSecretArn" is the pgwire endpoint's certificate: set -c pgwire=true too/],
    ['pgwire=yes', { [PGWIRE_CONTEXT]: 'yes', [PGWIRE_TLS_SECRET_ARN_CONTEXT]: SECRET_ARN }, /"pgwire" must be true or false, got "yes"/],
    ['a secret ARN without its 6-character suffix', { ...ON, [PGWIRE_TLS_SECRET_ARN_CONTEXT]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ddl/pgwire-tls' }, /"pgwireTlsSecretArn" must be the complete ARN of a Secrets Manager secret/],
    ['an ACM certificate ARN as the secret', { ...ON, [PGWIRE_TLS_SECRET_ARN_CONTEXT]: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0' }, /"pgwireTlsSecretArn" must be the complete ARN of a Secrets Manager secret/],
    ['an ACM certificate (pgwireCertificateArn)', { [PGWIRE_CONTEXT]: 'true', [PGWIRE_CERTIFICATE_ARN_CONTEXT]: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0' }, /"pgwireCertificateArn" is not supported: .*SSLRequest.*private key.*pgwireTlsSecretArn/],
    ['pgwire in LocalStack mode', { ...ON, [LOCALSTACK_CONTEXT]: 'true' }, /not in LocalStack's free image/],
  ])('%s', (_case, context, message) => {
    // Act
    const text = refusal(context);

    // Assess
    expect(text).toMatch(message);
  });

  it('lists every problem at once', () => {
    // Act
    const text = refusal({ [PGWIRE_CONTEXT]: 'yes', [PGWIRE_CERTIFICATE_ARN_CONTEXT]: 'arn:aws:acm:eu-west-1:123456789012:certificate/x' });

    // Assess
    expect(text.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(2);
  });
});

describe('PgwireService props', () => {
  it('are validated up front into one error', () => {
    // Prepare
    const { stack } = synth({});

    // Act
    const error = captureError(
      () =>
        new PgwireService(stack, 'Bad', {
          catalog: stack.catalog,
          tlsSecret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN),
          cpu: 512,
          memoryLimitMiB: 512,
          minTasks: 4,
          maxTasks: 2,
          allowedCidrs: ['10.0.0.0/33', 'example.com'],
          connectionsPerTask: 2000,
          deregistrationDelay: Duration.hours(2),
        }),
    ) as InvalidPropsError;

    // Assess
    expect(error).toBeInstanceOf(InvalidPropsError);
    expect(error.problems).toEqual([
      'memoryLimitMiB 512 is not a Fargate task size with cpu 512',
      'minTasks (4) must not exceed maxTasks (2)',
      'connectionsPerTask (2000) must not exceed maxConnectionsPerTask (1000): tasks would refuse sessions before the scaling adds any',
      'deregistrationDelay must be between 0 seconds and 1 hour, got 2 hours',
      'allowedCidrs: "10.0.0.0/33" is not an IPv4 CIDR range (a.b.c.d/n)',
      'allowedCidrs: "example.com" is not an IPv4 CIDR range (a.b.c.d/n)',
    ]);
  });

  it('with allowedCidrs, opens 6875 to those ranges only', () => {
    // Prepare
    const app = testApp({ [BUNDLING_STACKS]: [] });
    // An imported secret is its ARN: any scope will do (one outside `app` keeps its synth to the stack under test).
    const tlsSecret = secretsmanager.Secret.fromSecretCompleteArn(new Stack(new App(), 'Scratch'), 'S', SECRET_ARN);
    const stack = new DdlControlPlaneStack(app, 'DdlControlPlane', { pgwire: { tlsSecret, allowedCidrs: ['203.0.113.0/24'], minTasks: 1, maxTasks: 3 } });

    // Act
    const template = Template.fromStack(stack);

    // Assess
    expect(template.findResources('AWS::EC2::SecurityGroup')[logicalId(stack.pgwire!.loadBalancerSecurityGroup)]!.Properties.SecurityGroupIngress).toEqual([
      { CidrIp: '203.0.113.0/24', Description: 'Postgres clients (TLS inside)', FromPort: 6875, IpProtocol: 'tcp', ToPort: 6875 },
    ]);
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 3 });
  });
});

describe('the image directory', () => {
  it('holds the Dockerfile and the esbuild bundle with PGlite\'s and libpg-query\'s WebAssembly beside their chunks; the entry runs and refuses a missing configuration', { timeout: 240_000 }, async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'pgwire-image-'));
    try {
      // Act
      stagePgwireImage(PGWIRE_ENTRY, dir, true);
      const files = readdirSync(join(dir, 'app'), { recursive: true }).map(String);
      const pgliteChunk = files.find((f) => f.endsWith('.mjs') && readFileSync(join(dir, 'app', f), 'utf8').includes('pglite.wasm'));
      const result = await run(process.execPath, [join(dir, 'app', 'index.mjs')], { env: { PATH: process.env.PATH }, timeout: 60_000 }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );

      // Assess
      expect(readFileSync(join(dir, 'Dockerfile'), 'utf8')).toMatch(/^FROM public\.ecr\.aws\/docker\/library\/node:22-[\s\S]*USER node[\s\S]*CMD \["node", "index\.mjs"\]/m);
      expect(files).toContain('index.mjs');
      expect(pgliteChunk, 'the chunk that loads pglite.wasm').toBeDefined();
      const beside = join(dir, 'app', pgliteChunk!, '..');
      for (const f of ['pglite.wasm', 'pglite.data', 'initdb.wasm']) expect(existsSync(join(beside, f)), f).toBe(true);
      expect(files.some((f) => f.endsWith('libpg-query.wasm'))).toBe(true);
      // The engine's template, for this schema, beside the chunk that opens it: a new task's first
      // catalog query does not run initdb.
      const hostChunk = files.find((f) => f.endsWith('.mjs') && readFileSync(join(dir, 'app', f), 'utf8').includes(`"${SHIPPED_TEMPLATE}"`));
      expect(hostChunk, 'the chunk that opens the template').toBeDefined();
      const template = join(dir, 'app', hostChunk!, '..', SHIPPED_TEMPLATE);
      expect(shippedTemplate(engineSchemaSql(), template)).toBe(template);
      expect(shippedTemplate(`${engineSchemaSql()}\n-- another schema`, template)).toBeUndefined();
      // The AWS SDK is inside: no runtime provides it in the container.
      expect(readFileSync(join(dir, 'app', 'index.mjs'), 'utf8')).not.toMatch(/require\("@aws-sdk\//);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/pgwire task failed to start: invalid configuration: catalogTable/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
