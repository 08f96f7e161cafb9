/**
 * The connector pass stops at the sweep's deadline (bench/phases/scale.ts found a sweep with 201
 * overdue connectors running to 0.67 of its timeout): overdue connectors past the deadline are
 * left untouched, counted as deferred, and keep their passed deadline on the index for the next
 * sweep. Fake stores: this is the pass's own loop, no emulator needed.
 */
import { describe, expect, it, vi } from 'vitest';
import type { StoredStatus } from '../../shared/catalog/status-store';
import { makeLogger } from '../../shared/lambda/logger';
import { CONNECTOR_PASS_CONCURRENCY, ConnectorPass } from '../../shared/sweeper/connectors';

const now = new Date('2026-12-02T12:00:00.000Z');
const overdue = (n: number): (StoredStatus & { tenant: string })[] =>
  Array.from({ length: n }, (_, i) => ({
    tenant: 't1',
    objectId: `u${i}`,
    kind: 'source',
    name: `s${i}`,
    version: 3,
    status: 'running',
    error: null,
    details: null,
    generation: 1,
    lastStatusChangeAt: '2026-12-02T11:50:00.000Z',
    lastReportAt: '2026-12-02T11:55:00.000Z',
    reportDueAt: '2026-12-02T11:56:15.000Z',
  }));

function pass() {
  const written: string[] = [];
  const p = new ConnectorPass({
    catalog: { getObject: async () => undefined },
    statuses: {
      apply: async (_tenant, o) => (written.push(o.id), true),
      touch: async (_tenant, id) => (written.push(id), true),
    },
    logger: makeLogger('connector-deadline-test'),
  });
  return { p, written };
}

describe('connector pass deadline', () => {
  it('checks every overdue connector when no deadline is given', async () => {
    const { p, written } = pass();
    const r = await p.run(overdue(3), now);
    expect(r).toMatchObject({ overdue: 3, deferred: 0, transitions: 3 });
    expect(written).toEqual(['u0', 'u1', 'u2']);
  });

  it('past the deadline, leaves the overdue connectors for the next sweep and writes nothing for them', async () => {
    const { p, written } = pass();
    const r = await p.run(overdue(3), now, Date.now() - 1);
    expect(r).toMatchObject({ overdue: 3, deferred: 3, transitions: 0 });
    expect(written).toEqual([]);
  });
});

/** A status store whose writes take a few turns of the event loop, recording how many are in flight at once. */
function recordingPass(o: { concurrency?: number; onWrite?: (n: number) => void } = {}) {
  const written: string[] = [];
  let inFlight = 0;
  let most = 0;
  const write = async (id: string) => {
    written.push(id);
    o.onWrite?.(written.length);
    inFlight++;
    most = Math.max(most, inFlight);
    for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    inFlight--;
    return true;
  };
  const p = new ConnectorPass({
    catalog: { getObject: async () => undefined },
    statuses: { apply: async (_tenant, x) => write(x.id), touch: async (_tenant, id) => write(id) },
    logger: makeLogger('connector-parallel-test'),
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
  });
  return { p, written, most: () => most };
}

describe('connector pass in parallel', () => {
  it(`marks overdue connectors ${CONNECTOR_PASS_CONCURRENCY} at once, never more, and every one of them`, async () => {
    const { p, written, most } = recordingPass();
    const r = await p.run(overdue(100), now);
    expect(r).toMatchObject({ overdue: 100, deferred: 0, transitions: 100 });
    expect(new Set(written).size).toBe(100);
    expect(most()).toBe(CONNECTOR_PASS_CONCURRENCY);
  });

  it('takes its width from the setting', async () => {
    const { p, most } = recordingPass({ concurrency: 4 });
    expect(await p.run(overdue(10), now)).toMatchObject({ transitions: 10 });
    expect(most()).toBe(4);
  });

  it('stops starting connectors when the deadline passes mid-pass; the writes in flight finish, the rest are deferred', async () => {
    const deadline = 1_000_000;
    let clock = 0;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      // The 40th write is the last one the clock allows; the others already past the check may still write.
      const { p, written } = recordingPass({ onWrite: (n) => n === 40 && (clock = deadline) });
      const r = await p.run(overdue(200), now, deadline);
      expect(written.length).toBeGreaterThanOrEqual(40);
      expect(written.length).toBeLessThan(40 + CONNECTOR_PASS_CONCURRENCY);
      expect(r).toMatchObject({ overdue: 200, transitions: written.length, deferred: 200 - written.length });
    } finally {
      spy.mockRestore();
    }
  });

  it('does not start a connector when less time is left than the slowest mark so far took, so the pass ends before the deadline', async () => {
    // One mark at a time, taking 100, 300, 300, ... ms of the clock; the deadline is at 900 ms.
    // Checking the deadline alone starts the fourth mark at 700 ms and ends at 1 000 ms, past it.
    const deadline = 900;
    let clock = 0;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      const written: string[] = [];
      const write = async (id: string) => {
        clock += written.length === 0 ? 100 : 300;
        written.push(id);
        return true;
      };
      const p = new ConnectorPass({
        catalog: { getObject: async () => undefined },
        statuses: { apply: async (_tenant, x) => write(x.id), touch: async (_tenant, id) => write(id) },
        logger: makeLogger('connector-slowest-test'),
        concurrency: 1,
      });
      const r = await p.run(overdue(10), now, deadline);
      expect(written).toEqual(['u0', 'u1', 'u2']);
      expect(clock).toBeLessThanOrEqual(deadline);
      expect(r).toMatchObject({ overdue: 10, transitions: 3, deferred: 7 });
    } finally {
      spy.mockRestore();
    }
  });
});
