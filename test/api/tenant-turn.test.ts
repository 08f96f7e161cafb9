/** The per-tenant turn of the DDL API (shared/api/tenant-turn.ts): one writing request at a time per tenant in a process. */
import { describe, expect, it } from 'vitest';
import { TenantTurns } from '../../shared/api/tenant-turn';

/** A promise and the function that settles it, to hold a turn open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('tenant turns', () => {
  it('run one tenant’s requests one after another, in arrival order, and other tenants’ alongside', async () => {
    // Prepare
    const turns = new TenantTurns();
    const log: string[] = [];
    const first = gate();
    // Act
    const a1 = turns.run('a', async () => {
      log.push('a1 start');
      await first.promise;
      log.push('a1 end');
    });
    const a2 = turns.run('a', async () => void log.push('a2'));
    const b1 = turns.run('b', async () => void log.push('b1'));
    await b1;
    const beforeRelease = [...log];
    first.open();
    await Promise.all([a1, a2]);
    // Assess
    expect(beforeRelease).toEqual(['a1 start', 'b1']);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('let the next request run after one that failed, and hand each caller its own outcome', async () => {
    // Prepare
    const turns = new TenantTurns();
    // Act
    const failed = turns.run('a', async () => {
      throw new Error('boom');
    });
    const next = turns.run('a', async () => 'ok');
    // Assess
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  it('forget a tenant once its last request is done', async () => {
    // Prepare
    const turns = new TenantTurns();
    // Act
    await Promise.all([turns.run('a', async () => 1), turns.run('a', async () => 2)]);
    // Assess
    expect((turns as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });
});
