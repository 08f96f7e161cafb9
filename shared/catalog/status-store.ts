/**
 * The status adapter: the only code that reads and writes statuses in the catalog table —
 * connector statuses (`STATUS#`), their history (`HIST#`) and replica statuses (`RSTATUS#`), one
 * item type per prefix. A connector status carries a version: every change is a conditional
 * write together with its history row, so two sweepers that observe the same transition write it
 * once (no duplicate history row).
 */
import { queryPartition } from '../dynamo';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { attentionKeys, DATA_PLANE_PK, DEADLINE_PREFIX, HIST_PREFIX, histSk, LIVENESS_SK, REPLICA_STATUS_PREFIX, replicaStatusSk, STATUS_PREFIX, statusSk, tenantPk } from './keys';
import type { ConnectorStatus, Transition } from '../status/transition';
import { LIVENESS_WRITE_INTERVAL_MS, type DataPlaneLiveness } from '../status/data-plane';
import type { TransactItem } from './outbox-store';

/** The data plane's liveness item: one per deployment, outside every tenant's partition. */
const LIVENESS_KEY = { pk: DATA_PLANE_PK, sk: LIVENESS_SK };
/** `resumedFrom` of a liveness write that ended no silence. */
export const NOT_SILENT = 'none';

/** Materialize keeps status history 30 days. */
export const HISTORY_TTL_SECONDS = 30 * 24 * 3600;

export interface StoredStatus extends ConnectorStatus, ReportState {
  readonly objectId: string;
  readonly kind: 'source' | 'sink';
  readonly name: string;
  readonly version: number;
}

/**
 * What a status remembers of the data plane's reports: the last one applied (a report at or
 * below it is stale or a duplicate), and when the next one is due (the sweeper's deadline).
 */
export interface ReportState {
  readonly reportGeneration?: number;
  readonly reportSequence?: number;
  /** The observed_at of the last report applied. */
  readonly lastReportAt?: string;
  /** When a report is due at the latest; absent while none is expected (failed, dropped). */
  readonly reportDueAt?: string;
}

/** The report fields of a stored status, to carry over a write that is not about a report. */
export function reportState(prev: ReportState | undefined): ReportState {
  if (!prev) return {};
  const { reportGeneration, reportSequence, lastReportAt, reportDueAt } = prev;
  return {
    ...(reportGeneration !== undefined ? { reportGeneration } : {}),
    ...(reportSequence !== undefined ? { reportSequence } : {}),
    ...(lastReportAt !== undefined ? { lastReportAt } : {}),
    ...(reportDueAt !== undefined ? { reportDueAt } : {}),
  };
}

export interface HistoryRow {
  readonly objectId: string;
  readonly occurredAt: string;
  readonly status: string;
  readonly error: string | null;
  readonly details: unknown;
}

type Item = Record<string, unknown>;

/**
 * What a replica status row said before its last write (set by `replicaStatusItem`, read by the
 * router's event selection); `REPLICA_NO_STATUS` when the write made the row.
 */
export const REPLICA_PREVIOUS = { status: 'previousStatus', reason: 'previousReason' } as const;
export const REPLICA_NO_STATUS = 'none';

/**
 * What a connector's status was before the DROP that made it `dropped` (set by the DROP's commit,
 * read by the router's event selection): the commit writes without reading the status, and its
 * history row cannot say where the connector came from; the status item's update can (its
 * right-hand sides read the item as it was). `CONNECTOR_NO_STATUS` when there was none.
 */
export const CONNECTOR_PREVIOUS_STATUS = 'previousStatus';
export const CONNECTOR_NO_STATUS = 'none';

/** A row of mz_cluster_replica_statuses. */
export interface ReplicaStatusRecord {
  readonly replicaId: string;
  readonly status: 'online' | 'offline';
  readonly reason: string | null;
  readonly generation: number;
  readonly updatedAt: string;
  /** The replica's cluster when the row was written (rows from before it was kept have none). */
  readonly clusterId?: string;
  readonly clusterName?: string;
}

/**
 * A status sits on the attention index only while a report is due, keyed by its deadline: the
 * sweeper reads the deadlines that passed, never the connectors that are reporting.
 */
export function deadlineKeys(tenant: string, sk: string, dueAt: string | undefined): { attnPk?: string; attnSk?: string } {
  return dueAt ? attentionKeys(tenant, sk, `${DEADLINE_PREFIX}${dueAt}`) : {};
}

/** The items a status change writes: the status (on the attention index while not dropped) and its history row. */
export function statusItems(tenant: string, obj: { id: string; kind: 'source' | 'sink'; name: string }, t: Transition, version: number, report: ReportState = {}): { status: Item; history?: Item } {
  const pk = tenantPk(tenant);
  const sk = statusSk(obj.id);
  const status: Item = {
    pk,
    sk,
    type: 'connector_status',
    tenant,
    objectId: obj.id,
    kind: obj.kind,
    name: obj.name,
    ...t.next,
    ...report,
    version,
    ...(t.next.status === 'dropped' ? {} : deadlineKeys(tenant, sk, report.reportDueAt)),
  };
  if (!t.history) return { status };
  const h = t.history;
  return {
    status,
    history: {
      pk,
      sk: histSk(obj.id, h.occurredAt),
      type: 'status_history',
      // Tenant, name and the status before: what the status event of this row says (shared/events/select.ts).
      tenant,
      objectId: obj.id,
      kind: obj.kind,
      name: obj.name,
      ...(h.from !== undefined ? { from: h.from } : {}),
      occurredAt: h.occurredAt,
      status: h.status,
      error: h.error,
      details: h.details,
      ...(h.dataPlaneSilent ? { dataPlaneSilent: true } : {}),
      expiresAt: Math.floor(Date.parse(h.occurredAt) / 1000) + HISTORY_TTL_SECONDS,
    },
  };
}

export class StatusStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Applies a transition if the status is still at `prevVersion`; false when another writer got
   * there first. `report` is the status's report state after the write (carry the previous one
   * over with `reportState(prev)` when the write is not about a report).
   */
  async apply(tenant: string, obj: { id: string; kind: 'source' | 'sink'; name: string }, t: Transition, prevVersion: number | undefined, report: ReportState = {}): Promise<boolean> {
    if (!t.history && prevVersion !== undefined) return false; // nothing changed: write nothing
    const { status, history } = statusItems(tenant, obj, t, (prevVersion ?? 0) + 1, report);
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: status,
                ...(prevVersion === undefined
                  ? { ConditionExpression: 'attribute_not_exists(pk)' }
                  : { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': prevVersion } }),
              },
            },
            ...(history ? [{ Put: { TableName: this.table, Item: history, ConditionExpression: 'attribute_not_exists(pk)' } }] : []),
          ],
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof TransactionCanceledException || err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /**
   * A report that changed nothing but the report state (a heartbeat, or the same health again):
   * moves the mark and the deadline, if the status is still at `prevVersion`; no history row.
   */
  async touch(tenant: string, objectId: string, generation: number, prevVersion: number, report: ReportState): Promise<boolean> {
    const fields: Record<string, unknown> = { ...report, ...deadlineKeys(tenant, statusSk(objectId), report.reportDueAt) };
    const sets = Object.keys(fields).map((k) => `#${k} = :${k}`);
    // No deadline in the new state (failed): none in the item, and off the attention index.
    const removes = report.reportDueAt === undefined ? ' REMOVE reportDueAt, attnPk, attnSk' : '';
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: tenantPk(tenant), sk: statusSk(objectId) },
          UpdateExpression: `SET ${['#v = :next', '#g = :g', ...sets].join(', ')}${removes}`,
          ConditionExpression: '#v = :v',
          ExpressionAttributeNames: { '#v': 'version', '#g': 'generation', ...Object.fromEntries(Object.keys(fields).map((k) => [`#${k}`, k])) },
          ExpressionAttributeValues: { ':v': prevVersion, ':next': prevVersion + 1, ':g': generation, ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [`:${k}`, v])) },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  async get(tenant: string, objectId: string): Promise<StoredStatus | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk: statusSk(objectId) }, ConsistentRead: true }));
    return r.Item as StoredStatus | undefined;
  }

  async list(tenant: string): Promise<StoredStatus[]> {
    return (await this.query(tenant, STATUS_PREFIX)) as unknown as StoredStatus[];
  }

  async history(tenant: string): Promise<HistoryRow[]> {
    return (await this.query(tenant, HIST_PREFIX)) as unknown as HistoryRow[];
  }

  async listReplicaStatuses(tenant: string): Promise<ReplicaStatusRecord[]> {
    return (await this.query(tenant, REPLICA_STATUS_PREFIX)) as unknown as ReplicaStatusRecord[];
  }

  /**
   * The write of a replica's row in mz_cluster_replica_statuses, only by a newer-or-equal
   * generation: the row (online or offline), or its removal when the replica is gone.
   */
  replicaStatusItem(tenant: string, replicaId: string, s: { online: boolean; reason: string | null; generation: number; present: boolean; now: Date; name?: string; cluster?: { id: string; name: string } }): TransactItem {
    const key = { pk: tenantPk(tenant), sk: replicaStatusSk(replicaId) };
    const condition = 'attribute_not_exists(pk) OR generation <= :g';
    if (!s.present && s.online) return { Delete: { TableName: this.table, Key: key, ConditionExpression: condition, ExpressionAttributeValues: { ':g': s.generation } } };
    const row: ReplicaStatusRecord = { replicaId, status: s.online ? 'online' : 'offline', reason: s.reason, generation: s.generation, updatedAt: s.now.toISOString() };
    // The cluster's name beside the replica's: two clusters' `r1` are two replicas (shared/events/select.ts).
    const values: Item = { ...row, type: 'replica_status', ...(s.name !== undefined ? { name: s.name } : {}), ...(s.cluster ? { clusterId: s.cluster.id, clusterName: s.cluster.name } : {}) };
    // The row is rewritten on every apply. The catalog stream carries new images only, so the row
    // keeps what it said before this write (every right-hand side of an update expression reads
    // the item as it was): the router publishes a replica status event only when status or reason
    // changed (shared/events/select.ts), once per change, whoever wrote it.
    const sets = Object.keys(values).map((k) => `#${k} = :${k}`);
    return {
      Update: {
        TableName: this.table,
        Key: key,
        UpdateExpression: `SET ${REPLICA_PREVIOUS.status} = if_not_exists(#status, :none), ${REPLICA_PREVIOUS.reason} = if_not_exists(#reason, :null), ${sets.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: Object.fromEntries(Object.keys(values).map((k) => [`#${k}`, k])),
        ExpressionAttributeValues: { ...Object.fromEntries(Object.entries(values).map(([k, v]) => [`:${k}`, v])), ':g': s.generation, ':none': REPLICA_NO_STATUS, ':null': null },
      },
    };
  }

  /** Writes a replica status item (`replicaStatusItem`); a newer generation's row stays (ours is stale, which is fine). */
  async writeReplicaStatus(item: TransactItem): Promise<void> {
    try {
      if (item.Delete) await this.doc.send(new DeleteCommand(item.Delete));
      else if (item.Update) await this.doc.send(new UpdateCommand(item.Update));
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  /** The data plane's liveness item (shared/status/data-plane.ts); undefined before its first report. */
  async dataPlaneLiveness(o: { consistent?: boolean } = {}): Promise<DataPlaneLiveness | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: LIVENESS_KEY, ...(o.consistent ? { ConsistentRead: true } : {}) }));
    if (!r.Item) return undefined;
    const { lastReportAt, silentSince, detectedAt } = r.Item as DataPlaneLiveness;
    return { ...(lastReportAt ? { lastReportAt } : {}), ...(silentSince ? { silentSince } : {}), ...(detectedAt ? { detectedAt } : {}) };
  }

  /**
   * Status-ingest received a report at `now`: stamps the liveness item unless a stamp newer than
   * one write interval is there (so however many containers stamp, one write an interval lands),
   * and ends a silence the sweeper marked. `resumedFrom` keeps the silence this write ended (none
   * otherwise): the router publishes the data plane's return from it (shared/events/select.ts).
   * Returns whether it wrote.
   */
  async stampDataPlane(now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: LIVENESS_KEY,
          UpdateExpression: 'SET #type = :type, resumedFrom = if_not_exists(silentSince, :none), lastReportAt = :now REMOVE silentSince, detectedAt',
          // (A stamp ahead of this clock — another container's, or a clock set back — is replaced too.)
          ConditionExpression: 'attribute_not_exists(lastReportAt) OR lastReportAt < :fresh OR lastReportAt > :now OR attribute_exists(silentSince)',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':type': 'data_plane_liveness', ':none': NOT_SILENT, ':now': now.toISOString(), ':fresh': new Date(now.getTime() - LIVENESS_WRITE_INTERVAL_MS).toISOString() },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /**
   * The sweeper found the data plane silent: marks it, on condition that no report was stamped
   * since it read `lastReportAt` and no other sweeper marked it first. True when this call marked it.
   */
  async markDataPlaneSilent(lastReportAt: string, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: LIVENESS_KEY,
          UpdateExpression: 'SET silentSince = :since, detectedAt = :now, resumedFrom = :none',
          ConditionExpression: 'lastReportAt = :since AND attribute_not_exists(silentSince)',
          ExpressionAttributeValues: { ':since': lastReportAt, ':now': now.toISOString(), ':none': NOT_SILENT },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  private query(tenant: string, prefix: string): Promise<Item[]> {
    return queryPartition(this.doc, this.table, tenantPk(tenant), prefix);
  }
}

/**
 * The status writes of a DDL commit (in its transaction): `created` for a new connector, `dropped`
 * for a dropped one. An Update that bumps the version, so a sweeper holding an older version loses.
 */
export function commitStatusItems(table: string, tenant: string, obj: { id: string; kind: 'source' | 'sink'; name: string; generation: number }, status: 'created' | 'dropped', now: string, o: { once?: boolean } = {}) {
  const t: Transition = {
    next: { status, error: null, details: null, lastStatusChangeAt: now, generation: obj.generation },
    // A new connector has no status before; a DROP commits without reading it (from: unknown).
    history: { occurredAt: now, status, error: null, details: null, ...(status === 'created' ? { from: null } : {}) },
  };
  const { status: item, history } = statusItems(tenant, obj, t, 0);
  const { pk, sk, version: _v, ...fields } = item as Item & { pk: string; sk: string };
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':one': 1, ':zero': 0 };
  const sets: string[] = ['#version = if_not_exists(#version, :zero) + :one'];
  Object.entries(fields).forEach(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    sets.push(`#f${i} = :f${i}`);
  });
  const removes = status === 'dropped' ? ' REMOVE attnPk, attnSk, reportDueAt' : '';
  const statusName = Object.keys(names).find((n) => names[n] === 'status')!;
  if (status === 'dropped') {
    // The status as it was before this write: the drop's event says where the connector came from.
    names['#previous'] = CONNECTOR_PREVIOUS_STATUS;
    values[':noStatus'] = CONNECTOR_NO_STATUS;
    sets.push(`#previous = if_not_exists(${statusName}, :noStatus)`);
  }
  // `once` (a staged commit, which a second roller may replay): the write must not set back a
  // status the pipeline moved on since — a new connector has no status yet, a dropped one stays so.
  if (o.once && status === 'dropped') values[':dropped'] = 'dropped';
  const once = !o.once ? {} : { ConditionExpression: status === 'created' ? 'attribute_not_exists(pk)' : `attribute_not_exists(pk) OR ${statusName} <> :dropped` };
  return [
    { Update: { TableName: table, Key: { pk, sk }, UpdateExpression: `SET ${sets.join(', ')}${removes}`, ...once, ExpressionAttributeNames: names, ExpressionAttributeValues: values } },
    { Put: { TableName: table, Item: history!, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}
