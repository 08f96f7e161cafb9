/** Sort keys of catalog items (shared/catalog/keys.ts). */
import { describe, expect, it } from 'vitest';
import { attentionKeys, attentionPk, DEADLINE_PREFIX, EFF_PREFIX, escapeKeyPart, HIST_PREFIX, nameSk, OBJ_PREFIX, REPLICA_STATUS_PREFIX, replicaStatusSk, STATUS_PREFIX, statusSk, TXN_PREFIX } from '../../shared/catalog/keys';

describe('catalog keys', () => {
  it('escape the characters that could make two names share a key', () => {
    expect(escapeKeyPart('a.b#c%d')).toBe('a%2eb%23c%25d');
    const a = nameSk({ ns: 'replica', clusterId: 'u1', name: 'a#b' });
    const b = nameSk({ ns: 'replica', clusterId: 'u1#a', name: 'b' });
    expect(a).not.toBe(b);
  });
});

describe('item families', () => {
  it('give each status type a prefix of its own, so no prefix read returns another type', () => {
    const prefixes = { STATUS_PREFIX, REPLICA_STATUS_PREFIX, HIST_PREFIX, OBJ_PREFIX, EFF_PREFIX, TXN_PREFIX };
    for (const [a, pa] of Object.entries(prefixes)) for (const [b, pb] of Object.entries(prefixes)) if (a !== b) expect(pa.startsWith(pb), `${a} inside ${b}`).toBe(false);
    expect(statusSk('u1').startsWith(STATUS_PREFIX) && !replicaStatusSk('u1').startsWith(STATUS_PREFIX)).toBe(true);
  });

  it('sort connector deadlines after every ISO date on the attention index, in the key\'s shard', () => {
    const effect = attentionKeys('t', 'EFF#x#0001', '2026-01-01T00:00:00.000Z');
    const deadline = attentionKeys('t', statusSk('u1'), `${DEADLINE_PREFIX}2020-01-01T00:00:00.000Z`);
    expect(effect).toEqual({ attnPk: attentionPk('t#EFF#x#0001'), attnSk: '2026-01-01T00:00:00.000Z#t#EFF#x#0001' });
    expect(deadline.attnSk > '9999-12-31T23:59:59.999Z').toBe(true);
    expect(deadline.attnPk).toMatch(/^ATTN#[0-9]+$/);
  });
});
