/**
 * Staged commits: a request whose change exceeds DynamoDB's 100 items per transaction
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html) still
 * commits atomically — never silently split:
 *
 * 1. take the tenant's catalog lock (a lease), marking the catalog-version item with its owner in
 *    the same transaction: every normal commit updates that item on condition that it carries no
 *    mark, so the lock costs a normal commit no item of its own;
 * 2. validate what the plan read (versions, dependents, name guards) — nothing can move now;
 * 3. write the final state of every item as STAGE records (invisible to readers);
 * 4. the commit point: ONE conditional write flips the staging record from `staging` to `committed`;
 * 5. roll forward: copy the staged items into place, then drop the stage records and the lock.
 *
 * A crash before 4 leaves nothing visible; once the lease has run out, the next reader rolls back.
 * A crash after 4 is finished by the next reader of the tenant's catalog, which rolls forward
 * before it reads — so a reader sees all of the change or none of it.
 *
 * Safety never rests on clocks or on timing (DESIGN.md invariant 9):
 * - rolling back starts with ONE conditional write that moves the staging record from `staging` (or
 *   absent) to `aborted`; the commit point requires `staging`. Exactly one of the two wins, whatever
 *   the clocks of the holder and the reader say; the lease only decides when a reader may try.
 * - every write of a roll-forward is a transaction that also checks the lock is still this
 *   change's. The lock goes only after the change is fully in place, and no other commit lands
 *   while it is there, so a roller that resumes late writes nothing (it cannot undo later commits
 *   or move the catalog version back).
 * - items others may change while the lock is held (effects the executors settle, statuses they
 *   move on) are written only if still absent (or, for a status, not yet in the state this change
 *   sets), so a second roller does not set them back.
 */
import { queryPartition } from '../dynamo';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { FaultInjector } from '../dataplane/faults';
import { FenceLost, StagedConflict } from '../errors';
import { attentionKeys, CATALOG_VERSION_SK, objSk, tenantPk } from './keys';

export const LOCK_SK = 'LOCK';
const stagingSk = (txnId: string) => `STAGING#${txnId}`;
const stageSk = (txnId: string, seq: number) => `STAGE#${txnId}#${String(seq).padStart(6, '0')}`;
/** How long a staged commit may hold the tenant's catalog before others may take it back. */
export const DEFAULT_LEASE_MS = 30_000;
/** An `aborted` staging record left by a reader that died mid-rollback ages out (TTL, seconds). */
const ABORTED_TTL_SECONDS = 24 * 3600;

/** A condition in DynamoDB's expression syntax, with its own names and values. */
export interface OnlyIf {
  readonly expression: string;
  readonly names?: Record<string, string>;
  readonly values?: Record<string, unknown>;
}

/**
 * The final state of one item. `onlyIf` marks a write that must not repeat or go back: when its
 * condition fails it was applied already (or superseded), and the write is skipped.
 */
export type FinalOp =
  | { readonly op: 'put'; readonly item: Record<string, unknown>; readonly onlyIf?: OnlyIf }
  | { readonly op: 'delete'; readonly key: { pk: string; sk: string } }
  | {
      readonly op: 'update';
      readonly key: { pk: string; sk: string };
      readonly expression: string;
      readonly names?: Record<string, string>;
      readonly values?: Record<string, unknown>;
      readonly onlyIf?: OnlyIf;
    };

/** What must still hold when the lock is taken (what the plan read). */
export type Expectation =
  | { readonly sk: string; readonly absent: true }
  | { readonly sk: string; readonly version: number; readonly dependents: number }
  | { readonly sk: string; readonly objectId: string };


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

/** The attribute of the catalog-version item that names the staged commit holding the lock. */
const LOCKED_BY = 'lockedBy';

/**
 * The condition a normal commit puts on its catalog-version update: no staged commit holds the
 * catalog (its lock marks that item; see `commit`). One item fewer than a separate check of the lock.
 */
export function lockFreeCondition(): string {
  return `attribute_not_exists(${LOCKED_BY})`;
}

type StagingState = 'staging' | 'committed' | 'aborted';
type Guard = { readonly sk: string; readonly expression: string; readonly names: Record<string, string>; readonly values: Record<string, unknown> };

/** A transaction holds at most 100 items and 4 MB; one place is the guard's, and our JSON measure runs high. */
const CHUNK_ITEMS = 99;
const CHUNK_BYTES = 3_500_000;
/** Two rollers writing the same chunk conflict; the loser retries (bounded, with backoff). */
const CONFLICT_RETRIES = 12;

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
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                // On the attention index, so the sweeper finishes a staged change nobody reads.
                Item: { pk, sk: LOCK_SK, type: 'lock', tenant, owner: txnId, expiresAt: now + this.leaseMs, ...attentionKeys(tenant, LOCK_SK, new Date(now).toISOString()) },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            // The mark normal commits check (`lockFreeCondition`).
            { Update: { TableName: this.table, Key: { pk, sk: CATALOG_VERSION_SK }, UpdateExpression: `SET #t = :t, ${LOCKED_BY} = :me`, ExpressionAttributeNames: { '#t': 'type' }, ExpressionAttributeValues: { ':t': 'catalog_version', ':me': txnId } } },
          ],
        }),
      );
    } catch (err) {
      if (err instanceof TransactionCanceledException) {
        const held = err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';
        throw new StagedConflict(held ? 'another staged commit holds the catalog' : 'the catalog changed while its lock was taken');
      }
      throw err;
    }
    let version = 0;
    try {
      // Under the lock nothing else commits: the version read now is the one this change follows.
      const current = await readCatalogVersion(this.doc, this.table, tenant);
      if (expectedVersion !== undefined && current !== expectedVersion) throw new StagedConflict('the catalog changed since it was read');
      version = current + 1;
      // An update, not a put: the lock's mark on the item stays until the lock goes (`cleanup`).
      ops = [...ops, { op: 'update', key: { pk, sk: CATALOG_VERSION_SK }, expression: 'SET #t = :t, v = :v', names: { '#t': 'type' }, values: { ':t': 'catalog_version' }, onlyIf: { expression: 'attribute_not_exists(v) OR v <= :v', values: { ':v': version } } }];
      await this.validate(pk, expectations);
      // Conditional: a reader that took this holder for dead may have aborted it already.
      await this.doc.send(
        new PutCommand({ TableName: this.table, Item: { pk, sk: stagingSk(txnId), type: 'staging', state: 'staging', count: ops.length, createdAt: new Date(now).toISOString() }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      await this.fencedWrite(this.stagingIs(pk, txnId, 'staging'), ops.map((op, i) => ({ op: 'put' as const, item: { pk, sk: stageSk(txnId, i), type: 'stage', stagedOp: op } })));
      await this.o.faults?.checkpoint('staged.before-commit-point');
      // The commit point: valid only while nobody has aborted the change (no clock involved).
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: this.table, Key: { pk, sk: stagingSk(txnId) }, UpdateExpression: 'SET #s = :c', ConditionExpression: '#s = :st', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':c': 'committed', ':st': 'staging' } } },
            { ConditionCheck: { TableName: this.table, Key: { pk, sk: LOCK_SK }, ConditionExpression: '#o = :me', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':me': txnId } } },
          ],
        }),
      );
    } catch (err) {
      if (err instanceof Error && err.name === 'SimulatedCrash') throw err;
      // Not committed — or not known to be (a lost answer to the commit point): the abort decides.
      if ((await this.abort(pk, txnId)) === 'committed') {
        await this.finish(tenant, txnId);
        return version;
      }
      await this.cleanup(pk, txnId);
      if (err instanceof FenceLost || err instanceof TransactionCanceledException || err instanceof ConditionalCheckFailedException) {
        throw new StagedConflict('another process took the catalog back before the commit point');
      }
      throw err;
    }
    await this.o.faults?.checkpoint('staged.after-commit-point');
    await this.finish(tenant, txnId);
    return version;
  }

  /**
   * Called before every catalog read: finishes a committed staged change (roll forward) or
   * abandons an uncommitted one whose lease has run out (roll back). Returns whether it changed
   * anything. The lease is read on this process's clock: a skewed clock only makes it try early
   * or late; the abort's condition keeps it from undoing a change that committed.
   */
  async settle(tenant: string, lock: Record<string, unknown> | undefined): Promise<boolean> {
    if (!lock) return false;
    const pk = tenantPk(tenant);
    const txnId = lock.owner as string;
    const state = await this.stagingState(pk, txnId);
    if (state === 'committed') {
      await this.finish(tenant, txnId);
      return true;
    }
    if (state !== 'aborted' && (lock.expiresAt as number) > this.clock().getTime()) return false;
    await this.o.faults?.checkpoint('staged.rollback');
    if ((await this.abort(pk, txnId)) === 'committed') {
      await this.finish(tenant, txnId);
      return true;
    }
    await this.o.faults?.checkpoint('staged.mid-rollback');
    await this.cleanup(pk, txnId);
    return true;
  }

  async getLock(tenant: string): Promise<Record<string, unknown> | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk: LOCK_SK }, ConsistentRead: true }))).Item;
  }

  private async stagingState(pk: string, txnId: string): Promise<StagingState | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk, sk: stagingSk(txnId) }, ConsistentRead: true }));
    return r.Item?.state as StagingState | undefined;
  }

  /**
   * Moves the change from `staging` (or not yet staged) to `aborted`; the commit point can no
   * longer land. Returns the state the change ends in: `committed` when the commit point won.
   */
  private async abort(pk: string, txnId: string): Promise<StagingState> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk, sk: stagingSk(txnId), type: 'staging', state: 'aborted', expiresAt: Math.floor(this.clock().getTime() / 1000) + ABORTED_TTL_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk) OR #s = :st',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':st': 'staging' },
        }),
      );
      return 'aborted';
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      return (await this.stagingState(pk, txnId)) ?? 'aborted';
    }
  }

  /** Rolls a committed change forward; a roller that finds the lock gone stops: another finished it. */
  private async finish(tenant: string, txnId: string): Promise<void> {
    try {
      await this.rollForward(tenant, txnId);
    } catch (err) {
      if (!(err instanceof FenceLost)) throw err;
    }
  }

  /** Writes every staged item's final state while the lock is this change's, then removes the staging and the lock. */
  private async rollForward(tenant: string, txnId: string): Promise<void> {
    const pk = tenantPk(tenant);
    const stages = await this.queryStages(pk, txnId);
    await this.fencedWrite(
      { sk: LOCK_SK, expression: '#o = :me', names: { '#o': 'owner' }, values: { ':me': txnId } },
      stages.map((s) => s.stagedOp as FinalOp),
      () => this.o.faults?.checkpoint('staged.mid-apply'),
    );
    await this.cleanup(pk, txnId, stages);
  }

  /**
   * Removes the stage records, then the staging record, then the lock (in that order: while the
   * lock is there nothing else commits, so a roller that finds the records half gone is harmless).
   */
  private async cleanup(pk: string, txnId: string, stages?: readonly Record<string, unknown>[]): Promise<void> {
    const records = stages ?? (await this.queryStages(pk, txnId));
    await this.batchDelete(records.map((s) => ({ pk, sk: s.sk as string })));
    await this.batchDelete([{ pk, sk: stagingSk(txnId) }]);
    // The lock and its mark on the catalog-version item go together, and only if still this change's.
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.table, Key: { pk, sk: LOCK_SK }, ConditionExpression: '#o = :me', ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: { ':me': txnId } } },
            {
              Update: {
                TableName: this.table,
                Key: { pk, sk: CATALOG_VERSION_SK },
                UpdateExpression: `REMOVE ${LOCKED_BY}`,
                // A lock taken before locks marked the version item has no mark to remove.
                ConditionExpression: `attribute_not_exists(${LOCKED_BY}) OR ${LOCKED_BY} = :me`,
                ExpressionAttributeValues: { ':me': txnId },
              },
            },
          ],
        }),
      );
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
    }
  }

  private stagingIs(pk: string, txnId: string, state: StagingState): Guard {
    return { sk: stagingSk(txnId), expression: '#s = :st', names: { '#s': 'state' }, values: { ':st': state } };
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

  /**
   * Writes `ops` in transactions that each also check `guard` (an item of the same partition):
   * the first chunk whose guard fails ends the writing (FenceLost). A write whose own `onlyIf`
   * fails was applied already and is skipped.
   */
  private async fencedWrite(guard: Guard, ops: readonly FinalOp[], afterFirstChunk?: () => Promise<void> | undefined): Promise<void> {
    const pk = (ops[0] && ('item' in ops[0] ? ops[0].item.pk : ops[0].key.pk)) as string | undefined;
    if (!pk) return;
    for (const [n, chunk] of chunks(ops).entries()) {
      let pending = chunk;
      for (let attempt = 0; pending.length; attempt++) {
        try {
          await this.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                { ConditionCheck: { TableName: this.table, Key: { pk, sk: guard.sk }, ConditionExpression: guard.expression, ExpressionAttributeNames: guard.names, ExpressionAttributeValues: guard.values } },
                ...pending.map((op) => transactItem(this.table, op)),
              ],
            }),
          );
          pending = [];
        } catch (err) {
          if (!(err instanceof TransactionCanceledException)) throw err;
          const codes = (err.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
          if (codes[0] === 'ConditionalCheckFailed') throw new FenceLost();
          const refused = pending.filter((op, i) => codes[i + 1] === 'ConditionalCheckFailed');
          if (refused.some((op) => op.op === 'delete' || !op.onlyIf)) throw new Error(`a staged write was refused: ${codes.join(', ')}`);
          if (refused.length) {
            pending = pending.filter((op) => !refused.includes(op));
            continue;
          }
          if (!codes.some((c) => c === 'TransactionConflict' || c === 'ThrottlingError') || attempt >= CONFLICT_RETRIES) throw err;
          await new Promise((res) => setTimeout(res, Math.min(1000, 10 * 2 ** attempt) * (0.5 + Math.random())));
        }
      }
      if (n === 0) await afterFirstChunk?.();
    }
  }

  /** BatchWriteItem deletes in chunks of 25, retrying unprocessed ones (deletes are idempotent). */
  private async batchDelete(keys: readonly { pk: string; sk: string }[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 25) {
      let requests = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; requests.length; attempt++) {
        const r = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } }));
        requests = (r.UnprocessedItems?.[this.table] ?? []) as typeof requests;
        if (requests.length && attempt > 10) throw new Error('catalog writes throttled');
        if (requests.length) await new Promise((res) => setTimeout(res, 20 * 2 ** attempt));
      }
    }
  }
}

/** Splits ops into transactions' worth (items and bytes). */
function chunks(ops: readonly FinalOp[]): FinalOp[][] {
  const out: FinalOp[][] = [];
  let current: FinalOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    const size = Buffer.byteLength(JSON.stringify(op));
    if (current.length && (current.length >= CHUNK_ITEMS || bytes + size > CHUNK_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(op);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

function withCondition(names: Record<string, string> | undefined, values: Record<string, unknown> | undefined, onlyIf: OnlyIf | undefined) {
  const allNames = { ...names, ...onlyIf?.names };
  const allValues = { ...values, ...onlyIf?.values };
  return {
    ...(onlyIf ? { ConditionExpression: onlyIf.expression } : {}),
    ...(Object.keys(allNames).length ? { ExpressionAttributeNames: allNames } : {}),
    ...(Object.keys(allValues).length ? { ExpressionAttributeValues: allValues } : {}),
  };
}

function transactItem(table: string, op: FinalOp) {
  switch (op.op) {
    case 'put':
      return { Put: { TableName: table, Item: op.item, ...withCondition(undefined, undefined, op.onlyIf) } };
    case 'delete':
      return { Delete: { TableName: table, Key: op.key } };
    case 'update':
      return { Update: { TableName: table, Key: op.key, UpdateExpression: op.expression, ...withCondition(op.names, op.values, op.onlyIf) } };
  }
}

export { objSk };
