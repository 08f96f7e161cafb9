import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, Names, RemovalPolicy, Stack, Stage, Validations } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { DEPLOYMENT_DEFAULTS, ENV, PGWIRE_DEFAULTS } from '../../shared/definitions';
import type { CatalogTable } from './catalog-table';
import { grantSqlApi } from './ddl-api';
import { bundleFunction, FUNCTION_DEFAULTS, REPO_ROOT } from './ddl-function';
import type { EffectQueues } from './effect-queues';
import { PropsValidator } from './props-validation';

/** `functions/pgwire-server/main.ts`: the container's entry (a process, not a Lambda handler). */
export const PGWIRE_ENTRY = join(REPO_ROOT, 'functions', 'pgwire-server', 'main.ts');

/**
 * The image's base: Node.js 22 (the Lambdas' runtime and esbuild target) on Debian 12, from the
 * ECR Public mirror of Docker's official image (no Docker Hub pull limits). A multi-arch image:
 * the build picks arm64 (the asset's platform).
 */
export const PGWIRE_BASE_IMAGE = 'public.ecr.aws/docker/library/node:22-bookworm-slim';

/**
 * The container's Dockerfile: the esbuild bundle under `app/`, run as the image's unprivileged
 * `node` user. Unlike the Lambdas (shared/lambda/stack-traces.ts), the task keeps Node's own
 * `--enable-source-maps`: it starts once per task rather than once per cold invocation, and its
 * SQL engine runs on a worker thread, which Node's maps cover and a per-thread hook would not.
 */
export function pgwireDockerfile(): string {
  return [
    '# Built by cdk/constructs/pgwire-service.ts at synth; `cdk deploy` builds the image (linux/arm64).',
    `FROM ${PGWIRE_BASE_IMAGE}`,
    'ENV NODE_ENV=production NODE_OPTIONS=--enable-source-maps',
    'WORKDIR /app',
    'COPY app/ ./',
    'USER node',
    `EXPOSE ${PGWIRE_DEFAULTS.port} ${PGWIRE_DEFAULTS.healthPort}`,
    'CMD ["node", "index.mjs"]',
    '',
  ].join('\n');
}

/**
 * Writes the image's build context into `dir` (emptied first): the Dockerfile and, with `bundle`,
 * the entry bundled by esbuild into `app/` exactly as the Lambdas are (bundleFunction, with code
 * splitting and PGlite's and libpg-query's WebAssembly beside their chunks), except that the AWS
 * SDK is bundled in: no runtime provides it here. Without `bundle` (a stack left out of bundling)
 * only the Dockerfile is written, as the Lambdas get placeholder code then. No Docker is needed.
 */
export function stagePgwireImage(entry: string, dir: string, bundle: boolean): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'app'), { recursive: true });
  writeFileSync(join(dir, 'Dockerfile'), pgwireDockerfile());
  if (bundle) bundleFunction({ entry, splitChunks: true, sdk: 'bundled' }, join(dir, 'app'));
}

/** Fargate's valid task sizes: CPU units → memory (MiB) allowed with it. https://docs.aws.amazon.com/AmazonECS/latest/developerguide/fargate-tasks-services.html#fargate-tasks-size */
const FARGATE_SIZES: Readonly<Record<number, (mib: number) => boolean>> = {
  256: (m) => [512, 1024, 2048].includes(m),
  512: (m) => m >= 1024 && m <= 4096 && m % 1024 === 0,
  1024: (m) => m >= 2048 && m <= 8192 && m % 1024 === 0,
  2048: (m) => m >= 4096 && m <= 16_384 && m % 1024 === 0,
  4096: (m) => m >= 8192 && m <= 30_720 && m % 1024 === 0,
};

const CIDR_V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

function isCidrV4(value: string): boolean {
  const m = CIDR_V4.exec(value);
  return !!m && m.slice(1, 5).every((o) => Number(o) <= 255) && Number(m[5]) <= 32;
}

/** The tuning of the endpoint: every prop of {@link PgwireServiceProps} a deployer may choose. */
export interface PgwireServiceOptions {
  /**
   * The Secrets Manager secret with the TLS certificate and key the tasks serve
   * (`{"certificate": "<PEM chain>", "privateKey": "<PEM>"}`, shared/secrets/tls-certificate.ts). The
   * load balancer passes TCP through: PostgreSQL clients negotiate TLS inside the protocol
   * (SSLRequest), which a load balancer's TLS listener does not speak.
   */
  readonly tlsSecret: secretsmanager.ISecret;
  /**
   * CPU units of a task (256 = 0.25 vCPU).
   * @default 512
   */
  readonly cpu?: number;
  /**
   * Memory of a task in MiB (with `cpu`, one of Fargate's task sizes).
   * @default 1024
   */
  readonly memoryLimitMiB?: number;
  /**
   * Tasks running at least: two spread over the two Availability Zones keep the endpoint up through
   * a task's replacement or an AZ's outage.
   * @default 2
   */
  readonly minTasks?: number;
  /**
   * Tasks running at most.
   * @default 6
   */
  readonly maxTasks?: number;
  /**
   * Open connections per healthy task the step scaling aims under: one more task above it (two
   * above twice it), one fewer below half of it.
   * @default 250
   */
  readonly connectionsPerTask?: number;
  /**
   * Average CPU of the service the target tracking policy keeps (percent).
   * @default 60
   */
  readonly cpuTargetPercent?: number;
  /**
   * Connections one task accepts at most (more answer 53300 `too many clients`).
   * @default 1000 (PGWIRE_DEFAULTS.maxConnections)
   */
  readonly maxConnectionsPerTask?: number;
  /**
   * The IPv4 ranges that may connect to the load balancer on port 6875.
   * @default ['0.0.0.0/0'] (anywhere: like the HTTP API, sessions are authenticated by app password, over TLS only)
   */
  readonly allowedCidrs?: readonly string[];
  /**
   * A load balancer with public addresses (in the public subnets); false: an internal one, reachable
   * from the VPC (and what is connected to it) only.
   * @default true
   */
  readonly internetFacing?: boolean;
  /**
   * The VPC to run in: its public subnets take the load balancer, its private subnets with egress
   * the tasks (they reach DynamoDB, SQS, Secrets Manager and, at CREATE time, the upstreams a
   * connection names).
   * @default - a new VPC over two Availability Zones with one NAT gateway, a DynamoDB and an S3
   *   gateway endpoint and a flow log of rejected traffic
   */
  readonly vpc?: ec2.IVpc;
  /**
   * NAT gateways of the new VPC (one per AZ survives an AZ outage, at one more NAT gateway's price).
   * Only without `vpc`.
   * @default 1
   */
  readonly natGateways?: number;
  /**
   * How long the load balancer keeps sending a leaving task's open connections before the task is
   * stopped (ECS waits for it, then sends SIGTERM and the task drains: statements in flight are
   * answered, idle sessions are told 57P01). Clients reconnect to another task. Long-lived sessions
   * would keep a longer delay from ending anyway; a short one keeps deployments quick.
   * @default Duration.seconds(30)
   */
  readonly deregistrationDelay?: Duration;
  /**
   * CloudWatch Container Insights for the cluster (per-task CPU, memory and network). Off by
   * default: its metrics are billed as custom metrics, and the service's CPU and memory (AWS/ECS)
   * and the load balancer's flows and target health (AWS/NetworkELB), free, drive the scaling and
   * the alarms.
   * @default false
   */
  readonly containerInsights?: boolean;
  /**
   * How long the task's log group keeps logs.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}

export interface PgwireServiceProps extends PgwireServiceOptions {
  /** The catalog the SQL API commits to and app passwords (with their SCRAM verifiers) are read from. */
  readonly catalog: CatalogTable;
  /**
   * The effect queues committed effects are sent to right after a commit (the fast path).
   * @default - none: effects reach their queues through the stream router alone
   */
  readonly queues?: EffectQueues;
  /**
   * The control plane's wiring, the same variables the functions get (shared/config.ts loadConfig).
   * @default {}
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * How long a task keeps a found password record for cleartext logins (`PASSWORD_CACHE_SECONDS`),
   * as the authorizer does; SCRAM logins read the verifiers every time.
   * @default Duration.seconds(60) (DEPLOYMENT_DEFAULTS.passwordCacheSeconds)
   */
  readonly passwordCache?: Duration;
  /**
   * The container's entry file.
   * @default functions/pgwire-server/main.ts
   */
  readonly entry?: string;
}

/**
 * The Postgres wire endpoint in AWS (API Gateway cannot carry it): the same server as `npm start`'s
 * port 6875 (shared/pgwire/server.ts over the DDL function's SqlApi), as an ECS service on Fargate
 * (arm64) in the private subnets of a two-AZ VPC, behind a Network Load Balancer whose TCP listener
 * on 6875 passes the bytes through to the tasks, which end TLS themselves (TLS only). It scales on
 * CPU (target tracking) and on open connections per task (steps), checks target health over HTTP
 * (`GET /health` on 8080: 503 once a task drains) and the container's health with the same request.
 *
 * The image is built from a directory staged at synth (esbuild, no Docker); `cdk deploy` builds and
 * pushes it, so deploying needs a container builder (Docker or Finch), synthesizing does not.
 */
export class PgwireService extends Construct {
  readonly vpc: ec2.IVpc;
  readonly cluster: ecs.Cluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;
  readonly service: ecs.FargateService;
  /** The tasks' role: the SQL API's grants (grantSqlApi, as the DDL Lambda) and the TLS secret's read. */
  readonly taskRole: iam.Role;
  /** ECS's role for the task: pull the image, write the log group. */
  readonly executionRole: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly listener: elbv2.NetworkListener;
  readonly targetGroup: elbv2.NetworkTargetGroup;
  readonly loadBalancerSecurityGroup: ec2.SecurityGroup;
  readonly taskSecurityGroup: ec2.SecurityGroup;
  readonly scaling: ecs.ScalableTaskCount;
  /** Open connections per healthy task: what the step scaling policy acts on. */
  readonly connectionsPerTaskMetric: cloudwatch.MathExpression;
  readonly minTasks: number;
  readonly maxTasks: number;

  constructor(scope: Construct, id: string, props: PgwireServiceProps) {
    super(scope, id);
    const cpu = props.cpu ?? 512;
    const memoryLimitMiB = props.memoryLimitMiB ?? 1024;
    this.minTasks = props.minTasks ?? 2;
    this.maxTasks = props.maxTasks ?? 6;
    const connectionsPerTask = props.connectionsPerTask ?? 250;
    const maxConnections = props.maxConnectionsPerTask ?? PGWIRE_DEFAULTS.maxConnections;
    const allowedCidrs = props.allowedCidrs ?? ['0.0.0.0/0'];
    const entry = props.entry ?? PGWIRE_ENTRY;
    const v = new PropsValidator(scope, id)
      .check(FARGATE_SIZES[cpu] !== undefined, `cpu must be one of ${Object.keys(FARGATE_SIZES).join(', ')} (Fargate task sizes), got ${cpu}`)
      .check(FARGATE_SIZES[cpu]?.(memoryLimitMiB) ?? true, `memoryLimitMiB ${memoryLimitMiB} is not a Fargate task size with cpu ${cpu}`)
      .integerInRange('minTasks', this.minTasks, 1, 100)
      .integerInRange('maxTasks', this.maxTasks, 1, 100)
      .check(this.minTasks <= this.maxTasks, `minTasks (${this.minTasks}) must not exceed maxTasks (${this.maxTasks})`)
      .integerInRange('maxConnectionsPerTask', maxConnections, 1, 100_000)
      .integerInRange('connectionsPerTask', connectionsPerTask, 2, 100_000)
      .check(connectionsPerTask <= maxConnections, `connectionsPerTask (${connectionsPerTask}) must not exceed maxConnectionsPerTask (${maxConnections}): tasks would refuse sessions before the scaling adds any`)
      .integerInRange('cpuTargetPercent', props.cpuTargetPercent, 10, 90)
      .check(allowedCidrs.length > 0, 'allowedCidrs must name at least one range')
      .check(props.vpc === undefined || props.natGateways === undefined, 'natGateways applies to the VPC this construct makes: leave it out with vpc')
      .integerInRange('natGateways', props.natGateways, 1, 2)
      .durationInRange('deregistrationDelay', props.deregistrationDelay, Duration.seconds(0), Duration.seconds(3600))
      .durationInRange('passwordCache', props.passwordCache, Duration.seconds(0), Duration.hours(1));
    for (const cidr of allowedCidrs) v.check(isCidrV4(cidr), `allowedCidrs: "${cidr}" is not an IPv4 CIDR range (a.b.c.d/n)`);
    v.throwIfInvalid();

    this.vpc = props.vpc ?? this.makeVpc(props.natGateways ?? 1, props.logRetention);
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      containerInsightsV2: props.containerInsights ? ecs.ContainerInsights.ENABLED : ecs.ContainerInsights.DISABLED,
    });
    if (!props.containerInsights) {
      Validations.of(this.cluster).acknowledge({
        id: 'AwsSolutions-ECS4',
        reason:
          'Container Insights is opt-in (containerInsights: true): its per-task metrics are billed as custom metrics, while the scaling and alarms use the service\'s CPU and memory (AWS/ECS) and the load balancer\'s flows and target health (AWS/NetworkELB), which are free.',
      });
    }

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? FUNCTION_DEFAULTS.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const principal = new iam.ServicePrincipal('ecs-tasks.amazonaws.com', {
      // Only ECS acting for this account may assume the roles (the confused deputy guard AWS documents for task roles).
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
    });
    this.taskRole = new iam.Role(this, 'TaskRole', { assumedBy: principal, description: `Task role of ${this.node.path}: the SQL API's grants` });
    this.executionRole = new iam.Role(this, 'ExecutionRole', { assumedBy: principal, description: `Execution role of ${this.node.path}: image pull and logs` });
    grantSqlApi(this, this.taskRole, props.catalog, props.queues);
    // The TLS certificate and key, read at start and every hour (GetSecretValue alone: no DescribeSecret).
    this.taskRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [props.tlsSecret.secretArn] }));
    props.tlsSecret.encryptionKey?.grantDecrypt(this.taskRole);

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu,
      memoryLimitMiB,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
      taskRole: this.taskRole,
      executionRole: this.executionRole,
    });

    const buildDir = join(Stage.of(this)!.assetOutdir, `.pgwire-image-${Names.uniqueId(this)}`);
    stagePgwireImage(entry, buildDir, Stack.of(this).bundlingRequired);
    const image = new DockerImageAsset(this, 'Image', { directory: buildDir, platform: Platform.LINUX_ARM64, displayName: `${this.node.path} image` });

    const healthUrl = `http://127.0.0.1:${PGWIRE_DEFAULTS.healthPort}/health`;
    this.container = this.taskDefinition.addContainer('pgwire', {
      image: ecs.ContainerImage.fromDockerImageAsset(image),
      essential: true,
      environment: {
        ...props.environment,
        AWS_REGION: Stack.of(this).region,
        [ENV.passwordCacheSeconds]: String(props.passwordCache?.toSeconds() ?? DEPLOYMENT_DEFAULTS.passwordCacheSeconds),
        [ENV.pgPort]: String(PGWIRE_DEFAULTS.port),
        [ENV.pgwireHealthPort]: String(PGWIRE_DEFAULTS.healthPort),
        [ENV.pgwireTlsSecretArn]: props.tlsSecret.secretArn,
        [ENV.pgwireDrainSeconds]: String(PGWIRE_DEFAULTS.drainSeconds),
        [ENV.pgwireMaxConnections]: String(maxConnections),
      },
      portMappings: [
        { containerPort: PGWIRE_DEFAULTS.port, name: 'pgwire' },
        { containerPort: PGWIRE_DEFAULTS.healthPort, name: 'health' },
      ],
      // The image has node, not curl: the same request the load balancer makes.
      healthCheck: {
        command: ['CMD', 'node', '-e', `fetch(${JSON.stringify(healthUrl)}).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(30),
      },
      // SIGTERM, then SIGKILL this much later: the drain (PGWIRE_DEFAULTS.drainSeconds) fits inside.
      stopTimeout: Duration.seconds(PGWIRE_DEFAULTS.stopTimeoutSeconds),
      logging: ecs.LogDrivers.awsLogs({
        logGroup: this.logGroup,
        streamPrefix: 'pgwire',
        // A slow CloudWatch Logs must not stall the SQL sessions: lines beyond the buffer are dropped instead.
        mode: ecs.AwsLogDriverMode.NON_BLOCKING,
      }),
    });
    // The image pull: ECS adds ecr:GetAuthorizationToken (no resource-level permissions) beside the
    // repository's read actions and the log group's writes.
    Validations.of(this.executionRole.node.findChild('DefaultPolicy')).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecr:GetAuthorizationToken, which ECS needs to pull the image, supports no resource-level permissions; AWS requires Resource "*" (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelasticcontainerregistry.html). The repository\'s own read actions are held to the assets repository.',
    });
    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        'The environment holds only the control plane\'s wiring, the same variables its Lambdas get (table names, queue URLs, the secret name prefix) and the TLS secret\'s ARN; no secret value: the task reads the certificate and key from Secrets Manager itself.',
    });

    this.loadBalancerSecurityGroup = new ec2.SecurityGroup(this, 'LoadBalancerSecurityGroup', {
      vpc: this.vpc,
      description: 'pgwire NLB: Postgres clients in, to the tasks only',
      allowAllOutbound: false,
    });
    for (const cidr of allowedCidrs) this.loadBalancerSecurityGroup.addIngressRule(ec2.Peer.ipv4(cidr), ec2.Port.tcp(PGWIRE_DEFAULTS.port), 'Postgres clients (TLS inside)');
    if (allowedCidrs.includes('0.0.0.0/0')) {
      Validations.of(this.loadBalancerSecurityGroup).acknowledge({
        id: 'AwsSolutions-EC23',
        reason:
          'A public SQL endpoint, like the HTTP API: every session must start TLS (the task refuses others) and log in with an app password (SCRAM-SHA-256, or cleartext inside TLS). allowedCidrs narrows it to known ranges.',
      });
    }
    this.taskSecurityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'pgwire tasks: from the NLB only; out to AWS APIs and the upstreams CREATE probes',
      // Connection probes reach whatever host a CREATE CONNECTION names; DynamoDB, SQS and Secrets Manager too.
      allowAllOutbound: true,
    });
    this.taskSecurityGroup.connections.allowFrom(this.loadBalancerSecurityGroup, ec2.Port.tcp(PGWIRE_DEFAULTS.port), 'sessions from the NLB');
    this.taskSecurityGroup.connections.allowFrom(this.loadBalancerSecurityGroup, ec2.Port.tcp(PGWIRE_DEFAULTS.healthPort), 'NLB health checks');

    this.service = new ecs.FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [this.taskSecurityGroup],
      assignPublicIp: false,
      // New tasks take sessions before old ones leave; a deployment whose tasks never get healthy rolls back.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      healthCheckGracePeriod: Duration.seconds(60),
    });

    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'LoadBalancer', {
      vpc: this.vpc,
      internetFacing: props.internetFacing ?? true,
      vpcSubnets: { subnetType: props.internetFacing === false ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PUBLIC },
      securityGroups: [this.loadBalancerSecurityGroup],
      // Either AZ's address reaches a task in either AZ (an AZ can be without a task for a while).
      crossZoneEnabled: true,
    });
    Validations.of(this.loadBalancer).acknowledge({
      id: 'AwsSolutions-ELB2',
      reason:
        'A Network Load Balancer writes access logs for TLS listeners only, and this one has a TCP listener (TLS passes through to the tasks, see docs/deploy-aws.md): a log bucket would stay empty. The tasks log every session error; the VPC flow log records refused traffic.',
    });
    this.targetGroup = new elbv2.NetworkTargetGroup(this, 'Targets', {
      vpc: this.vpc,
      port: PGWIRE_DEFAULTS.port,
      protocol: elbv2.Protocol.TCP,
      targetType: elbv2.TargetType.IP,
      deregistrationDelay: props.deregistrationDelay ?? Duration.seconds(30),
      // At the end of the delay open sessions are left to the task's drain (57P01), not reset by the NLB.
      connectionTermination: false,
      healthCheck: {
        protocol: elbv2.Protocol.HTTP,
        port: String(PGWIRE_DEFAULTS.healthPort),
        path: '/health',
        interval: Duration.seconds(10),
        timeout: Duration.seconds(5),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 2,
      },
    });
    this.service.attachToNetworkTargetGroup(this.targetGroup);
    this.listener = this.loadBalancer.addListener('Pgwire', {
      port: PGWIRE_DEFAULTS.port,
      protocol: elbv2.Protocol.TCP,
      defaultTargetGroups: [this.targetGroup],
    });

    this.scaling = this.service.autoScaleTaskCount({ minCapacity: this.minTasks, maxCapacity: this.maxTasks });
    this.scaling.scaleOnCpuUtilization('Cpu', {
      targetUtilizationPercent: props.cpuTargetPercent ?? 60,
      scaleOutCooldown: Duration.seconds(60),
      scaleInCooldown: Duration.minutes(5),
    });
    const minute = Duration.minutes(1);
    this.connectionsPerTaskMetric = new cloudwatch.MathExpression({
      // A task that is not yet healthy takes no sessions; with none healthy the total stands alone.
      expression: 'IF(healthy > 0, flows / healthy, flows)',
      usingMetrics: {
        flows: this.loadBalancer.metrics.activeFlowCount({ period: minute, statistic: cloudwatch.Stats.AVERAGE }),
        healthy: this.targetGroup.metrics.healthyHostCount({ period: minute, statistic: cloudwatch.Stats.MINIMUM }),
      },
      period: minute,
      label: 'Open connections per healthy task',
    });
    this.scaling.scaleOnMetric('Connections', {
      metric: this.connectionsPerTaskMetric,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      scalingSteps: [
        { upper: Math.floor(connectionsPerTask / 2), change: -1 },
        { lower: connectionsPerTask, change: +1 },
        { lower: 2 * connectionsPerTask, change: +2 },
      ],
      evaluationPeriods: 3,
      cooldown: Duration.minutes(3),
    });
  }

  /** A two-AZ VPC: public subnets (the NLB, the NAT), private ones with egress (the tasks), free gateway endpoints, rejected flows logged. */
  private makeVpc(natGateways: number, logRetention: logs.RetentionDays | undefined): ec2.Vpc {
    const flowLogs = new logs.LogGroup(this, 'FlowLogs', {
      retention: logRetention ?? FUNCTION_DEFAULTS.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    return new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'tasks', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      // DynamoDB (every statement) and S3 (the image's layers, from ECR) without the NAT's per-GB charge.
      gatewayEndpoints: {
        DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      },
      // Refused traffic only: what a port scan of the public NLB or a wrong security group shows.
      flowLogs: { Rejected: { trafficType: ec2.FlowLogTrafficType.REJECT, destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs) } },
    });
  }

  /** The load balancer's DNS name: clients connect to it on 6875 (or to a name of yours that points at it, for verify-full). */
  get endpoint(): string {
    return this.loadBalancer.loadBalancerDnsName;
  }
}
