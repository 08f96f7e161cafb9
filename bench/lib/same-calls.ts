/**
 * A function's same-calls floor (bench/phases/bundles.ts): the AWS calls its traced first event
 * made (bench/call-trace.cjs with CALL_TRACE_BODIES), turned into requests that bare SDK clients
 * can make again (bench/same-calls-handler.mjs) — the least a first event that needs those calls
 * can take, with none of our code. Pure.
 *
 * Reads are replayed as they were. Writes would not hold twice (their conditions were the
 * commit's), so they go to a table of their own with the same key schema, indexes and stream
 * (`floorTable`), each key's partition made the run's own, with the same items and the same number
 * of them: a Put writes the same item; an Update becomes a Put of its key and its values (the
 * bytes it wrote, not the ones it kept); a Delete deletes; a ConditionCheck checks that its key
 * does not exist. SQS messages go to the same queues with the run's deduplication ids.
 */

/** One call of a traced first event: its operation (`DynamoDB.Query`, `SQS.SendMessageBatch`), times and request body. */
export interface CapturedCall {
  readonly op: string;
  readonly start: number;
  readonly end: number | null;
  readonly body: string;
}

export interface ReplayCall {
  readonly service: 'dynamodb' | 'sqs';
  /** The SDK operation: the command class is `${op}Command`. */
  readonly op: string;
  readonly input: Record<string, unknown>;
}

type Json = Record<string, unknown>;
type Attr = Record<string, unknown>;

/** The calls in rounds as they ran (a call that starts after every earlier call ended begins a new round), each made replayable. */
export function sameCallsRounds(captured: readonly CapturedCall[], o: { readonly floorTable: string; readonly runId: string }): ReplayCall[][] {
  const sorted = [...captured].sort((a, b) => a.start - b.start);
  const rounds: { end: number; calls: ReplayCall[] }[] = [];
  for (const c of sorted) {
    const call = replayable(c, o);
    const last = rounds[rounds.length - 1];
    const end = c.end ?? c.start;
    if (last && c.start < last.end) {
      last.calls.push(call);
      last.end = Math.max(last.end, end);
    } else rounds.push({ end, calls: [call] });
  }
  return rounds.map((r) => r.calls);
}

function replayable(c: CapturedCall, o: { readonly floorTable: string; readonly runId: string }): ReplayCall {
  const m = /^(DynamoDB|SQS)\.(\w+)$/.exec(c.op);
  if (!m) throw new Error(`not an AWS JSON call: ${c.op}`);
  const input = JSON.parse(c.body || '{}') as Json;
  if (m[1] === 'SQS') return { service: 'sqs', op: m[2]!, input: sqsInput(input, o.runId) };
  const op = m[2]!;
  const key = (k: Attr) => scratchKey(k, o.runId);
  switch (op) {
    case 'TransactWriteItems':
      return { service: 'dynamodb', op, input: { TransactItems: (input.TransactItems as Json[]).map((t) => transactItem(t, o.floorTable, key)) } };
    case 'PutItem':
      return { service: 'dynamodb', op, input: { TableName: o.floorTable, Item: key(input.Item as Attr) } };
    case 'UpdateItem':
      return { service: 'dynamodb', op: 'PutItem', input: { TableName: o.floorTable, Item: updateAsItem(input, key) } };
    case 'DeleteItem':
      return { service: 'dynamodb', op, input: { TableName: o.floorTable, Key: key(input.Key as Attr) } };
    case 'BatchWriteItem': {
      const requests = Object.values(input.RequestItems as Record<string, Json[]>).flat();
      return {
        service: 'dynamodb',
        op,
        input: {
          RequestItems: {
            [o.floorTable]: requests.map((r) =>
              r.PutRequest ? { PutRequest: { Item: key((r.PutRequest as Json).Item as Attr) } } : { DeleteRequest: { Key: key((r.DeleteRequest as Json).Key as Attr) } },
            ),
          },
        },
      };
    }
    default:
      // A read (GetItem, BatchGetItem, Query, Scan, DescribeTable...): the same request again.
      return { service: 'dynamodb', op, input };
  }
}

function transactItem(t: Json, table: string, key: (k: Attr) => Attr): Json {
  if (t.Put) return { Put: { TableName: table, Item: key((t.Put as Json).Item as Attr) } };
  if (t.Update) return { Put: { TableName: table, Item: updateAsItem(t.Update as Json, key) } };
  if (t.Delete) return { Delete: { TableName: table, Key: key((t.Delete as Json).Key as Attr) } };
  if (t.ConditionCheck) return { ConditionCheck: { TableName: table, Key: key((t.ConditionCheck as Json).Key as Attr), ConditionExpression: 'attribute_not_exists(pk)' } };
  throw new Error(`unknown transact item: ${Object.keys(t).join(', ')}`);
}

/** An Update as the item it wrote: its key and each of its values as an attribute of its own. */
function updateAsItem(u: Json, key: (k: Attr) => Attr): Attr {
  const values = Object.entries((u.ExpressionAttributeValues as Attr | undefined) ?? {}).map(([name, v]) => [`u_${name.slice(1)}`, v] as const);
  return { ...key(u.Key as Attr), ...Object.fromEntries(values) };
}

/** The key with its partition (`pk`) made the run's own: no write of a replay lands where another did. */
function scratchKey(k: Attr, runId: string): Attr {
  const pk = k.pk as { S?: string } | undefined;
  if (pk?.S === undefined) throw new Error(`a key without a string pk: ${JSON.stringify(k)}`);
  return { ...k, pk: { S: `FLOOR#${runId}#${pk.S}` } };
}

function sqsInput(input: Json, runId: string): Json {
  const dedup = (e: Json) => (typeof e.MessageDeduplicationId === 'string' ? { ...e, MessageDeduplicationId: `${e.MessageDeduplicationId}-${runId}`.slice(-128) } : e);
  if (Array.isArray(input.Entries)) return { ...input, Entries: (input.Entries as Json[]).map(dedup) };
  return dedup(input);
}
