import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type Controller, CONTROLLERS, EFFECT_QUEUES, type QueueDefinition } from '../../shared/definitions';
import { PropsValidator } from './props-validation';

/**
 * KMS actions an SQS producer needs on a queue encrypted with a customer managed key.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html
 */
export const QUEUE_KEY_SEND_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** One controller's queue pair. */
export interface EffectQueue {
  /** The shared definition the pair was built from. */
  readonly definition: QueueDefinition;
  /** The FIFO queue the router sends the controller's effects to. */
  readonly queue: sqs.Queue;
  /** The FIFO dead-letter queue a message reaches after `maxReceiveCount` receives. */
  readonly dlq: sqs.Queue;
}

export interface EffectQueuesProps {
  /**
   * Customer managed KMS key for the queues and DLQs.
   * @default - SQS managed server-side encryption (SSE-SQS)
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * How long a DLQ keeps a message: long enough to be inspected and redriven after a weekend.
   * @default Duration.days(14) (the SQS maximum)
   */
  readonly dlqRetention?: Duration;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}$/; // 80 characters including the `.fifo` suffix

/**
 * A FIFO queue and a FIFO DLQ per controller, built from `EFFECT_QUEUES` (the definitions the
 * local runtime creates its emulator queues from). The redrive budget is the controller's retry
 * policy budget (`RETRY_POLICIES['executor.<controller>'].budget`).
 */
export class EffectQueues extends Construct {
  /** The queue pair of each controller. */
  readonly byController: Readonly<Record<Controller, EffectQueue>>;

  constructor(scope: Construct, id: string, props: EffectQueuesProps = {}) {
    super(scope, id);
    const v = new PropsValidator(scope, id).durationInRange(
      'dlqRetention',
      props.dlqRetention,
      Duration.minutes(1),
      Duration.days(14),
    );
    for (const c of CONTROLLERS) {
      v.check(EFFECT_QUEUES.some((d) => d.controller === c), `EFFECT_QUEUES has no queue for controller ${c}`);
    }
    for (const d of EFFECT_QUEUES) {
      v.check(QUEUE_NAME.test(d.name), `queue name ${d.name} must match ${QUEUE_NAME}`)
        .check(QUEUE_NAME.test(d.dlqName), `DLQ name ${d.dlqName} must match ${QUEUE_NAME}`)
        .integerInRange(`${d.name}.visibilityTimeoutSeconds`, d.visibilityTimeoutSeconds, 0, 43_200)
        .integerInRange(`${d.name}.maxReceiveCount`, d.maxReceiveCount, 1, 1_000)
        .integerInRange(`${d.name}.retentionSeconds`, d.retentionSeconds, 60, 1_209_600);
    }
    v.throwIfInvalid();

    const encryption = props.encryptionKey
      ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.encryptionKey }
      : { encryption: sqs.QueueEncryption.SQS_MANAGED };

    const pairs = {} as Record<Controller, EffectQueue>;
    for (const definition of EFFECT_QUEUES) {
      const fifo = {
        fifo: true,
        // The router always sets MessageDeduplicationId to the effect id; idempotency rests on
        // that id and the object generation, never on a payload hash.
        contentBasedDeduplication: false,
        // High-throughput FIFO: quotas apply per message group (one group per object), so
        // throughput grows with the number of objects instead of capping the whole queue.
        deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
        fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
        enforceSSL: true,
        ...encryption,
      };
      const dlq = new sqs.Queue(this, `${definition.controller}-dlq`, {
        ...fifo,
        queueName: `${definition.dlqName}.fifo`,
        retentionPeriod: props.dlqRetention ?? Duration.days(14),
      });
      const queue = new sqs.Queue(this, definition.controller, {
        ...fifo,
        queueName: `${definition.name}.fifo`,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        retentionPeriod: Duration.seconds(definition.retentionSeconds),
        deadLetterQueue: { queue: dlq, maxReceiveCount: definition.maxReceiveCount },
      });
      pairs[definition.controller] = { definition, queue, dlq };
    }
    this.byController = pairs;
  }

  /**
   * `sqs:SendMessage` (which also authorizes `SendMessageBatch`) on every effect queue, and the
   * key use a customer managed key needs: what a producer needs when it has the queue URLs
   * (from its environment), without `GetQueueUrl` or `GetQueueAttributes`.
   */
  grantSendMessage(grantee: iam.IGrantable): void {
    for (const { queue } of this.all) {
      queue.grant(grantee, 'sqs:SendMessage');
      queue.encryptionMasterKey?.grant(grantee, ...QUEUE_KEY_SEND_ACTIONS);
    }
  }

  /** Every queue pair, in `CONTROLLERS` order. */
  get all(): EffectQueue[] {
    return CONTROLLERS.map((c) => this.byController[c]);
  }
}
