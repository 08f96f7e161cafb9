import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CORS_ALLOW_HEADERS, CORS_MAX_AGE_SECONDS, CORS_PREFLIGHT_ROUTES } from '../../shared/api/cors';
import { authPk } from '../../shared/catalog/keys';
import { CORS_ALLOW_ORIGINS_ENV, corsAllowOriginsProblems } from '../../shared/config';
import { DEPLOYMENT_DEFAULTS, deploymentNames, ENV, revocationDelaySeconds } from '../../shared/definitions';
import { MAX_BODY_BYTES } from '../../shared/api/sql-api';
import { SQLSTATE } from '../../shared/errors';
import type { CatalogTable } from './catalog-table';
import type { EffectQueues } from './effect-queues';
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import { PropsValidator } from './props-validation';
import { grantSecretStore, type SecretStoreMethod } from './secret-store';

/**
 * The DDL Lambda's catalog calls beyond item reads and writes, on the table only: a staged commit
 * (shared/catalog/staged.ts, for a change over DynamoDB's 100 items per transaction) validates
 * what the plan read with `BatchGetItem` and writes its stage records, rolls forward and cleans
 * up with `BatchWriteItem`. Each is an IAM action of its own (not covered by GetItem/PutItem).
 */
export const DDL_BATCH_ACTIONS = ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'] as const;

/**
 * The secret store methods the DDL Lambda calls: `put` writes a secret's value before the commit
 * that references it (shared/api/secret-writes.ts); `get` reads the committed secrets a connection
 * refers to (shared/api/purify.ts), to check the connection against its upstream before commit (purification,
 * `resolveConnection` in shared/catalog/connections.ts).
 */
export const DDL_SECRET_STORE_METHODS: readonly SecretStoreMethod[] = ['put', 'get'];

/** SQLSTATE 08P01 protocol_violation: the request itself is malformed (not in SQLSTATE yet). */
const SQLSTATE_PROTOCOL_VIOLATION = '08P01';

/**
 * The JSON schema API Gateway checks a `POST /api/sql` body against before any Lambda runs:
 * exactly one of the simple form `{"query": "stmt; stmt;"}` or the extended form
 * `{"queries": [{"query": "...", "params": [...]}]}` (DESIGN.md, "SQL over HTTP"), with no other
 * properties: the same shape the DDL Lambda's own check accepts (shared/api/request.ts).
 */
export const SQL_REQUEST_SCHEMA: apigw.JsonSchema = {
  schema: apigw.JsonSchemaVersion.DRAFT4,
  title: 'SqlRequest',
  type: apigw.JsonSchemaType.OBJECT,
  oneOf: [
    {
      type: apigw.JsonSchemaType.OBJECT,
      required: ['query'],
      additionalProperties: false,
      properties: { query: { type: apigw.JsonSchemaType.STRING } },
    },
    {
      type: apigw.JsonSchemaType.OBJECT,
      required: ['queries'],
      additionalProperties: false,
      properties: {
        queries: {
          type: apigw.JsonSchemaType.ARRAY,
          items: {
            type: apigw.JsonSchemaType.OBJECT,
            required: ['query'],
            additionalProperties: false,
            properties: {
              query: { type: apigw.JsonSchemaType.STRING },
              params: {
                type: apigw.JsonSchemaType.ARRAY,
                items: { type: [apigw.JsonSchemaType.STRING, apigw.JsonSchemaType.NULL] },
              },
            },
          },
        },
      },
    },
  ],
};

/**
 * What API Gateway answers by itself (before or instead of the DDL Lambda), in the API's error
 * shape `{"error": {"message", "code"}}` with a SQLSTATE, matching what the Lambda and the local
 * runtime answer in the same situations (shared/api/handlers.ts, shared/api/sql-api.ts).
 */
export const GATEWAY_ERROR_BODIES = {
  /** The authorizer refused the app password, or the `Authorization` header is missing. */
  unauthorized: { error: { message: 'missing or invalid app password', code: SQLSTATE.invalidPassword } },
  /** The body failed {@link SQL_REQUEST_SCHEMA}. */
  badRequestBody: {
    error: {
      message: 'request body must be {"query": "<sql>"} or {"queries": [{"query": "<sql>", "params": [...]}]}',
      code: SQLSTATE_PROTOCOL_VIOLATION,
    },
  },
  /**
   * A body over the DDL function's limit: the function's own 413 (shared/api/request.ts
   * `readRequest`) up to Lambda's 6 MB invoke payload, and this same body from the gateway above
   * it (API Gateway's REQUEST_TOO_LARGE: the invoke was refused, or the body passed 10 MB).
   */
  bodyTooLarge: { error: { message: `request body exceeds ${MAX_BODY_BYTES} bytes`, code: SQLSTATE.programLimitExceeded } },
  /** No such route (API Gateway's own answer is a misleading 403 "Missing Authentication Token"). */
  noRoute: { error: { message: 'no route for this method and path', code: SQLSTATE_PROTOCOL_VIOLATION } },
  /** Anything 5xx API Gateway produces itself (integration timeout, ...): no details leak. */
  serverError: { error: { message: 'internal error', code: SQLSTATE.internalError } },
} as const;

export interface DdlApiProps {
  /** The catalog the DDL Lambda commits to and the authorizer reads app-password hashes from. */
  readonly catalog: CatalogTable;
  /**
   * The effect queues the DDL Lambda sends committed effects to (the fast path,
   * shared/router/fast-path.ts; the queue URLs come from its environment).
   * @default - none: effects reach their queues through the stream router alone
   */
  readonly queues?: EffectQueues;
  /**
   * The DDL Lambda's entry file.
   * @default functions/ddl-api/handler.ts
   */
  readonly entry?: string;
  /**
   * The authorizer's entry file.
   * @default functions/authorizer/handler.ts
   */
  readonly authorizerEntry?: string;
  /**
   * Environment of both functions (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * The stage, the first path segment of every URL.
   * @default 'v1'
   */
  readonly stageName?: string;
  /**
   * Steady-state requests per second across the stage.
   * @default 50
   */
  readonly throttlingRateLimit?: number;
  /**
   * Burst of requests across the stage.
   * @default 100
   */
  readonly throttlingBurstLimit?: number;
  /**
   * How long API Gateway caches an authorizer decision per `Authorization` header (0 to 1 hour).
   * It adds to {@link DdlApiProps.passwordCache}: a revoked app password keeps working for up to
   * both together (`revocationDelaySeconds`), so zero here alone does not revoke on the next request.
   * @default Duration.seconds(0) (DEPLOYMENT_DEFAULTS.authorizerCacheTtlSeconds)
   */
  readonly authorizerCacheTtl?: Duration;
  /**
   * How long a warm authorizer instance keeps a password record it found (`PASSWORD_CACHE_SECONDS`,
   * 0 to 1 hour; 0 reads the record on every request). Each instance has its own cache, so a revoked
   * password can keep working this long (plus {@link DdlApiProps.authorizerCacheTtl}).
   * @default Duration.seconds(60) (DEPLOYMENT_DEFAULTS.passwordCacheSeconds)
   */
  readonly passwordCache?: Duration;
  /**
   * Execution logging of the stage. Turning it on requires the account-wide API Gateway
   * CloudWatch role (`AWS::ApiGateway::Account`): see {@link DdlApiProps.createAccountCloudWatchRole}.
   * @default apigw.MethodLoggingLevel.OFF
   */
  readonly executionLogLevel?: apigw.MethodLoggingLevel;
  /**
   * Create the account's API Gateway CloudWatch role (`AWS::ApiGateway::Account`, a setting per
   * account and region) with this stack. API Gateway refuses a stage with access logging (and
   * execution logging) until the account has one. Opt-in: where it is set already (check with
   * `aws apigateway get-account`: `cloudwatchRoleArn`), leave it off; the role and the setting
   * are kept when the stack is deleted, as other APIs of the account may rely on them.
   * @default false
   */
  readonly createAccountCloudWatchRole?: boolean;
  /**
   * Leave out the REQUEST authorizer (LocalStack's free image has no CloudFormation provider for
   * `AWS::ApiGateway::Authorizer`): the DDL function then checks the app password itself
   * (`AUTHENTICATE_IN_FUNCTION`), with the same password cache, and answers 401 with the API's body.
   * @default true
   */
  readonly gatewayAuthorizer?: boolean;
  /**
   * Retention of the access log group.
   * @default logs.RetentionDays.THREE_MONTHS
   */
  readonly accessLogRetention?: logs.RetentionDays;
  /**
   * Origins whose browser pages may call the API (CORS): exact origins as browsers send them
   * (`https://console.example.com`), or `['*']` for any. Adds an `OPTIONS` method without
   * authorizer to `/api/sql` and `/api/health` (API Gateway's CORS preflight support), gives the
   * DDL Lambda `CORS_ALLOW_ORIGINS`, and puts `Access-Control-Allow-Origin` on the gateway
   * responses (see {@link gatewayResponseCorsHeaders}).
   * @default - none: no CORS headers, no OPTIONS methods
   */
  readonly corsAllowOrigins?: readonly string[];
}

/**
 * The CORS headers of API Gateway's own answers (401, 400 bad body, 404, other 4xx, 5xx), which no
 * Lambda runs for. A gateway response cannot test the request's origin: its header is a static
 * value or a copy of a request header. So one origin (or `*`) is sent as is, and with several the
 * request's `Origin` is echoed: every allowed page can then read a 401, and so can any other page,
 * which only learns the fixed error body it could fetch with curl (no cookies, no tenant data).
 * The Lambda's answers, the only ones with data, name only an allowed origin.
 */
export function gatewayResponseCorsHeaders(origins: readonly string[]): Record<string, string> {
  if (origins.length === 1 && origins[0] === '*') return { 'Access-Control-Allow-Origin': "'*'" };
  const allowOrigin = origins.length === 1 ? `'${origins[0]}'` : 'method.request.header.Origin';
  return { 'Access-Control-Allow-Origin': allowOrigin, Vary: "'Origin'" };
}

const STAGE_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The SQL-over-HTTP front door: a REST API with `POST /api/sql` (behind a Lambda REQUEST
 * authorizer checking app passwords, with the body validated against
 * {@link SQL_REQUEST_SCHEMA}) and an unauthenticated `GET /api/health`, both served by the DDL
 * Lambda. The stage is throttled, traced with X-Ray and writes JSON access logs.
 */
export class DdlApi extends Construct {
  /** The REST API. */
  readonly api: apigw.RestApi;
  /** The DDL Lambda behind both routes. */
  readonly handler: DdlFunction;
  /** The app-password authorizer Lambda (absent without the gateway authorizer). */
  readonly authorizerHandler?: DdlFunction;
  /** The REQUEST authorizer on `POST /api/sql` (absent without the gateway authorizer). */
  readonly authorizer?: apigw.RequestAuthorizer;
  /** Seconds API Gateway caches an authorizer decision (0 without the gateway authorizer). */
  readonly authorizerCacheTtlSeconds: number;
  /** Seconds a warm function keeps a found password record (`PASSWORD_CACHE_SECONDS`). */
  readonly passwordCacheSeconds: number;
  /** `POST /api/sql`. */
  readonly sqlMethod: apigw.Method;
  /** `GET /api/health`. */
  readonly healthMethod: apigw.Method;
  /** The stage's access log group. */
  readonly accessLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: DdlApiProps) {
    super(scope, id);
    const rate = props.throttlingRateLimit ?? 50;
    const burst = props.throttlingBurstLimit ?? 100;
    const propsCheck = new PropsValidator(scope, id)
      .check(
        props.stageName === undefined || STAGE_NAME.test(props.stageName),
        `stageName must match ${STAGE_NAME}, got ${props.stageName}`,
      )
      .check(rate > 0, `throttlingRateLimit must be positive, got ${rate}`)
      .integerInRange('throttlingBurstLimit', burst, 0, 5_000)
      .durationInRange('authorizerCacheTtl', props.authorizerCacheTtl, Duration.seconds(0), Duration.hours(1))
      .durationInRange('passwordCache', props.passwordCache, Duration.seconds(0), Duration.hours(1))
      .check(
        props.passwordCache === undefined || Number.isInteger(props.passwordCache.toSeconds()),
        `passwordCache must be a whole number of seconds, got ${props.passwordCache?.toHumanString()}`,
      )
      .check(
        props.gatewayAuthorizer !== false || props.authorizerCacheTtl === undefined,
        'authorizerCacheTtl is the API Gateway authorizer\'s: without the gateway authorizer (gatewayAuthorizer: false) it has no effect',
      )
      .check(props.corsAllowOrigins?.length !== 0, 'corsAllowOrigins must name at least one origin; leave it out for no CORS');
    const corsOrigins = props.corsAllowOrigins?.length ? props.corsAllowOrigins : undefined;
    const gatewayAuthorizer = props.gatewayAuthorizer ?? true;
    this.authorizerCacheTtlSeconds = gatewayAuthorizer ? (props.authorizerCacheTtl?.toSeconds() ?? DEPLOYMENT_DEFAULTS.authorizerCacheTtlSeconds) : 0;
    this.passwordCacheSeconds = props.passwordCache?.toSeconds() ?? DEPLOYMENT_DEFAULTS.passwordCacheSeconds;
    // Whichever function checks app passwords gets the same cache setting.
    const authEnvironment = { [ENV.passwordCacheSeconds]: String(this.passwordCacheSeconds) };
    for (const problem of corsOrigins ? corsAllowOriginsProblems(corsOrigins) : []) propsCheck.check(false, `corsAllowOrigins: ${problem}`);
    propsCheck.throwIfInvalid();

    // Parse, plan and one TransactWriteItems: API Gateway gives up after 29 s.
    this.handler = new DdlFunction(this, 'Ddl', {
      entry: props.entry ?? functionEntry('ddl-api'),
      description: 'SQL over HTTP: parses, plans and commits DDL with its outbox effects',
      memorySize: 512,
      timeout: Duration.seconds(25),
      // Only this Lambda answers with CORS headers; the authorizer's refusals are gateway responses.
      environment: {
        ...props.environment,
        ...(corsOrigins ? { [CORS_ALLOW_ORIGINS_ENV]: corsOrigins.join(',') } : {}),
        ...(gatewayAuthorizer ? {} : { ...authEnvironment, [ENV.authenticateInFunction]: 'true' }),
      },
      // The SQL parser library that reads view bodies (shared/sql/view-deps.ts) is most of the
      // bundle and serves only CREATE [MATERIALIZED] VIEW and EXPLAIN; shared/api/planning.ts imports it
      // dynamically, so it becomes a chunk and stays out of every cold start.
      splitChunks: true,
    });
    grantSqlApi(this.handler, this.handler.role, props.catalog, props.queues);
    if (gatewayAuthorizer) {
      // One GetItem and a SHA-256 comparison (app passwords are random tokens, not user-chosen).
      this.authorizerHandler = new DdlFunction(this, 'Authorizer', {
        entry: props.authorizerEntry ?? functionEntry('authorizer'),
        description: 'Checks app passwords (HTTP Basic or Bearer) against the tenant catalog',
        timeout: Duration.seconds(10),
        environment: { ...props.environment, ...authEnvironment },
      });
      grantAuthorizerRead(props.catalog, this.authorizerHandler.role);
    }

    const createCloudWatchRole = props.createAccountCloudWatchRole ?? false;
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? logs.RetentionDays.THREE_MONTHS,
    });
    const executionLogLevel = props.executionLogLevel ?? apigw.MethodLoggingLevel.OFF;
    this.api = new apigw.RestApi(this, 'Api', {
      restApiName: deploymentNames(Stack.of(this).stackName).apiName,
      description: 'DDL control plane: SQL over HTTP',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      // The account's CloudWatch role is a setting per account and region, shared with every other
      // API there: created only when asked, and never deleted with this stack.
      cloudWatchRole: createCloudWatchRole,
      ...(createCloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: props.stageName ?? 'v1',
        tracingEnabled: true,
        throttlingRateLimit: rate,
        throttlingBurstLimit: burst,
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: executionLogLevel,
        metricsEnabled: true,
      },
    });

    if (this.authorizerHandler) {
      this.authorizer = new apigw.RequestAuthorizer(this, 'AppPasswordAuthorizer', {
        handler: this.authorizerHandler.function,
        identitySources: [apigw.IdentitySource.header('Authorization')],
        resultsCacheTtl: Duration.seconds(this.authorizerCacheTtlSeconds),
      });
    }
    if (createCloudWatchRole && this.api.node.tryFindChild('CloudWatchRole')) {
      Validations.of(this.api.node.findChild('CloudWatchRole')).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-wide API Gateway CloudWatch role (opt-in: createAccountCloudWatchRole) is the role AWS documents for it, with the AWS managed policy that lets API Gateway write the logs of every API of the account and region.',
      });
    }

    const validator = this.api.addRequestValidator('SqlRequestValidator', {
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    const model = this.api.addModel('SqlRequest', {
      contentType: 'application/json',
      schema: SQL_REQUEST_SCHEMA,
    });
    // The validator's own text ($context.error.validationErrorString) is left out of the bad-body
    // answer: it can contain unescaped quotes, which would break the JSON.
    const gatewayResponses: [string, apigw.ResponseType, string | undefined, object][] = [
      ['Unauthorized', apigw.ResponseType.UNAUTHORIZED, '401', GATEWAY_ERROR_BODIES.unauthorized],
      ['BadRequestBody', apigw.ResponseType.BAD_REQUEST_BODY, '400', GATEWAY_ERROR_BODIES.badRequestBody],
      ['BodyTooLarge', apigw.ResponseType.REQUEST_TOO_LARGE, '413', GATEWAY_ERROR_BODIES.bodyTooLarge],
      ['NoRoute', apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, '404', GATEWAY_ERROR_BODIES.noRoute],
      ['Default5xx', apigw.ResponseType.DEFAULT_5XX, undefined, GATEWAY_ERROR_BODIES.serverError],
    ];
    const corsHeaders = corsOrigins ? gatewayResponseCorsHeaders(corsOrigins) : undefined;
    for (const [responseId, type, statusCode, body] of gatewayResponses) {
      this.api.addGatewayResponse(responseId, {
        type,
        statusCode,
        templates: { 'application/json': JSON.stringify(body) },
        responseHeaders: corsHeaders,
      });
    }
    // Every other 4xx API Gateway answers itself (throttling 429, 403s, 413, ...) keeps its own
    // body; with CORS, a page must be able to read it too.
    if (corsHeaders) this.api.addGatewayResponse('Default4xx', { type: apigw.ResponseType.DEFAULT_4XX, responseHeaders: corsHeaders });

    const integration = new apigw.LambdaIntegration(this.handler.function, { allowTestInvoke: false });
    const root = this.api.root.addResource('api');
    // API Gateway's CORS support: a mock OPTIONS method per resource, with no authorizer (browsers
    // send no credentials on a preflight), answering 204 with the same headers as local/http-server.ts.
    // cdk-nag's APIG4 and COG4 recognise such a preflight method: nothing to acknowledge.
    const preflight = (path: string): apigw.ResourceOptions =>
      corsOrigins
        ? {
            defaultCorsPreflightOptions: {
              allowOrigins: [...corsOrigins],
              allowMethods: [...CORS_PREFLIGHT_ROUTES[path]!],
              allowHeaders: [...CORS_ALLOW_HEADERS],
              maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
            },
          }
        : {};
    const sqlResource = root.addResource('sql', preflight('/api/sql'));
    const healthResource = root.addResource('health', preflight('/api/health'));
    this.sqlMethod = sqlResource.addMethod('POST', integration, {
      ...(this.authorizer
        ? { authorizationType: apigw.AuthorizationType.CUSTOM, authorizer: this.authorizer }
        : { authorizationType: apigw.AuthorizationType.NONE }),
      requestValidator: validator,
      requestModels: { 'application/json': model },
    });
    if (!this.authorizer) {
      Validations.of(this.sqlMethod).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'LocalStack mode (gatewayAuthorizer: false): LocalStack\'s free image cannot create the REQUEST authorizer, so the DDL function checks the app password itself (AUTHENTICATE_IN_FUNCTION) and answers 401 before reading the body.',
      });
    }
    this.healthMethod = healthResource.addMethod('GET', integration, {
      authorizationType: apigw.AuthorizationType.NONE,
    });

    Validations.of(this.sqlMethod).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Tenants authenticate with app passwords (HTTP Basic or Bearer) checked by a Lambda REQUEST authorizer; the same check runs in the local runtime, so there is no Cognito user pool.',
    });
    Validations.of(this.healthMethod).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'GET /api/health is the unauthenticated health check for load balancers and uptime probes; it reveals no tenant data.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'GET /api/health is the unauthenticated health check: no authorizer of any kind.',
      },
    );
    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No WAF web ACL: every request is throttled at the stage and authenticated by the app-password authorizer, and WAF is not available in the LocalStack tier this app also deploys to.',
    });
    if (executionLogLevel === apigw.MethodLoggingLevel.OFF) {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG6',
        reason:
          'Execution logging is off by default: JSON access logs and X-Ray tracing record every request, and execution logs would repeat them at a cost. Set executionLogLevel to turn it on (it needs the account-wide API Gateway CloudWatch role, like access logging).',
      });
    }
  }

  /** The longest a revoked app password can keep working, in seconds (`revocationDelaySeconds`). */
  get revocationDelaySeconds(): number {
    return revocationDelaySeconds(this.authorizerCacheTtlSeconds, this.passwordCacheSeconds);
  }

  /** The URL of the stage, ending in `/`. */
  get url(): string {
    return this.api.url;
  }
}

/**
 * The authorizer's catalog access: GetItem of app-password records only (AppPasswords.verify
 * reads `pk = AUTH#<token id>`, `sk = AUTH`), held to those items by a `dynamodb:LeadingKeys`
 * condition. The rest of the catalog (every tenant's objects, statuses, effects) stays out of reach.
 */
export function grantAuthorizerRead(catalog: CatalogTable, role: iam.IRole): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:GetItem'],
      resources: [catalog.tableArn],
      // A GetItem always names its partition key, so "for all values" never passes on an empty set.
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [AUTHORIZER_LEADING_KEYS] } },
    }),
  );
  catalog.encryptionKey?.grant(role, 'kms:Decrypt', 'kms:DescribeKey');
}

/**
 * What the SQL API (`SqlApi`, shared/api/sql-api.ts) needs in AWS, wherever it runs: the DDL Lambda
 * and the Postgres wire endpoint's Fargate task (cdk/constructs/pgwire-service.ts) get exactly
 * this, from here. Item reads and writes on the catalog (a commit is one TransactWriteItems,
 * authorized item by item; app-password records and SCRAM verifiers are catalog items too), the
 * staged commit's batches ({@link DDL_BATCH_ACTIONS}), the secret store methods
 * {@link DDL_SECRET_STORE_METHODS} (policies under `scope`) and, with queues, the fast path:
 * SendMessageBatch to the effect queues right after a commit.
 */
export function grantSqlApi(scope: Construct, role: iam.IRole, catalog: CatalogTable, queues?: EffectQueues): void {
  catalog.grantItemReadWrite(role);
  catalog.grantTableActions(role, DDL_BATCH_ACTIONS, true);
  grantSecretStore(scope, role, DDL_SECRET_STORE_METHODS);
  queues?.grantSendMessage(role);
}

/** The partition keys the authorizer may read: app-password records (`AUTH#<token id>`). */
export const AUTHORIZER_LEADING_KEYS = `${authPk('')}*`;
