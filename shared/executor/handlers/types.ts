/**
 * One handler per effect kind (index.ts): what the executor does for that kind between reading the
 * effect with its object and settling it. The executor (../executor.ts) keeps what every kind
 * shares — the duplicate and catalog-behind checks, the scrub of a data plane's error, the retry
 * accounting, the settle — and asks the kind's handler for the rest.
 */
import type { CatalogObject } from '../../catalog/model';
import type { OutboxStore } from '../../catalog/outbox-store';
import type { StatusStore } from '../../catalog/status-store';
import type { ObjectReader } from '../../catalog/stores';
import type { ApplyResult, DataPlane } from '../../dataplane/contract';
import type { FaultInjector } from '../../dataplane/faults';
import type { Controller, EffectRecord, EffectState } from '../../effects/model';
import type { RetryPolicy } from '../../effects/retry-policies';
import type { SecretStore } from '../../secrets/store';
import type { ReconfigurationCatalog } from '../reconfigure';

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

/** `waiting`: a step that waits (a reconfiguration before its replicas are hydrated) left its effect pending for the sweeper to replay. */
export type Outcome = 'applied' | 'superseded' | 'duplicate' | 'failed' | 'waiting';

/** What a handler may use: the executor's dependencies and the steps it shares with every kind. */
export interface EffectContext {
  readonly deps: ExecutorDeps;
  now(): Date;
  getObject(tenant: string, id: string): Promise<CatalogObject | undefined>;
  /** Marks the effect settled, only if it is still pending. */
  settle(effect: EffectRecord, state: EffectState, lastError?: string): Promise<void>;
  /** Records a failed attempt (dead-lettered once the retry budget is spent). */
  recordAttempt(effect: EffectRecord, attempt: number, message: string): Promise<void>;
}

/** The object's desired state is present (not dropped, not gone), fenced at the newest generation known. */
export interface Desired {
  readonly present: boolean;
  readonly generation: number;
}

/** The row a replica's settle writes in the same transaction (StatusStore.replicaStatusItem). */
export type StatusWrite = ReturnType<StatusStore['replicaStatusItem']>;

/** A kind that reconciles a resource (on the data plane, or in the secret store), then settles. */
export interface ResourceHandler {
  readonly shape: 'resource';
  /** Before the resource is asked for: a connector's status says `starting`. */
  before?(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined): Promise<void>;
  /** Makes the resource match the object's desired state, or removes it; throws a DataPlaneError (transient or not). */
  reconcile(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, desired: Desired): Promise<ApplyResult>;
  /** The status row written in one transaction with the settle (a replica's `online`), none for other kinds. */
  statusWrite?(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, s: { readonly online: boolean; readonly reason: string | null }, held?: number): Promise<StatusWrite | undefined>;
  /** After a terminal error settled the effect `failed`: the object's status shows it. */
  failed?(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, message: string): Promise<void>;
}

/** A kind that is a step of a multi-step change, run whole (a cluster's reconfiguration). */
export interface StepHandler {
  readonly shape: 'step';
  run(x: EffectContext, effect: EffectRecord, attempt: number): Promise<Outcome>;
}

export type EffectHandler = ResourceHandler | StepHandler;
