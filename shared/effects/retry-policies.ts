/**
 * Every retry loop in the product, by name, with its hard-coded policy (DESIGN.md invariant 7):
 * retry behaviour is part of the design, not a user-settable global.
 *
 * `budget` is the number of attempts before the loop gives up: for an executor, SQS's
 * `maxReceiveCount` (past it the message goes to the DLQ and the effect shows `failed`).
 */
export interface RetryPolicy {
  readonly name: string;
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly capMs: number;
  readonly budget: number;
}

function policy(name: string, initialDelayMs: number, factor: number, capMs: number, budget: number): RetryPolicy {
  return { name, initialDelayMs, factor, capMs, budget };
}

export const RETRY_POLICIES = {
  /** Compute reconciliation (replicas, dataflows): provisioning is slow but usually recovers. */
  'executor.compute': policy('executor.compute', 1_000, 2, 60_000, 8),
  /** Storage reconciliation (collections, read policies, ingestions). */
  'executor.storage': policy('executor.storage', 1_000, 2, 60_000, 8),
  /** Secret store writes: fast service, fail fast. */
  'executor.secrets': policy('executor.secrets', 500, 2, 10_000, 5),
  /**
   * Outbox replay by the sweeper: an effect still pending this long after its last activity has
   * probably lost its queue message (emulator restart, stream record past 24 h) and is re-sent.
   * Budget = replays before the effect is reported as stuck (it keeps being replayed at the cap).
   */
  'sweeper.replay': policy('sweeper.replay', 30_000, 2, 600_000, 10),
  /**
   * Replay of a waiting reconfiguration step (a cluster's pending replicas not yet hydrated): a
   * constant period, so a deadline is met within one period plus one sweep, however long the wait.
   */
  'sweeper.reconfiguration': policy('sweeper.reconfiguration', 30_000, 1, 30_000, 10),
  /** Stream router: a failed batch is retried by the event source mapping. */
  'router.stream': policy('router.stream', 200, 2, 10_000, 10),
  /**
   * DDL commits that lost a race on a shared catalog item (TransactionConflict, version moved).
   * Every commit of a tenant moves its catalog version, so with several API instances a request
   * can lose several races in a row while each replan is cheap (the refusal carries the version
   * item's change log: no read, a replan and a commit). These delays space the attempts, except
   * that a lone stale basis is replanned at once (`conflictWaitMs` in shared/api/sql-api.ts), and
   * a request gives up (40001) after twenty refusals only once it has also tried for
   * `DDL_COMMIT_PATIENCE_MS`. Each refusal means another request committed, so the tenant moves on
   * and only a starved request spends them: twenty keeps 40001 out of reach of ordinary
   * contention even on a loaded machine, where a slow instance loses races in a row (ten were
   * spent once by 4 instances of 5 commits each under a test run at load 20;
   * test/catalog/many-instances.test.ts, `npm run bench -- --only instances`).
   */
  'ddl.commit': policy('ddl.commit', 10, 2, 200, 20),
  /**
   * Writes to a tenant's admission item (shared/router/admission.ts) that lost a race with a
   * concurrent transaction on the same item (TransactionConflict): every settle of the tenant's
   * effects releases its slot there, so settles of one tenant's effects in parallel executors meet.
   */
  'outbox.admission': policy('outbox.admission', 20, 2, 1_000, 8),
  /** HTTP data-plane client calls. */
  'dataplane.http': policy('dataplane.http', 100, 2, 2_000, 3),
} as const satisfies Record<string, RetryPolicy>;

export type RetryLoop = keyof typeof RETRY_POLICIES;

/** Delay before attempt `attempt + 1`, given that `attempt` attempts (>= 1) have failed. */
export function backoffMs(p: RetryPolicy, attempt: number): number {
  const raw = p.initialDelayMs * p.factor ** Math.max(0, attempt - 1);
  return Math.min(p.capMs, Math.round(raw));
}

export function budgetSpent(p: RetryPolicy, attempt: number): boolean {
  return attempt >= p.budget;
}
