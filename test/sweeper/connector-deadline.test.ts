/**
 * The connector pass stops at the sweep's deadline (bench/phases/scale.ts found a sweep with 201
 * overdue connectors running to 0.67 of its timeout): overdue connectors past the deadline are
 * left untouched, counted as deferred, and keep their passed deadline on the index for the next
 * sweep. Fake stores: this is the pass's own loop, no emulator needed.
 */
import { describe, expect, it } from 'vitest';
import type { StoredStatus } from '../../shared/catalog/status-store';
import { makeLogger } from '../../shared/lambda/logger';
import { ConnectorPass } from '../../shared/sweeper/connectors';

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
