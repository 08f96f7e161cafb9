/** The pure parts of admission (shared/router/admission.ts) and its in-order rule, against an outbox fake. */
import { describe, expect, it } from 'vitest';
import type { AdmitResult } from '../../shared/catalog/outbox-store';
import { effSk, effectSkOfId } from '../../shared/catalog/keys';
import { Admission, byTenant, freeSlots, leakedSlots, withoutReleased } from '../../shared/router/admission';
import { EFFECT_CAPACITY, EXECUTOR_MAPPING } from '../../shared/definitions';

/** An outbox fake that keeps one admission set per tenant with the store's rule (size < cap OR already in). */
function fakeOutbox(pending: Record<string, string[]> = {}, settled = new Set<string>()) {
  const sets = new Map<string, Set<string>>();
  const calls: string[] = [];
  return {
    sets,
    calls,
    async admit(e: { tenant: string; effectId: string }, cap: number): Promise<AdmitResult> {
      calls.push(e.effectId);
      if (settled.has(e.effectId)) return 'settled';
      const s = sets.get(e.tenant) ?? new Set<string>();
      if (s.size >= cap && !s.has(e.effectId)) return 'full';
      sets.set(e.tenant, s.add(e.effectId));
      return 'admitted';
    },
    async admission(tenant: string) {
      return { admitted: new Set(sets.get(tenant) ?? []), floor: undefined };
    },
    admitWithCommitItem: () => undefined,
    async unadmitted(tenant: string, admitted: ReadonlySet<string>, limit: number) {
      return (pending[tenant] ?? []).filter((id) => !admitted.has(id) && !settled.has(id)).slice(0, limit).map((effectId) => ({ tenant, effectId, sk: effectSkOfId(effectId)! }) as never);
    },
  };
}
const eff = (tenant: string, effectId: string) => ({ tenant, effectId, sk: effectSkOfId(effectId)! });

describe('admission, pure parts', () => {
  it('defaults the cap to batch size × executor concurrency, so a tenant alone fills every executor', () => {
    expect(EFFECT_CAPACITY.perTenantInQueue).toBe(EXECUTOR_MAPPING.batchSize.referenceDataPlane * EXECUTOR_MAPPING.maxConcurrency);
    expect(EFFECT_CAPACITY.perTenantInQueue).toBe(50);
  });

  it('finds an effect record from its id, and nothing from other text', () => {
    expect(effectSkOfId('0lx2abc00ff12ab34-7')).toBe(effSk('0lx2abc00ff12ab34', 7));
    expect(effectSkOfId('a-b-12')).toBe(effSk('a-b', 12));
    expect(effectSkOfId('no-seq')).toBeUndefined();
  });

  it('groups by tenant keeping the given order, and counts free slots', () => {
    const g = byTenant([eff('a', 't-1'), eff('b', 't-2'), eff('a', 't-3')]);
    expect([...g.keys()]).toEqual(['a', 'b']);
    expect(g.get('a')!.map((e) => e.effectId)).toEqual(['t-1', 't-3']);
    expect([freeSlots(0, 3), freeSlots(2, 3), freeSlots(3, 3), freeSlots(5, 3)]).toEqual([3, 1, 0, 0]);
  });

  it('calls a slot leaked when its effect is gone, settled or dead-lettered', () => {
    const effects = new Map<string, { state: 'pending' | 'applied'; deadLettered?: boolean } | undefined>([
      ['t-1', { state: 'pending' }],
      ['t-2', { state: 'applied' }],
      ['t-3', { state: 'pending', deadLettered: true }],
      ['t-4', undefined],
      ['t-5', { state: 'pending', deadLettered: false }],
    ]);
    expect(leakedSlots(new Set(['t-1', 't-2', 't-3', 't-4', 't-5']), effects)).toEqual(['t-2', 't-3', 't-4']);
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => new Admission({ outbox: fakeOutbox(), cap: 0 })).toThrow(/positive integer, got 0/);
    expect(() => new Admission({ outbox: fakeOutbox(), cap: 2.5 })).toThrow(/positive integer/);
  });
});

describe('admission in order', () => {
  it("admits each tenant's effects in order up to the cap and stops that tenant at its first refusal", async () => {
    const outbox = fakeOutbox();
    const a = new Admission({ outbox, cap: 2 });
    const items = [eff('big', 'b-1'), eff('big', 'b-2'), eff('small', 's-1'), eff('big', 'b-3'), eff('big', 'b-4'), eff('small', 's-2')];

    const admitted = await a.admitInOrder(items);

    expect(admitted.map((e) => e.effectId)).toEqual(['b-1', 'b-2', 's-1', 's-2']);
    // b-4 was never tried: the tenant's first refusal (b-3) ends its admissions, so b-4 cannot overtake b-3.
    expect(outbox.calls).not.toContain('b-4');
    // Again (a retried router batch): the same ones, nothing more.
    expect((await a.admitInOrder(items)).map((e) => e.effectId)).toEqual(['b-1', 'b-2', 's-1', 's-2']);
  });

  it('skips an effect settled meanwhile without ending its tenant\'s admissions', async () => {
    const a = new Admission({ outbox: fakeOutbox({}, new Set(['b-1'])), cap: 2 });
    expect((await a.admitInOrder([eff('big', 'b-1'), eff('big', 'b-2')])).map((e) => e.effectId)).toEqual(['b-2']);
  });

  it("after a release, admits the tenant's next pending effects up to its free slots, oldest first", async () => {
    const settled = new Set<string>();
    const outbox = fakeOutbox({ big: ['b-1', 'b-2', 'b-3', 'b-4', 'b-5'] }, settled);
    const a = new Admission({ outbox, cap: 3 });
    await a.admitInOrder([eff('big', 'b-1'), eff('big', 'b-2'), eff('big', 'b-3'), eff('big', 'b-4')]);
    expect(await a.next('big')).toEqual([]);

    // Two settles, each releasing its slot.
    for (const id of ['b-1', 'b-2']) {
      settled.add(id);
      outbox.sets.get('big')!.delete(id);
    }
    const next = await a.next('big');

    expect(next.map((e) => e.effectId)).toEqual(['b-4', 'b-5']);
    expect([...outbox.sets.get('big')!].sort()).toEqual(['b-3', 'b-4', 'b-5']);
  });

  it('a refill on the admission item read before the settles counts their slots free, and reads nothing more of it', async () => {
    // Prepare: b-1 and b-2 admitted; the executor read the item, then settled b-1 (its release).
    const settled = new Set<string>();
    const outbox = fakeOutbox({ big: ['b-1', 'b-2', 'b-3', 'b-4'] }, settled);
    let reads = 0;
    const counting = { ...outbox, admission: (tenant: string) => (reads++, outbox.admission(tenant)) };
    const a = new Admission({ outbox: counting, cap: 2 });
    await a.admitInOrder([eff('big', 'b-1'), eff('big', 'b-2')]);
    const early = a.state('big');
    settled.add('b-1');
    outbox.sets.get('big')!.delete('b-1');
    reads = 0;

    // Act
    const next = await a.next('big', { state: early, released: ['b-1'] });

    // Assess: one free slot (b-1's), filled by the oldest pending one; no second read of the item.
    expect(next.map((e) => e.effectId)).toEqual(['b-3']);
    expect(reads).toBe(0);
    expect([...outbox.sets.get('big')!].sort()).toEqual(['b-2', 'b-3']);
  });

  it('a failed early read is read again; an early read without the released ids is kept as it is', async () => {
    const outbox = fakeOutbox({ t: ['t-1'] });
    const a = new Admission({ outbox, cap: 1 });
    const failed = Promise.reject(new Error('throttled'));
    failed.catch(() => undefined);
    expect((await a.next('t', { state: failed, released: [] })).map((e) => e.effectId)).toEqual(['t-1']);
    const state = { admitted: new Set(['x-1']), floor: 'EFF#x' };
    expect(withoutReleased(state, ['y-1'])).toBe(state);
    expect(withoutReleased(state, ['x-1'])).toEqual({ admitted: new Set(), floor: 'EFF#x' });
  });
});
