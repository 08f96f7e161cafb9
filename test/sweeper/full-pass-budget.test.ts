/**
 * The full pass checks its deadline before every tenant, not only between pages: a page of slow
 * tenants must not carry an invocation past half of its timeout (the deployed rule runs the pass
 * every minute, each invocation going on from the cursor). Fake stores: the pass's own loop.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FullPassMarker } from '../../shared/catalog/outbox-store';
import { tenantSk } from '../../shared/catalog/keys';
import { makeLogger } from '../../shared/lambda/logger';
import { FullPass, type FullPassDeps } from '../../shared/sweeper/full-pass';

const TENANTS = Array.from({ length: 10 }, (_, i) => `t${i}`);

/**
 * One page holds every tenant; the clock passes the deadline once `stopAfter` tenants were
 * observed, and observing the i-th tenant takes `costMs[i]` of the clock (0 when not given).
 */
function fakePass(stopAfter: number, deadline: number, costMs: readonly number[] = []) {
  let clock = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => clock);
  let marker: FullPassMarker | undefined;
  const observed: string[] = [];
  const cursors: (string | undefined)[] = [];
  const deps = {
    catalog: {
      tenantsPage: async (cursor: string | undefined, limit: number) => {
        cursors.push(cursor);
        const rest = TENANTS.filter((t) => cursor === undefined || tenantSk(t) > cursor).slice(0, limit);
        return { tenants: rest, ...(rest.length ? { next: tenantSk(rest[rest.length - 1]!) } : {}), last: true };
      },
      listObjects: async () => [],
    },
    outbox: {
      listEffects: async () => [],
      append: async () => undefined,
      fullPassMarker: async () => marker,
      claimFullPass: async () => true,
      finishFullPass: async (m: FullPassMarker) => void (marker = m),
    },
    dataPlane: {
      observe: async (tenant: string) => {
        clock += costMs[observed.length] ?? 0;
        observed.push(tenant);
        if (observed.length === stopAfter) clock = deadline;
        return [];
      },
    },
    logger: makeLogger('full-pass-budget-test'),
  } as unknown as FullPassDeps;
  return { pass: new FullPass(deps, { tenantsPerRun: 50 }), observed, cursors, marker: () => marker, clock: () => clock };
}

afterEach(() => vi.restoreAllMocks());

describe('the full pass time budget', () => {
  it('stops within a page when the deadline passes, saves the last tenant done, and the next run goes on from there', async () => {
    const deadline = 1_000;
    const { pass, observed, cursors, marker } = fakePass(3, deadline);
    const now = new Date('2026-12-02T12:00:00.000Z');

    const first = await pass.run(now, { deadline });
    expect(first).toMatchObject({ ran: true, tenants: 3, completed: false });
    expect(observed).toEqual(['t0', 't1', 't2']);
    expect(marker()).toMatchObject({ cursor: tenantSk('t2') });

    // The next invocation, with time again: from t3 to the end.
    const second = await pass.run(now, { deadline: deadline + 1_000_000 });
    expect(second).toMatchObject({ ran: true, tenants: 7, completed: true });
    expect(observed).toEqual(TENANTS);
    expect(cursors).toEqual([undefined, tenantSk('t2')]);
  });

  it('does one tenant even when the deadline has already passed, so that every run moves the pass on', async () => {
    const { pass, observed } = fakePass(Infinity, 0);
    const r = await pass.run(new Date('2026-12-02T12:00:00.000Z'), { deadline: -1 });
    expect(r).toMatchObject({ ran: true, tenants: 1, completed: false });
    expect(observed).toEqual(['t0']);
  });

  it('does not start a tenant when less time is left than the slowest tenant of the run took, so the run ends before its deadline', async () => {
    // Tenants take 100, 300, 300, ... ms; the deadline is at 900 ms. Checking the deadline alone
    // starts the fourth tenant at 700 ms and ends at 1 000 ms, past it.
    const deadline = 900;
    const { pass, observed, clock, marker } = fakePass(Infinity, deadline, [100, 300, 300, 300, 300, 300, 300, 300, 300, 300]);
    const r = await pass.run(new Date('2026-12-02T12:00:00.000Z'), { deadline });
    expect(r).toMatchObject({ ran: true, tenants: 3, completed: false });
    expect(observed).toEqual(['t0', 't1', 't2']);
    expect(clock()).toBeLessThanOrEqual(deadline);
    expect(marker()).toMatchObject({ cursor: tenantSk('t2') });
  });
});
