/**
 * Status events: what the control plane publishes when a connector's status changes or an effect
 * ends `failed` (DESIGN.md: "Transitions are published as events so users can alert on them").
 * In AWS they go to the stack's own EventBridge bus; locally to an event log (local/event-log.ts).
 * The field names of `detail` are snake_case, like the API's wire format and Materialize's tables.
 */

/** The `source` of every event (what an EventBridge rule matches on). */
export const EVENT_SOURCE = 'ddl-control-plane';

export const DETAIL_TYPES = {
  connectorStatusChanged: 'Connector Status Changed',
  effectFailed: 'Effect Failed',
  /** A cluster replica's row in mz_cluster_replica_statuses changed (`online` ↔ `offline`, or its reason). */
  replicaStatusChanged: 'Cluster Replica Status Changed',
  /**
   * The data plane as a whole went silent (no status report at all for longer than a connector's
   * deadline) or reports again (shared/status/data-plane.ts): one event for the whole deployment,
   * however many connectors the silence stalls.
   */
  dataPlaneStatusChanged: 'Data Plane Status Changed',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];

export interface EventDetail {
  /**
   * Stable for one transition, whichever delivery of its stream record published it: the same
   * transition sent twice (a retried batch) carries the same id, so a consumer can drop the repeat.
   */
  readonly event_id: string;
  /** The tenant whose object it is; null for an event about the whole deployment (Data Plane Status Changed), which every tenant sees. */
  readonly tenant: string | null;
  readonly object_id: string;
  /** Absent only for a history row written before rows carried the name. */
  readonly object_name: string | null;
  /** `source` or `sink` for a connector; the effect's resource kind (`ingestion`, `replica`, ...) for an effect. */
  readonly object_kind: string;
  /**
   * Cluster Replica Status Changed only: the replica's cluster (a replica's name, `r1`, is unique
   * only within it). Absent for a row written before rows kept it.
   */
  readonly cluster_id?: string;
  readonly cluster_name?: string;
  /** The status before; null for a new connector, or where the writer could not know it (a DROP). */
  readonly from: string | null;
  readonly to: string;
  readonly error: string | null;
  readonly hints: readonly string[];
  /** Per-namespace errors (`{"postgres": "..."}`), as in mz_source_statuses' details. */
  readonly namespaced?: Readonly<Record<string, string>>;
  readonly occurred_at: string;
  /**
   * True on a connector's stall that the data plane's silence as a whole caused (and on the Data
   * Plane Status Changed event that says so): an alert rule can page once for the data plane
   * instead of once per connector (the stack's example rule does).
   */
  readonly data_plane_silent: boolean;
  /** Effect Failed only: which effect, and (also on Cluster Replica Status Changed) for which generation of the object. */
  readonly effect_id?: string;
  readonly controller?: string;
  readonly generation?: number;
}

export interface ControlPlaneEvent {
  /** Equal to `detail.event_id`. */
  readonly id: string;
  readonly source: typeof EVENT_SOURCE;
  readonly detailType: DetailType;
  /** When the transition happened (EventBridge's `time`). */
  readonly time: string;
  readonly detail: EventDetail;
}

/** Statuses an operator is paged for: the stack's example rule sends these to its alarm topic. */
export const ALERTING_STATUSES = ['stalled', 'failed'] as const;
/** The data plane statuses the example rule pages for. */
export const ALERTING_DATA_PLANE_STATUSES = ['silent'] as const;
/** The replica status the example rule pages for. */
export const ALERTING_REPLICA_STATUSES = ['offline'] as const;
