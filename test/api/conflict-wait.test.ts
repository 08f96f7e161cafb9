/**
 * How long a request whose commit was refused waits before planning again (`conflictWaitMs`): not
 * at all for a lone stale basis (the refusal brought it up to date), a random share of the
 * contention the refusal showed otherwise — never more than that many attempts' time nor the
 * policy's cap — and the policy's exponential backoff when the refusal showed no version.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { conflictWaitMs } from '../../shared/api/sql-api';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';

const policy = RETRY_POLICIES['ddl.commit'];

describe('conflictWaitMs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('replans at once after the first refusal of a lone stale basis, and waits after a second one', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    expect(conflictWaitMs(policy, 1, 1, 8)).toBe(0);
    expect(conflictWaitMs(policy, 2, 1, 8)).toBeCloseTo(0.99 * 8);
  });

  it('waits a random share of the commits it missed times its attempt, within the cap', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(conflictWaitMs(policy, 1, 7, 10)).toBe(35);
    expect(conflictWaitMs(policy, 5, 3, 10)).toBe(15);
    expect(conflictWaitMs(policy, 1, 50, 100)).toBe(policy.capMs / 2);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(conflictWaitMs(policy, 3, 7, 10)).toBe(0);
  });

  it('backs off exponentially when the refusal showed no version', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(conflictWaitMs(policy, 1, undefined, 10)).toBe(policy.initialDelayMs);
    expect(conflictWaitMs(policy, 3, undefined, 10)).toBe(policy.initialDelayMs * policy.factor ** 2);
    expect(conflictWaitMs(policy, 30, undefined, 10)).toBe(policy.capMs);
  });
});
