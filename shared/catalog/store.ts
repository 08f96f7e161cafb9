/**
 * The catalog adapter: the only code that reads and writes catalog objects, name guards, the
 * catalog version, staged commits (./staged.ts), idempotency records and the tenant registry.
 * A request's whole change (catalog items, name guards, and the items the outbox and status
 * stores build for it: effects, transaction record, connector statuses) goes into ONE
 * TransactWriteItems (DESIGN.md invariant 1).
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CommitConflictError, ControlPlaneError, SQLSTATE, StagedConflict } from '../errors';
import { objectsAfter, type ChangeSet } from './ops';
import { expectationsOf, objectItem, opItem, TOMBSTONE_TTL_SECONDS } from './op-items';
import { CATALOG_VERSION_SK, idemSk, OBJ_PREFIX, objSk, tenantPk, TENANTS_PK, tenantSk, TXN_PREFIX } from './keys';
import { outboxItems, type TransactItem, type TxnRecord } from './outbox-store';
import { createHash } from 'node:crypto';
import { queryPartition } from '../dynamo';

const sha256hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
import { CatalogSnapshot, connectorKind, DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogObject } from './model';
import { commitStatusItems } from './status-store';
import { LOCK_SK, lockFreeCondition, readCatalogVersion, StagedCommits, type Expectation, type FinalOp, type StagedOptions } from './staged';
import { SnapshotCache } from './snapshot-cache';
import { appendToLog, logBudget, logEntry, logOf, replay, type ChangeLog } from './change-log';
import { nameSk } from './keys';

/** Fixed ids of the default database and schema every tenant starts with. */
export const DEFAULT_DATABASE_ID = 'u000000000001';
export const DEFAULT_SCHEMA_ID = 'u000000000002';

/** DynamoDB's per-transaction limit: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html */
export const MAX_TRANSACTION_ITEMS = 100;

/** What else a commit may write. */
export interface CommitOptions {
  /**
   * Another store's write to make in the commit's transaction if it can (OutboxStore's admission of
   * the new effects): the commit never fails for it, and never turns staged for it.
   */
  readonly optional?: TransactItem;
}
export { TOMBSTONE_TTL_SECONDS };

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

export type { TxnRecord };
export { CommitConflictError };

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
  /** The change log the version item held at `version` (./change-log.ts), when known: a commit on this basis extends it. */
  readonly log?: ChangeLog;
}

/** Past this many versions behind, a snapshot is read again whole rather than caught up. */
const MAX_CATCH_UP = 100;
/** Pages of transaction records a catch-up reads at most before it reads the whole catalog instead. */
const CATCH_UP_PAGES = 4;

/** Room for ~50 000 objects (tens of MB) by default: far inside a Lambda's memory. */
export const DEFAULT_SNAPSHOT_CACHE_OBJECTS = 50_000;

export class CatalogStore {
  private readonly staged: StagedCommits;
  private readonly cache: SnapshotCache;
  /**
   * Per tenant, the snapshot a commit that lost its race was planned on (see `basis`), and the
   * catalog version the refusal showed, when it showed one and no staged commit held the catalog.
   */
  private readonly behind = new Map<string, { snapshot: CatalogSnapshot; version: number; seen?: { version: number; log?: ChangeLog } }>();
  /**
   * Whole-catalog reads and catch-ups, for tests and benchmarks; `logCatchUps` of the catch-ups
   * replayed the version item's change log and read no object.
   */
  fullLoads = 0;
  catchUps = 0;
  logCatchUps = 0;

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
    if (hit) return { ...hit, cached: true };
    // The loser of a commit race still holds the snapshot it planned on: catch it up.
    const behind = this.behind.get(tenant);
    this.behind.delete(tenant);
    if (behind) {
      const { version, lock, log } = behind.seen !== undefined ? { ...behind.seen, lock: undefined } : await this.readVersionAndLock(tenant);
      const caught = lock ? undefined : await this.catchUp(tenant, behind, version, log);
      if (caught) return caught;
    }
    return this.load(tenant);
  }

  /**
   * A commit race lost on `basis`: remembered so the next basis catches up from it; the error to
   * throw. `seen`: the version item the refusal returned, when it showed a version.
   */
  private conflict(tenant: string, basis: CatalogBasis | undefined, reasons: readonly string[], seen?: Record<string, unknown>): CommitConflictError {
    const version = seenVersion(seen);
    const log = logOf(seen);
    if (basis) this.behind.set(tenant, { snapshot: basis.snapshot, version: basis.version, ...(version !== undefined ? { seen: { version, ...(log ? { log } : {}) } } : {}) });
    return new CommitConflictError(reasons, basis && version !== undefined ? version - basis.version : undefined);
  }

  /**
   * The catalog at `target`, from a snapshot at an older version and the transaction records in
   * between: the objects they changed are read again, nothing else — O(changes), not O(catalog).
   * Undefined (read everything instead) when a record in between does not say what it changed
   * (a staged commit, a commit without a basis, one past its TTL) or the gap is too wide.
   *
   * First from `log`, the change log the version item held at `target` (./change-log.ts): when it
   * covers the gap, the objects it holds inline are not read at all.
   */
  private async catchUp(tenant: string, from: { snapshot: CatalogSnapshot; version: number }, target: number, log?: ChangeLog): Promise<CatalogBasis | undefined> {
    const replayed = replay(from, target, log);
    if (replayed) {
      const read = await this.readObjects(tenant, replayed.read);
      const snapshot = CatalogSnapshot.derive(from.snapshot, [...replayed.objects, ...this.asRead(from.snapshot, replayed.read, read)]);
      this.catchUps++;
      if (!replayed.read.length) this.logCatchUps++;
      this.cache.set(tenant, { snapshot, version: target, ...(log ? { log } : {}) });
      return { snapshot, version: target, cached: false, ...(log ? { log } : {}) };
    }
    const gap = target - from.version;
    if (gap < 0 || gap > MAX_CATCH_UP) return undefined;
    const ids = new Set<string>();
    if (gap > 0) {
      // Transaction ids sort by time, not by version: read the newest, newest first, and require
      // every version in between. Pages of the gap and room for the commits that landed since the
      // target was read; under contention more than that can land while a loser backs off, so
      // older pages follow until the gap is covered (at most CATCH_UP_PAGES: then read everything).
      const changedAt = new Map<number, readonly string[]>();
      const covered = () => {
        for (let v = from.version + 1; v <= target; v++) if (!changedAt.has(v)) return false;
        return true;
      };
      let start: Record<string, unknown> | undefined;
      for (let page = 0; page < CATCH_UP_PAGES; page++) {
        const r = await this.doc.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :txn)',
            ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':txn': TXN_PREFIX },
            ProjectionExpression: 'catalogVersion, changedIds',
            ScanIndexForward: false,
            Limit: 2 * gap + 32,
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const t of r.Items ?? []) {
          const v = t.catalogVersion as number | undefined;
          if (v !== undefined && v > from.version) changedAt.set(v, (t.changedIds as string[] | undefined) ?? []);
        }
        start = r.LastEvaluatedKey;
        if (!start || covered()) break;
      }
      // Commits that landed after the target was read are caught up too: under contention the
      // version a refusal showed is already old when the loser replans.
      while (changedAt.has(target + 1)) target++;
      for (let v = from.version + 1; v <= target; v++) {
        const changedIds = changedAt.get(v);
        if (!changedIds) return undefined;
        for (const id of changedIds) ids.add(id);
      }
    }
    const changed = await this.readObjects(tenant, [...ids]);
    const snapshot = CatalogSnapshot.derive(from.snapshot, this.asRead(from.snapshot, [...ids], changed));
    this.catchUps++;
    // Caught up past the version whose log was read: the log at `target` is not known.
    this.cache.set(tenant, { snapshot, version: target });
    return { snapshot, version: target, cached: false };
  }

  /** The objects `ids` as read again (`read`); one gone from the table (dropped and collected) leaves the snapshot. */
  private asRead(snapshot: CatalogSnapshot, ids: readonly string[], read: ReadonlyMap<string, CatalogObject>): CatalogObject[] {
    return ids.flatMap((id) => {
      const o = read.get(id);
      if (o) return [o];
      const old = snapshot.get(id);
      return old ? [{ ...old, dropped: true } as CatalogObject] : [];
    });
  }

  /** Catalog objects by id, consistently (BatchGetItem, 100 keys a call). */
  private async readObjects(tenant: string, ids: readonly string[]): Promise<Map<string, CatalogObject>> {
    const out = new Map<string, CatalogObject>();
    const pk = tenantPk(tenant);
    for (let i = 0; i < ids.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map((id) => ({ pk, sk: objSk(id) }));
      while (keys?.length) {
        const r = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }));
        for (const item of r.Responses?.[this.table] ?? []) {
          const o = stripKeys(item);
          out.set(o.id, o);
        }
        keys = r.UnprocessedKeys?.[this.table]?.Keys as Record<string, unknown>[] | undefined;
      }
    }
    return out;
  }

  /**
   * Whether a cached basis is still the catalog (one small read); if not, the fresh basis to
   * plan again on.
   */
  async confirm(tenant: string, basis: CatalogBasis): Promise<{ current: true } | { current: false; fresh: CatalogBasis }> {
    if (!basis.cached) return { current: true };
    const { version, lock, log } = await this.readVersionAndLock(tenant);
    if (!lock && version === basis.version) return { current: true };
    this.cache.delete(tenant);
    const caught = lock ? undefined : await this.catchUp(tenant, basis, version, log);
    return { current: false, fresh: caught ?? (await this.load(tenant)) };
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
    const { version, lock, log } = await this.readVersionAndLock(tenant);
    if (lock && (await this.staged.settle(tenant, lock))) return this.load(tenant);
    this.fullLoads++;
    const objects = await this.queryAll<Record<string, unknown>>(tenant, OBJ_PREFIX, 'attribute_not_exists(dropped)');
    const snapshot = new CatalogSnapshot(tenant, objects.map(stripKeys));
    const known = log ? { log } : {};
    if (!lock) this.cache.set(tenant, { snapshot, version, ...known });
    return { snapshot, version, cached: false, ...known };
  }

  private async readVersionAndLock(tenant: string): Promise<{ version: number; lock: Record<string, unknown> | undefined; log?: ChangeLog }> {
    const pk = tenantPk(tenant);
    const r = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: [{ pk, sk: CATALOG_VERSION_SK }, { pk, sk: LOCK_SK }], ConsistentRead: true } } }));
    if (Object.keys(r.UnprocessedKeys ?? {}).length) {
      // Throttled: read them one by one (rare; the SDK already retried).
      const [version, lock] = await Promise.all([readCatalogVersion(this.doc, this.table, tenant), this.staged.getLock(tenant)]);
      return { version, lock };
    }
    const items = r.Responses?.[this.table] ?? [];
    const item = items.find((i) => i.sk === CATALOG_VERSION_SK);
    const log = logOf(item);
    return { version: (item?.v as number | undefined) ?? 0, lock: items.find((i) => i.sk === LOCK_SK), ...(log ? { log } : {}) };
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

  /** One catalog object (live or a tombstone), strongly consistent: the one "get object by id". */
  async getObject(tenant: string, id: string): Promise<CatalogObject | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk: objSk(id) }, ConsistentRead: true }));
    return r.Item ? stripKeys(r.Item) : undefined;
  }

  /** Every catalog object of the tenant, tombstones included (the sweeper and the checker tell orphans apart by them). */
  async listObjects(tenant: string): Promise<CatalogObject[]> {
    return (await this.queryAll<Record<string, unknown>>(tenant, OBJ_PREFIX)).map(stripKeys);
  }

  /** Finishes or abandons a staged commit that holds the tenant's catalog (the sweeper finds its lock on the attention index). */
  async settleStaged(tenant: string, lock: Record<string, unknown>): Promise<boolean> {
    const settled = await this.staged.settle(tenant, lock);
    if (settled) this.cache.delete(tenant);
    return settled;
  }

  /** Adds a tenant to the registry the sweeper's full pass and the checker walk. */
  async registerTenant(tenant: string, now: string): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { pk: TENANTS_PK, sk: tenantSk(tenant), type: 'tenant', tenant, createdAt: now } }));
  }

  async getTenant(tenant: string): Promise<{ tenant: string; createdAt: string } | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: TENANTS_PK, sk: tenantSk(tenant) }, ConsistentRead: true }));
    return r.Item ? { tenant: r.Item.tenant as string, createdAt: r.Item.createdAt as string } : undefined;
  }

  /** Every registered tenant. */
  async listTenants(): Promise<string[]> {
    return (await queryPartition<{ tenant: string }>(this.doc, this.table, TENANTS_PK)).map((t) => t.tenant);
  }

  /** A page of at most `limit` registered tenants after `cursor`; `next` resumes after it, absent on the last page. */
  async tenantsPage(cursor: string | undefined, limit: number): Promise<{ tenants: string[]; next?: string; last: boolean }> {
    const r = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: cursor ? 'pk = :pk AND sk > :c' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': TENANTS_PK, ...(cursor ? { ':c': cursor } : {}) },
        Limit: limit,
      }),
    );
    const items = r.Items ?? [];
    return { tenants: items.map((t) => t.tenant as string), ...(items.length ? { next: items[items.length - 1]!.sk as string } : {}), last: !r.LastEvaluatedKey };
  }

  private queryAll<T>(tenant: string, prefix: string, filter?: string): Promise<T[]> {
    return queryPartition<T>(this.doc, this.table, tenantPk(tenant), prefix, filter ? { FilterExpression: filter } : {});
  }

  /** The transaction items for a change set: pure, exported for tests and the benchmark's floor. */
  transactItems(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, o: { staged?: boolean; catalogVersion?: number } = {}) {
    const pk = tenantPk(tenant);
    const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [];
    for (const w of changes.ops) {
      items.push(opItem(this.table, pk, w, txn.createdAt));
      // A connector's status starts (created) and ends (dropped) with the catalog change itself.
      const created = w.op === 'create_object' ? connectorKind(w.object) : undefined;
      const dropped = w.op === 'drop_object' ? connectorKind(w.after) : undefined;
      if (w.op === 'create_object' && created) {
        items.push(...commitStatusItems(this.table, tenant, { ...w.object, kind: created }, 'created', txn.createdAt, { once: o.staged }));
      } else if (w.op === 'drop_object' && dropped) {
        items.push(...commitStatusItems(this.table, tenant, { ...w.after, kind: dropped }, 'dropped', txn.createdAt, { once: o.staged }));
      }
    }
    // The version this commit makes and the objects it changed go into the transaction record:
    // how another instance's cached snapshot catches up (`catchUp`).
    items.push(...outboxItems(this.table, tenant, txn, changes.effects, o.catalogVersion !== undefined ? { catalogVersion: o.catalogVersion, changedIds: objectsAfter(changes).map((c) => c.id) } : {}));
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
   * The item every commit adds: the catalog version moves by one — on condition that no staged
   * commit holds the catalog (its lock marks this item, see staged.ts) and, when the plan says
   * which version it read (`basisVersion`), that it is still that one. Such a commit also writes
   * the change log (`log`, ./change-log.ts) its entry ends.
   */
  fenceItems(tenant: string, basisVersion?: number, log?: ChangeLog) {
    const pk = tenantPk(tenant);
    const unlocked = lockFreeCondition();
    const withLog = basisVersion !== undefined && log !== undefined;
    const version =
      basisVersion === undefined
        ? { UpdateExpression: 'SET #t = :t ADD v :one', ConditionExpression: unlocked, ExpressionAttributeValues: { ':t': 'catalog_version', ':one': 1 } }
        : {
            UpdateExpression: `SET #t = :t, v = :next${withLog ? ', #log = :log' : ''}`,
            ConditionExpression: `${unlocked} AND ${basisVersion === 0 ? 'attribute_not_exists(v)' : 'v = :v'}`,
            ExpressionAttributeValues: { ':t': 'catalog_version', ':next': basisVersion + 1, ...(basisVersion === 0 ? {} : { ':v': basisVersion }), ...(withLog ? { ':log': log } : {}) },
          };
    // A commit that loses its race gets the version item back with the refusal (`seenVersion`,
    // `logOf`): its catch-up starts without reading it again, and replays the log without reading
    // the objects either.
    return [{ Update: { TableName: this.table, Key: { pk, sk: CATALOG_VERSION_SK }, ExpressionAttributeNames: { '#t': 'type', ...(withLog ? { '#log': 'log' } : {}) }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const, ...version } }];
  }

  /** The change log a commit on `basis` writes: the basis's log (when known) with this commit's entry. */
  private nextLog(tenant: string, changes: ChangeSet, basis: CatalogBasis): ChangeLog {
    const budget = logBudget({ pk: tenantPk(tenant), sk: CATALOG_VERSION_SK, type: 'catalog_version', v: basis.version + 1 });
    return appendToLog(basis.log, logEntry(basis.version + 1, changes, basis.snapshot), budget);
  }

  /**
   * The items of the one TransactWriteItems that commits a planned change (the catalog items, then
   * the version item with its change log), and that log: what {@link commit} sends, and the bench's
   * floor. A definition past an item's size limit is refused here.
   */
  commitItems(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, basis?: CatalogBasis) {
    const items = this.transactItems(tenant, changes, txn, idempotency, basis ? { catalogVersion: basis.version + 1 } : {});
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
    const log = basis && this.nextLog(tenant, changes, basis);
    return { items: [...items, ...this.fenceItems(tenant, basis?.version, log)], log };
  }

  /**
   * Commits a planned change in one transaction (or a staged commit when it is too large). With
   * `basis`, the commit holds only if the catalog is still at the basis's version, and the cached
   * snapshot moves forward with it; a conflict throws CommitConflictError (replan).
   */
  async commit(tenant: string, changes: ChangeSet, txn: TxnRecord, idempotency?: IdempotencyRecord, basis?: CatalogBasis, o: CommitOptions = {}): Promise<{ optional: boolean }> {
    // Whatever happens below, the cached snapshot may no longer be the catalog until we know.
    this.cache.delete(tenant);
    const { items: all, log } = this.commitItems(tenant, changes, txn, idempotency, basis);
    let version: number | undefined = basis && basis.version + 1;
    const staged = all.length > MAX_TRANSACTION_ITEMS || approximateSize(all) > MAX_TRANSACTION_BYTES;
    // The optional write rides along only where it fits: never the reason a commit is staged.
    const optional = !staged && o.optional && all.length < MAX_TRANSACTION_ITEMS && approximateSize([o.optional, ...all]) <= MAX_TRANSACTION_BYTES ? o.optional : undefined;
    let wroteOptional = false;
    if (staged) {
      try {
        version = await this.staged.commit(tenant, txn.txnId, expectationsOf(changes), this.finalOps(tenant, changes, txn, idempotency), basis?.version);
      } catch (err) {
        if (err instanceof StagedConflict) throw this.conflict(tenant, basis, [err.reason]);
        throw err;
      }
    } else {
      try {
        wroteOptional = await this.transact(all, txn.txnId, optional);
      } catch (err) {
        if (err instanceof TransactionCanceledException) {
          // The commit's own items' reasons (an optional write's, first, is not the commit's refusal).
          const own = (err.CancellationReasons ?? []).slice(err.CancellationReasons?.length === all.length + 1 ? 1 : 0);
          const reasons = own.map((r) => r.Code ?? 'None').filter((c) => c !== 'None');
          if (reasons.every((r) => r === 'ConditionalCheckFailed' || r === 'TransactionConflict' || r === 'ThrottlingError')) {
            throw this.conflict(tenant, basis, reasons, plainItem(own[all.length - 1]?.Item));
          }
        }
        if (err instanceof Error && err.name === 'TransactionInProgressException') throw this.conflict(tenant, basis, ['TransactionInProgress']);
        if (err instanceof Error && err.name === 'ValidationException' && /size/i.test(err.message)) {
          throw new ControlPlaneError('the change is larger than a catalog transaction can hold', { code: SQLSTATE.programLimitExceeded, detail: err.message, hint: 'Split the request, or shorten option values and view bodies.' });
        }
        throw err;
      }
    }
    // Committed on the basis's version: nothing else changed in between, so the basis plus this
    // change is exactly the catalog at the new version.
    if (basis && version === basis.version + 1) {
      // A staged commit wrote no log entry: the item's log (if any) ends before this version.
      const written = !staged && log ? { log } : {};
      this.cache.set(tenant, { snapshot: CatalogSnapshot.derive(basis.snapshot, objectsAfter(changes)), version, ...written });
    }
    return { optional: wroteOptional };
  }

  /**
   * One commit transaction. With `optional` (another store's write, first in the transaction): when
   * the transaction is refused for that write alone (its condition, or a conflict on its item),
   * the commit is sent again without it, and false says so. The token makes a network-level retry
   * of the very same call idempotent for 10 minutes; the second call is another transaction, with
   * a token of its own (a token names one transaction's items).
   */
  private async transact(items: TransactItem[], token: string, optional?: TransactItem): Promise<boolean> {
    if (optional) {
      try {
        await this.doc.send(new TransactWriteCommand({ TransactItems: [optional, ...items], ClientRequestToken: token }));
        return true;
      } catch (err) {
        if (!(err instanceof TransactionCanceledException)) throw err;
        const [first, ...rest] = err.CancellationReasons ?? [];
        const only = first && (first.Code ?? 'None') !== 'None' && rest.length === items.length && rest.every((r) => (r.Code ?? 'None') === 'None');
        if (!only) throw err;
      }
    }
    await this.doc.send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: optional ? `${token}b` : token }));
    return false;
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
    for (const w of changes.ops) {
      if (w.op === 'adjust_dependents') ops.push({ op: 'put', item: objectItem(pk, { ...w.before, dependents: w.before.dependents + w.delta }) });
    }
    return ops;
  }
}

/** DynamoDB items hold at most 400 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html); our JSON measure runs a little high, so 380 000 is safe. */
const MAX_ITEM_BYTES = 380_000;
/** The largest answer an Idempotency-Key record can hold: the item limit less room for its other attributes (key ≤ 255 bytes, fingerprint, ids, TTL). */
export const MAX_IDEMPOTENT_ANSWER_BYTES = MAX_ITEM_BYTES - 4_096;

/** DynamoDB caps a transaction at 4 MB; we stay well under with a rough JSON measure. */
const MAX_TRANSACTION_BYTES = 3_500_000;
function approximateSize(items: unknown[]): number {
  return Buffer.byteLength(JSON.stringify(items));
}

/**
 * The catalog version a refused commit's version item showed (returned with the refusal, in
 * DynamoDB's attribute-value form), when it showed one and no staged commit held the catalog.
 */
export function seenVersion(item: Record<string, unknown> | undefined): number | undefined {
  const plain = plainItem(item);
  if (!plain || plain.lockedBy !== undefined || typeof plain.v !== 'number') return undefined;
  return plain.v;
}

/** An item returned with a refusal, as the document client reads items. */
export function plainItem(item: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!item) return undefined;
  // The document client passes errors through untouched (attribute-value form); a plain item is taken as it is.
  return typeof item.v === 'object' && item.v !== null ? unmarshall(item as Parameters<typeof unmarshall>[0]) : item;
}

/** Drops the storage-only attributes of a catalog item. */
function stripKeys(item: Record<string, unknown>): CatalogObject {
  const { pk: _pk, sk: _sk, type: _type, expiresAt: _e, ...rest } = item;
  return { dependents: 0, dependsOn: [], ...rest } as unknown as CatalogObject;
}
