/**
 * Effects are data derived from the committed catalog change, never callbacks (DESIGN.md).
 * An effect says "reconcile this object to at least this generation"; the executor reads the
 * object's current desired state from the catalog, so delivery order does not matter.
 */

/** The controllers: one queue (with its DLQ) and one executor each (shared/definitions.ts EFFECT_QUEUES). */
export const CONTROLLERS = ['compute', 'storage', 'secrets'] as const;
export type Controller = (typeof CONTROLLERS)[number];

export const EFFECT_STATES = { pending: 'pending', applied: 'applied', superseded: 'superseded', failed: 'failed' } as const;
export type EffectState = (typeof EFFECT_STATES)[keyof typeof EFFECT_STATES];

/** What the effect asks for, per controller (a tagged union: add kinds here, switches follow). */
export type Intent = 'ensure' | 'drop';
export type EffectKind =
  | { readonly controller: 'compute'; readonly kind: 'replica' | 'dataflow'; readonly intent: Intent }
  | { readonly controller: 'storage'; readonly kind: 'collection' | 'ingestion' | 'export'; readonly intent: Intent }
  | { readonly controller: 'secrets'; readonly kind: 'secret'; readonly intent: Intent }
  /**
   * Not a data-plane resource but a step of a multi-step change: settle a cluster's graceful
   * reconfiguration once its pending replicas are hydrated or its deadline passed
   * (shared/executor/reconfigure.ts). Waiting leaves it pending; the sweeper replays it.
   */
  | { readonly controller: 'compute'; readonly kind: 'reconfiguration'; readonly intent: 'ensure' };

export type ResourceEffectKind = EffectKind['kind'];

/** The intent the planner derives from a change, before ids are assigned. */
export type EffectIntent = EffectKind & {
  readonly objectId: string;
  readonly objectName: string;
  readonly generation: number;
};

/** The outbox record, as stored in the catalog table (sk `EFF#<txn>#<seq>`). */
export type EffectRecord = EffectIntent & {
  readonly pk: string;
  readonly sk: string;
  readonly type: 'effect';
  readonly effectId: string;
  readonly tenant: string;
  readonly txnId: string;
  readonly state: EffectState;
  readonly attempts: number;
  readonly lastError?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
};

/** The queue message the router sends: just enough to find the record again. */
export interface EffectMessage {
  readonly tenant: string;
  readonly sk: string;
  readonly effectId: string;
  readonly objectId: string;
  readonly generation: number;
  readonly controller: Controller;
}

export function isControllerOf(kind: EffectKind, controller: Controller): boolean {
  return kind.controller === controller;
}
