/**
 * The reference data plane: the controller contract over its own DynamoDB table. Every resource
 * carries its owner tag and generation; every real change is written to an action log in the
 * same transaction (so a double-apply can be counted); dropped resources leave a fenced tombstone
 * so that an older create delivered late cannot bring them back (invariant 4).
 */
import { queryPartition } from '../dynamo';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { DataPlaneError } from '../errors';
import { MANAGED_BY, type ApplyResult, type DataPlane, type ObservedResource, type ReadPolicy, type ResourceKind, type ResourceOwner, type ResourceSpecs } from './contract';
import type { FaultInjector } from './faults';

const resPk = (tenant: string) => `RES#${tenant}`;
const logPk = (tenant: string) => `LOG#${tenant}`;
const resSk = (kind: ResourceKind, id: string) => `${kind}#${id}`;
/** Tombstones only need to outlive any delivery that could still carry an older generation. */
const TOMBSTONE_TTL_SECONDS = 14 * 24 * 3600;

export interface ResourceItem {
  readonly pk: string;
  readonly sk: string;
  readonly tenant: string;
  readonly kind: ResourceKind;
  readonly resourceId: string;
  readonly owner?: ResourceOwner;
  readonly managedBy?: string;
  readonly generation: number;
  readonly present: boolean;
  readonly spec: Record<string, unknown>;
  readonly health: 'healthy' | 'unhealthy';
  readonly lastError?: string;
  readonly errorIsFatal?: boolean;
  readonly readPolicy?: ReadPolicy;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly droppedAt?: string;
}

export interface ActionLogEntry {
  readonly tenant: string;
  readonly action: 'create' | 'update' | 'drop' | 'set_read_policy';
  readonly kind: ResourceKind;
  readonly resourceId: string;
  readonly generation: number;
  readonly at: string;
}

export interface ReferenceDataPlaneOptions {
  readonly faults?: FaultInjector;
  readonly clock?: () => Date;
  /**
   * Told after every call that changed a resource (the reference data plane's runtime starts its
   * checks of a new ingestion there, instead of waiting for its next round).
   */
  readonly onChange?: (tenant: string, kind: ResourceKind, resourceId: string) => void;
}

export class ReferenceDataPlane implements DataPlane {
  private readonly faults: FaultInjector | undefined;
  private readonly clock: () => Date;
  /** Settable after construction: the runtime that listens is built with the data plane. */
  onChange: ((tenant: string, kind: ResourceKind, resourceId: string) => void) | undefined;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    readonly table: string,
    options: ReferenceDataPlaneOptions = {},
  ) {
    this.faults = options.faults;
    this.clock = options.clock ?? (() => new Date());
    this.onChange = options.onChange;
  }

  ensure<K extends ResourceKind>(kind: K, owner: ResourceOwner, generation: number, spec: ResourceSpecs[K]): Promise<ApplyResult> {
    return this.told(kind, owner, this.apply(kind, owner, generation, { ...spec }));
  }

  drop(kind: ResourceKind, owner: ResourceOwner, generation: number): Promise<ApplyResult> {
    return this.told(kind, owner, this.apply(kind, owner, generation, undefined));
  }

  private async told(kind: ResourceKind, owner: ResourceOwner, result: Promise<ApplyResult>): Promise<ApplyResult> {
    const r = await result;
    if (r.changed) this.onChange?.(owner.tenant, kind, owner.objectId);
    return r;
  }

  /** Every present ingestion and export, all tenants: what the reference data plane's runtime runs. */
  async liveConnectors(): Promise<ResourceItem[]> {
    const out: ResourceItem[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const r = await this.doc.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: 'present = :t AND (kind = :i OR kind = :e)',
          ExpressionAttributeValues: { ':t': true, ':i': 'ingestion', ':e': 'export' },
          ExclusiveStartKey: start,
        }),
      );
      out.push(...((r.Items ?? []) as ResourceItem[]));
      start = r.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /** A tenant's present ingestions and exports: a query of its partition, not a scan of every tenant's. */
  async liveConnectorsOf(tenant: string): Promise<ResourceItem[]> {
    const kinds: ResourceKind[] = ['ingestion', 'export'];
    const items = await Promise.all(kinds.map((k) => queryPartition<ResourceItem>(this.doc, this.table, resPk(tenant), `${k}#`, { ConsistentRead: true })));
    return items.flat().filter((i) => i.present);
  }

  /** One resource as stored (present or a tombstone). */
  async resource(tenant: string, kind: ResourceKind, resourceId: string): Promise<ResourceItem | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: resPk(tenant), sk: resSk(kind, resourceId) }, ConsistentRead: true }))).Item as ResourceItem | undefined;
  }

  /** Installs a read policy on a present collection; fenced like every other change. */
  async setReadPolicy(owner: ResourceOwner, generation: number, policy: ReadPolicy): Promise<ApplyResult> {
    await this.faults?.beforeCall();
    const key = { pk: resPk(owner.tenant), sk: resSk('collection', owner.objectId) };
    const current = (await this.doc.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item as ResourceItem | undefined;
    if (!current || !current.present) throw new DataPlaneError(`collection ${owner.objectId} does not exist`, false);
    if (current.generation > generation) return { changed: false, heldGeneration: current.generation };
    if (current.readPolicy && current.readPolicy.lagMs === policy.lagMs) return { changed: false, heldGeneration: current.generation };
    const now = this.clock().toISOString();
    const log: ActionLogEntry = { tenant: owner.tenant, action: 'set_read_policy', kind: 'collection', resourceId: owner.objectId, generation, at: now };
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: { ...current, readPolicy: policy, updatedAt: now },
                ConditionExpression: 'generation = :held',
                ExpressionAttributeValues: { ':held': current.generation },
              },
            },
            { Put: { TableName: this.table, Item: { pk: logPk(owner.tenant), sk: `${now}#${randomBytes(4).toString('hex')}`, ...log } } },
          ],
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) return this.setReadPolicy(owner, generation, policy);
      throw new DataPlaneError(`data plane write failed: ${(err as Error).message}`, true, { cause: err });
    }
    return { changed: true, heldGeneration: current.generation };
  }

  /** Health injection for tests: makes a connector (ingestion/export) report an error, or recover. */
  async setHealth(tenant: string, kind: ResourceKind, resourceId: string, health: { healthy: true } | { healthy: false; error: string; fatal?: boolean }): Promise<void> {
    const key = { pk: resPk(tenant), sk: resSk(kind, resourceId) };
    const current = (await this.doc.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item as ResourceItem | undefined;
    if (!current) throw new Error(`no ${kind} ${resourceId}`);
    const { lastError: _e, errorIsFatal: _f, ...rest } = current;
    const item = health.healthy ? { ...rest, health: 'healthy' } : { ...rest, health: 'unhealthy', lastError: health.error, errorIsFatal: health.fatal ?? false };
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...item, updatedAt: this.clock().toISOString() } }));
    this.onChange?.(tenant, kind, resourceId);
  }

  /** Make it so: `spec` present → the resource exists at `generation`; undefined → it is gone. */
  private async apply(kind: ResourceKind, owner: ResourceOwner, generation: number, spec: Record<string, unknown> | undefined): Promise<ApplyResult> {
    const after = await this.faults?.beforeCall();
    const unhealthy = after === 'apply-unhealthy';
    const key = { pk: resPk(owner.tenant), sk: resSk(kind, owner.objectId) };
    // Most ensures create: write first, conditioned on nothing being there (exactly what the read
    // below would decide for an absent resource), and read only when something is.
    if (spec !== undefined && (await this.createIfAbsent(kind, owner, generation, spec, unhealthy))) {
      if (after === 'apply-then-fail') throw new DataPlaneError('injected fault after applying', true);
      return { changed: true, heldGeneration: generation };
    }
    const current = (await this.doc.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item as ResourceItem | undefined;
    if (current && !current.managedBy) {
      // Never touch what we do not own: the sweeper reports it, an operator decides.
      throw new DataPlaneError(`${kind} ${owner.objectId} exists but is not managed by ${MANAGED_BY}; it was left alone`, false);
    }
    if (current && current.generation >= generation) return { changed: false, heldGeneration: current.generation };
    const now = this.clock().toISOString();
    const present = spec !== undefined;
    const action: ActionLogEntry['action'] | undefined = present ? (current?.present ? 'update' : 'create') : current?.present ? 'drop' : undefined;
    const item = this.resourceItem(kind, owner, generation, spec, current, now, unhealthy);
    const condition = current
      ? { ConditionExpression: 'generation = :held', ExpressionAttributeValues: { ':held': current.generation } }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    try {
      if (action) {
        await this.writeWithLog(item, condition, { tenant: owner.tenant, action, kind, resourceId: owner.objectId, generation, at: now });
      } else {
        await this.doc.send(new PutCommand({ TableName: this.table, Item: item, ...condition }));
      }
    } catch (err) {
      if (isConditionFailure(err)) {
        // Someone else moved the resource meanwhile: re-read and report what is held now.
        return this.apply(kind, owner, generation, spec);
      }
      throw new DataPlaneError(`data plane write failed: ${(err as Error).message}`, true, { cause: err });
    }
    if (after === 'apply-then-fail') throw new DataPlaneError('injected fault after applying', true);
    return { changed: action !== undefined, heldGeneration: generation };
  }

  /** Creates the resource if nothing (not even a tombstone) is at its key; false when something is. */
  private async createIfAbsent(kind: ResourceKind, owner: ResourceOwner, generation: number, spec: Record<string, unknown>, unhealthy: boolean): Promise<boolean> {
    const now = this.clock().toISOString();
    try {
      await this.writeWithLog(this.resourceItem(kind, owner, generation, spec, undefined, now, unhealthy), { ConditionExpression: 'attribute_not_exists(pk)' }, {
        tenant: owner.tenant,
        action: 'create',
        kind,
        resourceId: owner.objectId,
        generation,
        at: now,
      });
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw new DataPlaneError(`data plane write failed: ${(err as Error).message}`, true, { cause: err });
    }
  }

  private resourceItem(
    kind: ResourceKind,
    owner: ResourceOwner,
    generation: number,
    spec: Record<string, unknown> | undefined,
    current: ResourceItem | undefined,
    now: string,
    unhealthy = false,
  ): ResourceItem & { expiresAt?: number } {
    const present = spec !== undefined;
    return {
      pk: resPk(owner.tenant),
      sk: resSk(kind, owner.objectId),
      tenant: owner.tenant,
      kind,
      resourceId: owner.objectId,
      owner,
      managedBy: MANAGED_BY,
      generation,
      present,
      spec: spec ?? current?.spec ?? {},
      health: unhealthy ? 'unhealthy' : (current?.health ?? 'healthy'),
      ...(unhealthy ? { lastError: 'injected fault: applied, not healthy' } : {}),
      // A read policy travels with its spec (collections, index arrangements): created together, never one without the other.
      ...(present && spec?.readPolicy ? { readPolicy: spec.readPolicy as ReadPolicy } : {}),
      createdAt: current?.present ? current.createdAt : now,
      updatedAt: now,
      ...(present ? {} : { droppedAt: now, expiresAt: Math.floor(Date.parse(now) / 1000) + TOMBSTONE_TTL_SECONDS }),
    };
  }

  /** The resource write and its action-log row, in one transaction. */
  private async writeWithLog(item: ResourceItem, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }, log: ActionLogEntry): Promise<void> {
    await this.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.table, Item: item, ...condition } },
          { Put: { TableName: this.table, Item: { pk: logPk(log.tenant), sk: `${log.at}#${randomBytes(4).toString('hex')}`, ...log } } },
        ],
      }),
    );
  }

  async observe(tenant: string): Promise<ObservedResource[]> {
    const items = await this.queryAll<ResourceItem>(resPk(tenant));
    return items
      .filter((i) => i.present)
      .map((i) => ({
        tenant: i.tenant,
        kind: i.kind,
        resourceId: i.resourceId,
        ...(i.owner ? { owner: i.owner } : {}),
        ...(i.managedBy ? { managedBy: i.managedBy } : {}),
        generation: i.generation,
        health: i.health,
        ...(i.lastError ? { lastError: i.lastError, errorIsFatal: i.errorIsFatal ?? false } : {}),
        ...(i.readPolicy ? { readPolicy: i.readPolicy } : {}),
        lastHeartbeat: i.updatedAt,
        createdAt: i.createdAt,
        spec: i.spec,
      }));
  }

  /**
   * The cost meter: replica-seconds per resource, present ones counted up to `now`. An orphaned
   * replica keeps accruing here, which is how an orphan shows up as money.
   */
  async replicaSeconds(tenant: string, now: Date = this.clock()): Promise<{ total: number; byReplica: Record<string, number> }> {
    const items = await this.queryAll<ResourceItem>(resPk(tenant));
    const byReplica: Record<string, number> = {};
    for (const i of items) {
      if (i.kind !== 'replica' || i.generation === 0) continue;
      const end = i.present ? now.getTime() : Date.parse(i.droppedAt ?? i.updatedAt);
      byReplica[i.resourceId] = Math.max(0, (end - Date.parse(i.createdAt)) / 1000);
    }
    return { total: Object.values(byReplica).reduce((a, b) => a + b, 0), byReplica };
  }

  /** Every real change, oldest first (tests and the invariant checker count double-applies). */
  async actionLog(tenant: string): Promise<ActionLogEntry[]> {
    return this.queryAll<ActionLogEntry>(logPk(tenant));
  }

  /** Puts a resource that is not ours (no owner tag), as an operator's hand-made replica would be. */
  async putForeignResource(tenant: string, kind: ResourceKind, resourceId: string, spec: Record<string, unknown>): Promise<void> {
    const now = this.clock().toISOString();
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: resPk(tenant), sk: resSk(kind, resourceId), tenant, kind, resourceId, generation: 0, present: true, spec, health: 'healthy', createdAt: now, updatedAt: now },
      }),
    );
  }

  private queryAll<T>(pk: string): Promise<T[]> {
    return queryPartition<T>(this.doc, this.table, pk);
  }
}

function isConditionFailure(err: unknown): boolean {
  if (err instanceof TransactionCanceledException) return (err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed');
  return err instanceof Error && err.name === 'ConditionalCheckFailedException';
}
