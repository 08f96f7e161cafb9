/**
 * The effect executor: level-based reconciliation, like a Kubernetes controller. It acts on the
 * object's desired state read from the catalog NOW (not on the message that woke it), applies it
 * to the data plane fenced by generation, then marks the effect with a conditional write.
 */
import { resolveConnection } from '../catalog/connections';
import { connectorKind, type CatalogObject, type ObjectOf } from '../catalog/model';
import type { OutboxStore } from '../catalog/outbox-store';
import { reportState, type StatusStore } from '../catalog/status-store';
import type { ObjectReader } from '../catalog/stores';
import type { ApplyResult, DataPlane, ResourceOwner } from '../dataplane/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { Controller } from '../definitions';
import { CommitConflictError, DataPlaneError, RetryLater } from '../errors';
import { runReconfigurationStep, type ReconfigurationCatalog } from './reconfigure';
import type { EffectMessage, EffectRecord, EffectState } from '../effects/model';
import { budgetSpent, type RetryPolicy } from '../effects/retry-policies';
import { desiredSpec } from './desired';
import { scrubError } from '../probes/namespace';
import type { SecretStore } from '../secrets/store';
import { reportDueAt } from '../status/reports';
import { transition } from '../status/transition';

export interface ExecutorDeps {
  /** Desired state: the objects effects name; a snapshot and a commit for the reconfiguration step (compute). */
  readonly catalog: ObjectReader & Partial<ReconfigurationCatalog>;
  /** The effect records: read, settled, attempts recorded. */
  readonly outbox: Pick<OutboxStore, 'getEffect' | 'settle' | 'settleWith' | 'recordAttempt' | 'effectsOfTxn'>;
  /** Replica and connector statuses the executor moves. */
  readonly statuses: Pick<StatusStore, 'get' | 'apply' | 'replicaStatusItem' | 'writeReplicaStatus'>;
  readonly dataPlane: DataPlane;
  readonly controller: Controller;
  readonly policy: RetryPolicy;
  readonly faults?: FaultInjector;
  readonly clock?: () => Date;
  readonly secrets?: SecretStore;
}

/** Writers racing on one status (a report, the sweeper) settle within a few rounds (as in shared/status-ingest/ingest.ts). */
const MARK_STARTING_ROUNDS = 8;

/** `waiting`: a step that waits (a reconfiguration before its replicas are hydrated) left its effect pending for the sweeper to replay. */
export type Outcome = 'applied' | 'superseded' | 'duplicate' | 'failed' | 'waiting';


export class EffectExecutor {
  private readonly clock: () => Date;
  constructor(private readonly deps: ExecutorDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /** Processes one delivery; `attempt` is SQS's ApproximateReceiveCount. */
  async process(msg: EffectMessage, attempt: number): Promise<Outcome> {
    const { effect, object } = await this.load(msg);
    // Gone (aged out) or settled: a duplicate delivery, nothing to do.
    if (!effect || effect.state !== 'pending') return 'duplicate';

    if (object ? object.generation < effect.generation : effect.intent === 'ensure') {
      // The effect is newer than the catalog item: a staged commit is still being rolled
      // forward. Acting now could resurrect what it drops; come back when the catalog caught up.
      await this.recordAttempt(effect, attempt, `catalog not yet at generation ${effect.generation}`);
      throw new RetryLater(`catalog not yet at generation ${effect.generation} for ${effect.objectId}`, attempt);
    }
    this.deps.faults?.point('executor.before-dataplane');
    if (effect.kind === 'reconfiguration') return this.reconfigure(effect, attempt);
    await this.markStarting(effect, object);
    let result: ApplyResult;
    try {
      result = await this.reconcile(effect, object);
    } catch (err) {
      const dpErr = err instanceof DataPlaneError ? err : new DataPlaneError((err as Error).message, true, { cause: err });
      // What a data plane says may echo a credential: scrubbed before it is stored or shown.
      const message = await this.scrubbed(effect.tenant, object, dpErr.message);
      if (!dpErr.transient) {
        await this.settle(effect, 'failed', message);
        await this.writeStatus(effect, object, { online: false, reason: message });
        await this.failConnector(effect, object, message);
        return 'failed';
      }
      await this.recordAttempt(effect, attempt, message);
      throw new RetryLater(message, attempt);
    }
    this.deps.faults?.point('executor.after-dataplane');
    const state: EffectState = effect.generation < result.heldGeneration ? 'superseded' : 'applied';
    this.deps.faults?.point('executor.before-ack');
    await this.settleOnline(effect, object, state, result.heldGeneration);
    return state;
  }

  /**
   * A step of a graceful reconfiguration. Waiting is not a failure: it spends none of the retry
   * budget (the attempts count stays), notes what it waits for, and the sweeper replays it.
   */
  private async reconfigure(effect: EffectRecord, attempt: number): Promise<Outcome> {
    const { catalog } = this.deps;
    if (!catalog.loadSnapshot || !catalog.commit) throw new DataPlaneError('this executor has no catalog commit to settle a cluster reconfiguration with', false);
    let step;
    try {
      const deps = { catalog: { loadSnapshot: catalog.loadSnapshot.bind(catalog), commit: catalog.commit.bind(catalog) }, effects: this.deps.outbox, dataPlane: this.deps.dataPlane };
      step = await runReconfigurationStep(this.deps.faults ? { ...deps, faults: this.deps.faults } : deps, effect, this.clock());
    } catch (err) {
      if (!(err instanceof CommitConflictError)) throw err;
      // A DDL statement committed in between: decide again on the catalog it left.
      await this.recordAttempt(effect, attempt, `the reconfiguration's commit lost a race (${err.message}); retrying`);
      throw new RetryLater(err.message, attempt);
    }
    if (step.outcome === 'waiting') {
      // Counted as a check made (the effect shows it was attempted), never dead-lettered: each replay is a new message.
      await this.deps.outbox.recordAttempt(effect, { attempt: Math.max(effect.attempts + 1, attempt), lastError: step.note, deadLettered: false, now: this.clock() });
      return 'waiting';
    }
    this.deps.faults?.point('executor.before-ack');
    await this.settle(effect, step.outcome, step.outcome === 'applied' ? step.note : undefined);
    return step.outcome;
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

  private async reconcile(effect: EffectRecord, object: CatalogObject | undefined): Promise<ApplyResult> {
    const present = object !== undefined && !object.dropped;
    // Dropped (tombstone) or long gone: desired state is absent, fenced at the newest generation known.
    const generation = Math.max(effect.generation, object?.generation ?? 0);
    if (effect.kind === 'secret') return this.reconcileSecret(effect, present, generation);
    if (effect.kind === 'reconfiguration') throw new DataPlaneError('a reconfiguration step is not a data-plane resource', false);
    const dp = this.deps.dataPlane;
    const owner: ResourceOwner = { tenant: effect.tenant, objectId: effect.objectId, objectKind: object?.kind ?? 'unknown', objectName: effect.objectName };
    if (!present) return dp.drop(effect.kind, owner, generation);
    const lookup = (id: string) => this.getObject(effect.tenant, id);
    return dp.ensure(effect.kind, owner, generation, await desiredSpec(effect.kind, object!, lookup));
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

  /** The committed generation's value must be in the store (the DDL put it there first); older ones go. */
  private async reconcileSecret(effect: EffectRecord, present: boolean, generation: number): Promise<ApplyResult> {
    const store = this.deps.secrets;
    if (!store) throw new DataPlaneError('no secret store is configured for the secrets executor', false);
    if (!present) {
      await store.prune(effect.tenant, effect.objectId);
      return { changed: true, heldGeneration: generation };
    }
    if (!(await store.has(effect.tenant, effect.objectId, generation))) {
      throw new DataPlaneError(`the value of secret ${effect.objectName} (generation ${generation}) is missing from the secret store; set it again with ALTER SECRET`, false);
    }
    await store.prune(effect.tenant, effect.objectId, generation);
    return { changed: false, heldGeneration: generation };
  }

  /**
   * After the data plane holds the change: the replica's status (online, or gone with its replica)
   * and the effect's settle in ONE transaction — one round trip, and never one without the other.
   * When a condition fails (a newer generation's status is there, or another delivery settled
   * first) each write goes on its own, in the same order as before.
   */
  private async settleOnline(effect: EffectRecord, object: CatalogObject | undefined, state: EffectState, held: number): Promise<void> {
    const status = await this.statusWrite(effect, object, { online: true, reason: null }, held);
    if (!status) return this.settle(effect, state);
    if (await this.deps.outbox.settleWith(effect, state, this.clock(), status)) return;
    await this.deps.statuses.writeReplicaStatus(status);
    await this.settle(effect, state);
  }

  /**
   * The write of the replica's row in mz_cluster_replica_statuses (only by a newer-or-equal
   * generation), with its cluster's name as the catalog has it now (one read, replica effects
   * only: the row's event names the cluster, as two clusters may each have an `r1`); none for
   * other kinds.
   */
  private async statusWrite(effect: EffectRecord, object: CatalogObject | undefined, s: { online: boolean; reason: string | null }, held?: number) {
    if (effect.kind !== 'replica') return undefined;
    const present = object !== undefined && !object.dropped;
    const generation = held ?? object?.generation ?? effect.generation;
    const clusterId = object?.kind === 'cluster_replica' ? object.spec.clusterId : undefined;
    // Gone on a drop: the row is removed then, and says nothing.
    const cluster = present && clusterId ? await this.getObject(effect.tenant, clusterId) : undefined;
    return this.deps.statuses.replicaStatusItem(effect.tenant, effect.objectId, { ...s, generation, present, now: this.clock(), name: effect.objectName, ...(cluster ? { cluster: { id: cluster.id, name: cluster.name } } : {}) });
  }

  /** The replica's row in mz_cluster_replica_statuses, written only by a newer-or-equal generation. */
  private async writeStatus(effect: EffectRecord, object: CatalogObject | undefined, s: { online: boolean; reason: string | null }, held?: number): Promise<void> {
    const write = await this.statusWrite(effect, object, s, held);
    if (write) await this.deps.statuses.writeReplicaStatus(write);
  }

  /** A terminal error on a source's ingestion or a sink's export puts the connector in `failed`, in front of the user. */
  private async failConnector(effect: EffectRecord, object: CatalogObject | undefined, message: string): Promise<void> {
    const kind = object ? connectorKind(object) : undefined;
    if ((effect.kind !== 'ingestion' && effect.kind !== 'export') || !object || !kind) return;
    const prev = await this.deps.statuses.get(effect.tenant, effect.objectId);
    const t = transition(prev, { kind, dropped: false, generation: object.generation, effectError: message, resourcePresent: false, replicas: 1 }, this.clock().toISOString());
    const { reportDueAt: _due, ...report } = reportState(prev);
    await this.deps.statuses.apply(effect.tenant, { id: object.id, kind, name: object.name }, t, prev?.version, report);
  }

  /**
   * Before the data plane is asked to run a new generation of an ingestion or export, its status
   * says `starting`; from then on the data plane's reports move it (shared/status-ingest/ingest.ts).
   * Written before the call, so no report about the new generation can be overwritten by it; and
   * it must land before the call (retried when another writer moved the status in between), since
   * status-ingest refuses a report about a generation the status has not started.
   */
  private async markStarting(effect: EffectRecord, object: CatalogObject | undefined): Promise<void> {
    const kind = object ? connectorKind(object) : undefined;
    if ((effect.kind !== 'ingestion' && effect.kind !== 'export') || !object || object.dropped || !kind) return;
    const store = this.deps.statuses;
    for (let round = 0; round < MARK_STARTING_ROUNDS; round++) {
      const prev = await store.get(effect.tenant, object.id);
      if (!prev || prev.status === 'dropped') return;
      // Only a status that has not seen this generation yet: a redelivery must not undo a report.
      if (prev.status !== 'created' && prev.generation === object.generation) return;
      // Ahead of this executor's object: a newer generation's executor marked it — or the status is
      // ahead of the catalog itself (a report from a generation nobody issued, accepted before
      // such reports were refused), which only a generation of the catalog's may replace.
      if (prev.generation > object.generation && !(await this.aheadOfCatalog(effect.tenant, prev.generation, object.id))) return;
      const now = this.clock();
      const t = transition(prev, { kind, dropped: false, generation: object.generation, resourcePresent: false, replicas: 1, report: { status: 'starting', error: null, details: null } }, now.toISOString());
      const due = reportDueAt('starting', now);
      // A report mark from beyond this generation (that same forged report) is dropped with it.
      const { reportGeneration, reportSequence, ...rest } = reportState(prev);
      const mark = reportGeneration !== undefined && reportGeneration <= object.generation ? { reportGeneration, ...(reportSequence !== undefined ? { reportSequence } : {}) } : {};
      if (await store.apply(effect.tenant, { id: object.id, kind, name: object.name }, t, prev.version, { ...rest, ...mark, ...(due ? { reportDueAt: due } : {}) })) return;
    }
    throw new Error(`the status of ${object.id} kept changing while generation ${object.generation} was being marked starting; the delivery will be retried`);
  }

  /** Whether a status generation is beyond what the catalog holds now (read again: this executor's read may be older). */
  private async aheadOfCatalog(tenant: string, generation: number, id: string): Promise<boolean> {
    const now = await this.getObject(tenant, id);
    return now !== undefined && !now.dropped && generation > now.generation;
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
