import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PROBE_NETWORKS_ENV, secretArnRegion, splitCorsAllowOrigins } from '../shared/config';
import { type Controller, CONTROLLERS, deploymentNames, EFFECT_CAPACITY, ENV, MAX_STACK_NAME_LENGTH, PGWIRE_DEFAULTS } from '../shared/definitions';
import { CatalogTable, type CatalogTableProps } from './constructs/catalog-table';
import { DdlApi } from './constructs/ddl-api';
import type { DdlFunction, FunctionName } from './constructs/ddl-function';
import { EffectExecutor } from './constructs/effect-executor';
import { EffectQueues } from './constructs/effect-queues';
import { Observability } from './constructs/observability';
import { PgwireService, type PgwireServiceOptions } from './constructs/pgwire-service';
import { PropsValidator } from './constructs/props-validation';
import { ReferenceDataPlane } from './constructs/reference-data-plane';
import { StatusEvents } from './constructs/status-events';
import { StatusIngest } from './constructs/status-ingest';
import { StreamRouter } from './constructs/stream-router';
import { Sweeper } from './constructs/sweeper';

/** The CDK context key that replaces the reference data plane with an external one. */
export const DATA_PLANE_URL_CONTEXT = 'dataPlaneUrl';
/** The CDK context key with the complete ARN of the Secrets Manager secret holding the external data plane's bearer token. */
export const DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT = 'dataPlaneTokenSecretArn';
/** The CDK context key with the origins allowed to call the API from a browser (CORS), comma separated. */
export const CORS_ALLOW_ORIGINS_CONTEXT = 'corsAllowOrigins';

/**
 * The CDK context key of LocalStack mode (`-c localstack=true`, what `npm run synth:localstack`
 * and `deploy:localstack` pass): the stack leaves out what LocalStack's free image cannot create
 * (the API Gateway authorizer, the CloudWatch dashboard); the DDL function checks app passwords.
 */
export const LOCALSTACK_CONTEXT = 'localstack';
/** The CDK context key that creates the account's API Gateway CloudWatch role (`-c apiGatewayCloudWatchRole=true`). */
export const API_GATEWAY_CLOUDWATCH_ROLE_CONTEXT = 'apiGatewayCloudWatchRole';
/** The CDK context key that adds the Postgres wire endpoint (`-c pgwire=true`: ECS Fargate behind an NLB, cdk/constructs/pgwire-service.ts). */
export const PGWIRE_CONTEXT = 'pgwire';
/** The CDK context key with the complete ARN of the Secrets Manager secret holding the pgwire endpoint's TLS certificate and key. */
export const PGWIRE_TLS_SECRET_ARN_CONTEXT = 'pgwireTlsSecretArn';
/**
 * A context key the stack refuses with an explanation: an ACM certificate for the pgwire endpoint.
 * The NLB cannot end TLS for PostgreSQL clients (they ask for TLS inside the protocol first), so the
 * tasks end it and need the private key: ACM keeps a public certificate's key to itself (it exports
 * only private-CA and "exportable" certificates, through ExportCertificate, which the tasks do not call).
 */
export const PGWIRE_CERTIFICATE_ARN_CONTEXT = 'pgwireCertificateArn';

/** A complete secret ARN: with the 6-character suffix Secrets Manager appends (an IAM grant on a partial one would match nothing). */
function isCompleteSecretArn(value: string): boolean {
  return secretArnRegion(value) !== undefined && /-[A-Za-z0-9]{6}$/.test(value);
}

export interface DdlControlPlaneStackProps extends StackProps {
  /**
   * Base URL of an external data plane (the HTTP controller contract). When set, the reference
   * data plane is left out and the executors receive `DATAPLANE_URL` instead of `DATAPLANE_TABLE`.
   * @default - the CDK context value `dataPlaneUrl`; when that is unset too, the reference data plane
   */
  readonly dataPlaneUrl?: string;
  /**
   * The Secrets Manager secret whose text (SecretString) is the external data plane's bearer
   * token. The executors that call the data plane and the sweeper receive its ARN
   * (`DATAPLANE_TOKEN_SECRET_ARN`, never the token) and may read that secret alone; they read it on
   * their first data plane call and again after a 401 (rotation). Only with `dataPlaneUrl`; known
   * by its complete ARN. The token is deliberately not offered as a plain prop or context value:
   * a Lambda environment variable is readable by anyone allowed lambda:GetFunctionConfiguration.
   * @default - the CDK context value `dataPlaneTokenSecretArn` (a complete secret ARN); when that is
   *   unset too, no token: the data plane is called without an Authorization header
   */
  readonly dataPlaneTokenSecret?: secretsmanager.ISecret;
  /**
   * Options of the catalog table.
   * @default - the {@link CatalogTable} defaults
   */
  readonly catalog?: CatalogTableProps;
  /**
   * Entry files to use instead of `functions/<name>/handler.ts`, by function (and instead of the
   * pgwire container's `functions/pgwire-server/main.ts`).
   * @default {}
   */
  readonly entries?: Readonly<Partial<Record<FunctionName | 'pgwire-server', string>>>;
  /**
   * Origins whose browser pages may call the API (CORS), as {@link DdlApiProps.corsAllowOrigins}.
   * @default - the CDK context value `corsAllowOrigins` (comma separated, like `CORS_ALLOW_ORIGINS`); when unset, no CORS
   */
  readonly corsAllowOrigins?: readonly string[];
  /**
   * LocalStack mode: see {@link LOCALSTACK_CONTEXT}.
   * @default - the CDK context value `localstack` (`true`); when unset, false
   */
  readonly localstack?: boolean;
  /**
   * Create the account's API Gateway CloudWatch role with the stack (retained on delete), as
   * {@link DdlApiProps.createAccountCloudWatchRole}: needed once per account and region.
   * @default - the CDK context value `apiGatewayCloudWatchRole` (`true`); when unset, false
   */
  readonly createApiGatewayCloudWatchRole?: boolean;
  /**
   * How long API Gateway caches an authorizer decision, as {@link DdlApiProps.authorizerCacheTtl}.
   * @default Duration.seconds(0)
   */
  readonly authorizerCacheTtl?: Duration;
  /**
   * How long a warm authorizer keeps a found password record (`PASSWORD_CACHE_SECONDS`), as
   * {@link DdlApiProps.passwordCache}. A revoked password works for up to this plus `authorizerCacheTtl`.
   * @default Duration.seconds(60)
   */
  readonly passwordCache?: Duration;
  /**
   * The Postgres wire endpoint on ECS Fargate behind a Network Load Balancer ({@link PgwireService}):
   * given, the stack runs it with these options. Deploying it builds a container image (Docker or
   * Finch on the deployer's machine); synthesizing does not.
   * @default - from the context: `-c pgwire=true -c pgwireTlsSecretArn=<complete secret ARN>` runs it
   *   with the construct's defaults; unset, no endpoint (no VPC, no load balancer, no tasks)
   */
  readonly pgwire?: PgwireServiceOptions;
}

/** A boolean context value: `-c key=true` gives the string, cdk.json may hold the boolean. */
function contextFlag(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  return value === true || String(value).toLowerCase() === 'true';
}

/**
 * The whole control plane in one stack. It only wires the constructs together: every pattern,
 * default and acknowledgement lives in its construct.
 */
export class DdlControlPlaneStack extends Stack {
  readonly catalog: CatalogTable;
  readonly queues: EffectQueues;
  /** The reference data plane, unless an external one was configured. */
  readonly dataPlane?: ReferenceDataPlane;
  /** The external data plane's URL, when one was configured. */
  readonly dataPlaneUrl?: string;
  /** The secret holding the external data plane's bearer token, when one was configured. */
  readonly dataPlaneTokenSecret?: secretsmanager.ISecret;
  readonly router: StreamRouter;
  readonly executors: Readonly<Record<Controller, EffectExecutor>>;
  readonly api: DdlApi;
  readonly sweeper: Sweeper;
  /** The data plane's status reports: queue, DLQ and the status-ingest function. */
  readonly statusIngest: StatusIngest;
  /** The stack's own event bus (status events from the router), with the example alert rule. */
  readonly statusEvents: StatusEvents;
  readonly observability: Observability;
  /** Whether the stack was built for LocalStack's free image. */
  readonly localstack: boolean;
  /** The Postgres wire endpoint, when enabled (prop `pgwire` or context `pgwire=true`). */
  readonly pgwire?: PgwireService;

  constructor(scope: Construct, id: string, props: DdlControlPlaneStackProps = {}) {
    super(scope, id, {
      description: 'DDL control plane: catalog, outbox stream router, effect executors, sweeper, SQL API',
      ...props,
    });
    const fromContext: unknown = this.node.tryGetContext(DATA_PLANE_URL_CONTEXT);
    const dataPlaneUrl = props.dataPlaneUrl ?? (fromContext === undefined ? undefined : String(fromContext));
    const tokenArnContext: unknown = this.node.tryGetContext(DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT);
    const tokenSecretArn = props.dataPlaneTokenSecret !== undefined || tokenArnContext === undefined ? undefined : String(tokenArnContext);
    const pgwireContext: unknown = this.node.tryGetContext(PGWIRE_CONTEXT);
    const pgwireFlag = contextFlag(pgwireContext);
    const pgwireSecretContext: unknown = this.node.tryGetContext(PGWIRE_TLS_SECRET_ARN_CONTEXT);
    const pgwireSecretArn = props.pgwire !== undefined || pgwireSecretContext === undefined ? undefined : String(pgwireSecretContext);
    const pgwireCertificateContext: unknown = this.node.tryGetContext(PGWIRE_CERTIFICATE_ARN_CONTEXT);
    const localstackMode = props.localstack ?? contextFlag(this.node.tryGetContext(LOCALSTACK_CONTEXT)) ?? false;
    const pgwireOn = props.pgwire !== undefined || pgwireFlag === true;
    new PropsValidator(scope, id)
      .check(
        dataPlaneUrl === undefined || isHttpUrl(dataPlaneUrl),
        `dataPlaneUrl (prop or context "${DATA_PLANE_URL_CONTEXT}") must be an http(s) URL, got "${dataPlaneUrl}"`,
      )
      .check(
        tokenSecretArn === undefined || secretArnRegion(tokenSecretArn) !== undefined,
        `context "${DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT}" must be the complete ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), got "${tokenSecretArn}"`,
      )
      .check(
        (props.dataPlaneTokenSecret === undefined && tokenSecretArn === undefined) || dataPlaneUrl !== undefined,
        `dataPlaneTokenSecret (prop or context "${DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT}") is the token of an external data plane: set dataPlaneUrl (prop or context "${DATA_PLANE_URL_CONTEXT}") too`,
      )
      .check(
        pgwireContext === undefined || ['true', 'false'].includes(String(pgwireContext).toLowerCase()),
        `context "${PGWIRE_CONTEXT}" must be true or false, got "${String(pgwireContext)}"`,
      )
      .check(
        pgwireCertificateContext === undefined,
        `context "${PGWIRE_CERTIFICATE_ARN_CONTEXT}" is not supported: the pgwire endpoint's tasks end TLS themselves (PostgreSQL clients send an SSLRequest before any TLS, which an NLB TLS listener cannot answer) and so need the certificate's private key, which an ACM certificate does not give them. Store the certificate chain and key as {"certificate": "<PEM>", "privateKey": "<PEM>"} in a Secrets Manager secret and pass -c ${PGWIRE_TLS_SECRET_ARN_CONTEXT}=<its complete ARN> (docs/deploy-aws.md)`,
      )
      .check(
        !pgwireOn || props.pgwire !== undefined || pgwireSecretArn !== undefined,
        `context "${PGWIRE_CONTEXT}=true" needs -c ${PGWIRE_TLS_SECRET_ARN_CONTEXT}=<complete ARN of a Secrets Manager secret holding {"certificate": "<PEM>", "privateKey": "<PEM>"}>: the endpoint serves TLS only`,
      )
      .check(
        pgwireSecretArn === undefined || isCompleteSecretArn(pgwireSecretArn),
        `context "${PGWIRE_TLS_SECRET_ARN_CONTEXT}" must be the complete ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), got "${pgwireSecretArn}"`,
      )
      .check(
        pgwireSecretArn === undefined || pgwireOn,
        `context "${PGWIRE_TLS_SECRET_ARN_CONTEXT}" is the pgwire endpoint's certificate: set -c ${PGWIRE_CONTEXT}=true too`,
      )
      .check(
        !pgwireOn || !localstackMode,
        `the pgwire endpoint (ECS Fargate, a Network Load Balancer) is not in LocalStack's free image: leave "${PGWIRE_CONTEXT}" out in LocalStack mode`,
      )
      .check(
        this.stackName.length <= MAX_STACK_NAME_LENGTH,
        `the stack name "${this.stackName}" is longer than ${MAX_STACK_NAME_LENGTH} characters: the queue names derived from it would exceed SQS's 80`,
      )
      .throwIfInvalid();
    this.localstack = localstackMode;
    const createApiGatewayCloudWatchRole =
      props.createApiGatewayCloudWatchRole ?? contextFlag(this.node.tryGetContext(API_GATEWAY_CLOUDWATCH_ROLE_CONTEXT)) ?? false;
    const names = deploymentNames(this.stackName);
    this.dataPlaneTokenSecret =
      props.dataPlaneTokenSecret ??
      (tokenSecretArn === undefined ? undefined : secretsmanager.Secret.fromSecretCompleteArn(this, 'DataPlaneTokenSecret', tokenSecretArn));
    const entries = props.entries ?? {};
    const corsContext: unknown = this.node.tryGetContext(CORS_ALLOW_ORIGINS_CONTEXT);
    // `-c corsAllowOrigins=a,b` gives a string; cdk.json may hold a list too.
    const corsAllowOrigins =
      props.corsAllowOrigins ?? splitCorsAllowOrigins(Array.isArray(corsContext) ? corsContext.join(',') : corsContext === undefined ? undefined : String(corsContext));

    this.catalog = new CatalogTable(this, 'Catalog', props.catalog);
    this.queues = new EffectQueues(this, 'EffectQueues');
    if (dataPlaneUrl === undefined) this.dataPlane = new ReferenceDataPlane(this, 'ReferenceDataPlane');
    else this.dataPlaneUrl = dataPlaneUrl;

    // Every function gets the same wiring (shared/config.ts loads and validates it once).
    const environment: Record<string, string> = { [ENV.catalogTable]: this.catalog.tableName, [ENV.secretNamePrefix]: names.secretNamePrefix };
    if (this.dataPlane) environment[ENV.dataPlaneTable] = this.dataPlane.table.tableName;
    if (this.dataPlaneUrl) environment[ENV.dataPlaneUrl] = this.dataPlaneUrl;
    // Connection probes reach public upstreams only unless `-c probeNetworks=private` (upstreams in the VPC): shared/probes/addresses.ts.
    if (this.node.tryGetContext('probeNetworks') === 'private') environment[PROBE_NETWORKS_ENV] = 'private';
    // The per-tenant admission cap (shared/router/admission.ts), the same for every function that sends effects.
    environment[ENV.perTenantInQueue] = String(EFFECT_CAPACITY.perTenantInQueue);
    for (const { definition, queue, dlq } of this.queues.all) {
      environment[ENV.queueUrl(definition.controller)] = queue.queueUrl;
      environment[ENV.dlqUrl(definition.controller)] = dlq.queueUrl;
    }

    this.router = new StreamRouter(this, 'StreamRouter', {
      catalog: this.catalog,
      queues: this.queues,
      entry: entries['stream-router'],
      environment,
    });
    this.statusEvents = new StatusEvents(this, 'StatusEvents');
    // The router alone publishes (shared/events/select.ts says why from the stream).
    this.statusEvents.grantPublish(this.router.handler.function);
    const executors = {} as Record<Controller, EffectExecutor>;
    for (const controller of CONTROLLERS) {
      executors[controller] = new EffectExecutor(this, `Executor-${controller}`, {
        controller,
        catalog: this.catalog,
        queue: this.queues.byController[controller],
        dataPlaneTable: this.dataPlane?.table,
        dataPlaneTokenSecret: this.dataPlaneTokenSecret,
        entry: entries[`executor-${controller}`],
        environment,
      });
      // After settling one of a tenant's effects, an executor sends the tenant's next admitted ones, to whichever controller's queue (shared/executor/handler.ts).
      this.queues.grantSendMessage(executors[controller].handler.function);
    }
    this.executors = executors;
    this.api = new DdlApi(this, 'DdlApi', {
      catalog: this.catalog,
      queues: this.queues,
      entry: entries['ddl-api'],
      authorizerEntry: entries.authorizer,
      environment,
      ...(corsAllowOrigins ? { corsAllowOrigins } : {}),
      gatewayAuthorizer: !this.localstack,
      createAccountCloudWatchRole: createApiGatewayCloudWatchRole,
      ...(props.authorizerCacheTtl ? { authorizerCacheTtl: props.authorizerCacheTtl } : {}),
      ...(props.passwordCache ? { passwordCache: props.passwordCache } : {}),
    });
    this.sweeper = new Sweeper(this, 'Sweeper', {
      catalog: this.catalog,
      queues: this.queues,
      dataPlaneTable: this.dataPlane?.table,
      dataPlaneTokenSecret: this.dataPlaneTokenSecret,
      entry: entries.sweeper,
      environment,
    });

    this.statusIngest = new StatusIngest(this, 'StatusIngest', {
      catalog: this.catalog,
      referenceDataPlaneTable: this.dataPlane?.table,
      entry: entries['status-ingest'],
      reporterEntry: entries['reference-reporter'],
      environment,
    });

    if (pgwireOn) {
      const options: PgwireServiceOptions = props.pgwire ?? {
        tlsSecret: secretsmanager.Secret.fromSecretCompleteArn(this, 'PgwireTlsSecret', pgwireSecretArn!),
      };
      this.pgwire = new PgwireService(this, 'Pgwire', {
        ...options,
        catalog: this.catalog,
        queues: this.queues,
        environment,
        passwordCache: Duration.seconds(this.api.passwordCacheSeconds),
        ...(entries['pgwire-server'] ? { entry: entries['pgwire-server'] } : {}),
      });
    }

    const functions: Record<string, DdlFunction> = {
      'stream-router': this.router.handler,
      'ddl-api': this.api.handler,
      ...(this.api.authorizerHandler ? { authorizer: this.api.authorizerHandler } : {}),
      'status-ingest': this.statusIngest.handler,
      ...(this.statusIngest.reporter ? { 'reference-reporter': this.statusIngest.reporter } : {}),
    };
    const deadLetterQueues: Record<string, sqs.IQueue> = {
      'stream-router-on-failure': this.router.onFailureQueue,
      'status-reports-dlq': this.statusIngest.dlq,
    };
    for (const controller of CONTROLLERS) {
      functions[`executor-${controller}`] = this.executors[controller].handler;
      deadLetterQueues[`${controller}-dlq`] = this.queues.byController[controller].dlq;
    }
    this.observability = new Observability(this, 'Observability', {
      functions,
      deadLetterQueues,
      api: this.api.api,
      sweeper: this.sweeper,
      metricsNamespace: names.metricsNamespace,
      // LocalStack's free image has no provider for AWS::CloudWatch::Dashboard.
      dashboard: !this.localstack,
    });
    if (this.pgwire) this.observability.addPgwireService('pgwire', this.pgwire);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API stage' });
    new CfnOutput(this, 'SqlEndpoint', { value: `${this.api.url}api/sql`, description: 'POST SQL here' });
    new CfnOutput(this, 'CatalogTableName', { value: this.catalog.tableName });
    if (this.dataPlane) new CfnOutput(this, 'DataPlaneTableName', { value: this.dataPlane.table.tableName });
    for (const { definition, queue, dlq } of this.queues.all) {
      new CfnOutput(this, `QueueUrl-${definition.controller}`, { value: queue.queueUrl });
      new CfnOutput(this, `DlqUrl-${definition.controller}`, { value: dlq.queueUrl });
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: this.observability.alarmTopic.topicArn });
    new CfnOutput(this, 'EventBusName', { value: this.statusEvents.bus.eventBusName, description: 'Status events (source ddl-control-plane)' });
    new CfnOutput(this, 'StatusAlertTopicArn', { value: this.statusEvents.alertTopic.topicArn, description: 'Connectors gone stalled or failed, failed effects' });
    new CfnOutput(this, 'SweeperFunctionName', {
      value: this.sweeper.handler.function.functionName,
      description: 'Invoke it to sweep now instead of waiting for the schedule',
    });
    if (this.observability.dashboard) new CfnOutput(this, 'DashboardName', { value: this.observability.dashboard.dashboardName });
    if (this.pgwire) {
      new CfnOutput(this, 'PgwireEndpoint', { value: this.pgwire.endpoint, description: 'Postgres wire endpoint (port 6875, TLS only): the NLB\'s DNS name' });
      new CfnOutput(this, 'PgwireUrl', {
        value: `postgres://materialize@${this.pgwire.endpoint}:${PGWIRE_DEFAULTS.port}/materialize?sslmode=require`,
        description: 'psql "$PgwireUrl" with PGPASSWORD=<app password>; verify-full needs a DNS name of the certificate pointing at the NLB',
      });
    }
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
