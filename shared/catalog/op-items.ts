/**
 * Catalog operations (`./ops.ts`) as table items: the key, the condition that makes the commit
 * lose a race instead of overwriting it (invariant 5), and the tombstone TTL. Used by the catalog
 * store only; pure (it builds requests, it sends nothing).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { CatalogObject } from './model';
import { nameSk, objSk } from './keys';
import type { CatalogOp, ChangeSet } from './ops';
import type { Expectation } from './staged';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Dropped objects stay as tombstones this long: the sweeper needs them to tell orphans apart. */
export const TOMBSTONE_TTL_SECONDS = 30 * 24 * 3600;

export function objectItem(pk: string, o: CatalogObject): Record<string, unknown> {
  return { pk, sk: objSk(o.id), type: 'object', ...o };
}

/** The transaction item that carries one operation, `now` being the commit's time. */
export function opItem(table: string, pk: string, op: CatalogOp, now: string): TransactItem {
  switch (op.op) {
    case 'create_object':
      return { Put: { TableName: table, Item: objectItem(pk, op.object), ConditionExpression: 'attribute_not_exists(pk)' } };
    case 'update_object':
    case 'drop_object': {
      const item = objectItem(pk, op.after);
      if (op.op === 'drop_object') item.expiresAt = Math.floor(Date.parse(now) / 1000) + TOMBSTONE_TTL_SECONDS;
      return {
        Put: {
          TableName: table,
          Item: item,
          // The plan read this version and this many dependents: anything else means a race.
          ConditionExpression: '#v = :v AND attribute_not_exists(dropped) AND (dependents = :d OR (attribute_not_exists(dependents) AND :d = :zero))',
          ExpressionAttributeNames: { '#v': 'version' },
          ExpressionAttributeValues: { ':v': op.before.version, ':d': op.before.dependents, ':zero': 0 },
        },
      };
    }
    case 'adjust_dependents':
      return {
        Update: {
          TableName: table,
          Key: { pk, sk: objSk(op.id) },
          UpdateExpression: 'ADD dependents :delta',
          // A reference to a dropped object must not commit (the drop won the race).
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(dropped)',
          ExpressionAttributeValues: { ':delta': op.delta },
        },
      };
    case 'claim_name':
      return {
        Put: {
          TableName: table,
          Item: { pk, sk: nameSk(op.name), type: 'name', objectId: op.objectId },
          ...(op.replaces ? { ConditionExpression: 'objectId = :old', ExpressionAttributeValues: { ':old': op.replaces } } : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      };
    case 'release_name':
      return { Delete: { TableName: table, Key: { pk, sk: nameSk(op.name) }, ConditionExpression: 'objectId = :id', ExpressionAttributeValues: { ':id': op.objectId } } };
  }
}

/** What a staged commit must find unchanged when it takes the lock: exactly what the plan read. */
export function expectationsOf(changes: ChangeSet): Expectation[] {
  return changes.ops.map((op): Expectation => {
    switch (op.op) {
      case 'create_object':
        return { sk: objSk(op.object.id), absent: true };
      case 'update_object':
      case 'drop_object':
        return { sk: objSk(op.before.id), version: op.before.version, dependents: op.before.dependents };
      case 'adjust_dependents':
        return { sk: objSk(op.id), version: op.before.version, dependents: op.before.dependents };
      case 'claim_name':
        return op.replaces ? { sk: nameSk(op.name), objectId: op.replaces } : { sk: nameSk(op.name), absent: true };
      case 'release_name':
        return { sk: nameSk(op.name), objectId: op.objectId };
    }
  });
}
