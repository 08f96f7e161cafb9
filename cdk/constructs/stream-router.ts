import { Duration, Validations } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAM_MAPPING } from '../../shared/definitions';
import { ROUTER_FILTER_PATTERNS } from '../../shared/router/routing';
import type { CatalogTable } from './catalog-table';
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import type { EffectQueues } from './effect-queues';
import { PropsValidator } from './props-validation';

export interface StreamRouterProps {
  /** The catalog whose stream carries the outbox. */
  readonly catalog: CatalogTable;
  /** The queues the router sends effects to. */
  readonly queues: EffectQueues;
  /**
   * The router's entry file.
   * @default functions/stream-router/handler.ts
   */
  readonly entry?: string;
  /**
   * Environment of the function (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * Records per invocation.
   * @default STREAM_MAPPING.batchSize (100)
   */
  readonly batchSize?: number;
  /**
   * Age past which a record goes to the on-failure queue instead of being retried (see
   * STREAM_MAPPING in shared/definitions.ts for why giving up loses nothing).
   * @default Duration.seconds(STREAM_MAPPING.maxRecordAgeSeconds) (one hour)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Retries of a failed batch (after bisecting) before it goes to the on-failure queue.
   * @default STREAM_MAPPING.retryAttempts (RETRY_POLICIES['router.stream'].budget)
   */
  readonly retryAttempts?: number;
  /**
   * Customer managed KMS key of the on-failure queue.
   * @default - SQS managed server-side encryption (SSE-SQS)
   */
  readonly encryptionKey?: kms.IKey;
}

/** The router's item calls on the catalog: admission (shared/router/admission.ts), nothing else. */
export const ROUTER_CATALOG_ACTIONS = ['dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem'] as const;

/**
 * The stream router: a Lambda on the catalog's stream that turns each inserted outbox effect
 * record into a message on its controller's FIFO queue. The stream mapping carries the safe
 * defaults in one place: bisect on error, partial batch responses, a bounded record age and
 * retry count, and an on-failure queue for what still fails.
 */
export class StreamRouter extends Construct {
  /** The router Lambda. */
  readonly handler: DdlFunction;
  /** Where the mapping sends the metadata of batches it gave up on. */
  readonly onFailureQueue: sqs.Queue;
  /** The event source mapping on the catalog's stream. */
  readonly eventSource: sources.DynamoEventSource;

  constructor(scope: Construct, id: string, props: StreamRouterProps) {
    super(scope, id);
    // Limits: https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
    new PropsValidator(scope, id)
      .integerInRange('batchSize', props.batchSize, 1, 10_000)
      .integerInRange('retryAttempts', props.retryAttempts, 0, 10_000)
      .durationInRange('maxRecordAge', props.maxRecordAge, Duration.minutes(1), Duration.days(7))
      .throwIfInvalid();

    this.handler = new DdlFunction(this, 'Router', {
      entry: props.entry ?? functionEntry('stream-router'),
      description: 'Routes outbox effect records from the catalog stream to the controller queues; publishes status events',
      timeout: Duration.seconds(30),
      environment: props.environment,
    });

    this.onFailureQueue = new sqs.Queue(this, 'OnFailure', {
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      ...(props.encryptionKey
        ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.encryptionKey }
        : { encryption: sqs.QueueEncryption.SQS_MANAGED }),
    });
    Validations.of(this.onFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself the dead-letter destination of the catalog stream's event source mapping (its on-failure destination); a DLQ of a DLQ would only move the same records one hop further.",
    });

    this.eventSource = new sources.DynamoEventSource(props.catalog.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      // The local runtime's deployed profile runs the same STREAM_MAPPING (local/profiles.ts).
      batchSize: props.batchSize ?? STREAM_MAPPING.batchSize,
      bisectBatchOnError: STREAM_MAPPING.bisectBatchOnError,
      reportBatchItemFailures: true,
      maxRecordAge: props.maxRecordAge ?? Duration.seconds(STREAM_MAPPING.maxRecordAgeSeconds),
      retryAttempts: props.retryAttempts ?? STREAM_MAPPING.retryAttempts,
      onFailure: new sources.SqsDlq(this.onFailureQueue),
      // Only new outbox records and status events (a new history row, an effect gone failed)
      // reach the Lambda; every other catalog write stays out. The same patterns as
      // ROUTER_FILTER_PATTERNS (shared/router/routing.ts), which the local runtime applies; a
      // test pins the two together.
      filters: ROUTER_FILTER_PATTERNS.map((p) => ({ pattern: JSON.stringify(p) })),
    });
    this.handler.function.addEventSource(this.eventSource);

    // shared/router/handler.ts: SendMessageBatch to the controllers' queues (URLs from its environment).
    props.queues.grantSendMessage(this.handler.function);
    // shared/router/admission.ts: an effect is sent once admitted, a TransactWriteItems of a
    // ConditionCheck on the effect record and an Update of its tenant's admission item.
    props.catalog.grantTableActions(this.handler.function, ROUTER_CATALOG_ACTIONS, true);
  }
}
