/**
 * The same-calls floor of a cold first event (bench/lib/same-calls.ts, bench/same-calls-handler.mjs):
 * a traced event's requests made replayable, and replayed by bare SDK clients against the
 * emulators without touching what the original calls read or wrote.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, TransactWriteItemsCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sameCallsRounds, type CapturedCall } from '../../bench/lib/same-calls';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import { ensureTable } from '../../local/resources';
import { CATALOG_TABLE } from '../../shared/definitions';
import { dynamodbEndpoint } from '../helpers/endpoints';

const call = (op: string, start: number, end: number, body: unknown): CapturedCall => ({ op, start, end, body: JSON.stringify(body) });

/** A commit like the DDL function's: a conditional put, an update of the version item, a name guard checked. */
function commitBody(table: string, pk: string) {
  return {
    TransactItems: [
      { Put: { TableName: table, Item: { pk: { S: pk }, sk: { S: 'OBJ#u1' }, name: { S: 't' } }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
      {
        Update: {
          TableName: table,
          Key: { pk: { S: pk }, sk: { S: 'VERSION' } },
          UpdateExpression: 'SET v = :next',
          ConditionExpression: 'v = :v',
          ExpressionAttributeValues: { ':next': { N: '8' }, ':v': { N: '7' } },
        },
      },
      { ConditionCheck: { TableName: table, Key: { pk: { S: pk }, sk: { S: 'LOCK' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Delete: { TableName: table, Key: { pk: { S: pk }, sk: { S: 'OLD' } }, ConditionExpression: 'attribute_exists(pk)' } },
    ],
    ClientRequestToken: 'token-1',
  };
}

describe('sameCallsRounds', () => {
  const captured = [
    call('DynamoDB.BatchGetItem', 0, 8, { RequestItems: { cat: { Keys: [{ pk: { S: 'T#a' }, sk: { S: 'VERSION' } }], ConsistentRead: true } } }),
    call('DynamoDB.Query', 10, 14, { TableName: 'cat', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'T#a' } } }),
    call('DynamoDB.TransactWriteItems', 20, 40, commitBody('cat', 'T#a')),
    // Overlaps the commit: the same round.
    call('DynamoDB.GetItem', 21, 25, { TableName: 'cat', Key: { pk: { S: 'T#a' }, sk: { S: 'X' } } }),
    call('SQS.SendMessageBatch', 45, 47, { QueueUrl: 'q', Entries: [{ Id: '0', MessageBody: 'b', MessageGroupId: 'g', MessageDeduplicationId: 'd1' }] }),
  ];
  const rounds = sameCallsRounds(captured, { floorTable: 'floor', runId: 'r1' });

  it('keeps the rounds the calls ran in and replays reads as they were', () => {
    expect(rounds.map((r) => r.map((c) => `${c.service}:${c.op}`))).toEqual([
      ['dynamodb:BatchGetItem'],
      ['dynamodb:Query'],
      ['dynamodb:TransactWriteItems', 'dynamodb:GetItem'],
      ['sqs:SendMessageBatch'],
    ]);
    expect(rounds[0]![0]!.input).toEqual(JSON.parse(captured[0]!.body));
    expect(rounds[2]![1]!.input).toEqual(JSON.parse(captured[3]!.body));
  });

  it("writes the same number of items to the floor's table, in the run's own partitions, without the commit's conditions", () => {
    expect(rounds[2]![0]!.input).toEqual({
      TransactItems: [
        { Put: { TableName: 'floor', Item: { pk: { S: 'FLOOR#r1#T#a' }, sk: { S: 'OBJ#u1' }, name: { S: 't' } } } },
        // The update as the bytes it wrote: its key and its values.
        { Put: { TableName: 'floor', Item: { pk: { S: 'FLOOR#r1#T#a' }, sk: { S: 'VERSION' }, u_next: { N: '8' }, u_v: { N: '7' } } } },
        { ConditionCheck: { TableName: 'floor', Key: { pk: { S: 'FLOOR#r1#T#a' }, sk: { S: 'LOCK' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Delete: { TableName: 'floor', Key: { pk: { S: 'FLOOR#r1#T#a' }, sk: { S: 'OLD' } } } },
      ],
    });
  });

  it("sends the same messages with the run's deduplication ids", () => {
    expect(rounds[3]![0]!.input).toEqual({ QueueUrl: 'q', Entries: [{ Id: '0', MessageBody: 'b', MessageGroupId: 'g', MessageDeduplicationId: 'd1-r1' }] });
  });

  it('refuses what it cannot replay', () => {
    expect(() => sameCallsRounds([call('GET /health', 0, 1, {})], { floorTable: 'floor', runId: 'r' })).toThrow(/not an AWS JSON call: GET \/health/);
    expect(() => sameCallsRounds([call('DynamoDB.PutItem', 0, 1, { TableName: 'cat', Item: { pk: { N: '1' } } })], { floorTable: 'floor', runId: 'r' })).toThrow(/a key without a string pk/);
  });
});

describe('same-calls-handler', () => {
  const suffix = randomBytes(3).toString('hex');
  const table = `same-calls-${suffix}`;
  const floorTable = `same-calls-${suffix}-floor`;
  const client = () => new DynamoDBClient({ endpoint: dynamodbEndpoint(), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const ddb = client();
  const sqs = new SQSClient({ endpoint: inject('sqsEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  let queueUrl = '';
  const saved = { ...process.env };

  beforeAll(async () => {
    await ensureTable(ddb, CATALOG_TABLE, table);
    await ensureTable(ddb, CATALOG_TABLE, floorTable);
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `same-calls-${suffix}.fifo`, Attributes: { FifoQueue: 'true' } }))).QueueUrl!;
    // The state the traced commit left: its own conditions no longer hold.
    await ddb.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'T#a' }, sk: { S: 'OBJ#u1' }, name: { S: 't' } } }));
    await ddb.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'T#a' }, sk: { S: 'VERSION' }, v: { N: '8' } } }));
    // The handler's clients read their endpoints from the environment, as in a cold start.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint(),
      AWS_ENDPOINT_URL_SQS: inject('sqsEndpoint'),
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_REGION: LOCAL_REGION,
    });
  });
  afterAll(() => {
    process.env = saved;
  });

  it('makes the traced calls again, twice, and leaves what they read and wrote as it was', async () => {
    const captured = [
      call('DynamoDB.BatchGetItem', 0, 8, { RequestItems: { [table]: { Keys: [{ pk: { S: 'T#a' }, sk: { S: 'VERSION' } }], ConsistentRead: true } } }),
      call('DynamoDB.Query', 10, 14, { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'T#a' } }, ConsistentRead: true }),
      call('DynamoDB.TransactWriteItems', 20, 40, commitBody(table, 'T#a')),
      call('SQS.SendMessageBatch', 45, 47, { QueueUrl: queueUrl, Entries: [{ Id: '0', MessageBody: 'b', MessageGroupId: 'g', MessageDeduplicationId: 'd1' }] }),
    ];
    // As captured, the commit cannot be made again: its conditions were the original's.
    await expect(ddb.send(new TransactWriteItemsCommand(JSON.parse(captured[2]!.body) as never))).rejects.toBeInstanceOf(TransactionCanceledException);

    const { handler } = (await import(pathToFileURL(join(import.meta.dirname, '..', '..', 'bench', 'same-calls-handler.mjs')).href)) as { handler: (e: unknown) => Promise<{ statusCode: number; calls: number }> };
    for (const runId of ['r1', 'r2']) {
      expect(await handler({ rounds: sameCallsRounds(captured, { floorTable, runId }) })).toEqual({ statusCode: 200, calls: 4 });
    }

    const version = await ddb.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'T#a' }, sk: { S: 'VERSION' } }, ConsistentRead: true }));
    expect(version.Item).toEqual({ pk: { S: 'T#a' }, sk: { S: 'VERSION' }, v: { N: '8' } });
    for (const runId of ['r1', 'r2']) {
      const written = await ddb.send(new QueryCommand({ TableName: floorTable, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: `FLOOR#${runId}#T#a` } }, ConsistentRead: true }));
      expect(written.Items?.map((i) => i.sk!.S).sort()).toEqual(['OBJ#u1', 'VERSION']);
    }
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
    // Two messages: each run's deduplication id is its own.
    expect(attrs.Attributes?.ApproximateNumberOfMessages).toBe('2');
  });
});
