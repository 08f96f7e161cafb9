/**
 * The catalog adapter: the only code that reads and writes catalog items with the SDK.
 * A request's whole change (catalog items, name guards, effects, transaction record) goes into
 * ONE TransactWriteItems (DESIGN.md invariant 1).
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ControlPlaneError, SQLSTATE } from '../errors';
import type { EffectIntent, EffectRecord } from '../effects/model';
import type { ChangeSet, CatalogWrite } from '../planner/workspace';
import { attentionPk, CATALOG_VERSION_SK, effSk, idemSk, OBJ_PREFIX, objSk, tenantPk, txnSk, EFF_PREFIX, STATUS_PREFIX, statusSk } from './keys';
import { createHash } from 'node:crypto';
import { queryPartition } from '../dynamo';

const sha256hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
import { CatalogSnapshot, DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogObject } from './model';
import { commitStatusItems } from '../status/store';
import { catalogVersionItem, LOCK_SK, readCatalogVersion, StagedCommits, StagedConflict, type Expectation, type FinalOp, type StagedOptions } from './staged';
import { SnapshotCache } from './snapshot-cache';
import { nameSk } from './keys';

/** Fixed ids of the default database and schema every tenant starts with. */
export const DEFAULT_DATABASE_ID = 'u000000000001';
export const DEFAULT_SCHEMA_ID = 'u000000000002';

/** DynamoDB's per-transaction limit: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html */
export const MAX_TRANSACTION_ITEMS = 100;
const DAY = 24 * 3600;
/** Dropped objects stay as tombstones this long: the sweeper needs them to tell orphans apart. */
export const TOMBSTONE_TTL_SECONDS = 30 * DAY;
/** Applied effects and transaction records age out after this. */
export const OUTBOX_TTL_SECONDS = 7 * DAY;

/** A retried request with the same Idempotency-Key gets this response back instead of running again. */
export interface IdempotencyRecord {
  readonly key: string;
  /** SHA-256 of the request body: the same key with another body is refused. */
  readonly fingerprint: string;
  readonly status: number;
  readonly body: string;
}
/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export interface TxnRecord {
  readonly txnId: string;
  readonly principal: string;
  readonly statements: readonly string[];
  readonly tags: readonly string[];
  readonly createdAt: string;
  readonly idempotencyKey?: string;
}

/** The commit lost a race: some condition on a shared item failed. Replanning decides what it means. */
export class CommitConflictError extends ControlPlaneError {
  constructor(readonly reasons: readonly string[]) {
    super(`catalog commit conflicted (${reasons.join(', ')})`, { code: SQLSTATE.serializationFailure });
    this.name = 'CommitConflictError';
  }
}

export interface ReplicaStatusRecord {
  readonly replicaId: string;
  readonly status: 'online' | 'offline';
  readonly reason: string | null;
  readonly generation: number;
  readonly updatedAt: string;
}

const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export interface CatalogStoreOptions extends StagedOptions {
  /**
   * Keep tenants' snapshots in memory between requests, up to this many catalog objects in all
   * (0 turns the cache off). A warm Lambda then plans on its cached snapshot and commits on
   * condition that the catalog version is still the one it read: one round trip per DDL request.
   */
  readonly snapshotCacheObjects?: number;
}

/** What a plan is based on: a snapshot and the catalog version it shows. */
export interface CatalogBasis {
  readonly snapshot: CatalogSnapshot;
  readonly version: number;
  /** From this process's cache, not checked against the table: an answer from it must be confirmed (`confirm`). */
  readonly cached: boolean;
}

/** Room for ~50 000 objects (tens of MB) by default: far inside a Lambda's memory. */
export const DEFAULT_SNAPSHOT_CACHE_OBJECTS = 50_000;

export class CatalogStore {
  private readonly staged: StagedCommits;
  private readonly cache: SnapshotCache;

  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly table: string,
    options: CatalogStoreOptions = {},
  ) {
    this.staged = new StagedCommits(doc, table, options);
    this.cache = new SnapshotCache(options.snapshotCacheObjects ?? DEFAULT_SNAPSHOT_CACHE_OBJECTS);
  }

  /** The tenant's catalog as it is now, read from the table. */
  async loadSnapshot(tenant: string): Promise<CatalogSnapshot> {
    return (await this.load(tenant)).snapshot;
  }

  /**
   * The snapshot to plan on: this process's cached one when it has it (`cached: true`), else read
   * from the table. A commit on a cached basis is conditioned on its version, so a stale one
   * conflicts and is replanned; any other answer given from it must be confirmed first.
   */
  async basis(tenant: string): Promise<CatalogBasis> {
    const hit = this.cache.get(tenant);
    return hit ? { ...hit, cached: true } : this.load(tenant);
  }

  /**
   * Whether a cached basis is still the catalog (one small read); if not, the fresh basis to
   * plan again on.
   */
  async confirm(tenant: string, basis: CatalogBasis): Promise<{ current: true } | { current: false; fresh: CatalogBasis }> {
    if (!basis.cached) return { current: true };
    const { version, lock } = await this.readVersionAndLock(tenant);
    if (!lock && version === basis.version) return { current: true };
    this.cache.delete(tenant);
    return { current: false, fresh: await this.load(tenant) };
  }

  /** Forgets the tenant's cached snapshot (after a conflict or a failed commit). */
  forget(tenant: string): void {
    this.cache.delete(tenant);
  }

  private async load(tenant: string): Promise<CatalogBasis> {
    // The version is read before the objects: a commit landing in between makes the snapshot
    // newer than its version says, which only makes a commit on it conflict — never the reverse.
    // The lock is read alongside: a staged change in flight is finished or abandoned before
    // anyone reads, so a reader never sees half of it.
    const { version, lock } = await this.readVersionAndLock(tenant);
    if (lock && (await this.staged.settle(tenant, lock))) return this.load(tenant);
    const objects = await this.queryAll<Record<string, unknown>>(tenant, OBJ_PREFIX, 'attribute_not_exists(dropped)');
    const snapshot = new CatalogSnapshot(tenant, objects.map(stripKeys));
    if (!lock) this.cache.set(tenant, { snapshot, version });
    return { snapshot, version, cached: false };
  }

  private async readVersionAndLock(tenant: string): Promise<{ version: number; lock: Record<string, unknown> | undefined }> {
    const pk = tenantPk(tenant);
    const r = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: [{ pk, sk: CATALOG_VERSION_SK }, { pk, sk: LOCK_SK }], ConsistentRead: true } } }));
    if (Object.keys(r.UnprocessedKeys ?? {}).length) {
      // Throttled: read them one by one (rare; the SDK already retried).
      const [version, lock] = await Promise.all([readCatalogVersion(this.doc, this.table, tenant), this.staged.getLock(tenant)]);
      return { version, lock };
    }
    const items = r.Responses?.[this.table] ?? [];
    return { version: (items.find((i) => i.sk === CATALOG_VERSION_SK)?.v as number | undefined) ?? 0, lock: items.find((i) => i.sk === LOCK_SK) };
  }

  /**
   * A new tenant's catalog starts like Materialize's: database `materialize` with schema
   * `public`. Idempotent (conditional puts; an existing catalog is left alone).
   */
  async ensureTenantCatalog(tenant: string, now = new Date().toISOString()): Promise<void> {
    const pk = tenantPk(tenant);
    const base = { generation: 1, version: 1, dependents: 0, createdAt: now, updatedAt: now, owner: 'system', bootstrap: true };
    const db = { ...base, id: DEFAULT_DATABASE_ID, kind: 'database', name: DEFAULT_DATABASE, dependents: 1, dependsOn: [], spec: {} };
    const schema = { ...base, id: DEFAULT_SCHEMA_ID, kind: 'schema', name: DEFAULT_SCHEMA, dependsOn: [DEFAULT_DATABASE_ID], spec: { databaseId: DEFAULT_DATABASE_ID } };
    const put = (Item: Record<string, unknown>) => ({ Put: { TableName: this.table, Item, ConditionExpression: 'attribute_not_exists(pk)' } });
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            put({ pk, sk: objSk(db.id), type: 'object', ...db }),
            put({ pk, sk: objSk(schema.id), type: 'object', ...schema }),
            put({ pk, sk: nameSk({ ns: 'database', name: DEFAULT_DATABASE }), type: 'name', objectId: db.id, bootstrap: true }),
            put({ pk, sk: nameSk({ ns: 'schema', databaseId: db.id, name: DEFAULT_SCHEMA }), type: 'name', objectId: schema.id, bootstrap: true }),
            { Update: { TableName: this.table, Key: { pk, sk: CATALOG_VERSION_SK }, UpdateExpression: 'SET #t = :t ADD v :one', ExpressionAttributeNames: { '#t': 'type' }, ExpressionAttributeValues: { ':t': 'catalog_version', ':one': 1 } } },
          ],
        }),
      );
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
    }
    this.cache.delete(tenant);
  }

  async getObject(tenant: string, id: string): Promise<CatalogObject | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk: objSk(id) }, ConsistentRead: true }));
    return r.Item ? stripKeys(r.Item) : undefined;
  }

  async listEffects(tenant: string): Promise<EffectRecord[]> {
    return this.queryAll<EffectRecord>(tenant, EFF_PREFIX);
  }

  async listReplicaStatuses(tenant: string): Promise<ReplicaStatusRecord[]> {
    return this.queryAll<ReplicaStatusRecord>(tenant, STATUS_PREFIX);
  }

  private queryAll<T>(tenant: string, prefix: string, filter?: string): Promise<T[]> {
    return queryPartition<T>(this.doc, this.table, tenantPk(tenant), prefix, filter ? { FilterExpression: filter } : {});
  }

  /** The transaction items for a change set: pure, exported for tests and the benchmark's floor. */
  transactItems(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, o: { staged?: boolean } = {}) {
    const pk = tenantPk(tenant);
    const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [];
    for (const w of changes.writes) {
      items.push(this.writeItem(pk, w, txn.createdAt));
      // A connector's status starts (created) and ends (dropped) with the catalog change itself.
      if (w.op === 'put_object' && (w.object.kind === 'source' || w.object.kind === 'sink')) {
        items.push(...commitStatusItems(this.table, tenant, { ...w.object, kind: w.object.kind }, 'created', txn.createdAt, { once: o.staged }));
      } else if (w.op === 'update_object' && w.after.dropped && (w.after.kind === 'source' || w.after.kind === 'sink')) {
        items.push(...commitStatusItems(this.table, tenant, { ...w.after, kind: w.after.kind }, 'dropped', txn.createdAt, { once: o.staged }));
      }
    }
    changes.effects.forEach((e, i) => {
      items.push({ Put: { TableName: this.table, Item: effectItem(tenant, txn, e, i + 1), ConditionExpression: 'attribute_not_exists(pk)' } });
    });
    items.push({
      Put: {
        TableName: this.table,
        Item: {
          pk,
          sk: txnSk(txn.txnId),
          type: 'txn',
          ...txn,
          statements: txn.statements.map((st) => (st.length > MAX_STATEMENT_HISTORY ? `${st.slice(0, MAX_STATEMENT_HISTORY)} …(${st.length - MAX_STATEMENT_HISTORY} more characters)` : st)),
          effects: changes.effects.length,
          expiresAt: epoch(txn.createdAt) + OUTBOX_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    if (idempotency) {
      // In the same transaction: the response is remembered exactly when the change commits.
      items.push({
        Put: {
          TableName: this.table,
          Item: { pk, sk: idemSk(sha256hex(idempotency.key)), type: 'idempotency', ...idempotency, txnId: txn.txnId, createdAt: txn.createdAt, expiresAt: epoch(txn.createdAt) + IDEMPOTENCY_TTL_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    return items;
  }

  async getIdempotency(tenant: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk: idemSk(sha256hex(key)) }, ConsistentRead: true }));
    const item = r.Item as (IdempotencyRecord & { expiresAt: number }) | undefined;
    // TTL deletes lag; an expired record is treated as gone.
    if (!item || item.expiresAt * 1000 <= now.getTime()) return undefined;
    return { key: item.key, fingerprint: item.fingerprint, status: item.status, body: item.body };
  }

  /**
   * Records the answer of a keyed request that committed nothing. Returns the answer already
   * recorded by a twin, if one got there first (then that answer is the answer).
   */
  async recordIdempotency(tenant: string, idem: IdempotencyRecord, now: Date): Promise<IdempotencyRecord | undefined> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: tenantPk(tenant), sk: idemSk(sha256hex(idem.key)), type: 'idempotency', ...idem, createdAt: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return undefined;
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      return this.getIdempotency(tenant, idem.key, now);
    }
  }

  /**
   * The items every commit adds: no staged commit may hold the catalog while a normal one lands
   * (see staged.ts), and the catalog version moves by one — on condition that it is still the
   * plan's (`basisVersion`), when the plan says which it read.
   */
  fenceItems(tenant: string, basisVersion?: number) {
    const pk = tenantPk(tenant);
    const version =
      basisVersion === undefined
        ? { UpdateExpression: 'SET #t = :t ADD v :one', ExpressionAttributeValues: { ':t': 'catalog_version', ':one': 1 } }
        : {
            UpdateExpression: 'SET #t = :t, v = :next',
            ConditionExpression: basisVersion === 0 ? 'attribute_not_exists(v)' : 'v = :v',
            ExpressionAttributeValues: { ':t': 'catalog_version', ':next': basisVersion + 1, ...(basisVersion === 0 ? {} : { ':v': basisVersion }) },
          };
    return [
      { ConditionCheck: { TableName: this.table, Key: { pk, sk: LOCK_SK }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Update: { TableName: this.table, Key: { pk, sk: CATALOG_VERSION_SK }, ExpressionAttributeNames: { '#t': 'type' }, ...version } },
    ];
  }

  /**
   * Commits a planned change in one transaction (or a staged commit when it is too large). With
   * `basis`, the commit holds only if the catalog is still at the basis's version, and the cached
   * snapshot moves forward with it; a conflict throws CommitConflictError (replan).
   */
  async commit(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, basis?: CatalogBasis): Promise<void> {
    // Whatever happens below, the cached snapshot may no longer be the catalog until we know.
    this.cache.delete(tenant);
    const items = this.transactItems(tenant, changes, txn, idempotency);
    for (const item of items) {
      const put = item.Put?.Item as Record<string, unknown> | undefined;
      const size = put ? Buffer.byteLength(JSON.stringify(put)) : 0;
      if (size > MAX_ITEM_BYTES) {
        const what = put!.type === 'object' ? `the definition of ${String(put!.kind).replace('_', ' ')} ${String(put!.name)}` : `a ${String(put!.type)} record`;
        throw new ControlPlaneError(`${what} exceeds the catalog's item limit: ${size} bytes, at most ${MAX_ITEM_BYTES}`, {
          code: SQLSTATE.programLimitExceeded,
          hint: 'Shorten the option values or the view body.',
        });
      }
    }
    const all = [...items, ...this.fenceItems(tenant, basis?.version)];
    let version: number | undefined = basis && basis.version + 1;
    if (all.length > MAX_TRANSACTION_ITEMS || approximateSize(all) > MAX_TRANSACTION_BYTES) {
      try {
        version = await this.staged.commit(tenant, txn.txnId, expectationsOf(changes), this.finalOps(tenant, changes, txn, idempotency), basis?.version);
      } catch (err) {
        if (err instanceof StagedConflict) throw new CommitConflictError([err.reason]);
        throw err;
      }
    } else {
      try {
        // The token makes a network-level retry of this very call idempotent for 10 minutes.
        await this.doc.send(new TransactWriteCommand({ TransactItems: all, ClientRequestToken: txn.txnId }));
      } catch (err) {
        if (err instanceof TransactionCanceledException) {
          const reasons = (err.CancellationReasons ?? []).map((r) => r.Code ?? 'None').filter((c) => c !== 'None');
          if (reasons.every((r) => r === 'ConditionalCheckFailed' || r === 'TransactionConflict' || r === 'ThrottlingError')) {
            throw new CommitConflictError(reasons);
          }
        }
        if (err instanceof Error && err.name === 'TransactionInProgressException') throw new CommitConflictError(['TransactionInProgress']);
        if (err instanceof Error && err.name === 'ValidationException' && /size/i.test(err.message)) {
          throw new ControlPlaneError('the change is larger than a catalog transaction can hold', { code: SQLSTATE.programLimitExceeded, detail: err.message, hint: 'Split the request, or shorten option values and view bodies.' });
        }
        throw err;
      }
    }
    // Committed on the basis's version: nothing else changed in between, so the basis plus this
    // change is exactly the catalog at the new version.
    if (basis && version === basis.version + 1) this.cache.set(tenant, { snapshot: CatalogSnapshot.derive(basis.snapshot, changedObjects(changes)), version });
  }

  /**
   * The final state of every item a change writes, for a staged commit. Catalog objects and name
   * guards were validated under the lock and are written as they end up; items others may move on
   * while the lock is held (effects, statuses, history, the transaction and idempotency records)
   * keep their "only once" condition, so a second roller does not set them back.
   */
  private finalOps(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord): FinalOp[] {
    const ops: FinalOp[] = [];
    for (const item of this.transactItems(tenant, changes, txn, idempotency, { staged: true })) {
      if (item.Put) {
        const put = item.Put.Item as Record<string, unknown>;
        const once = item.Put.ConditionExpression === 'attribute_not_exists(pk)' && put.type !== 'object' && put.type !== 'name';
        ops.push({ op: 'put', item: put, ...(once ? { onlyIf: { expression: 'attribute_not_exists(pk)' } } : {}) });
      } else if (item.Delete) {
        ops.push({ op: 'delete', key: item.Delete.Key as { pk: string; sk: string } });
      } else if (item.Update && !String(item.Update.Key?.sk).startsWith(OBJ_PREFIX)) {
        // Dependents counters are written below as final states; every other update is kept whole.
        const u = item.Update;
        ops.push({
          op: 'update',
          key: u.Key as { pk: string; sk: string },
          expression: u.UpdateExpression!,
          ...(u.ExpressionAttributeNames ? { names: u.ExpressionAttributeNames } : {}),
          ...(u.ExpressionAttributeValues ? { values: u.ExpressionAttributeValues as Record<string, unknown> } : {}),
          ...(u.ConditionExpression ? { onlyIf: { expression: u.ConditionExpression } } : {}),
        });
      }
    }
    const pk = tenantPk(tenant);
    for (const w of changes.writes) {
      if (w.op === 'adjust_dependents') ops.push({ op: 'put', item: objectItem(pk, { ...w.before, dependents: w.before.dependents + w.delta }) });
    }
    return ops;
  }

  private writeItem(pk: string, w: CatalogWrite, now: string) {
    const t = this.table;
    switch (w.op) {
      case 'put_object':
        return { Put: { TableName: t, Item: objectItem(pk, w.object), ConditionExpression: 'attribute_not_exists(pk)' } };
      case 'update_object': {
        const item = objectItem(pk, w.after);
        if (w.after.dropped) item.expiresAt = epoch(now) + TOMBSTONE_TTL_SECONDS;
        return {
          Put: {
            TableName: t,
            Item: item,
            // The plan read this version and this many dependents: anything else means a race.
            ConditionExpression: '#v = :v AND attribute_not_exists(dropped) AND (dependents = :d OR (attribute_not_exists(dependents) AND :d = :zero))',
            ExpressionAttributeNames: { '#v': 'version' },
            ExpressionAttributeValues: { ':v': w.before.version, ':d': w.before.dependents, ':zero': 0 },
          },
        };
      }
      case 'adjust_dependents':
        return {
          Update: {
            TableName: t,
            Key: { pk, sk: objSk(w.id) },
            UpdateExpression: 'ADD dependents :delta',
            // A reference to a dropped object must not commit (the drop won the race).
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(dropped)',
            ExpressionAttributeValues: { ':delta': w.delta },
          },
        };
      case 'put_name':
        return {
          Put: {
            TableName: t,
            Item: { pk, sk: w.sk, type: 'name', objectId: w.objectId },
            ...(w.replaces
              ? { ConditionExpression: 'objectId = :old', ExpressionAttributeValues: { ':old': w.replaces } }
              : { ConditionExpression: 'attribute_not_exists(pk)' }),
          },
        };
      case 'delete_name':
        return {
          Delete: { TableName: t, Key: { pk, sk: w.sk }, ConditionExpression: 'objectId = :id', ExpressionAttributeValues: { ':id': w.objectId } },
        };
    }
  }
}

/** DynamoDB items hold at most 400 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html); our JSON measure runs a little high, so 380 000 is safe. */
const MAX_ITEM_BYTES = 380_000;
/** The largest answer an Idempotency-Key record can hold: the item limit less room for its other attributes (key ≤ 255 bytes, fingerprint, ids, TTL). */
export const MAX_IDEMPOTENT_ANSWER_BYTES = MAX_ITEM_BYTES - 4_096;
/** A transaction record keeps each statement's text up to this length (it is history, not the definition). */
const MAX_STATEMENT_HISTORY = 4_096;

/** DynamoDB caps a transaction at 4 MB; we stay well under with a rough JSON measure. */
const MAX_TRANSACTION_BYTES = 3_500_000;
function approximateSize(items: unknown[]): number {
  return Buffer.byteLength(JSON.stringify(items));
}

/** What a staged commit must find unchanged when it takes the lock: exactly what the plan read. */
function expectationsOf(changes: ChangeSet): Expectation[] {
  const out: Expectation[] = [];
  for (const w of changes.writes) {
    switch (w.op) {
      case 'put_object':
        out.push({ sk: objSk(w.object.id), absent: true });
        break;
      case 'update_object':
        out.push({ sk: objSk(w.before.id), version: w.before.version, dependents: w.before.dependents });
        break;
      case 'adjust_dependents':
        out.push({ sk: objSk(w.id), version: w.before.version, dependents: w.before.dependents });
        break;
      case 'put_name':
        out.push(w.replaces ? { sk: w.sk, objectId: w.replaces } : { sk: w.sk, absent: true });
        break;
      case 'delete_name':
        out.push({ sk: w.sk, objectId: w.objectId });
        break;
    }
  }
  return out;
}

function objectItem(pk: string, o: CatalogObject): Record<string, unknown> {
  return { pk, sk: objSk(o.id), type: 'object', ...o };
}

/** The objects a change leaves behind, as the catalog now holds them (dropped ones included). */
function changedObjects(changes: ChangeSet): CatalogObject[] {
  const out: CatalogObject[] = [];
  for (const w of changes.writes) {
    if (w.op === 'put_object') out.push(w.object);
    else if (w.op === 'update_object') out.push(w.after);
    else if (w.op === 'adjust_dependents') out.push({ ...w.before, dependents: w.before.dependents + w.delta });
  }
  return out;
}

/** Drops the storage-only attributes of a catalog item. */
function stripKeys(item: Record<string, unknown>): CatalogObject {
  const { pk: _pk, sk: _sk, type: _type, expiresAt: _e, ...rest } = item;
  return { dependents: 0, dependsOn: [], ...rest } as unknown as CatalogObject;
}

export function effectItem(tenant: string, txn: TxnRecord, e: EffectIntent, seq: number): EffectRecord & Record<string, unknown> {
  const sk = effSk(txn.txnId, seq);
  return {
    ...e,
    pk: tenantPk(tenant),
    sk,
    type: 'effect',
    effectId: `${txn.txnId}-${seq}`,
    tenant,
    txnId: txn.txnId,
    state: 'pending',
    attempts: 0,
    createdAt: txn.createdAt,
    updatedAt: txn.createdAt,
    // Sparse index entry: present while the effect needs attention, removed once it settles.
    attnPk: attentionPk(`${tenant}#${sk}`),
    attnSk: `${txn.createdAt}#${tenant}#${sk}`,
  };
}

export { statusSk };
