/**
 * Creates the local tables and queues, idempotently, from shared/definitions.ts — the same
 * descriptions the CDK stack builds from.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CATALOG_TABLE, DATAPLANE_TABLE, EFFECT_QUEUES, STATUS_QUEUE, type Controller, type TableDefinition } from '../shared/definitions';
import { loadCorsAllowOrigins, type Config } from '../shared/config';

/** The local router's checkpoint table: local-only, AWS's event source mapping keeps its own. */
export const CHECKPOINT_TABLE: TableDefinition = {
  id: 'RouterCheckpoints',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [],
};

/** The local secret store's table (AES-256-GCM values; AWS uses Secrets Manager instead). */
export const SECRETS_TABLE: TableDefinition = {
  id: 'Secrets',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [],
};

export function createTableInput(def: TableDefinition, name: string): CreateTableCommandInput {
  const keys = [def.partitionKey, def.sortKey, ...def.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  const attrs = [...new Map(keys.map((k) => [k.name, k])).values()];
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attrs.map((k) => ({ AttributeName: k.name, AttributeType: k.type })),
    KeySchema: [
      { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: def.sortKey.name, KeyType: 'RANGE' },
    ],
    ...(def.globalSecondaryIndexes.length
      ? {
          GlobalSecondaryIndexes: def.globalSecondaryIndexes.map((i) => ({
            IndexName: i.indexName,
            KeySchema: [
              { AttributeName: i.partitionKey.name, KeyType: 'HASH' as const },
              { AttributeName: i.sortKey.name, KeyType: 'RANGE' as const },
            ],
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
    ...(def.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } } : {}),
  };
}

export async function ensureTable(ddb: DynamoDBClient, def: TableDefinition, name: string): Promise<{ streamArn?: string }> {
  try {
    await ddb.send(new CreateTableCommand(createTableInput(def, name)));
    if (def.ttlAttribute) {
      await ddb.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { Enabled: true, AttributeName: def.ttlAttribute } }));
    }
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  const d = await ddb.send(new DescribeTableCommand({ TableName: name }));
  return d.Table?.LatestStreamArn ? { streamArn: d.Table.LatestStreamArn } : {};
}

export interface LocalResources {
  readonly config: Config;
  readonly checkpointTable: string;
  readonly secretsTable: string;
  readonly streamArn: string;
  readonly dlqUrls: Readonly<Record<Controller, string>>;
  /** The data plane's status reports (a standard queue) and its DLQ. */
  readonly statusQueueUrl: string;
  readonly statusDlqUrl: string;
}

export interface LocalResourceOptions {
  /** Overrides the queues' visibility timeout (tests use a short one to see redeliveries quickly). */
  readonly visibilityTimeoutSeconds?: number;
  /** Overrides maxReceiveCount per controller (tests shrink retry budgets to see the DLQ quickly). */
  readonly maxReceiveCount?: Partial<Record<Controller, number>>;
  /**
   * The config's CORS origins (the DDL handler's CORS headers); `[]` for none.
   * @default CORS_ALLOW_ORIGINS from the environment, as `CORS_ALLOW_ORIGINS=... npm start` sets it
   */
  readonly corsAllowOrigins?: readonly string[];
}

export async function ensureLocalResources(ddb: DynamoDBClient, sqs: SQSClient, prefix: string, region: string, o: LocalResourceOptions = {}): Promise<LocalResources> {
  const catalogTable = `${prefix}catalog`;
  const dataPlaneTable = `${prefix}dataplane`;
  const checkpointTable = `${prefix}router-checkpoints`;
  const { streamArn } = await ensureTable(ddb, CATALOG_TABLE, catalogTable);
  await ensureTable(ddb, DATAPLANE_TABLE, dataPlaneTable);
  await ensureTable(ddb, CHECKPOINT_TABLE, checkpointTable);
  const secretsTable = `${prefix}secrets`;
  await ensureTable(ddb, SECRETS_TABLE, secretsTable);
  if (!streamArn) throw new Error(`table ${catalogTable} has no stream`);

  const queueUrls = {} as Record<Controller, string>;
  const dlqUrls = {} as Record<Controller, string>;
  for (const q of EFFECT_QUEUES) {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}${q.dlqName}.fifo`, Attributes: { FifoQueue: 'true', MessageRetentionPeriod: '1209600' } }));
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
    const main = await sqs.send(
      new CreateQueueCommand({
        QueueName: `${prefix}${q.name}.fifo`,
        Attributes: {
          FifoQueue: 'true',
          VisibilityTimeout: String(o.visibilityTimeoutSeconds ?? q.visibilityTimeoutSeconds),
          MessageRetentionPeriod: String(q.retentionSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: o.maxReceiveCount?.[q.controller] ?? q.maxReceiveCount }),
        },
      }),
    );
    queueUrls[q.controller] = main.QueueUrl!;
    dlqUrls[q.controller] = dlq.QueueUrl!;
  }
  const statusDlq = await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}${STATUS_QUEUE.dlqName}`, Attributes: { MessageRetentionPeriod: '1209600' } }));
  const statusDlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: statusDlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
  const statusQueue = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${prefix}${STATUS_QUEUE.name}`,
      Attributes: {
        VisibilityTimeout: String(o.visibilityTimeoutSeconds ?? STATUS_QUEUE.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(STATUS_QUEUE.retentionSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: statusDlqArn, maxReceiveCount: STATUS_QUEUE.maxReceiveCount }),
      },
    }),
  );
  const cors = o.corsAllowOrigins ?? loadCorsAllowOrigins(process.env);
  const config: Config = { region, catalogTable, dataPlaneTable, queueUrls, dlqUrls, ...(cors?.length ? { corsAllowOrigins: cors } : {}) };
  return { config, checkpointTable, secretsTable, streamArn, dlqUrls, statusQueueUrl: statusQueue.QueueUrl!, statusDlqUrl: statusDlq.QueueUrl! };
}
