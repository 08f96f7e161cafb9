import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type Controller, CONTROLLERS, deploymentNames, EFFECT_QUEUES, type QueueDefinition } from '../../shared/definitions';
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
  /**
   * What CloudFormation does with the DLQs when they leave the stack (`cdk destroy` included):
   * the dead letters are effects the system gave up on, kept for inspection and redrive.
   * @default RemovalPolicy.RETAIN
   */
  readonly dlqRemovalPolicy?: RemovalPolicy;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,75}\.fifo$/; // 80 characters including the `.fifo` suffix

/**
 * A FIFO queue and a FIFO DLQ per controller, built from `EFFECT_QUEUES` (the definitions the
 * local runtime creates its emulator queues from). The redrive budget is the controller's retry
 * policy budget (`RETRY_POLICIES['executor.<controller>'].budget`). The names are the stack's own
 * (`deploymentNames`): a second stack in the same account and region gets queues of its own
 * instead of failing on "already exists" or, worse, consuming the first one's effects.
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
    const names = deploymentNames(Stack.of(this).stackName);
    for (const d of EFFECT_QUEUES) {
      const [queueName, dlqName] = [names.queueName(d.controller), names.dlqName(d.controller)];
      v.check(QUEUE_NAME.test(queueName), `queue name ${queueName} (from the stack name) must match ${QUEUE_NAME}: use a shorter stack name`)
        .check(QUEUE_NAME.test(dlqName), `DLQ name ${dlqName} (from the stack name) must match ${QUEUE_NAME}: use a shorter stack name`)
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
        queueName: names.dlqName(definition.controller),
        retentionPeriod: props.dlqRetention ?? Duration.days(14),
        removalPolicy: props.dlqRemovalPolicy ?? RemovalPolicy.RETAIN,
      });
      const queue = new sqs.Queue(this, definition.controller, {
        ...fifo,
        queueName: names.queueName(definition.controller),
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
