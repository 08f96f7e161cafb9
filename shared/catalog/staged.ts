/**
 * Staged commits: a request whose change exceeds DynamoDB's 100 items per transaction
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html) still
 * commits atomically — never silently split:
 *
 * 1. take the tenant's catalog lock (a lease; every normal commit checks that no lock exists);
 * 2. validate what the plan read (versions, dependents, name guards) — nothing can move now;
 * 3. write the final state of every item as STAGE records (invisible to readers);
 * 4. the commit point: ONE conditional write flips the staging record to `committed`;
 * 5. roll forward: copy the staged items into place, then drop the stage records and the lock.
 *
 * A crash before 4 leaves nothing visible (the lease expires; the next reader rolls back). A crash
 * after 4 is finished by the next reader of the tenant's catalog, which rolls forward before it
 * reads — so a reader sees all of the change or none of it.
 */
import { queryPartition } from '../dynamo';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { FaultInjector } from '../dataplane/faults';
import { attentionPk, CATALOG_VERSION_SK, objSk, tenantPk } from './keys';

export const LOCK_SK = 'LOCK';
const stagingSk = (txnId: string) => `STAGING#${txnId}`;
const stageSk = (txnId: string, seq: number) => `STAGE#${txnId}#${String(seq).padStart(6, '0')}`;
/** How long a staged commit may hold the tenant's catalog before others may take it back. */
export const DEFAULT_LEASE_MS = 30_000;

export type FinalOp = { readonly op: 'put'; readonly item: Record<string, unknown> } | { readonly op: 'delete'; readonly key: { pk: string; sk: string } };

/** What must still hold when the lock is taken (what the plan read). */
export type Expectation =
  | { readonly sk: string; readonly absent: true }
  | { readonly sk: string; readonly version: number; readonly dependents: number }
  | { readonly sk: string; readonly objectId: string };

export class StagedConflict extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'StagedConflict';
  }
}

export interface StagedOptions {
  readonly leaseMs?: number;
  readonly faults?: FaultInjector;
  readonly clock?: () => Date;
}

/** The tenant's catalog version (0 before its first commit), read strongly consistent. */
export async function readCatalogVersion(doc: DynamoDBDocumentClient, table: string, tenant: string): Promise<number> {
  const r = await doc.send(new GetCommand({ TableName: table, Key: { pk: tenantPk(tenant), sk: CATALOG_VERSION_SK }, ConsistentRead: true }));
  return (r.Item?.v as number | undefined) ?? 0;
}

/** The catalog version item as a commit leaves it. */
export function catalogVersionItem(tenant: string, v: number): Record<string, unknown> {
  return { pk: tenantPk(tenant), sk: CATALOG_VERSION_SK, type: 'catalog_version', v };
}

export class StagedCommits {
  private readonly leaseMs: number;
  private readonly clock: () => Date;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly o: StagedOptions = {},
  ) {
    this.leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
    this.clock = o.clock ?? (() => new Date());
  }

  /**
   * Commits `ops` atomically; `expectedVersion`, when given, is the catalog version the plan read
   * (checked under the lock). Returns the catalog version the commit made.
   */
  async commit(tenant: string, txnId: string, expectations: readonly Expectation[], ops: readonly FinalOp[], expectedVersion?: number): Promise<number> {
    const pk = tenantPk(tenant);
    const now = this.clock().getTime();
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          // On the attention index, so the sweeper finishes a staged change nobody reads.
          Item: { pk, sk: LOCK_SK, type: 'lock', tenant, owner: txnId, expiresAt: now + this.leaseMs, attnPk: attentionPk(`${tenant}#${LOCK_SK}`), attnSk: `${new Date(now).toISOString()}#${tenant}#${LOCK_SK}` },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) throw new StagedConflict('another staged commit holds the catalog');
      throw err;
    }
    let committed = false;
    let version: number;
    try {
      // Under the lock nothing else commits: the version read now is the one this change follows.
      const current = await readCatalogVersion(this.doc, this.table, tenant);
      if (expectedVersion !== undefined && current !== expectedVersion) throw new StagedConflict('the catalog changed since it was read');
      version = current + 1;
      ops = [...ops, { op: 'put', item: catalogVersionItem(tenant, version) }];
      await this.validate(pk, expectations);
      await this.doc.send(new PutCommand({ TableName: this.table, Item: { pk, sk: stagingSk(txnId), type: 'staging', state: 'staging', count: ops.length, createdAt: new Date(now).toISOString() } }));
      await this.batchWrite(ops.map((op, i) => ({ op: 'put' as const, item: { pk, sk: stageSk(txnId, i), type: 'stage', stagedOp: op } })));
      this.o.faults?.point('staged.before-commit-point');
      // The commit point: one conditional write, valid only while the lease is ours.
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: this.table, Key: { pk, sk: stagingSk(txnId) }, UpdateExpression: 'SET #s = :c', ConditionExpression: '#s = :st', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':c': 'committed', ':st': 'staging' } } },
            { ConditionCheck: { TableName: this.table, Key: { pk, sk: LOCK_SK }, ConditionExpression: '#o = :me AND expiresAt > :now', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':me': txnId, ':now': this.clock().getTime() } } },
          ],
        }),
      );
      committed = true;
      this.o.faults?.point('staged.after-commit-point');
      await this.rollForward(tenant, txnId);
    } catch (err) {
      if (!committed && !(err instanceof Error && err.name === 'SimulatedCrash')) {
        await this.rollBack(tenant, txnId);
        if (err instanceof TransactionCanceledException) throw new StagedConflict('the lease ran out before the commit point');
      }
      throw err;
    }
    return version;
  }

  /**
   * Called before every catalog read: finishes a committed staged change (roll forward) or
   * abandons an expired uncommitted one (roll back). Returns whether it changed anything.
   */
  async settle(tenant: string, lock: Record<string, unknown> | undefined): Promise<boolean> {
    if (!lock) return false;
    const pk = tenantPk(tenant);
    const txnId = lock.owner as string;
    const staging = (await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk, sk: stagingSk(txnId) }, ConsistentRead: true }))).Item;
    if (staging?.state === 'committed') {
      await this.rollForward(tenant, txnId);
      return true;
    }
    if ((lock.expiresAt as number) <= this.clock().getTime()) {
      await this.rollBack(tenant, txnId);
      return true;
    }
    return false;
  }

  async getLock(tenant: string): Promise<Record<string, unknown> | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk: LOCK_SK }, ConsistentRead: true }))).Item;
  }

  /** Idempotent: writes every staged item's final state, then removes the staging and the lock. */
  private async rollForward(tenant: string, txnId: string): Promise<void> {
    const pk = tenantPk(tenant);
    const stages = await this.queryStages(pk, txnId);
    const ops = stages.map((s) => s.stagedOp as FinalOp);
    for (let i = 0; i < ops.length; i += 25) {
      await this.batchWrite(ops.slice(i, i + 25));
      if (i === 0) this.o.faults?.point('staged.mid-apply');
    }
    await this.cleanup(pk, txnId, stages);
  }

  private async rollBack(tenant: string, txnId: string): Promise<void> {
    const pk = tenantPk(tenant);
    await this.cleanup(pk, txnId, await this.queryStages(pk, txnId));
  }

  private async cleanup(pk: string, txnId: string, stages: readonly Record<string, unknown>[]): Promise<void> {
    await this.batchWrite([...stages.map((s) => ({ op: 'delete' as const, key: { pk, sk: s.sk as string } })), { op: 'delete', key: { pk, sk: stagingSk(txnId) } }]);
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk: LOCK_SK }, ConditionExpression: '#o = :me', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':me': txnId } }));
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  private queryStages(pk: string, txnId: string): Promise<Record<string, unknown>[]> {
    return queryPartition(this.doc, this.table, pk, `STAGE#${txnId}#`);
  }

  private async validate(pk: string, expectations: readonly Expectation[]): Promise<void> {
    for (let i = 0; i < expectations.length; i += 100) {
      const chunk = expectations.slice(i, i + 100);
      const r = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: chunk.map((e) => ({ pk, sk: e.sk })), ConsistentRead: true } } }));
      const found = new Map((r.Responses?.[this.table] ?? []).map((it) => [it.sk as string, it]));
      if (Object.keys(r.UnprocessedKeys ?? {}).length) throw new StagedConflict('catalog read throttled during validation');
      for (const e of chunk) {
        const it = found.get(e.sk);
        const ok =
          'absent' in e
            ? it === undefined
            : 'version' in e
              ? it !== undefined && !it.dropped && it.version === e.version && ((it.dependents as number | undefined) ?? 0) === e.dependents
              : it !== undefined && it.objectId === e.objectId;
        if (!ok) throw new StagedConflict(`catalog item ${e.sk} changed since it was read`);
      }
    }
  }

  /** BatchWriteItem in chunks of 25, retrying unprocessed items (all writes here are idempotent). */
  private async batchWrite(ops: readonly FinalOp[]): Promise<void> {
    for (let i = 0; i < ops.length; i += 25) {
      let requests = ops.slice(i, i + 25).map((op) => (op.op === 'put' ? { PutRequest: { Item: op.item } } : { DeleteRequest: { Key: op.key } }));
      for (let attempt = 0; requests.length; attempt++) {
        const r = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } }));
        requests = (r.UnprocessedItems?.[this.table] ?? []) as typeof requests;
        if (requests.length && attempt > 10) throw new Error('catalog writes throttled');
        if (requests.length) await new Promise((res) => setTimeout(res, 20 * 2 ** attempt));
      }
    }
  }
}

export { objSk };
