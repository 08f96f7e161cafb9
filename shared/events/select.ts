/**
 * Which catalog stream records are status events, and the event each one is. Pure: the stream
 * router calls it on every record it receives and sends what it returns (shared/router/handler.ts).
 *
 * Why the stream and not each writer: a transition is written exactly once, by a conditional
 * write — the history row `HIST#<id>#<at>` (attribute_not_exists, shared/status/store.ts) and an
 * effect's move from `pending` to `failed` (conditional on `pending`, shared/executor/executor.ts).
 * Its stream record is therefore the one place that sees every transition, from every writer
 * (status ingest, sweeper, executors, DDL commits), once. A writer that published after its write
 * could crash in between (an event lost) or publish for a write whose transaction lost a race.
 * The stream is delivered at least once, so each event carries an id derived from the row itself:
 * a retried batch publishes the same ids again, and a consumer (or the local event log) keeps one.
 */
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DATA_PLANE_PK, EFF_PREFIX, HIST_PREFIX, histSk, LIVENESS_SK, REPLICA_STATUS_PREFIX, STATUS_PREFIX } from '../catalog/keys';
import { CONNECTOR_NO_STATUS, CONNECTOR_PREVIOUS_STATUS, NOT_SILENT, REPLICA_NO_STATUS, REPLICA_PREVIOUS } from '../catalog/status-store';
import { dataPlaneSilenceHint, SILENT_ERROR_PREFIX } from '../status/transition';
import type { EffectRecord } from '../effects/model';
import { DETAIL_TYPES, EVENT_SOURCE, type ControlPlaneEvent, type EventDetail } from './model';

/**
 * The stream filter patterns of status events (Lambda filter-pattern syntax): a new history row,
 * and an effect record modified into `failed`. The router's filter (shared/router/routing.ts)
 * adds them to its own.
 */
export const EVENT_FILTER_PATTERNS = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: HIST_PREFIX }] } } } },
  { eventName: ['MODIFY'], dynamodb: { NewImage: { sk: { S: [{ prefix: EFF_PREFIX }] }, state: { S: ['failed'] } } } },
  // Every write of a replica status row (`online` or `offline`): a filter cannot compare two
  // attributes, so whether it changed anything (previousStatus/previousReason against
  // status/reason) is decided below. In the same filter, a connector's status moved to `dropped`
  // by a DROP (its item knows the status before; the history row does not): connector statuses
  // are never `online` or `offline`, replica rows never `dropped`, so the one filter takes
  // exactly both — and never a connector's heartbeat. One filter, not two: an event source
  // mapping takes 5 by default (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html).
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { sk: { S: [{ prefix: REPLICA_STATUS_PREFIX }, { prefix: STATUS_PREFIX }] }, status: { S: ['online', 'offline', 'dropped'] } } } },
  // The data plane's liveness item: a few writes a minute at most (one stamp per write interval
  // lands, shared/catalog/status-store.ts); whether one began or ended a silence is decided below.
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { pk: { S: [DATA_PLANE_PK] }, sk: { S: [LIVENESS_SK] } } } },
] as const;

type Image = Record<string, unknown>;

function image(record: DynamoDBRecord): Image | undefined {
  const img = record.dynamodb?.NewImage;
  return img ? (unmarshall(img as Record<string, AttributeValue> as never) as Image) : undefined;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const TENANT_PK = /^T#(.+)$/;

/** The status event of one stream record, or undefined when the record is not one. */
export function eventForRecord(record: DynamoDBRecord): ControlPlaneEvent | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const item = image(record);
  const sk = str(item?.sk) ?? '';
  if (!item) return undefined;
  if (record.eventName === 'INSERT' && sk.startsWith(HIST_PREFIX) && item.type === 'status_history') return statusChanged(item);
  if (record.eventName === 'MODIFY' && sk.startsWith(EFF_PREFIX) && item.type === 'effect') return effectFailed(item as unknown as EffectRecord & { settledAt?: string });
  if (sk.startsWith(REPLICA_STATUS_PREFIX) && item.type === 'replica_status') return replicaStatusChanged(item);
  if (sk.startsWith(STATUS_PREFIX) && item.type === 'connector_status') return connectorDropped(item);
  if (item.pk === DATA_PLANE_PK && sk === LIVENESS_SK) return dataPlaneStatusChanged(item);
  return undefined;
}

/**
 * A write of the data plane's liveness item that began a silence (the sweeper's mark: `silentSince`
 * is there, and only that write puts it there) or ended one (a stamp whose `resumedFrom` names the
 * silence it removed). Every other stamp is not an event.
 */
function dataPlaneStatusChanged(item: Image): ControlPlaneEvent | undefined {
  const silentSince = str(item.silentSince);
  const detectedAt = str(item.detectedAt);
  const lastReportAt = str(item.lastReportAt);
  const resumedFrom = str(item.resumedFrom);
  const common = { tenant: null, object_id: 'data-plane', object_name: null, object_kind: 'data_plane' } as const;
  if (silentSince && detectedAt) {
    const seconds = Math.max(0, Math.round((Date.parse(detectedAt) - Date.parse(silentSince)) / 1000));
    return event(DETAIL_TYPES.dataPlaneStatusChanged, {
      event_id: `data-plane/silent/${silentSince}`,
      ...common,
      from: 'reporting',
      to: 'silent',
      error: `${SILENT_ERROR_PREFIX}${seconds} s`,
      hints: [dataPlaneSilenceHint(silentSince)],
      occurred_at: detectedAt,
      data_plane_silent: true,
    });
  }
  if (!silentSince && resumedFrom && resumedFrom !== NOT_SILENT && lastReportAt) {
    return event(DETAIL_TYPES.dataPlaneStatusChanged, {
      event_id: `data-plane/reporting/${resumedFrom}`,
      ...common,
      from: 'silent',
      to: 'reporting',
      error: null,
      hints: [],
      occurred_at: lastReportAt,
      data_plane_silent: false,
    });
  }
  return undefined;
}

/**
 * A replica status row's write that changed its status or reason (the row keeps what it said
 * before the write: shared/catalog/status-store.ts `replicaStatusItem`); a rewrite of the same
 * status is not an event. A row written before rows kept their previous values is not one either.
 */
function replicaStatusChanged(row: Image): ControlPlaneEvent | undefined {
  const tenant = tenantOf(row);
  const replicaId = str(row.replicaId);
  const to = str(row.status);
  const occurredAt = str(row.updatedAt);
  const previous = str(row[REPLICA_PREVIOUS.status]);
  const reason = str(row.reason);
  if (!tenant || !replicaId || !to || !occurredAt || previous === null) return undefined;
  if (previous === to && str(row[REPLICA_PREVIOUS.reason]) === reason) return undefined;
  return event(DETAIL_TYPES.replicaStatusChanged, {
    // The write's time: each write that changes the row has its own, every delivery of it the same.
    event_id: `${tenant}/${str(row.sk)}/${occurredAt}`,
    tenant,
    object_id: replicaId,
    object_name: str(row.name),
    object_kind: 'replica',
    ...(str(row.clusterId) ? { cluster_id: str(row.clusterId)! } : {}),
    ...(str(row.clusterName) ? { cluster_name: str(row.clusterName)! } : {}),
    from: previous === REPLICA_NO_STATUS ? null : previous,
    to,
    error: reason,
    hints: [],
    occurred_at: occurredAt,
    data_plane_silent: false,
    ...(typeof row.generation === 'number' ? { generation: row.generation } : {}),
  });
}

function tenantOf(item: Image): string | undefined {
  return str(item.tenant) ?? TENANT_PK.exec(str(item.pk) ?? '')?.[1];
}

function event(detailType: ControlPlaneEvent['detailType'], detail: EventDetail): ControlPlaneEvent {
  return { id: detail.event_id, source: EVENT_SOURCE, detailType, time: detail.occurred_at, detail };
}

/**
 * The DROP that moved a connector's status to `dropped`, from the status item's write: its
 * `previousStatus` is what the status was before (the commit's history row cannot know it). The
 * event's id is the drop's history row's, so it is one event whichever record carries it. A later
 * write of a dropped status (previous `dropped`) or one that kept no previous status is none.
 */
function connectorDropped(item: Image): ControlPlaneEvent | undefined {
  const tenant = tenantOf(item);
  const objectId = str(item.objectId);
  const at = str(item.lastStatusChangeAt);
  const previous = str(item[CONNECTOR_PREVIOUS_STATUS]);
  if (item.status !== 'dropped' || !tenant || !objectId || !at || previous === null || previous === 'dropped') return undefined;
  return event(DETAIL_TYPES.connectorStatusChanged, {
    event_id: `${tenant}/${histSk(objectId, at)}`,
    tenant,
    object_id: objectId,
    object_name: str(item.name),
    object_kind: str(item.kind) ?? 'source',
    from: previous === CONNECTOR_NO_STATUS ? null : previous,
    to: 'dropped',
    error: null,
    hints: [],
    occurred_at: at,
    data_plane_silent: false,
  });
}

function statusChanged(row: Image): ControlPlaneEvent | undefined {
  const tenant = tenantOf(row);
  const objectId = str(row.objectId);
  const occurredAt = str(row.occurredAt);
  const to = str(row.status);
  if (!tenant || !objectId || !occurredAt || !to) return undefined;
  // A DROP's row: the status item's write of it is the event, with the status before (connectorDropped).
  if (to === 'dropped' && row.from === undefined) return undefined;
  const details = (row.details ?? null) as { hints?: unknown; namespaced?: unknown } | null;
  const hints = Array.isArray(details?.hints) ? details.hints.filter((h): h is string => typeof h === 'string') : [];
  const namespaced = details?.namespaced && typeof details.namespaced === 'object' ? (details.namespaced as Record<string, string>) : undefined;
  return event(DETAIL_TYPES.connectorStatusChanged, {
    // The history row's key: written once per transition, so one id per transition.
    event_id: `${tenant}/${str(row.sk)}`,
    tenant,
    object_id: objectId,
    object_name: str(row.name),
    object_kind: str(row.kind) ?? 'source',
    from: str(row.from),
    to,
    error: str(row.error),
    hints,
    ...(namespaced ? { namespaced } : {}),
    occurred_at: occurredAt,
    data_plane_silent: row.dataPlaneSilent === true,
  });
}

function effectFailed(e: EffectRecord & { settledAt?: string }): ControlPlaneEvent | undefined {
  // Only the settle that moved it from pending (it sets updatedAt and settledAt to one instant);
  // a later write to the record (a DLQ redrive clearing its mark) is not a new failure.
  if (e.state !== 'failed' || !e.settledAt || e.settledAt !== e.updatedAt) return undefined;
  return event(DETAIL_TYPES.effectFailed, {
    event_id: `${e.tenant}/${e.sk}/failed`,
    tenant: e.tenant,
    object_id: e.objectId,
    object_name: e.objectName ?? null,
    object_kind: e.kind,
    from: 'pending',
    to: 'failed',
    error: e.lastError ?? null,
    hints: [],
    occurred_at: e.settledAt,
    data_plane_silent: false,
    effect_id: e.effectId,
    controller: e.controller,
    generation: e.generation,
  });
}
