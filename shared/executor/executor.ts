/**
 * The effect executor: level-based reconciliation, like a Kubernetes controller. It acts on the
 * object's desired state read from the catalog NOW (not on the message that woke it), applies it
 * to the data plane fenced by generation, then marks the effect with a conditional write. What
 * each effect kind does on its own (a replica's status row, a connector's `starting` and `failed`,
 * a secret's store, a reconfiguration's step) is its handler's, in ./handlers.
 */
import { resolveConnection } from '../catalog/connections';
import type { CatalogObject, ObjectOf } from '../catalog/model';
import type { ApplyResult } from '../dataplane/contract';
import { DataPlaneError, RetryLater } from '../errors';
import type { EffectMessage, EffectRecord, EffectState } from '../effects/model';
import { budgetSpent } from '../effects/retry-policies';
import { scrubError } from '../probes/namespace';
import { EFFECT_HANDLERS, type EffectContext, type ExecutorDeps, type Outcome } from './handlers';
import type { ResourceHandler } from './handlers/types';

export type { ExecutorDeps, Outcome } from './handlers';

export class EffectExecutor {
  private readonly clock: () => Date;
  /** What the kinds' handlers (./handlers) may use: the dependencies and the steps every kind shares. */
  private readonly context: EffectContext;

  constructor(private readonly deps: ExecutorDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.context = {
      deps,
      now: () => this.clock(),
      getObject: (tenant, id) => this.getObject(tenant, id),
      settle: (effect, state, lastError) => this.settle(effect, state, lastError),
      recordAttempt: (effect, attempt, message) => this.recordAttempt(effect, attempt, message),
    };
  }

  /**
   * Processes one delivery; `attempt` is SQS's ApproximateReceiveCount. `o.applying` is told when
   * the effect is found pending and is about to be applied (a settle, which releases its slot, is
   * then likely), before the data plane is called.
   */
  async process(msg: EffectMessage, attempt: number, o: { applying?: (effect: EffectRecord) => void } = {}): Promise<Outcome> {
    const { effect, object } = await this.load(msg);
    // Gone (aged out) or settled: a duplicate delivery, nothing to do.
    if (!effect || effect.state !== 'pending') return 'duplicate';

    if (object ? object.generation < effect.generation : effect.intent === 'ensure') {
      // The effect is newer than the catalog item: a staged commit is still being rolled
      // forward. Acting now could resurrect what it drops; come back when the catalog caught up.
      await this.recordAttempt(effect, attempt, `catalog not yet at generation ${effect.generation}`);
      throw new RetryLater(`catalog not yet at generation ${effect.generation} for ${effect.objectId}`, attempt);
    }
    o.applying?.(effect);
    this.deps.faults?.point('executor.before-dataplane');
    const handler = EFFECT_HANDLERS[effect.kind];
    if (handler.shape === 'step') return handler.run(this.context, effect, attempt);
    await handler.before?.(this.context, effect, object);
    let result: ApplyResult;
    try {
      // Dropped (tombstone) or long gone: desired state is absent, fenced at the newest generation known.
      const desired = { present: object !== undefined && !object.dropped, generation: Math.max(effect.generation, object?.generation ?? 0) };
      result = await handler.reconcile(this.context, effect, object, desired);
    } catch (err) {
      const dpErr = err instanceof DataPlaneError ? err : new DataPlaneError((err as Error).message, true, { cause: err });
      // What a data plane says may echo a credential: scrubbed before it is stored or shown.
      const message = await this.scrubbed(effect.tenant, object, dpErr.message);
      if (!dpErr.transient) {
        await this.settle(effect, 'failed', message);
        await handler.failed?.(this.context, effect, object, message);
        return 'failed';
      }
      await this.recordAttempt(effect, attempt, message);
      throw new RetryLater(message, attempt);
    }
    this.deps.faults?.point('executor.after-dataplane');
    const state: EffectState = effect.generation < result.heldGeneration ? 'superseded' : 'applied';
    this.deps.faults?.point('executor.before-ack');
    await this.settleOnline(handler, effect, object, state, result.heldGeneration);
    return state;
  }

  /**
   * The effect record and its object, read at the same time (two strongly consistent GetItems in
   * parallel: the message names both; the executors' role has GetItem, not BatchGetItem). Neither
   * read depends on the other: the object is read after the message exists, so it holds at least
   * the effect's committed generation whichever read lands first.
   */
  private async load(msg: EffectMessage): Promise<{ effect?: EffectRecord; object?: CatalogObject }> {
    const [effect, named] = await Promise.all([
      this.deps.outbox.getEffect(msg.tenant, msg.sk),
      msg.objectId ? this.getObject(msg.tenant, msg.objectId) : Promise.resolve(undefined),
    ]);
    if (!effect || effect.state !== 'pending') return effect ? { effect } : {};
    // The object the record names is authoritative (a message from elsewhere could name another one).
    const object = effect.objectId === msg.objectId ? named : await this.getObject(msg.tenant, effect.objectId);
    return object ? { effect, object } : { effect };
  }

  private getObject(tenant: string, id: string): Promise<CatalogObject | undefined> {
    return this.deps.catalog.getObject(tenant, id);
  }

  /**
   * A data plane's error text without the secret values of the object's connection (when this
   * executor can read the secret store) or passwords in URLs, bounded in length.
   */
  private async scrubbed(tenant: string, object: CatalogObject | undefined, message: string): Promise<string> {
    // A subsource's or source-fed table's connection is its source's.
    const own = object?.spec as { connectionId?: string; sourceId?: string; fromSource?: { sourceId: string } } | undefined;
    const spec = own?.fromSource ? { sourceId: own.fromSource.sourceId } : own;
    const source = spec?.sourceId === undefined || !this.deps.secrets ? undefined : await this.getObject(tenant, spec.sourceId);
    const connectionId = spec?.connectionId ?? (source?.spec as { connectionId?: string } | undefined)?.connectionId;
    const conn = connectionId === undefined || !this.deps.secrets ? undefined : ((await this.getObject(tenant, connectionId)) as ObjectOf<'connection'> | undefined);
    if (!conn || conn.dropped) return scrubError(message);
    const lookup = (id: string) => this.getObject(tenant, id);
    try {
      return scrubError(message, (await resolveConnection(tenant, conn, lookup, this.deps.secrets)).secrets);
    } catch {
      // The store could not be read: no value can be checked for, so none of the text is kept.
      return 'the data plane reported an error (its text is withheld: the secret store could not be read to scrub it)';
    }
  }

  /**
   * After the data plane holds the change: the replica's status (online, or gone with its replica)
   * and the effect's settle in ONE transaction — one round trip, and never one without the other.
   * When a condition fails (a newer generation's status is there, or another delivery settled
   * first) each write goes on its own, in the same order as before.
   */
  private async settleOnline(handler: ResourceHandler, effect: EffectRecord, object: CatalogObject | undefined, state: EffectState, held: number): Promise<void> {
    const status = await handler.statusWrite?.(this.context, effect, object, { online: true, reason: null }, held);
    if (!status) return this.settle(effect, state);
    if (await this.deps.outbox.settleWith(effect, state, this.clock(), status)) return;
    await this.deps.statuses.writeReplicaStatus(status);
    await this.settle(effect, state);
  }

  /** Marks the effect settled, only if it is still pending (removing it from the attention index). */
  private settle(effect: EffectRecord, state: EffectState, lastError?: string): Promise<void> {
    // Another delivery settled it first: the data plane call was idempotent, so are we.
    return this.deps.outbox.settle(effect, state, this.clock(), lastError);
  }

  private async recordAttempt(effect: EffectRecord, attempt: number, message: string): Promise<void> {
    const spent = budgetSpent(this.deps.policy, attempt);
    const lastError = spent ? `${message} (retry budget of ${this.deps.policy.budget} attempts spent; moved to the dead-letter queue)` : message;
    await this.deps.outbox.recordAttempt(effect, { attempt, lastError, deadLettered: spent, now: this.clock() });
  }
}
