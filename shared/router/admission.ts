/**
 * Admission: a per-tenant cap on the effects in the queues (EFFECT_CAPACITY.perTenantInQueue), so
 * one tenant's burst cannot starve the others (docs/operations.md, "Effect capacity and
 * per-tenant fairness"). SQS FIFO serves message groups roughly in arrival order; with every
 * effect of a burst in the queue, whoever queued behind it waits for all of it. Admitted, a
 * tenant has at most `cap` effects in the queues, and another tenant's effect waits behind at
 * most that many.
 *
 * - The router and the DDL function's fast path send an effect only once admitted; the rest stay
 *   `pending` in the outbox (the record), in commit order.
 * - The settle of an effect releases its slot in the same transaction (OutboxStore.settle); the
 *   executor that settled one of a tenant's effects then admits and sends the tenant's next
 *   pending ones ({@link Admission.next}).
 * - The sweeper admits and sends pending effects nobody sent (a crash between a settle and the
 *   next send, or between admission and send) and releases the slots of effects no longer
 *   pending ({@link leakedSlots}).
 *
 * The state is one item per tenant, owned by OutboxStore (shared/catalog/outbox-store.ts).
 */
import type { AdmissionState, AdmitResult, OutboxStore, PendingEffect, TransactItem } from '../catalog/outbox-store';

export interface AdmissionDeps {
  readonly outbox: Pick<OutboxStore, 'admit' | 'admission' | 'unadmitted' | 'admitWithCommitItem'>;
  /** Effects of one tenant admitted at a time. */
  readonly cap: number;
  readonly clock?: () => Date;
}

/** What admission needs of an effect (a record or a routed message). */
export interface Admissible {
  readonly tenant: string;
  readonly effectId: string;
  /** The outbox record's sort key (admission checks the effect is still pending). */
  readonly sk: string;
}

/** Items grouped by tenant, each tenant's in the order given (commit or stream order). Pure. */
export function byTenant<T extends Admissible>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(item.tenant, [...(out.get(item.tenant) ?? []), item]);
  return out;
}

/**
 * A tenant's admission item read before the settles that make a refill (started as the effect was
 * found pending, alongside the data plane call), and the ids those settles released.
 */
export interface EarlyAdmissionRead {
  readonly state: Promise<AdmissionState>;
  readonly released: readonly string[];
}

/** An admission state read before `released` were released, as it is after: without them. Pure. */
export function withoutReleased(state: AdmissionState, released: readonly string[]): AdmissionState {
  if (!released.some((id) => state.admitted.has(id))) return state;
  const admitted = new Set(state.admitted);
  for (const id of released) admitted.delete(id);
  return { ...state, admitted };
}

/** Free slots of a tenant whose set holds `admitted` ids. Pure. */
export function freeSlots(admitted: number, cap: number): number {
  return Math.max(0, cap - admitted);
}

/**
 * The admitted ids whose slots are leaked: their effect is gone (aged out), settled, or
 * dead-lettered (its message is in the DLQ, not in the queue). Pure.
 */
export function leakedSlots(admitted: ReadonlySet<string>, effects: ReadonlyMap<string, Pick<PendingEffect, 'state' | 'deadLettered'> | undefined>): string[] {
  return [...admitted].filter((id) => {
    const e = effects.get(id);
    return !e || e.state !== 'pending' || e.deadLettered === true;
  });
}

export class Admission {
  private readonly clock: () => Date;
  constructor(private readonly deps: AdmissionDeps) {
    if (!Number.isInteger(deps.cap) || deps.cap < 1) throw new Error(`the per-tenant admission cap must be a positive integer, got ${deps.cap}`);
    this.clock = deps.clock ?? (() => new Date());
  }

  get cap(): number {
    return this.deps.cap;
  }

  /**
   * The write that admits a commit's new effects (all of one tenant) in the commit's transaction,
   * while the tenant has room for all of them: no round trip of its own after the commit. None
   * when they could never fit at once.
   */
  withCommit(tenant: string, effectIds: readonly string[]): TransactItem | undefined {
    return this.deps.outbox.admitWithCommitItem(tenant, effectIds, this.deps.cap, this.clock());
  }

  /** Admits one pending effect (idempotent): `full` when its tenant is at the cap, `settled` when it needs no sending. */
  admit(e: Admissible): Promise<AdmitResult> {
    return this.deps.outbox.admit(e, this.deps.cap, this.clock());
  }

  /**
   * Admits `items` tenant by tenant (tenants side by side), each tenant's in the order given: the
   * first one refused for the cap ends that tenant's admissions here, so its later effects never overtake an
   * earlier one; they stay pending for {@link next}. Returns the admitted, in the order given.
   */
  async admitInOrder<T extends Admissible>(items: readonly T[]): Promise<T[]> {
    const admitted = new Set<T>();
    await Promise.all(
      [...byTenant(items).values()].map(async (own) => {
        for (const item of own) {
          const r = await this.admit(item);
          if (r === 'full') return;
          if (r === 'admitted') admitted.add(item);
        }
      }),
    );
    return items.filter((i) => admitted.has(i));
  }

  /** The tenant's admission item (admitted ids and refill floor), strongly consistent: {@link next}'s first read, for a caller that starts it early. */
  state(tenant: string): Promise<AdmissionState> {
    return this.deps.outbox.admission(tenant);
  }

  /**
   * A tenant's next pending effects, admitted, up to its free slots, oldest commit first: what
   * the executor that settled one of its effects sends next. An effect another instance admitted
   * meanwhile is skipped by the read; one refused (the slots filled meanwhile) ends the round.
   *
   * `early`: the admission item as read before the settles (one round trip less after them). Its
   * ids and floor are a hint, as a read here is by the time it is used: the admit is conditioned
   * on the set's size, an id admitted twice is sent twice (SQS drops the copy by deduplication id,
   * generation fencing makes a late one a no-op), and the floor moves by compare-and-set on the
   * value read, so an older floor reads more records, never skips one. A failed early read is
   * read again here.
   */
  async next(tenant: string, early?: EarlyAdmissionRead): Promise<PendingEffect[]> {
    // The admitted ids and the floor the read starts from: one read of the tenant's admission item.
    const read = early ? await early.state.catch(() => undefined) : undefined;
    const state = read ? withoutReleased(read, early!.released) : await this.deps.outbox.admission(tenant);
    const free = freeSlots(state.admitted.size, this.deps.cap);
    if (free === 0) return [];
    const candidates = await this.deps.outbox.unadmitted(tenant, state.admitted, free, state);
    const out: PendingEffect[] = [];
    for (const e of candidates) {
      const r = await this.admit(e);
      if (r === 'full') break;
      if (r === 'admitted') out.push(e);
    }
    return out;
  }
}
