import { describe, expect, it } from 'vitest';
import { transition, type ConnectorStatus, type Observation } from '../../shared/status/transition';

const NOW = '2026-01-01T00:00:00.000Z';
const base: Observation = { kind: 'source', dropped: false, generation: 1, resourcePresent: true, replicas: 1 };
const prev = (status: ConnectorStatus['status'], extra: Partial<ConnectorStatus> = {}): ConnectorStatus => ({
  status,
  error: null,
  details: null,
  lastStatusChangeAt: '2025-12-31T00:00:00.000Z',
  generation: 1,
  ...extra,
});

describe('connector status transition', () => {
  it.each([
    ['first sight, not provisioned', undefined, { resourcePresent: false }, 'created'],
    ['not provisioned yet', prev('created'), { resourcePresent: false }, 'starting'],
    ['provisioned and healthy', prev('starting'), {}, 'running'],
    ['no replica', prev('running'), { replicas: 0 }, 'paused'],
    ['unhealthy', prev('running'), { health: { healthy: false, error: 'kafka: broker down' } }, 'stalled'],
    ['fatal health', prev('running'), { health: { healthy: false, error: 'kafka: topic deleted', fatal: true } }, 'failed'],
    ['transient probe error', prev('running'), { probe: { ok: false, namespace: 'postgres', error: 'refused' } }, 'stalled'],
    ['fatal probe error', prev('running'), { probe: { ok: false, namespace: 'postgres', error: 'no publication', fatal: true } }, 'failed'],
    ['a failed effect', prev('starting'), { effectError: 'terminal' }, 'failed'],
    ['failed stays failed at the same generation', prev('failed', { error: 'x' }), {}, 'failed'],
    ['a new generation clears failed', prev('failed', { error: 'x' }), { generation: 2 }, 'running'],
    ['dropped wins over everything', prev('failed'), { dropped: true, replicas: 0 }, 'dropped'],
    ['a fatal probe beats a missing replica', prev('running'), { replicas: 0, probe: { ok: false, namespace: 'postgres', error: 'e', fatal: true } }, 'failed'],
  ] as const)('%s → %s', (_name, p, o, expected) => {
    expect(transition(p, { ...base, ...o }, NOW).next.status).toBe(expected);
  });

  it('writes a history row only when status or error changed, and moves lastStatusChangeAt with it', () => {
    const same = transition(prev('running'), base, NOW);
    expect(same.history).toBeUndefined();
    expect(same.next.lastStatusChangeAt).toBe('2025-12-31T00:00:00.000Z');

    const stalled = transition(prev('running'), { ...base, probe: { ok: false, namespace: 'postgres', error: 'refused', hint: 'start it' } }, NOW);
    expect(stalled.history).toEqual({
      occurredAt: NOW,
      status: 'stalled',
      error: 'postgres: refused',
      details: { hints: ['start it'], namespaced: { postgres: 'refused' } },
      from: 'running',
    });
    // A different error while stalled is a change too.
    const other = transition(stalled.next, { ...base, probe: { ok: false, namespace: 'postgres', error: 'timeout' } }, '2026-01-01T00:01:00.000Z');
    expect(other.history?.error).toBe('postgres: timeout');
  });

  it('says why a connector is paused', () => {
    expect(transition(undefined, { ...base, kind: 'sink', replicas: 0 }, NOW).next.details).toEqual({ hints: ['There is currently no replica running this sink'] });
  });
});
