// The pure part of the capacity phase (bench/lib/fairness.ts): the skewed split, the arrival
// orders and the per-tenant figures the fairness goal reads.
import { describe, expect, it } from 'vitest';
import { arrivalOrder, drainProgress, fairnessFigures, servicePositions, tenantShares } from '../../bench/lib/fairness';
import { EFFECT_CAPACITY, EXECUTOR_MAPPING, executorConcurrency } from '../../shared/definitions';
import { benchRows } from '../../bench/lib/rows';

describe('tenantShares', () => {
  it('gives the big tenant its share and splits the rest evenly', () => {
    expect(tenantShares(10_000, 100, 0.5)).toEqual([5000, ...Array(99).fill(0).map((_, i) => (i < 50 ? 51 : 50))]);
    expect(tenantShares(600, 20, 0.5).reduce((a, b) => a + b, 0)).toBe(600);
  });

  it('leaves every tenant at least one effect', () => {
    expect(tenantShares(5, 4, 0.99)).toEqual([2, 1, 1, 1]);
  });

  it('refuses a workload it cannot split', () => {
    expect(() => tenantShares(3, 4, 0.5)).toThrow('need at least 2 tenants and one effect each, got 3 effects for 4 tenants');
    expect(() => tenantShares(100, 4, 1)).toThrow('bigShare must be in (0, 1), got 1');
  });
});

describe('arrivalOrder', () => {
  const lists = [['a1', 'a2', 'a3'], ['b1'], ['c1', 'c2']];

  it('burst-first: the first tenant whole, then the others take turns', () => {
    expect(arrivalOrder(lists, 'burst-first')).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'c2']);
  });

  it('interleaved: everyone takes turns, keeping each tenant’s own order', () => {
    expect(arrivalOrder(lists, 'interleaved')).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
  });
});

describe('fairnessFigures', () => {
  it('reads the worst tenant p99 against the median tenant p99, and the small tenants against the big one', () => {
    const waits = new Map([
      ['big', Array.from({ length: 100 }, (_, i) => i + 1)],
      ['s1', [10, 20]],
      ['s2', [30, 400]],
      ['s3', [50, 60]],
    ]);
    const f = fairnessFigures(waits);
    expect(f.tenants.map((t) => [t.tenant, t.p50Ms, t.p99Ms])).toEqual([
      ['big', 50, 99],
      ['s1', 10, 20],
      ['s2', 30, 400],
      ['s3', 50, 60],
    ]);
    // p99s sorted: 20, 60, 99, 400 → nearest-rank median 60.
    expect(f.medianTenantP99Ms).toBe(60);
    expect(f).toMatchObject({ worstTenant: 's2', worstTenantP99Ms: 400 });
    expect(f.ratio).toBeCloseTo(400 / 60);
    // Small tenants' p99s 20, 60, 400 → median 60, over the big tenant's 99.
    expect(f.smallOverBig).toBeCloseTo(60 / 99);
  });

  it('refuses a tenant without measured effects', () => {
    expect(() => fairnessFigures(new Map([['a', [1]], ['b', []]]))).toThrow('tenant b has no measured effect');
  });
});

describe('executor concurrency from the data plane’s allowed rate', () => {
  it("is rate × seconds per effect (Little's law), at least Lambda's minimum of 2", () => {
    expect(executorConcurrency(50, 0.1)).toBe(5);
    expect(executorConcurrency(51, 0.1)).toBe(6);
    expect(executorConcurrency(1, 0.1)).toBe(2);
    expect(executorConcurrency(500, 0.2)).toBe(100);
  });

  it('is what the stack deploys', () => {
    expect(EXECUTOR_MAPPING.maxConcurrency).toBe(executorConcurrency(EFFECT_CAPACITY.dataPlaneEffectsPerSecond, EFFECT_CAPACITY.effectSeconds));
  });

  it('refuses a rate or effect time that is not positive', () => {
    expect(() => executorConcurrency(0, 0.1)).toThrow('effect capacity needs a positive rate and effect time, got 0/s × 0.1 s');
  });
});

describe('the capacity rows (bench/lib/rows.ts, item 7)', () => {
  const machine = { cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date: '2026-01-01', loadAverageAtStart: [1, 1, 1] };
  const figures = (ratio: number, smallOverBig: number) => ({ tenants: [], medianTenantP99Ms: 100_000, worstTenant: 'b-7', worstTenantP99Ms: 100_000 * ratio, ratio, smallOverBig });
  const run = (o: { ratio: number; drain: number; effectMs: number; smallOverBig?: number; order?: 'burst-first' | 'interleaved' }) => ({
    order: o.order ?? ('burst-first' as const),
    tenants: 100,
    effects: 10_000,
    bigTenantEffects: 5000,
    drainSeconds: 10_000 / o.drain,
    drainPerSecond: o.drain,
    allowedPerSecond: 50,
    effectMs: o.effectMs,
    concurrencyAllowsPerSecond: 5 / (o.effectMs / 1000),
    maxConcurrency: 5,
    batchSize: 10,
    peakInFlight: 5,
    fairness: figures(o.ratio, o.smallOverBig ?? 1.3),
    fairnessInServiceOrder: figures(o.ratio * 0.9, (o.smallOverBig ?? 1.3) * 0.9),
  });

  it('meets the goals when the worst tenant is within 3 × the median and the drain is near the allowed rate', () => {
    const rows = benchRows({ machine, quick: false, capacity: { runs: [run({ ratio: 1.2, drain: 45, effectMs: 105, smallOverBig: 0.4 }), run({ ratio: 1.5, drain: 45, effectMs: 105, order: 'interleaved' })] } });
    expect(rows.map((r) => [r.item, r.met, r.cause])).toEqual([
      [7, true, undefined],
      [7, true, undefined],
      [7, true, undefined],
      [7, true, undefined],
      [7, true, undefined],
    ]);
    // The burst row is read on the burst-first order only.
    expect(rows.filter((r) => r.figure.startsWith('A burst cannot starve the others')).map((r) => r.measured)).toEqual(['0.40×']);
    // The fairness row gives the service-order figures beside the wall-clock ones.
    expect(rows[0]!.measured).toBe("120 s ÷ 100 s = 1.20× (small tenants' median p99 = 0.40× the big tenant's); in service order 1.08× (0.36×)");
  });

  it('reads a run recorded before the service-order figures (no such clause)', () => {
    const { fairnessInServiceOrder: _, ...old } = run({ ratio: 1.2, drain: 45, effectMs: 105 });
    const rows = benchRows({ machine, quick: false, capacity: { runs: [old as ReturnType<typeof run>] } });
    expect(rows[0]!.measured).toBe("120 s ÷ 100 s = 1.20× (small tenants' median p99 = 1.30× the big tenant's)");
  });

  it('says why it missed: the starved tenant, or the effect time against the one the setting assumes', () => {
    const rows = benchRows({ machine, quick: false, capacity: { runs: [run({ ratio: 4, drain: 4.3, effectMs: 1114 })] } });
    expect(rows.map((r) => r.met)).toEqual([false, false, false]);
    expect(rows[0]!.cause).toMatch(/^tenant b-7 waited behind/);
    expect(rows[1]!.cause).toMatch(/^the small tenants waited for the big tenant's burst to drain: its per-tenant cap \(EFFECT_CAPACITY.perTenantInQueue\) did not hold it back/);
    expect(rows[2]!.cause).toMatch(/^an effect takes 1114 ms here against the 100 ms the setting assumes/);
  });
});

describe('servicePositions', () => {
  it('places every effect in the order the data plane held them, ties in key order', () => {
    const held = new Map([
      ['b/2', 30],
      ['a/1', 10],
      ['b/1', 10],
      ['a/2', 25],
    ]);
    expect([...servicePositions(held)]).toEqual([
      ['a/1', 1],
      ['b/1', 2],
      ['a/2', 3],
      ['b/2', 4],
    ]);
  });

  it('does not move when the drain slows down: the same order at any speed gives the same figures', () => {
    // Prepare: one order of service, once at a steady pace and once with the tail ten times slower
    // (a CPU burst beside the drain), which in milliseconds stretches only the tail's tenant.
    const order = ['s1/1', 's2/1', 'big/1', 's1/2', 'big/2', 's2/2', 'big/3', 'big/4'];
    const steady = new Map(order.map((k, i) => [k, (i + 1) * 10]));
    const burst = new Map(order.map((k, i) => [k, i < 6 ? (i + 1) * 10 : 60 + (i - 5) * 100]));
    const byTenant = (times: Map<string, number>) => {
      const out = new Map<string, number[]>();
      for (const [k, v] of times) out.set(k.split('/')[0]!, [...(out.get(k.split('/')[0]!) ?? []), v]);
      return out;
    };

    // Act
    const ms = [steady, burst].map((t) => fairnessFigures(byTenant(t)).ratio);
    const places = [steady, burst].map((t) => fairnessFigures(byTenant(servicePositions(t))).ratio);

    // Assess
    expect(ms[1]).toBeGreaterThan(ms[0]! * 2);
    expect(places[0]).toBe(places[1]);
  });
});

describe('drainProgress', () => {
  it('counts the big tenant’s effects held, the others’, and how many others have had one', () => {
    const held = new Map([
      ['big/u1', 1],
      ['big/u2', 2],
      ['s1/u1', 3],
    ]);
    expect(drainProgress(held, ['big', 's1', 's2'], [4, 2, 2])).toBe('held 3; big tenant 2 of 4, the others 1 of 4 (1 of 2 with at least one)');
    expect(drainProgress(new Map(), ['big', 's1'], [1, 1])).toBe('held 0; big tenant 0 of 1, the others 0 of 1 (0 of 1 with at least one)');
  });
});
