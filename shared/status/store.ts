/**
 * Connector statuses and their history in the catalog table. A status item carries a version:
 * every change is a conditional write together with its history row, so two sweepers that
 * observe the same transition write it once (no duplicate history row).
 */
import { queryPartition } from '../dynamo';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { attentionPk, histSk, statusSk, tenantPk } from '../catalog/keys';
import type { ConnectorStatus, Transition } from './transition';

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

/** Sort-key prefix of connector deadlines on the attention index (after every ISO date, so the effect scan never reads them). */
export const DEADLINE_PREFIX = 'D#';

/**
 * A status sits on the attention index only while a report is due, keyed by its deadline: the
 * sweeper reads the deadlines that passed, never the connectors that are reporting.
 */
export function deadlineKeys(tenant: string, sk: string, dueAt: string | undefined): { attnPk?: string; attnSk?: string } {
  return dueAt ? { attnPk: attentionPk(`${tenant}#${sk}`), attnSk: `${DEADLINE_PREFIX}${dueAt}#${tenant}#${sk}` } : {};
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
      objectId: obj.id,
      kind: obj.kind,
      occurredAt: h.occurredAt,
      status: h.status,
      error: h.error,
      details: h.details,
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
    return r.Item?.type === 'connector_status' ? (r.Item as StoredStatus) : undefined;
  }

  async list(tenant: string): Promise<StoredStatus[]> {
    return (await this.query(tenant, 'STATUS#')).filter((i) => i.type === 'connector_status') as unknown as StoredStatus[];
  }

  async history(tenant: string): Promise<HistoryRow[]> {
    return (await this.query(tenant, 'HIST#')) as unknown as HistoryRow[];
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
    history: { occurredAt: now, status, error: null, details: null },
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
  // `once` (a staged commit, which a second roller may replay): the write must not set back a
  // status the pipeline moved on since — a new connector has no status yet, a dropped one stays so.
  const statusName = Object.keys(names).find((n) => names[n] === 'status')!;
  if (o.once && status === 'dropped') values[':dropped'] = 'dropped';
  const once = !o.once ? {} : { ConditionExpression: status === 'created' ? 'attribute_not_exists(pk)' : `attribute_not_exists(pk) OR ${statusName} <> :dropped` };
  return [
    { Update: { TableName: table, Key: { pk, sk }, UpdateExpression: `SET ${sets.join(', ')}${removes}`, ...once, ExpressionAttributeNames: names, ExpressionAttributeValues: values } },
    { Put: { TableName: table, Item: history!, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}
