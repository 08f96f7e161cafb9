/**
 * Effect capacity and per-tenant fairness, the pure part (no I/O): how a skewed workload is split
 * among tenants, the order its effects reach the queue, and the per-tenant wait figures the
 * issue's goal reads ("no tenant's p99 wait exceeds 3 × the median tenant's").
 */
import { percentile } from './stats';

/** How effects arrive at the queue: one tenant's whole burst ahead of everyone, or tenants taking turns. */
export const ARRIVAL_ORDERS = ['burst-first', 'interleaved'] as const;
export type ArrivalOrder = (typeof ARRIVAL_ORDERS)[number];

/**
 * Effects per tenant: the first tenant (the big one) gets `bigShare` of `total`, the others split
 * the rest as evenly as whole numbers allow (the first ones one more).
 */
export function tenantShares(total: number, tenants: number, bigShare: number): number[] {
  if (!Number.isInteger(total) || !Number.isInteger(tenants) || tenants < 2 || total < tenants) throw new Error(`need at least 2 tenants and one effect each, got ${total} effects for ${tenants} tenants`);
  if (!(bigShare > 0 && bigShare < 1)) throw new Error(`bigShare must be in (0, 1), got ${bigShare}`);
  const big = Math.min(total - (tenants - 1), Math.max(1, Math.round(total * bigShare)));
  const rest = total - big;
  const small = tenants - 1;
  return [big, ...Array.from({ length: small }, (_, i) => Math.floor(rest / small) + (i < rest % small ? 1 : 0))];
}

/**
 * The queue order of every tenant's items (each tenant's own in their order). `burst-first`: the
 * first tenant's items all come before anyone else's, then the others take turns; `interleaved`:
 * every tenant takes turns from the start (a tenant that runs out drops out of the rotation).
 */
export function arrivalOrder<T>(byTenant: readonly (readonly T[])[], order: ArrivalOrder): T[] {
  const turns = (lists: readonly (readonly T[])[]) => {
    const out: T[] = [];
    for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
    return out;
  };
  switch (order) {
    case 'burst-first':
      return [...(byTenant[0] ?? []), ...turns(byTenant.slice(1))];
    case 'interleaved':
      return turns(byTenant);
  }
}

/**
 * A drain's progress: effects held so far (`heldAt` keyed `<tenant>/<object id>`), the big
 * tenant's (the first) and the others', and how many of the others have had one held.
 */
export function drainProgress(heldAt: ReadonlyMap<string, number>, tenants: readonly string[], shares: readonly number[]): string {
  const held = new Map<string, number>();
  for (const key of heldAt.keys()) {
    const tenant = key.slice(0, key.lastIndexOf('/'));
    held.set(tenant, (held.get(tenant) ?? 0) + 1);
  }
  const big = held.get(tenants[0]!) ?? 0;
  const others = tenants.slice(1).reduce((a, t) => a + (held.get(t) ?? 0), 0);
  const served = tenants.slice(1).filter((t) => held.has(t)).length;
  return `held ${heldAt.size}; big tenant ${big} of ${shares[0]}, the others ${others} of ${shares.slice(1).reduce((a, b) => a + b, 0)} (${served} of ${tenants.length - 1} with at least one)`;
}

/**
 * Every effect's place in the order the data plane came to hold them (1 for the first, ties in
 * key order), from the times in `heldAt`. A wait counted in effects served before it, not in
 * milliseconds: what the queueing order alone decides, the same on a machine whose speed changes
 * during the drain (another process's CPU burst, an emulator slowing down as its tables grow),
 * which in wall-clock waits stretches whichever tenants' effects happened to be served then.
 */
export function servicePositions(heldAt: ReadonlyMap<string, number>): Map<string, number> {
  const order = [...heldAt].sort(([ka, a], [kb, b]) => a - b || (ka < kb ? -1 : ka > kb ? 1 : 0));
  return new Map(order.map(([key], i) => [key, i + 1]));
}

export interface TenantWait {
  readonly tenant: string;
  readonly effects: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface FairnessFigures {
  /** Every tenant's wait (queued → the data plane holds the change), in the order given. */
  readonly tenants: readonly TenantWait[];
  /** The median of the tenants' p99 waits (nearest rank). */
  readonly medianTenantP99Ms: number;
  /** The tenant with the highest p99 wait, and that wait. */
  readonly worstTenant: string;
  readonly worstTenantP99Ms: number;
  /** worst ÷ median: the goal is ≤ 3. */
  readonly ratio: number;
  /**
   * The small tenants' median p99 over the big tenant's p99: above 1, the small tenants waited
   * behind the big one's burst (their wait grows with its backlog, not with their own work).
   */
  readonly smallOverBig: number;
}

/** The figures of one run; `waits` maps each tenant to its effects' waits in ms, the big tenant first. */
export function fairnessFigures(waits: ReadonlyMap<string, readonly number[]>): FairnessFigures {
  const tenants: TenantWait[] = [...waits].map(([tenant, w]) => {
    if (w.length === 0) throw new Error(`tenant ${tenant} has no measured effect`);
    const s = [...w].sort((a, b) => a - b);
    return { tenant, effects: s.length, p50Ms: percentile(s, 50), p99Ms: percentile(s, 99) };
  });
  if (tenants.length < 2) throw new Error('fairness needs at least 2 tenants');
  const p99s = tenants.map((t) => t.p99Ms).sort((a, b) => a - b);
  const median = percentile(p99s, 50);
  const worst = tenants.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
  const smallMedian = percentile(tenants.slice(1).map((t) => t.p99Ms).sort((a, b) => a - b), 50);
  return {
    tenants,
    medianTenantP99Ms: median,
    worstTenant: worst.tenant,
    worstTenantP99Ms: worst.p99Ms,
    ratio: median > 0 ? worst.p99Ms / median : NaN,
    smallOverBig: tenants[0]!.p99Ms > 0 ? smallMedian / tenants[0]!.p99Ms : NaN,
  };
}

/** A recorded capacity run's service-order figures: none in runs recorded before they existed (before 8 December 2026). */
export function recordedServiceOrder(run: { readonly fairnessInServiceOrder: FairnessFigures }): FairnessFigures | undefined {
  return (run as { readonly fairnessInServiceOrder?: FairnessFigures }).fairnessInServiceOrder;
}
