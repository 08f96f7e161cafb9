/**
 * The sweeper's full pass: observe every controller and diff against the catalog. It must look
 * at everything, so it runs rarely (hourly by default), a page of tenants per invocation (the
 * cursor persists between invocations), claimed with a lease so two sweepers never both run it.
 *
 * - an orphan (a resource we own whose owner object is dropped or gone, older than a grace
 *   period, nothing pending for it) gets a drop effect written THROUGH THE OUTBOX, so it is logged
 *   and executed like any other effect;
 * - a resource without our owner tag is never touched, only reported;
 * - a missing resource (catalog says present, data plane lacks it, nothing pending) is re-driven
 *   with an ensure effect, through the outbox too;
 * - a collection (or index arrangement) without a read policy gets it installed;
 * - a stored secret no live catalog secret refers to (its request's commit failed after the value
 *   was put, or its drop never pruned it) is removed from the secret store, once nothing stored
 *   a value for it within the grace period. Object ids are never reused, so nothing can start
 *   referring to it later.
 */
import { queryPartition } from '../dynamo';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import { EFF_PREFIX, OBJ_PREFIX, TENANTS_PK, tenantPk, txnSk } from '../catalog/keys';
import type { CatalogObject } from '../catalog/model';
import { effectItem, OUTBOX_TTL_SECONDS, type TxnRecord } from '../catalog/store';
import { DEFAULT_READ_POLICY, type DataPlane, type ObservedResource } from '../controllers/contract';
import { RESOURCES_OF } from '../effects/derive';
import type { EffectIntent, EffectKind, EffectRecord } from '../effects/model';
import type { SecretStore } from '../secrets/store';
import { randomBytes } from 'node:crypto';

export interface FullPassOptions {
  /** How often the full pass runs (default one hour). */
  readonly intervalMs?: number;
  /** A resource must be this old before it counts as an orphan (default five minutes): a create may be in flight. */
  readonly graceMs?: number;
  /** Tenants per invocation: the rate limit (default 50). */
  readonly tenantsPerRun?: number;
}

export interface FullPassReport {
  readonly ran: boolean;
  readonly tenants: number;
  readonly itemsRead: number;
  readonly orphans: number;
  readonly untagged: readonly { tenant: string; kind: string; resourceId: string }[];
  readonly missing: number;
  readonly readPoliciesRepaired: number;
  /** Stored secrets no live catalog secret refers to, removed from the secret store. */
  readonly secretsCollected: number;
  /** True when the pass reached the last tenant (the next one starts after the interval). */
  readonly completed: boolean;
}

const MARKER = { pk: 'SWEEP', sk: 'FULL' };
const KIND_TO_CONTROLLER = new Map<string, EffectKind['controller']>(
  Object.values(RESOURCES_OF)
    .flat()
    .map((r) => [r.kind, r.controller]),
);

export class FullPass {
  private readonly intervalMs: number;
  private readonly graceMs: number;
  private readonly tenantsPerRun: number;

  constructor(
    private readonly deps: { doc: DynamoDBDocumentClient; catalogTable: string; dataPlane: DataPlane; logger: Logger; secrets?: SecretStore },
    o: FullPassOptions = {},
  ) {
    this.intervalMs = o.intervalMs ?? 3_600_000;
    this.graceMs = o.graceMs ?? 300_000;
    this.tenantsPerRun = o.tenantsPerRun ?? 50;
  }

  async run(now: Date): Promise<FullPassReport> {
    const none: FullPassReport = { ran: false, tenants: 0, itemsRead: 1, orphans: 0, untagged: [], missing: 0, readPoliciesRepaired: 0, secretsCollected: 0, completed: false };
    const marker = (await this.deps.doc.send(new GetCommand({ TableName: this.deps.catalogTable, Key: MARKER, ConsistentRead: true }))).Item;
    const t = now.getTime();
    const due = marker?.cursor !== undefined || !marker?.completedAt || t - Date.parse(marker.completedAt as string) >= this.intervalMs;
    if (!due || (marker?.leaseUntil as number | undefined) !== undefined && (marker!.leaseUntil as number) > t) return none;
    // Claim this run: a concurrent sweeper that read the same marker loses.
    try {
      await this.deps.doc.send(
        new UpdateCommand({
          TableName: this.deps.catalogTable,
          Key: MARKER,
          UpdateExpression: 'SET leaseUntil = :lease, claims = if_not_exists(claims, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(pk) OR claims = :seen',
          ExpressionAttributeValues: { ':lease': t + 5 * 60_000, ':zero': 0, ':one': 1, ':seen': marker?.claims ?? 0 },
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return none;
      throw err;
    }
    const page = await this.deps.doc.send(
      new QueryCommand({
        TableName: this.deps.catalogTable,
        KeyConditionExpression: marker?.cursor ? 'pk = :pk AND sk > :c' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': TENANTS_PK, ...(marker?.cursor ? { ':c': marker.cursor } : {}) },
        Limit: this.tenantsPerRun,
      }),
    );
    let itemsRead = 2 + (page.Items?.length ?? 0);
    let orphans = 0;
    let missing = 0;
    let readPoliciesRepaired = 0;
    let secretsCollected = 0;
    const untagged: { tenant: string; kind: string; resourceId: string }[] = [];
    for (const t of page.Items ?? []) {
      const r = await this.diffTenant(t.tenant as string, now);
      itemsRead += r.itemsRead;
      orphans += r.orphans;
      missing += r.missing;
      readPoliciesRepaired += r.readPoliciesRepaired;
      secretsCollected += r.secretsCollected;
      untagged.push(...r.untagged);
    }
    const completed = !page.LastEvaluatedKey;
    const cursor = page.Items?.length ? (page.Items[page.Items.length - 1]!.sk as string) : undefined;
    await this.deps.doc.send(
      new PutCommand({
        TableName: this.deps.catalogTable,
        Item: {
          ...MARKER,
          claims: (marker?.claims ?? 0) + 1,
          ...(completed ? { completedAt: now.toISOString() } : { completedAt: marker?.completedAt, cursor }),
        },
      }),
    );
    const report = { ran: true, tenants: page.Items?.length ?? 0, itemsRead, orphans, untagged, missing, readPoliciesRepaired, secretsCollected, completed };
    if (orphans || missing || readPoliciesRepaired || secretsCollected || untagged.length) this.deps.logger.warn('full pass found drift', { ...report });
    return report;
  }

  private query(tenant: string, prefix: string): Promise<Record<string, unknown>[]> {
    return queryPartition(this.deps.doc, this.deps.catalogTable, tenantPk(tenant), prefix);
  }

  async diffTenant(tenant: string, now: Date) {
    const [objectItems, effectItems, resources] = await Promise.all([this.query(tenant, OBJ_PREFIX), this.query(tenant, EFF_PREFIX), this.deps.dataPlane.observe(tenant)]);
    const objects = new Map(objectItems.map((o) => [o.id as string, o as unknown as CatalogObject]));
    const effects = effectItems as unknown as EffectRecord[];
    // Something is still in flight (or visibly failed) for this object and kind: leave it to that effect.
    const busy = new Set(effects.filter((e) => e.state === 'pending' || e.state === 'failed').map((e) => `${e.objectId}/${e.kind}`));
    // An orphan keeps costing money even after its drop failed for good: only an effect still in
    // flight holds it back (a failed drop is re-driven each full pass, visibly, through the outbox).
    const inFlight = new Set(effects.filter((e) => e.state === 'pending').map((e) => `${e.objectId}/${e.kind}`));
    const untagged: { tenant: string; kind: string; resourceId: string }[] = [];
    const intents: EffectIntent[] = [];
    let readPoliciesRepaired = 0;
    const present = new Set<string>();
    for (const r of resources) {
      present.add(`${r.resourceId}/${r.kind}`);
      if (!r.owner) {
        untagged.push({ tenant, kind: r.kind, resourceId: r.resourceId });
        continue;
      }
      const owner = objects.get(r.owner.objectId);
      const live = owner !== undefined && !owner.dropped;
      if (!live) {
        if (inFlight.has(`${r.resourceId}/${r.kind}`) || now.getTime() - Date.parse(r.createdAt) < this.graceMs) continue;
        intents.push(this.intent(r, 'drop', orphanDropGeneration(r, owner)));
        continue;
      }
      if (needsReadPolicy(r) && !r.readPolicy) {
        await this.deps.dataPlane.setReadPolicy(r.owner, r.generation, DEFAULT_READ_POLICY);
        readPoliciesRepaired++;
      }
    }
    for (const o of objects.values()) {
      if (o.dropped) continue;
      for (const res of RESOURCES_OF[o.kind]) {
        if (res.controller === 'secrets') continue; // secrets are checked by their own store
        if (present.has(`${o.id}/${res.kind}`) || busy.has(`${o.id}/${res.kind}`)) continue;
        intents.push({ ...res, intent: 'ensure', objectId: o.id, objectName: o.name, generation: o.generation } as EffectIntent);
      }
    }
    const orphans = intents.filter((i) => i.intent === 'drop').length;
    const missing = intents.length - orphans;
    if (intents.length) await this.writeEffects(tenant, intents, now);
    const secretsCollected = await this.collectSecrets(tenant, objects, now);
    return { itemsRead: objectItems.length + effectItems.length + resources.length, orphans, missing, readPoliciesRepaired, secretsCollected, untagged };
  }

  /**
   * Removes stored secrets that no live catalog secret refers to. The objects were read before
   * the listing, so a CREATE SECRET that commits in between stored its value moments ago: the
   * grace period (far longer than a request) keeps it.
   */
  private async collectSecrets(tenant: string, objects: ReadonlyMap<string, CatalogObject>, now: Date): Promise<number> {
    const store = this.deps.secrets;
    if (!store) return 0;
    let collected = 0;
    for (const stored of await store.list(tenant)) {
      const owner = objects.get(stored.secretId);
      if (owner && !owner.dropped) continue;
      const changedAt = stored.changedAt === undefined ? now.getTime() : Date.parse(stored.changedAt);
      if (now.getTime() - changedAt < this.graceMs) continue;
      await store.prune(tenant, stored.secretId);
      collected++;
    }
    return collected;
  }

  private intent(r: ObservedResource, intent: 'drop' | 'ensure', generation: number): EffectIntent {
    const controller = KIND_TO_CONTROLLER.get(r.kind) ?? 'compute';
    return { controller, kind: r.kind, intent, objectId: r.owner!.objectId, objectName: r.owner!.objectName, generation } as EffectIntent;
  }

  /** Through the outbox, like any DDL: logged, routed, executed, visible in mz_pending_effects. */
  private async writeEffects(tenant: string, intents: readonly EffectIntent[], now: Date): Promise<void> {
    for (let i = 0; i < intents.length; i += 90) {
      const chunk = intents.slice(i, i + 90);
      const txnId = `${now.getTime().toString(36).padStart(9, '0')}${randomBytes(5).toString('hex')}`;
      const txn: TxnRecord = {
        txnId,
        principal: 'system:sweeper',
        statements: chunk.map((x) => `-- sweeper: ${x.intent === 'drop' ? 'collect orphan' : 're-drive missing'} ${x.controller}.${x.kind} of ${x.objectName} (${x.objectId})`),
        tags: ['SWEEPER'],
        createdAt: now.toISOString(),
      };
      await this.deps.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            ...chunk.map((e, j) => ({ Put: { TableName: this.deps.catalogTable, Item: effectItem(tenant, txn, e, j + 1), ConditionExpression: 'attribute_not_exists(pk)' } })),
            { Put: { TableName: this.deps.catalogTable, Item: { pk: tenantPk(tenant), sk: txnSk(txnId), type: 'txn', ...txn, effects: chunk.length, expiresAt: Math.floor(now.getTime() / 1000) + OUTBOX_TTL_SECONDS } } },
          ],
        }),
      );
    }
  }
}

/**
 * The generation a collecting drop is fenced at: past what the data plane holds (a drop at the
 * held generation is "no change" there, so the orphan would stay and a new effect would be
 * written every pass), and at least the tombstone's when there still is one. When the tombstone's
 * TTL expired before the drop ran there is no catalog generation left to use; object ids are never
 * reused, so no later create of this owner can be fenced out by it.
 */
export function orphanDropGeneration(r: ObservedResource, owner: CatalogObject | undefined): number {
  return Math.max(r.generation + 1, owner?.generation ?? 0);
}

function needsReadPolicy(r: ObservedResource): boolean {
  return r.kind === 'collection' || (r.kind === 'dataflow' && (r.spec as { objectKind?: string }).objectKind === 'index');
}
