/**
 * The outbox adapter: the only code that reads and writes effect items (`EFF#`), transaction
 * records (`TXN#`), the sweeper's claims (replays, the full pass's lease) and reads the sparse
 * attention index. Effects and their transaction record are built here once, whoever writes them
 * (a DDL commit through the catalog store, or the full pass's repairs).
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandOutput, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ATTENTION_INDEX, ATTENTION_SHARDS } from '../definitions';
import { queryPartition } from '../dynamo';
import type { EffectIntent, EffectRecord, EffectState } from '../effects/model';
import { backoffMs, budgetSpent, RETRY_POLICIES } from '../effects/retry-policies';
import { ADMISSION_SK, attentionKeys, attentionShardPk, DEADLINE_PREFIX, EFF_PREFIX, EFF_RANGE_END, effSk, effTxnPrefix, tenantPk, txnSk } from './keys';
import type { StoredStatus } from './status-store';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const DAY = 24 * 3600;
/** Applied effects and transaction records age out after this. */
export const OUTBOX_TTL_SECONDS = 7 * DAY;
/** A transaction record keeps each statement's text up to this length (it is history, not the definition). */
const MAX_STATEMENT_HISTORY = 4_096;

const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export interface TxnRecord {
  readonly txnId: string;
  readonly principal: string;
  readonly statements: readonly string[];
  readonly tags: readonly string[];
  readonly createdAt: string;
  readonly idempotencyKey?: string;
}

/** An effect as the sweeper reads it: with its replay claims and dead-letter mark. */
export type PendingEffect = EffectRecord & { replays?: number; lastReplayAt?: string; deadLettered?: boolean; redrivenAt?: string };

/** The stored outbox record of one effect of a transaction (`seq` counts from 1). */
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
    ...attentionKeys(tenant, sk, txn.createdAt),
  };
}

/**
 * The transaction record: who changed what, with statements trimmed to history length. With
 * `catalogVersion`, the version this commit makes and the objects it changed: how another
 * instance's cached snapshot catches up without reading the whole catalog again.
 */
export function txnItem(tenant: string, txn: TxnRecord, o: { effects: number; catalogVersion?: number; changedIds?: readonly string[] }): Record<string, unknown> {
  return {
    pk: tenantPk(tenant),
    sk: txnSk(txn.txnId),
    type: 'txn',
    ...txn,
    statements: txn.statements.map((st) => (st.length > MAX_STATEMENT_HISTORY ? `${st.slice(0, MAX_STATEMENT_HISTORY)} …(${st.length - MAX_STATEMENT_HISTORY} more characters)` : st)),
    effects: o.effects,
    ...(o.catalogVersion !== undefined ? { catalogVersion: o.catalogVersion, changedIds: [...new Set(o.changedIds ?? [])] } : {}),
    expiresAt: epoch(txn.createdAt) + OUTBOX_TTL_SECONDS,
  };
}

/** The outbox's part of a commit: every effect and the transaction record, each written once. */
export function outboxItems(table: string, tenant: string, txn: TxnRecord, effects: readonly EffectIntent[], o: { catalogVersion?: number; changedIds?: readonly string[] } = {}): TransactItem[] {
  const once = { TableName: table, ConditionExpression: 'attribute_not_exists(pk)' };
  return [...effects.map((e, i) => ({ Put: { ...once, Item: effectItem(tenant, txn, e, i + 1) } })), { Put: { ...once, Item: txnItem(tenant, txn, { effects: effects.length, ...o }) } }];
}

/** What the attention index holds: pending effects, staged-commit locks, connector deadlines. */
export type AttentionEntry =
  | { readonly kind: 'effect'; readonly effect: PendingEffect }
  | { readonly kind: 'lock'; readonly tenant: string; readonly lock: Record<string, unknown> }
  | { readonly kind: 'deadline'; readonly status: StoredStatus & { tenant: string } }
  /** Read, but none of the above (counted, nothing to do). */
  | { readonly kind: 'other' };

/** The full pass's progress and lease (one item for the whole table). */
export interface FullPassMarker {
  readonly claims?: number;
  readonly leaseUntil?: number;
  readonly completedAt?: string;
  /** The tenant page to resume after, while a pass is under way. */
  readonly cursor?: string;
}

const FULL_PASS_KEY = { pk: 'SWEEP', sk: 'FULL' };
const isConditionFailed = (err: unknown) => err instanceof ConditionalCheckFailedException;
/** A write that met a concurrent transaction on one of its items (nothing was written): worth another try. */
const isConflict = (err: unknown) =>
  (err as Error | undefined)?.name === 'TransactionConflictException' ||
  (err instanceof TransactionCanceledException && (err.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict') && !(err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'));

/**
 * Runs a write on a tenant's admission item again while it loses races with concurrent
 * transactions on that item (RETRY_POLICIES['outbox.admission']).
 */
async function onConflictRetry<T>(write: () => Promise<T>): Promise<T> {
  const policy = RETRY_POLICIES['outbox.admission'];
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isConflict(err) || budgetSpent(policy, attempt)) throw err;
      await new Promise((r) => setTimeout(r, backoffMs(policy, attempt) * (0.5 + Math.random() / 2)));
    }
  }
}

/** An admission's answer: in, the tenant at its cap, or the effect no longer pending. */
export type AdmitResult = 'admitted' | 'full' | 'settled';

/** A tenant's admission item: the ids admitted to the queues, and the floor its refills read from. */
export interface AdmissionState {
  readonly admitted: ReadonlySet<string>;
  readonly floor: string | undefined;
}

/** The key of a tenant's admission item (the ids of its effects admitted to the queues). */
const admissionKey = (tenant: string) => ({ pk: tenantPk(tenant), sk: ADMISSION_SK });


/** Every shard of the attention index, in order. */
export const ALL_SHARDS: readonly number[] = Array.from({ length: ATTENTION_SHARDS }, (_, k) => k);

/**
 * How many records a refill may read below the first one that needs admitting before it moves the
 * tenant's admission floor up past them ({@link OutboxStore.unadmitted}). The move is a write and
 * a round trip of its own after the read, at the end of an executor's batch; the records it
 * spares the next reads are small (an effect record is well under 1 KB: 8 of them are 1–2 read
 * units of a strongly consistent Query, against one write unit, five times a read unit's price).
 */
export const FLOOR_SLACK = 8;

export class OutboxStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    /** @default {@link FLOOR_SLACK} (0: the floor follows every read) */
    private readonly floorSlack = FLOOR_SLACK,
  ) {}

  /** One effect record, strongly consistent. */
  async getEffect(tenant: string, sk: string): Promise<PendingEffect | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: tenantPk(tenant), sk }, ConsistentRead: true }));
    return r.Item as PendingEffect | undefined;
  }

  async listEffects(tenant: string): Promise<PendingEffect[]> {
    return queryPartition<PendingEffect>(this.doc, this.table, tenantPk(tenant), EFF_PREFIX);
  }

  /** The effects one transaction committed (their keys share its id), in commit order. */
  async effectsOfTxn(tenant: string, txnId: string): Promise<PendingEffect[]> {
    return queryPartition<PendingEffect>(this.doc, this.table, tenantPk(tenant), effTxnPrefix(txnId));
  }

  /** Writes effects and their transaction record in one transaction (the full pass's repairs go through the outbox like any DDL). */
  async append(tenant: string, txn: TxnRecord, effects: readonly EffectIntent[]): Promise<void> {
    await this.doc.send(new TransactWriteCommand({ TransactItems: outboxItems(this.table, tenant, txn, effects) }));
  }

  /** The write that settles an effect, only if it is still pending (removing it from the attention index). */
  settleItem(effect: EffectRecord, state: EffectState, now: Date, lastError?: string): TransactItem {
    return {
      Update: {
        TableName: this.table,
        Key: { pk: tenantPk(effect.tenant), sk: effect.sk },
        UpdateExpression: `SET #s = :s, updatedAt = :now, settledAt = :now, expiresAt = :exp${lastError ? ', lastError = :err' : ''} REMOVE attnPk, attnSk`,
        ConditionExpression: '#s = :pending',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: {
          ':s': state,
          ':now': now.toISOString(),
          ':exp': Math.floor(now.getTime() / 1000) + OUTBOX_TTL_SECONDS,
          ':pending': 'pending',
          ...(lastError ? { ':err': lastError } : {}),
        },
      },
    };
  }

  /**
   * The write that takes a settled effect's id out of its tenant's admission set (nothing when it
   * was not there): in the same transaction as the settle, so a slot is released exactly once.
   */
  /**
   * The write that admits a commit's new effects in the commit's own transaction: their ids join
   * the tenant's admission set while it has room for all of them. No check that they are pending
   * (the same transaction creates them). When its condition fails the commit goes without it
   * (CatalogStore.commit's `optional` item) and the effects are admitted after it, one by one, as
   * ever ({@link admit}: the first one refused moves the floor). None: more effects than the cap.
   */
  admitWithCommitItem(tenant: string, effectIds: readonly string[], cap: number, now: Date): TransactItem | undefined {
    if (effectIds.length === 0 || effectIds.length > cap) return undefined;
    return {
      Update: {
        TableName: this.table,
        Key: admissionKey(tenant),
        UpdateExpression: 'ADD ids :ids SET updatedAt = :now',
        ConditionExpression: 'attribute_not_exists(ids) OR size(ids) <= :room',
        ExpressionAttributeValues: { ':ids': new Set(effectIds), ':room': cap - effectIds.length, ':now': now.toISOString() },
      },
    };
  }

  releaseItem(effect: Pick<EffectRecord, 'tenant' | 'effectId'>): TransactItem {
    return { Update: { TableName: this.table, Key: admissionKey(effect.tenant), UpdateExpression: 'DELETE ids :id', ExpressionAttributeValues: { ':id': new Set([effect.effectId]) } } };
  }

  /**
   * Settles a pending effect and releases its admission slot in one transaction; one already
   * settled (another delivery got there first, and released it) stays as it is.
   */
  async settle(effect: EffectRecord, state: EffectState, now: Date, lastError?: string): Promise<void> {
    try {
      await onConflictRetry(() => this.doc.send(new TransactWriteCommand({ TransactItems: [this.settleItem(effect, state, now, lastError), this.releaseItem(effect)] })));
    } catch (err) {
      if (!(err instanceof TransactionCanceledException) || isConflict(err)) throw err;
    }
  }

  /**
   * Settles the effect in ONE transaction with another write (`alongside`, built by another
   * store) and the release of its admission slot; false when a condition failed, and then none
   * was written.
   */
  async settleWith(effect: EffectRecord, state: EffectState, now: Date, alongside: TransactItem): Promise<boolean> {
    try {
      await onConflictRetry(() => this.doc.send(new TransactWriteCommand({ TransactItems: [alongside, this.settleItem(effect, state, now), this.releaseItem(effect)] })));
      return true;
    } catch (err) {
      if (err instanceof TransactionCanceledException && !isConflict(err)) return false;
      throw err;
    }
  }

  /**
   * Admits one of a tenant's pending effects to the queues: adds its id to the tenant's admission
   * set while the set holds fewer than `cap` ids, in one transaction with a check that the effect
   * is still pending (a late admission of a settled effect would hold its slot for good).
   * Idempotent: an id already there is admitted again (an effect admitted before a crash, or by
   * the router and the fast path both). `full`: the tenant is at its cap; `settled`: nothing to
   * send. Neither wrote anything.
   */
  async admit(e: { tenant: string; effectId: string; sk: string }, cap: number, now: Date): Promise<AdmitResult> {
    try {
      await onConflictRetry(() =>
        this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { ConditionCheck: { TableName: this.table, Key: { pk: tenantPk(e.tenant), sk: e.sk }, ConditionExpression: '#s = :pending', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':pending': 'pending' } } },
              {
                Update: {
                  TableName: this.table,
                  Key: admissionKey(e.tenant),
                  UpdateExpression: 'ADD ids :ids SET updatedAt = :now',
                  ConditionExpression: 'attribute_not_exists(ids) OR size(ids) < :cap OR contains(ids, :id)',
                  ExpressionAttributeValues: { ':ids': new Set([e.effectId]), ':id': e.effectId, ':cap': cap, ':now': now.toISOString() },
                },
              },
            ],
          }),
        ),
      );
      return 'admitted';
    } catch (err) {
      if (!(err instanceof TransactionCanceledException) || isConflict(err)) throw err;
      if (err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return 'settled';
      // Held back: the refills that read from the floor (`unadmitted`) must still find it.
      await this.moveFloor(e.tenant, e.sk, { below: true });
      return 'full';
    }
  }

  /** The ids of a tenant's admitted effects, strongly consistent (an empty set drops the attribute). */
  async admitted(tenant: string): Promise<ReadonlySet<string>> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: admissionKey(tenant), ConsistentRead: true, ProjectionExpression: 'ids' }));
    return new Set((r.Item?.ids as Set<string> | undefined) ?? []);
  }

  /**
   * A tenant's admission item in one strongly consistent read: its admitted ids and its admission
   * floor (`scanFrom`, see {@link unadmitted}). A refill needs both: one read, not two of the same item.
   */
  async admission(tenant: string): Promise<AdmissionState> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: admissionKey(tenant), ConsistentRead: true, ProjectionExpression: 'ids, scanFrom' }));
    return { admitted: new Set((r.Item?.ids as Set<string> | undefined) ?? []), floor: r.Item?.scanFrom as string | undefined };
  }

  /** Takes ids out of a tenant's admission set (effects no longer pending: the sweeper's clean-up of leaked slots). */
  async release(tenant: string, effectIds: readonly string[]): Promise<void> {
    if (effectIds.length === 0) return;
    await onConflictRetry(() =>
      this.doc.send(new UpdateCommand({ TableName: this.table, Key: admissionKey(tenant), UpdateExpression: 'DELETE ids :ids', ExpressionAttributeValues: { ':ids': new Set(effectIds) } })),
    );
  }

  /**
   * Up to `limit` of a tenant's pending effects that are not admitted (not in `admitted`) and
   * not dead-lettered, oldest commit first (the outbox's sort keys are in commit order).
   *
   * It reads from the tenant's admission floor (`scanFrom` on its admission item), not from the
   * oldest record kept: below the floor every record was settled, admitted or dead-lettered when a
   * read passed it, and none of those needs admitting again (the message of an admitted effect that
   * got lost is the sweeper's replay). Reading from the oldest record cost every refill the
   * tenant's week of settled effects: with 5 000 of them each executor batch read 5 000 items, and a
   * burst of 10 000 effects drained at 2.7 a second. The read moves the floor up to the first effect
   * it returns (by a compare-and-set on the floor it read, so a lowering meanwhile wins) once more
   * than the store's slack ({@link FLOOR_SLACK}) of records lie below that; an effect refused
   * admission below the floor moves it down again (`admit`).
   */
  async unadmitted(tenant: string, admitted: ReadonlySet<string>, limit: number, read?: Pick<AdmissionState, 'floor'>): Promise<PendingEffect[]> {
    // The floor as read with `admitted` ({@link admission}), else read here.
    const floor = read
      ? read.floor
      : ((await this.doc.send(new GetCommand({ TableName: this.table, Key: admissionKey(tenant), ConsistentRead: true, ProjectionExpression: 'scanFrom' }))).Item?.scanFrom as string | undefined);
    const out: PendingEffect[] = [];
    let start: Record<string, unknown> | undefined;
    let firstPending: string | undefined;
    let lastRead: string | undefined;
    /** Records read before the first one returned: what the floor's move would spare the next read. */
    let passed = 0;
    // Pages of about what the answer needs: past the floor lie the tenant's admitted effects (in
    // flight, or settled since the floor moved), then the unadmitted ones. Without a Limit every
    // page is up to 1 MB: a burst's whole backlog read again by every refill (a lone tenant's 5 000
    // effects drained at 6 a second in the full capacity bench).
    const pageSize = Math.min(1000, limit + admitted.size + 10);
    while (out.length < limit) {
      const r = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':from': floor ?? EFF_PREFIX, ':to': EFF_RANGE_END },
          ConsistentRead: true,
          Limit: pageSize,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of (r.Items ?? []) as PendingEffect[]) {
        lastRead = item.sk;
        if (item.state !== 'pending' || item.deadLettered || admitted.has(item.effectId)) {
          if (firstPending === undefined) passed++;
          continue;
        }
        firstPending ??= item.sk;
        if (out.length < limit) out.push(item);
      }
      start = r.LastEvaluatedKey;
      if (!start) break;
    }
    // Nothing unadmitted up to the end: the floor may move past everything read ("~" sorts after
    // every character of a key, so the next read starts right after the last record).
    // A few records below it are left for the next reads (FLOOR_SLACK): no write for them.
    const next = firstPending ?? (lastRead === undefined ? undefined : start ? lastRead : `${lastRead}~`);
    if (next !== undefined && (floor === undefined || next > floor) && passed > this.floorSlack) await this.moveFloor(tenant, next, floor === undefined ? { absent: true } : { from: floor });
    return out;
  }

  /**
   * Sets a tenant's admission floor: up from the value a read saw (`from`, or none there), or down
   * to an effect refused admission below it (`below`). A move whose condition fails is dropped:
   * another moved it meanwhile, and a lowering must not be undone by a raise that read before it.
   */
  private async moveFloor(tenant: string, to: string, when: { absent: true } | { from: string } | { below: true }): Promise<void> {
    const condition =
      'absent' in when
        ? { ConditionExpression: 'attribute_not_exists(scanFrom)' }
        : 'from' in when
          ? { ConditionExpression: 'scanFrom = :from', ExpressionAttributeValues: { ':f': to, ':from': when.from } }
          : { ConditionExpression: 'scanFrom > :f' };
    try {
      await onConflictRetry(() =>
        this.doc.send(new UpdateCommand({ TableName: this.table, Key: admissionKey(tenant), UpdateExpression: 'SET scanFrom = :f', ExpressionAttributeValues: { ':f': to }, ...condition })),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** Records a failed attempt on a pending effect (its last error, and whether the retry budget is spent). */
  async recordAttempt(effect: EffectRecord, a: { attempt: number; lastError: string; deadLettered: boolean; now: Date }): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: tenantPk(effect.tenant), sk: effect.sk },
          UpdateExpression: 'SET attempts = :a, lastError = :e, updatedAt = :now, deadLettered = :dl',
          ConditionExpression: '#s = :pending',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':a': a.attempt, ':e': a.lastError, ':now': a.now.toISOString(), ':dl': a.deadLettered, ':pending': 'pending' },
        }),
      );
    } catch (err) {
      if (!isConditionFailed(err)) throw err;
    }
  }

  /** Claims a replay window of a pending effect; false when a concurrent sweeper that read the same count got it. */
  async claimReplay(effect: PendingEffect, replays: number, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: tenantPk(effect.tenant), sk: effect.sk },
          UpdateExpression: 'SET replays = :next, lastReplayAt = :now',
          ConditionExpression: '#s = :pending AND (attribute_not_exists(replays) OR replays = :seen)',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':next': replays + 1, ':now': now.toISOString(), ':pending': 'pending', ':seen': replays },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  /** A redriven effect gets a fresh retry budget; false when it aged out of the outbox. */
  async clearDeadLetter(tenant: string, sk: string, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: tenantPk(tenant), sk },
          UpdateExpression: 'SET deadLettered = :f, attempts = :z, redrivenAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':f': false, ':z': 0, ':now': now.toISOString() },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  /**
   * Everything on the attention index below `horizon` (pending effects and staged-commit locks,
   * keyed by their date), then the connectors whose report deadline is at or before `now`, shard
   * by shard (all of them, or the ones given), page by page.
   */
  async *attention(horizon: string, now: Date, shards: readonly number[] = ALL_SHARDS): AsyncGenerator<AttentionEntry> {
    for (const shard of shards) {
      // The shard's two ranges are read side by side (one round trip, not two, for a quiet shard)
      // and yielded in order: what is due first, then the connectors past their deadline.
      const deadlines = this.attentionPage(shard, 'attnSk BETWEEN :from AND :to', { ':from': DEADLINE_PREFIX, ':to': `${DEADLINE_PREFIX}${now.toISOString()}` });
      // Awaited below, or by nobody when the first range fails: never unhandled meanwhile.
      deadlines.first.catch(() => undefined);
      for await (const item of this.attentionPage(shard, 'attnSk < :h', { ':h': horizon }).all()) {
        if (item.type === 'lock') yield { kind: 'lock', tenant: item.tenant as string, lock: item };
        else if (item.type === 'effect') yield { kind: 'effect', effect: item as unknown as PendingEffect };
        else if (item.type === 'connector_status') yield { kind: 'deadline', status: item as unknown as StoredStatus & { tenant: string } };
        else yield { kind: 'other' };
      }
      for await (const item of deadlines.all()) {
        yield item.type === 'connector_status' ? { kind: 'deadline', status: item as unknown as StoredStatus & { tenant: string } } : { kind: 'other' };
      }
    }
  }

  /** A range of one attention shard: its first page's read starts at once; `all()` yields it and the pages after it. */
  private attentionPage(shard: number, range: string, values: Record<string, unknown>): { first: Promise<QueryCommandOutput>; all: () => AsyncGenerator<Record<string, unknown>> } {
    const page = (start?: Record<string, unknown>) =>
      this.doc.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: ATTENTION_INDEX,
          KeyConditionExpression: `attnPk = :pk AND ${range}`,
          ExpressionAttributeValues: { ':pk': attentionShardPk(shard), ...values },
          ExclusiveStartKey: start,
        }),
      );
    const first = page();
    return {
      first,
      async *all() {
        let r = await first;
        yield* r.Items ?? [];
        while (r.LastEvaluatedKey) {
          r = await page(r.LastEvaluatedKey);
          yield* r.Items ?? [];
        }
      },
    };
  }

  async fullPassMarker(): Promise<FullPassMarker | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.table, Key: FULL_PASS_KEY, ConsistentRead: true }))).Item as FullPassMarker | undefined;
  }

  /** Claims a run of the full pass until `leaseUntil` (ms); false when a concurrent sweeper that read the same marker claimed it. */
  async claimFullPass(marker: FullPassMarker | undefined, leaseUntil: number): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: FULL_PASS_KEY,
          UpdateExpression: 'SET leaseUntil = :lease, claims = if_not_exists(claims, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(pk) OR claims = :seen',
          ExpressionAttributeValues: { ':lease': leaseUntil, ':zero': 0, ':one': 1, ':seen': marker?.claims ?? 0 },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  /** Ends a claimed run: the lease goes, the progress stays. */
  async finishFullPass(marker: FullPassMarker): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...FULL_PASS_KEY, ...marker } }));
  }
}
