/** The outbox's item builders (shared/catalog/outbox-store.ts): pure, shared by a DDL commit and the full pass. */
import { describe, expect, it } from 'vitest';
import { attentionKeys } from '../../shared/catalog/keys';
import { effectItem, OUTBOX_TTL_SECONDS, outboxItems, txnItem, type TxnRecord } from '../../shared/catalog/outbox-store';
import type { EffectIntent } from '../../shared/effects/model';

const txn: TxnRecord = { txnId: 'k1', principal: 'system:sweeper', statements: ['x'.repeat(5000), 'short'], tags: ['SWEEPER'], createdAt: '2026-01-01T00:00:00.000Z' };
const intent = { controller: 'compute', kind: 'replica', intent: 'drop', objectId: 'u9', objectName: 'r1', generation: 3 } as EffectIntent;

describe('outbox items', () => {
  it('an effect is pending, numbered within its transaction and on the attention index', () => {
    const e = effectItem('acme', txn, intent, 2);
    expect(e).toMatchObject({ pk: 'T#acme', sk: 'EFF#k1#0002', effectId: 'k1-2', state: 'pending', attempts: 0, ...attentionKeys('acme', 'EFF#k1#0002', txn.createdAt) });
  });

  it('a transaction record trims long statements to history length and ages out with the outbox', () => {
    const t = txnItem('acme', txn, { effects: 1 });
    const [long, short] = t.statements as string[];
    expect(long).toBe(`${'x'.repeat(4096)} …(904 more characters)`);
    expect(short).toBe('short');
    expect(t).toMatchObject({ pk: 'T#acme', sk: 'TXN#k1', type: 'txn', effects: 1, expiresAt: Date.parse(txn.createdAt) / 1000 + OUTBOX_TTL_SECONDS });
    expect(t).not.toHaveProperty('catalogVersion');
    expect(txnItem('acme', txn, { effects: 0, catalogVersion: 7, changedIds: ['a', 'b', 'a'] })).toMatchObject({ catalogVersion: 7, changedIds: ['a', 'b'] });
  });

  it('every effect and the transaction record are written only once', () => {
    const items = outboxItems('table', 'acme', txn, [intent, { ...intent, objectId: 'u10' }]);
    expect(items.map((i) => [i.Put?.Item?.sk, i.Put?.ConditionExpression])).toEqual([
      ['EFF#k1#0001', 'attribute_not_exists(pk)'],
      ['EFF#k1#0002', 'attribute_not_exists(pk)'],
      ['TXN#k1', 'attribute_not_exists(pk)'],
    ]);
  });
});
