/**
 * Read and write units as DynamoDB bills them, measured: a middleware asks every item call of one
 * client for `ReturnConsumedCapacity: INDEXES` (DynamoDB Local answers it like DynamoDB: 4 KB
 * read units, 1 KB write units, ×2 in a transaction, index writes included) and adds them up. A
 * read call is counted at 0.5 units at least: DynamoDB Local reports 0 for a query that found
 * nothing, which DynamoDB bills as one request.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DATA_PLANE_PK } from '../../shared/catalog/keys';

const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

export interface Units {
  readonly readCalls: number;
  readonly readUnits: number;
  readonly writeCalls: number;
  readonly writeUnits: number;
}

type Consumed = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;

export class CapacityMeter {
  private u = { readCalls: 0, readUnits: 0, writeCalls: 0, writeUnits: 0 };
  /** Calls on the data plane's liveness item, since the meter was made. */
  readonly liveness = { readCalls: 0, readUnits: 0, writeCalls: 0, writeUnits: 0 };
  /** A document client on its own DynamoDB client, metered. */
  readonly doc: DynamoDBDocumentClient;

  constructor(config: DynamoDBClientConfig) {
    const ddb = new DynamoDBClient(config);
    ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        const read = READS.has(name);
        if (!read && !WRITES.has(name)) return next(args);
        (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity ??= 'INDEXES';
        const r = await next(args);
        const consumed = (r.output as { ConsumedCapacity?: Consumed }).ConsumedCapacity;
        const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((s, c) => s + (c.CapacityUnits ?? 0), 0);
        // The data plane's liveness item (one per deployment, a few writes a minute whatever the
        // size) is counted apart, so the per-connector figures stay exact lines in their drivers.
        // (The key is marshalled or not yet, depending on where the document client's middleware runs.)
        const pk = (args.input as { Key?: { pk?: string | { S?: string } } }).Key?.pk;
        const into = (typeof pk === 'string' ? pk : pk?.S) === DATA_PLANE_PK ? this.liveness : this.u;
        if (read) {
          into.readCalls++;
          into.readUnits += Math.max(0.5, units);
        } else {
          into.writeCalls++;
          into.writeUnits += units;
        }
        return r;
      },
      { step: 'initialize', name: 'benchCapacityMeter' },
    );
    this.doc = DynamoDBDocumentClient.from(ddb, { marshallOptions: { removeUndefinedValues: true } });
  }

  /** The units since the last take, and a fresh count. */
  take(): Units {
    const u = this.u;
    this.u = { readCalls: 0, readUnits: 0, writeCalls: 0, writeUnits: 0 };
    return { ...u, readUnits: Math.round(u.readUnits * 10) / 10, writeUnits: Math.round(u.writeUnits * 10) / 10 };
  }

  destroy(): void {
    this.doc.destroy();
  }
}
