import { describe, expect, it } from 'vitest';
import { routeRecord } from '../../shared/router/routing';
import { streamRecord } from '../helpers/events';

const effect = {
  pk: 'T#acme',
  sk: 'EFF#0abc#0001',
  type: 'effect',
  effectId: '0abc-1',
  tenant: 'acme',
  txnId: '0abc',
  objectId: 'u1',
  objectName: 'r1',
  generation: 3,
  controller: 'compute',
  kind: 'replica',
  intent: 'ensure',
  state: 'pending',
  attempts: 0,
};

describe('routeRecord', () => {
  it('routes an inserted effect to its controller, grouped by tenant/object, deduplicated by effect id', () => {
    const m = routeRecord(streamRecord('INSERT', effect));
    expect(m).toEqual({
      controller: 'compute',
      tenant: 'acme',
      effectId: '0abc-1',
      sk: 'EFF#0abc#0001',
      groupId: 'acme/u1',
      deduplicationId: '0abc-1',
      body: JSON.stringify({ tenant: 'acme', sk: 'EFF#0abc#0001', effectId: '0abc-1', objectId: 'u1', generation: 3, controller: 'compute' }),
    });
  });

  it.each([
    ['an update of an effect (it is being settled)', streamRecord('MODIFY', effect)],
    ['a removed effect (TTL)', streamRecord('REMOVE', undefined)],
    ['a catalog object', streamRecord('INSERT', { pk: 'T#acme', sk: 'OBJ#u1', type: 'object' })],
    ['an effect for an unknown controller', streamRecord('INSERT', { ...effect, controller: 'quantum' })],
  ])('ignores %s', (_name, record) => {
    expect(routeRecord(record)).toBeUndefined();
  });

  it('keeps ids within SQS’s 128 characters', () => {
    const long = { ...effect, tenant: 't'.repeat(100), objectId: 'u'.repeat(60), effectId: 'e'.repeat(200) };
    const m = routeRecord(streamRecord('INSERT', long))!;
    expect(m.groupId.length).toBeLessThanOrEqual(128);
    expect(m.deduplicationId.length).toBeLessThanOrEqual(128);
    expect(m.deduplicationId).not.toBe(routeRecord(streamRecord('INSERT', { ...long, effectId: 'f'.repeat(200) }))!.deduplicationId);
  });
});
