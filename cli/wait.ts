/**
 * `--wait`: block until the effects a statement committed are applied or have failed. The API
 * answers at commit; the effects run afterwards (stream → queue → executor). The effects of
 * this statement are the ones in mz_internal.mz_pending_effects that were not there before it
 * ran; an applied effect leaves that table, a failed one stays with `state = 'failed'`, and one
 * whose retries ran out stays pending with `dead_lettered = true` until an operator redrives it.
 */
import type { SqlClient } from './client';

export interface EffectRow {
  readonly effect_id: string;
  readonly object_id: string;
  readonly object_name: string;
  readonly controller: string;
  readonly kind: string;
  readonly intent: string;
  readonly generation: string;
  readonly state: 'pending' | 'failed';
  readonly attempts: string;
  readonly last_error: string | null;
  readonly dead_lettered: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

export const EFFECTS_QUERY = 'SELECT * FROM mz_internal.mz_pending_effects ORDER BY created_at';

export async function pendingEffects(client: SqlClient): Promise<EffectRow[]> {
  return client.records<EffectRow>(EFFECTS_QUERY);
}

export interface WaitOutcome {
  /** Ended in `failed` (terminal data-plane error). */
  readonly failed: readonly EffectRow[];
  /** Out of retries: waiting in a DLQ for `ddlctl effects redrive`. */
  readonly deadLettered: readonly EffectRow[];
  /** Still pending when the timeout passed. */
  readonly pending: readonly EffectRow[];
  readonly timedOut: boolean;
  /** The signal stopped the wait (Ctrl-C in the REPL); what was pending still is. */
  readonly interrupted: boolean;
}

export function describeEffect(e: EffectRow): string {
  return `${e.intent} ${e.controller}.${e.kind} of ${e.object_name} (generation ${e.generation})`;
}

export async function waitForEffects(
  client: SqlClient,
  before: ReadonlySet<string>,
  o: { timeoutMs: number; everyMs?: number; signal?: AbortSignal; onProgress?: (pending: readonly EffectRow[]) => void },
): Promise<WaitOutcome> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const mine = (await pendingEffects(client)).filter((e) => !before.has(e.effect_id));
    const failed = mine.filter((e) => e.state === 'failed');
    const deadLettered = mine.filter((e) => e.state === 'pending' && e.dead_lettered);
    const pending = mine.filter((e) => e.state === 'pending' && !e.dead_lettered);
    const done = { failed, deadLettered, pending, timedOut: false, interrupted: false };
    if (pending.length === 0) return done;
    if (o.signal?.aborted) return { ...done, interrupted: true };
    if (Date.now() >= deadline) return { ...done, timedOut: true };
    o.onProgress?.(pending);
    await pause(o.everyMs ?? 250, o.signal);
  }
}

/** Sleeps `ms`, or less when the signal fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
