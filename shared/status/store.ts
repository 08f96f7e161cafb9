/**
 * Connector statuses and their history in the catalog table. A status item carries a version:
 * every change is a conditional write together with its history row, so two sweepers that
 * observe the same transition write it once (no duplicate history row).
 */
import { queryPartition } from '../dynamo';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { attentionPk, histSk, statusSk, tenantPk } from '../catalog/keys';
import type { ConnectorStatus, Transition } from './transition';

/** Materialize keeps status history 30 days. */
export const HISTORY_TTL_SECONDS = 30 * 24 * 3600;

export interface StoredStatus extends ConnectorStatus {
  readonly objectId: string;
  readonly kind: 'source' | 'sink';
  readonly name: string;
  readonly version: number;
}

export interface HistoryRow {
  readonly objectId: string;
  readonly occurredAt: string;
  readonly status: string;
  readonly error: string | null;
  readonly details: unknown;
}

type Item = Record<string, unknown>;

/** The items a status change writes: the status (on the attention index while not dropped) and its history row. */
export function statusItems(tenant: string, obj: { id: string; kind: 'source' | 'sink'; name: string }, t: Transition, version: number): { status: Item; history?: Item } {
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
    version,
    // Every live connector is watched each sweep; a dropped one is not.
    ...(t.next.status === 'dropped' ? {} : { attnPk: attentionPk(`${tenant}#${sk}`), attnSk: `0#${tenant}#${sk}` }),
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

  /** Applies a transition if the status is still at `prevVersion`; false when another writer got there first. */
  async apply(tenant: string, obj: { id: string; kind: 'source' | 'sink'; name: string }, t: Transition, prevVersion: number | undefined): Promise<boolean> {
    if (!t.history && prevVersion !== undefined) return false; // nothing changed: write nothing
    const { status, history } = statusItems(tenant, obj, t, (prevVersion ?? 0) + 1);
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
  const removes = status === 'dropped' ? ' REMOVE attnPk, attnSk' : '';
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
