/** The named retry policies (shared/effects/retry-policies.ts) and the queues that carry their budgets. */
import { describe, expect, it } from 'vitest';
import { backoffMs, budgetSpent, RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { EFFECT_QUEUES } from '../../shared/definitions';

describe('retry policies', () => {
  it('back off exponentially up to the cap', () => {
    const p = RETRY_POLICIES['executor.compute'];
    expect([1, 2, 3, 4].map((a) => backoffMs(p, a))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(p, 30)).toBe(p.capMs);
    expect(budgetSpent(p, p.budget - 1)).toBe(false);
    expect(budgetSpent(p, p.budget)).toBe(true);
  });

  it('set each queue’s maxReceiveCount to its executor’s budget', () => {
    for (const q of EFFECT_QUEUES) expect(q.maxReceiveCount).toBe(RETRY_POLICIES[`executor.${q.controller}`].budget);
  });
});
