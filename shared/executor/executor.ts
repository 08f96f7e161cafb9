/**
 * The effect executor: level-based reconciliation, like a Kubernetes controller. It acts on the
 * object's desired state read from the catalog NOW (not on the message that woke it), applies it
 * to the data plane fenced by generation, then marks the effect with a conditional write.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CatalogObject, ObjectOf } from '../catalog/model';
import { objSk, statusSk, tenantPk } from '../catalog/keys';
import { OUTBOX_TTL_SECONDS } from '../catalog/store';
import type { ApplyResult, DataPlane, ResourceOwner } from '../controllers/contract';
import type { FaultInjector } from '../dataplane/faults';
import type { Controller } from '../definitions';
import { DataPlaneError } from '../errors';
import type { EffectMessage, EffectRecord, EffectState } from '../effects/model';
import { budgetSpent, type RetryPolicy } from '../effects/retry-policies';
import { desiredSpec } from '../effects/desired';
import { scrubError } from '../probes/namespace';
import type { SecretStore } from '../secrets/store';
import { resolveConnection } from '../sweeper/connectors';
import { StatusStore, type StoredStatus } from '../status/store';
import { transition } from '../status/transition';

export interface ExecutorDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly catalogTable: string;
  readonly dataPlane: DataPlane;
  readonly controller: Controller;
  readonly policy: RetryPolicy;
  readonly faults?: FaultInjector;
  readonly clock?: () => Date;
  readonly secrets?: SecretStore;
}

export type Outcome = 'applied' | 'superseded' | 'duplicate' | 'failed';

/** A transient failure: the message must come back after the policy's backoff. */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly attempt: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RetryLater';
  }
}

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
   * The effect record and its object, read at the same time (two strongly consistent GetItems in
   * parallel: the message names both; the executors' role has GetItem, not BatchGetItem). Neither
   * read depends on the other: the object is read after the message exists, so it holds at least
   * the effect's committed generation whichever read lands first.
   */
  private async load(msg: EffectMessage): Promise<{ effect?: EffectRecord; object?: CatalogObject }> {
    const pk = tenantPk(msg.tenant);
    const [effect, named] = await Promise.all([
      this.getItem<EffectRecord>(pk, msg.sk),
      msg.objectId ? this.getItem<CatalogObject>(pk, objSk(msg.objectId)) : Promise.resolve(undefined),
    ]);
    if (!effect || effect.state !== 'pending') return effect ? { effect } : {};
    // The object the record names is authoritative (a message from elsewhere could name another one).
    const object = effect.objectId === msg.objectId ? named : await this.getItem<CatalogObject>(pk, objSk(effect.objectId));
    return object ? { effect, object } : { effect };
  }

  private async getItem<T>(pk: string, sk: string): Promise<T | undefined> {
    return (await this.deps.doc.send(new GetCommand({ TableName: this.deps.catalogTable, Key: { pk, sk }, ConsistentRead: true }))).Item as T | undefined;
  }

  private async reconcile(effect: EffectRecord, object: CatalogObject | undefined): Promise<ApplyResult> {
    const present = object !== undefined && !object.dropped;
    // Dropped (tombstone) or long gone: desired state is absent, fenced at the newest generation known.
    const generation = Math.max(effect.generation, object?.generation ?? 0);
    if (effect.kind === 'secret') return this.reconcileSecret(effect, present, generation);
    const dp = this.deps.dataPlane;
    const owner: ResourceOwner = { tenant: effect.tenant, objectId: effect.objectId, objectKind: object?.kind ?? 'unknown', objectName: effect.objectName };
    if (!present) return dp.drop(effect.kind, owner, generation);
    const lookup = (id: string) => this.getItem<CatalogObject>(tenantPk(effect.tenant), objSk(id));
    return dp.ensure(effect.kind, owner, generation, await desiredSpec(effect.kind, object!, lookup));
  }

  /**
   * A data plane's error text without the secret values of the object's connection (when this
   * executor can read the secret store) or passwords in URLs, bounded in length.
   */
  private async scrubbed(tenant: string, object: CatalogObject | undefined, message: string): Promise<string> {
    // A subsource's connection is its source's.
    const spec = object?.spec as { connectionId?: string; sourceId?: string } | undefined;
    const source = spec?.sourceId === undefined || !this.deps.secrets ? undefined : await this.getItem<CatalogObject>(tenantPk(tenant), objSk(spec.sourceId));
    const connectionId = spec?.connectionId ?? (source?.spec as { connectionId?: string } | undefined)?.connectionId;
    const conn = connectionId === undefined || !this.deps.secrets ? undefined : await this.getItem<ObjectOf<'connection'>>(tenantPk(tenant), objSk(connectionId));
    if (!conn || conn.dropped) return scrubError(message);
    const lookup = (id: string) => this.getItem<CatalogObject>(tenantPk(tenant), objSk(id));
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
    const status = this.statusWrite(effect, object, { online: true, reason: null }, held);
    if (!status) return this.settle(effect, state);
    try {
      await this.deps.doc.send(new TransactWriteCommand({ TransactItems: [status, { Update: this.settleUpdate(effect, state) }] }));
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      await this.writeStatus(effect, object, { online: true, reason: null }, held);
      await this.settle(effect, state);
    }
  }

  /** The write of the replica's row in mz_cluster_replica_statuses (only by a newer-or-equal generation); none for other kinds. */
  private statusWrite(effect: EffectRecord, object: CatalogObject | undefined, s: { online: boolean; reason: string | null }, held?: number) {
    if (effect.kind !== 'replica') return undefined;
    const { catalogTable } = this.deps;
    const key = { pk: tenantPk(effect.tenant), sk: statusSk(effect.objectId) };
    const present = object !== undefined && !object.dropped;
    const generation = held ?? object?.generation ?? effect.generation;
    const fence = { ConditionExpression: 'attribute_not_exists(pk) OR generation <= :g', ExpressionAttributeValues: { ':g': generation } };
    if (!present && s.online) return { Delete: { TableName: catalogTable, Key: key, ...fence } };
    return {
      Put: {
        TableName: catalogTable,
        Item: { ...key, type: 'replica_status', replicaId: effect.objectId, status: s.online ? 'online' : 'offline', reason: s.reason, generation, updatedAt: this.clock().toISOString() },
        ...fence,
      },
    };
  }

  /** The replica's row in mz_cluster_replica_statuses, written only by a newer-or-equal generation. */
  private async writeStatus(effect: EffectRecord, object: CatalogObject | undefined, s: { online: boolean; reason: string | null }, held?: number): Promise<void> {
    const write = this.statusWrite(effect, object, s, held);
    if (!write) return;
    try {
      if (write.Delete) await this.deps.doc.send(new DeleteCommand(write.Delete));
      else if (write.Put) await this.deps.doc.send(new PutCommand(write.Put));
    } catch (err) {
      // A newer generation already wrote the status: ours is stale, which is fine.
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  /** A terminal error on a source's ingestion or a sink's export puts the connector in `failed`, in front of the user. */
  private async failConnector(effect: EffectRecord, object: CatalogObject | undefined, message: string): Promise<void> {
    if ((effect.kind !== 'ingestion' && effect.kind !== 'export') || !object || (object.kind !== 'source' && object.kind !== 'sink')) return;
    const { doc, catalogTable } = this.deps;
    const prev = await this.getItem<StoredStatus>(tenantPk(effect.tenant), statusSk(effect.objectId));
    const t = transition(prev, { kind: object.kind, dropped: false, generation: object.generation, effectError: message, resourcePresent: false, replicas: 1 }, this.clock().toISOString());
    await new StatusStore(doc, catalogTable).apply(effect.tenant, { id: object.id, kind: object.kind, name: object.name }, t, prev?.version);
  }

  /** Marks the effect settled, only if it is still pending (removing it from the attention index). */
  private settleUpdate(effect: EffectRecord, state: EffectState, lastError?: string) {
    const now = this.clock();
    return {
      TableName: this.deps.catalogTable,
      Key: { pk: effect.pk, sk: effect.sk },
      UpdateExpression: `SET #s = :s, updatedAt = :now, settledAt = :now, expiresAt = :exp${lastError ? ', lastError = :err' : ''} REMOVE attnPk, attnSk`,
      ConditionExpression: '#s = :pending',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: {
        ':s': state,
        ':now': now.toISOString(),
        ':exp': Math.floor(now.getTime() / 1000) + OUTBOX_TTL_SECONDS,
        ':pending': 'pending',
        ...(lastError ? { ':err': lastError } : {}),
      },
    };
  }

  private async settle(effect: EffectRecord, state: EffectState, lastError?: string): Promise<void> {
    try {
      await this.deps.doc.send(new UpdateCommand(this.settleUpdate(effect, state, lastError)));
    } catch (err) {
      // Another delivery settled it first: the data plane call was idempotent, so are we.
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  private async recordAttempt(effect: EffectRecord, attempt: number, message: string): Promise<void> {
    const spent = budgetSpent(this.deps.policy, attempt);
    const lastError = spent ? `${message} (retry budget of ${this.deps.policy.budget} attempts spent; moved to the dead-letter queue)` : message;
    try {
      await this.deps.doc.send(
        new UpdateCommand({
          TableName: this.deps.catalogTable,
          Key: { pk: effect.pk, sk: effect.sk },
          UpdateExpression: 'SET attempts = :a, lastError = :e, updatedAt = :now, deadLettered = :dl',
          ConditionExpression: '#s = :pending',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':a': attempt, ':e': lastError, ':now': this.clock().toISOString(), ':dl': spent, ':pending': 'pending' },
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }
}
