import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import type { Controller } from '../../shared/definitions';
import type { CatalogTable } from './catalog-table';
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import type { EffectQueue } from './effect-queues';
import { PropsValidator } from './props-validation';
import type { DataPlaneTable } from './reference-data-plane';

/** Every secret the secrets controller manages is named under this prefix. */
export const SECRET_NAME_PREFIX = 'ddl-control-plane/';

/** What the secrets controller does to a secret: create, rotate the value, delete, look up. */
export const SECRET_STORE_ACTIONS = [
  'secretsmanager:CreateSecret',
  'secretsmanager:PutSecretValue',
  'secretsmanager:DeleteSecret',
  'secretsmanager:DescribeSecret',
] as const;

export interface EffectExecutorProps {
  /** The controller whose effects this executor applies. */
  readonly controller: Controller;
  /** The catalog: the executor reads the desired state and marks effects applied. */
  readonly catalog: CatalogTable;
  /** The controller's queue pair. */
  readonly queue: EffectQueue;
  /**
   * The reference data plane's table, when the reference data plane is deployed.
   * @default - none: the executor talks to an external data plane over HTTP (`DATAPLANE_URL`)
   */
  readonly dataPlaneTable?: DataPlaneTable;
  /**
   * The executor's entry file.
   * @default functions/executor-<controller>/handler.ts
   */
  readonly entry?: string;
  /**
   * Environment of the function (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * Messages per invocation (a FIFO queue allows at most 10).
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * Most concurrent invocations the queue's event source starts (2 to 1000). Bounds the load
   * the executors put on the data plane.
   * @default 5
   */
  readonly maxConcurrency?: number;
  /**
   * Function timeout; at most the queue's visibility timeout, or SQS would hand a message
   * still in progress to a second invocation.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * Function memory in MB.
   * @default 256
   */
  readonly memorySize?: number;
}

/**
 * The effect executor of one controller: a Lambda fed by the controller's FIFO queue with
 * partial batch responses, allowed to read and write the catalog and the reference data plane
 * (and, for the secrets controller, the secrets it owns) and nothing else.
 */
export class EffectExecutor extends Construct {
  /** The controller this executor serves. */
  readonly controller: Controller;
  /** The executor Lambda. */
  readonly handler: DdlFunction;
  /** The SQS event source on the controller's queue. */
  readonly eventSource: sources.SqsEventSource;

  constructor(scope: Construct, id: string, props: EffectExecutorProps) {
    super(scope, id);
    const visibility = Duration.seconds(props.queue.definition.visibilityTimeoutSeconds);
    new PropsValidator(scope, id)
      .check(
        props.queue.definition.controller === props.controller,
        `queue is ${props.queue.definition.controller}'s, not ${props.controller}'s`,
      )
      .integerInRange('batchSize', props.batchSize, 1, 10)
      .integerInRange('maxConcurrency', props.maxConcurrency, 2, 1_000)
      .durationInRange('timeout', props.timeout, Duration.seconds(1), visibility)
      .throwIfInvalid();

    this.controller = props.controller;
    this.handler = new DdlFunction(this, 'Executor', {
      entry: props.entry ?? functionEntry(`executor-${props.controller}`),
      description: `Applies ${props.controller} effects to the data plane`,
      timeout: props.timeout ?? Duration.seconds(10),
      memorySize: props.memorySize,
      environment: props.environment,
    });
    const fn = this.handler.function;

    // Grants ReceiveMessage, DeleteMessage, ChangeMessageVisibility, GetQueueAttributes and
    // GetQueueUrl on this queue only (and key use when the queue has a customer managed key).
    this.eventSource = new sources.SqsEventSource(props.queue.queue, {
      batchSize: props.batchSize ?? 10,
      maxConcurrency: props.maxConcurrency ?? 5,
      reportBatchItemFailures: true,
    });
    fn.addEventSource(this.eventSource);

    props.catalog.grantItemReadWrite(fn);
    props.dataPlaneTable?.grantItemReadWrite(fn);

    if (props.controller === 'secrets') {
      const secrets = new iam.Policy(this, 'SecretStore', {
        roles: [this.handler.role],
        statements: [
          new iam.PolicyStatement({
            actions: [...SECRET_STORE_ACTIONS],
            resources: [
              Stack.of(this).formatArn({
                service: 'secretsmanager',
                resource: 'secret',
                resourceName: `${SECRET_NAME_PREFIX}*`,
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            ],
          }),
        ],
      });
      Validations.of(secrets).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:ddl-control-plane/*]',
        reason:
          'The secrets controller creates and deletes secrets named after catalog objects, so their names are not known at deploy time; access is confined to the ddl-control-plane/ name prefix (the trailing * also covers the random suffix Secrets Manager appends to every secret ARN).',
      });
    }
  }
}
