/**
 * How long a request whose commit was refused waits before planning again (`conflictWaitMs`): not
 * at all after the first refusal of a lone stale basis (the refusal brought it up to date), the
 * policy's exponential backoff otherwise — after a second refusal, when the refusal showed other
 * commits during the attempt, or when it showed no version.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { conflictWaitMs } from '../../shared/api/sql-api';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';

const policy = RETRY_POLICIES['ddl.commit'];

describe('conflictWaitMs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('replans at once after the first refusal of a lone stale basis', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    expect(conflictWaitMs(policy, 1, 1)).toBe(0);
    expect(conflictWaitMs(policy, 1, 0)).toBe(0);
  });

  it('backs off exponentially under contention, after a second refusal, and when the refusal showed no version', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(conflictWaitMs(policy, 1, 3)).toBe(policy.initialDelayMs);
    expect(conflictWaitMs(policy, 2, 1)).toBe(policy.initialDelayMs * policy.factor);
    expect(conflictWaitMs(policy, 1, undefined)).toBe(policy.initialDelayMs);
    expect(conflictWaitMs(policy, 30, 5)).toBe(policy.capMs);
  });
});
