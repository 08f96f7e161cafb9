/** Sort keys of catalog items (shared/catalog/keys.ts). */
import { describe, expect, it } from 'vitest';
import { attentionKeys, attentionPk, DEADLINE_PREFIX, EFF_PREFIX, escapeKeyPart, HIST_PREFIX, nameSk, OBJ_PREFIX, REPLICA_STATUS_PREFIX, replicaStatusSk, STATUS_PREFIX, statusSk, TXN_PREFIX } from '../../shared/catalog/keys';
import { ALL_SHARDS } from '../../shared/catalog/outbox-store';
import { HEARTBEAT_INTERVAL_SECONDS } from '../../shared/dataplane/contract';
import { ATTENTION_CAPACITY, ATTENTION_SHARDS, attentionShards, CONTROLLERS, EFFECT_CAPACITY } from '../../shared/definitions';

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

describe('the attention index shard count (ATTENTION_CAPACITY, attentionShards)', () => {
  it('keeps each shard at half a partition’s write limit: 2 index writes per heartbeat and per effect', () => {
    // (2 × 25 000 ÷ 30 + 2 × 150) ÷ 500 = 3.93 → 4.
    expect(attentionShards({ connectors: 25_000, heartbeatIntervalSeconds: 30, effectsPerSecond: 150 })).toBe(4);
    // The scale, 500 000 connectors: 33 633 writes/s → 68.
    expect(attentionShards({ connectors: 500_000, heartbeatIntervalSeconds: 30, effectsPerSecond: 150 })).toBe(68);
    expect(attentionShards({ connectors: 0, heartbeatIntervalSeconds: 30, effectsPerSecond: 0 })).toBe(1);
    expect(attentionShards({ connectors: 15_000, heartbeatIntervalSeconds: 30, effectsPerSecond: 0, utilisation: 1 })).toBe(1);
    expect(attentionShards({ connectors: 15_001, heartbeatIntervalSeconds: 30, effectsPerSecond: 0, utilisation: 1 })).toBe(2);
  });

  it('ships 6 shards: 25 000 connectors heartbeating every 20 s', () => {
    // (2 × 25 000 ÷ 20 + 2 × 150) ÷ 500 = 5.6 → 6; the 500 000 connectors: 101.
    expect(HEARTBEAT_INTERVAL_SECONDS).toBe(20);
    expect(ATTENTION_SHARDS).toBe(6);
    expect(attentionShards({ connectors: 500_000, heartbeatIntervalSeconds: 20, effectsPerSecond: 150 })).toBe(101);
  });

  it('is the count the keys and the sweeper use, sized from the shipped settings', () => {
    expect(ATTENTION_SHARDS).toBe(attentionShards({ connectors: ATTENTION_CAPACITY.connectors, heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS, effectsPerSecond: CONTROLLERS.length * EFFECT_CAPACITY.dataPlaneEffectsPerSecond }));
    expect(ALL_SHARDS).toEqual(Array.from({ length: ATTENTION_SHARDS }, (_, k) => k));
    // Every shard gets items, and only those shards.
    const used = new Set(Array.from({ length: 2000 }, (_, i) => attentionPk(`t${i % 37}#EFF#o${i}#0001`)));
    expect([...used].sort()).toEqual(ALL_SHARDS.map((k) => `ATTN#${k}`).sort());
  });

  it('refuses a sizing it cannot compute', () => {
    expect(() => attentionShards({ connectors: 1, heartbeatIntervalSeconds: 0, effectsPerSecond: 1 })).toThrow(/^attention index sizing needs connectors and effects ≥ 0, a positive heartbeat interval/);
    expect(() => attentionShards({ connectors: 1, heartbeatIntervalSeconds: 30, effectsPerSecond: 1, utilisation: 1.5 })).toThrow(/utilisation in \(0, 1\]/);
  });
});
