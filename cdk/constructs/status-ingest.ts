import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STATUS_QUEUE } from '../../shared/definitions';
import type { CatalogTable } from './catalog-table';
import { DdlFunction, type DdlFunctionProps, functionEntry } from './ddl-function';
import { PropsValidator } from './props-validation';

/**
 * The catalog calls the status-ingest function makes (shared/status/store.ts): `GetCommand` of
 * the status, a `TransactWriteCommand` putting the status and its history row (authorized as
 * `PutItem`), or an `UpdateCommand` moving the report mark of an unchanged status.
 */
export const STATUS_INGEST_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

export interface StatusIngestProps {
  /** The catalog whose connector statuses the reports move. */
  readonly catalog: CatalogTable;
  /**
   * The IAM principal (role or user ARN) the data plane sends its reports as: the only one the
   * queue accepts messages from.
   * @default - a role made here ({@link StatusIngest.reporterRole}), assumable from this account,
   *   for the data plane to send as
   */
  readonly dataPlanePrincipalArn?: string;
  /**
   * The function's entry file.
   * @default functions/status-ingest/handler.ts
   */
  readonly entry?: string;
  /**
   * Environment of the function (the control plane's wiring).
   * @default {}
   */
  readonly environment?: DdlFunctionProps['environment'];
  /**
   * Most concurrent invocations the queue's event source starts. Each report is one or two small
   * catalog writes; at the default, 10-report batches of ~50 ms give ~1 000 reports/s.
   * @default 5
   */
  readonly maxConcurrency?: number;
}

/**
 * The data plane's health reports (shared/controllers/contract.ts StatusReport): a standard SQS
 * queue with a DLQ that only the data plane's principal may send to, and the status-ingest
 * function that applies each report to its connector's status (partial batch responses: one
 * bad report does not hold back the others).
 */
export class StatusIngest extends Construct {
  readonly queue: sqs.Queue;
  readonly dlq: sqs.Queue;
  readonly handler: DdlFunction;
  /** The principal allowed to send reports. */
  readonly senderArn: string;
  /** The role made for the data plane, when no principal was given. */
  readonly reporterRole?: iam.Role;

  constructor(scope: Construct, id: string, props: StatusIngestProps) {
    super(scope, id);
    new PropsValidator(scope, id)
      .check(
        props.dataPlanePrincipalArn === undefined || /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/.test(props.dataPlanePrincipalArn),
        `dataPlanePrincipalArn must be an IAM role or user ARN (arn:aws:iam::<account>:role/<name>), got "${props.dataPlanePrincipalArn}"`,
      )
      .integerInRange('maxConcurrency', props.maxConcurrency, 2, 1_000)
      .throwIfInvalid();

    const common = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true };
    this.dlq = new sqs.Queue(this, 'Dlq', { ...common, queueName: STATUS_QUEUE.dlqName, retentionPeriod: Duration.days(14) });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...common,
      queueName: STATUS_QUEUE.name,
      visibilityTimeout: Duration.seconds(STATUS_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(STATUS_QUEUE.retentionSeconds),
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: STATUS_QUEUE.maxReceiveCount },
    });

    if (props.dataPlanePrincipalArn) {
      this.senderArn = props.dataPlanePrincipalArn;
    } else {
      this.reporterRole = new iam.Role(this, 'ReporterRole', {
        assumedBy: new iam.AccountRootPrincipal(),
        description: 'The data plane sends connector status reports to the status queue as this role',
      });
      this.senderArn = this.reporterRole.roleArn;
    }
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({ sid: 'DataPlaneSends', principals: [new iam.ArnPrincipal(this.senderArn)], actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    // An identity policy elsewhere in the account must not open the queue to anyone else: a
    // forged report could mark any connector running.
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyTheDataPlaneSends',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': this.senderArn } },
      }),
    );

    this.handler = new DdlFunction(this, 'StatusIngest', {
      entry: props.entry ?? functionEntry('status-ingest'),
      description: "Applies the data plane's connector status reports to the catalog",
      timeout: Duration.seconds(Math.min(20, STATUS_QUEUE.visibilityTimeoutSeconds)),
      environment: props.environment,
    });
    const fn = this.handler.function;
    fn.addEventSource(new sources.SqsEventSource(this.queue, { batchSize: 10, maxConcurrency: props.maxConcurrency ?? 5, reportBatchItemFailures: true }));
    props.catalog.grantTableActions(fn, STATUS_INGEST_TABLE_ACTIONS, true);
  }
}
