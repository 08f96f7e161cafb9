/** Small helpers over the DynamoDB document client shared by every adapter. */
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/** Every page of a Query (strongly consistent unless the input says otherwise). */
export async function queryAll<T = Record<string, unknown>>(doc: DynamoDBDocumentClient, input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await doc.send(new QueryCommand({ ConsistentRead: input.IndexName === undefined, ...input, ExclusiveStartKey: start }));
    out.push(...((r.Items ?? []) as T[]));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Every item of one partition whose sort key begins with `prefix` (all of it when absent). */
export function queryPartition<T = Record<string, unknown>>(doc: DynamoDBDocumentClient, table: string, pk: string, prefix?: string, extra: Partial<QueryCommandInput> = {}): Promise<T[]> {
  return queryAll<T>(doc, {
    TableName: table,
    KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ...(prefix === undefined ? {} : { ':prefix': prefix }) },
    ...extra,
  });
}
