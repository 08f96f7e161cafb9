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
 *
 * Two steps per tenant: `diffTenant` is pure (the catalog, the outbox and the data plane's
 * observation in, the list of repairs out); `FullPass` observes, diffs and applies the repairs.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { CatalogObject } from '../catalog/model';
import type { OutboxStore, TxnRecord } from '../catalog/outbox-store';
import type { CatalogStore } from '../catalog/store';
import { DEFAULT_READ_POLICY, type DataPlane, type ObservedResource, type ResourceOwner } from '../dataplane/contract';
import { RESOURCES_OF, resourcesOf } from '../catalog/derive';
import type { EffectIntent, EffectKind, EffectRecord } from '../effects/model';
import type { SecretStore, SecretVersionList } from '../secrets/store';
import { tenantSk } from '../catalog/keys';
import { randomBytes } from 'node:crypto';

export interface FullPassOptions {
  /** How often the full pass runs (default one hour). */
  readonly intervalMs?: number;
  /** A resource must be this old before it counts as an orphan (default five minutes): a create may be in flight. */
  readonly graceMs?: number;
  /** Tenants per invocation: the rate limit (default 50). */
  readonly tenantsPerRun?: number;
}

export interface UntaggedResource {
  readonly tenant: string;
  readonly kind: string;
  readonly resourceId: string;
}

export interface FullPassReport {
  readonly ran: boolean;
  readonly tenants: number;
  readonly itemsRead: number;
  readonly orphans: number;
  readonly untagged: readonly UntaggedResource[];
  readonly missing: number;
  readonly readPoliciesRepaired: number;
  /** Stored secrets no live catalog secret refers to, removed from the secret store. */
  readonly secretsCollected: number;
  /** True when the pass reached the last tenant (the next one starts after the interval). */
  readonly completed: boolean;
}

/** What the full pass reads of one tenant: the catalog (tombstones included), the outbox, the data plane, the secret store. */
export interface TenantObservation {
  readonly tenant: string;
  readonly objects: readonly CatalogObject[];
  readonly effects: readonly EffectRecord[];
  readonly resources: readonly ObservedResource[];
  /** Absent without a secret store: no secret is collected then. */
  readonly storedSecrets?: readonly SecretVersionList[];
}

/** One repair the diff asks for. */
export type Repair =
  /** Collect an orphan (`intent: 'drop'`) or re-drive a missing resource (`'ensure'`), through the outbox. */
  | { readonly repair: 'effect'; readonly effect: EffectIntent }
  | { readonly repair: 'read_policy'; readonly owner: ResourceOwner; readonly generation: number }
  | { readonly repair: 'collect_secret'; readonly secretId: string }
  /** Not ours: never touched, only reported. */
  | { readonly repair: 'report_untagged'; readonly resource: UntaggedResource };

const KIND_TO_CONTROLLER = new Map<string, EffectKind['controller']>(
  Object.values(RESOURCES_OF)
    .flat()
    .map((r) => [r.kind, r.controller]),
);

/** Pure: the repairs one tenant needs, `graceMs` being how old an orphan or an orphaned secret must be. */
export function diffTenant(o: TenantObservation, now: Date, graceMs: number): Repair[] {
  const objects = new Map(o.objects.map((x) => [x.id, x]));
  // Something is still in flight (or visibly failed) for this object and kind: leave it to that effect.
  const busy = new Set(o.effects.filter((e) => e.state === 'pending' || e.state === 'failed').map((e) => `${e.objectId}/${e.kind}`));
  // An orphan keeps costing money even after its drop failed for good: only an effect still in
  // flight holds it back (a failed drop is re-driven each full pass, visibly, through the outbox).
  const inFlight = new Set(o.effects.filter((e) => e.state === 'pending').map((e) => `${e.objectId}/${e.kind}`));
  const repairs: Repair[] = [];
  const present = new Set<string>();
  for (const r of o.resources) {
    present.add(`${r.resourceId}/${r.kind}`);
    if (!r.owner) {
      repairs.push({ repair: 'report_untagged', resource: { tenant: o.tenant, kind: r.kind, resourceId: r.resourceId } });
      continue;
    }
    const owner = objects.get(r.owner.objectId);
    if (owner === undefined || owner.dropped) {
      if (inFlight.has(`${r.resourceId}/${r.kind}`) || now.getTime() - Date.parse(r.createdAt) < graceMs) continue;
      repairs.push({ repair: 'effect', effect: resourceIntent(r, 'drop', orphanDropGeneration(r, owner)) });
      continue;
    }
    if (needsReadPolicy(r) && !r.readPolicy) repairs.push({ repair: 'read_policy', owner: r.owner, generation: r.generation });
  }
  for (const x of objects.values()) {
    if (x.dropped) continue;
    for (const res of resourcesOf(x)) {
      if (res.controller === 'secrets') continue; // secrets are checked by their own store
      if (present.has(`${x.id}/${res.kind}`) || busy.has(`${x.id}/${res.kind}`)) continue;
      repairs.push({ repair: 'effect', effect: { ...res, intent: 'ensure', objectId: x.id, objectName: x.name, generation: x.generation } as EffectIntent });
    }
  }
  // A stored secret no live catalog secret refers to. The objects were read before the listing,
  // so a CREATE SECRET that commits in between stored its value moments ago: the grace period
  // (far longer than a request) keeps it.
  for (const stored of o.storedSecrets ?? []) {
    const owner = objects.get(stored.secretId);
    if (owner && !owner.dropped) continue;
    const changedAt = stored.changedAt === undefined ? now.getTime() : Date.parse(stored.changedAt);
    if (now.getTime() - changedAt < graceMs) continue;
    repairs.push({ repair: 'collect_secret', secretId: stored.secretId });
  }
  return repairs;
}

export interface FullPassDeps {
  /** The tenant registry, and each tenant's objects with their tombstones. */
  readonly catalog: Pick<CatalogStore, 'tenantsPage' | 'listObjects'>;
  /** Effects in flight, the repairs' effects, and the pass's own lease and cursor. */
  readonly outbox: Pick<OutboxStore, 'listEffects' | 'append' | 'fullPassMarker' | 'claimFullPass' | 'finishFullPass'>;
  readonly dataPlane: DataPlane;
  readonly logger: Logger;
  readonly secrets?: SecretStore;
}

export type TenantPassResult = Pick<FullPassReport, 'itemsRead' | 'orphans' | 'missing' | 'readPoliciesRepaired' | 'secretsCollected' | 'untagged'>;

export class FullPass {
  private readonly intervalMs: number;
  private readonly graceMs: number;
  private readonly tenantsPerRun: number;

  constructor(
    private readonly deps: FullPassDeps,
    o: FullPassOptions = {},
  ) {
    this.intervalMs = o.intervalMs ?? 3_600_000;
    this.graceMs = o.graceMs ?? 300_000;
    this.tenantsPerRun = o.tenantsPerRun ?? 50;
  }

  /**
   * One run: a page of tenants from the cursor, or, with a `deadline` (epoch ms, wall clock), tenant
   * after tenant until the deadline passes or the pass completes. The cursor (the last tenant
   * done) is saved at the end.
   */
  async run(now: Date, o: { deadline?: number } = {}): Promise<FullPassReport> {
    const none: FullPassReport = { ran: false, tenants: 0, itemsRead: 1, orphans: 0, untagged: [], missing: 0, readPoliciesRepaired: 0, secretsCollected: 0, completed: false };
    const { outbox } = this.deps;
    const marker = await outbox.fullPassMarker();
    const t = now.getTime();
    const due = marker?.cursor !== undefined || !marker?.completedAt || t - Date.parse(marker.completedAt) >= this.intervalMs;
    if (!due || (marker?.leaseUntil !== undefined && marker.leaseUntil > t)) return none;
    // Claim this run: a concurrent sweeper that read the same marker loses.
    if (!(await outbox.claimFullPass(marker, t + 5 * 60_000))) return none;
    let itemsRead = 2;
    let tenants = 0;
    let orphans = 0;
    let missing = 0;
    let readPoliciesRepaired = 0;
    let secretsCollected = 0;
    const untagged: UntaggedResource[] = [];
    let cursor = marker?.cursor;
    let completed = false;
    let stopped = false;
    let slowestMs = 0;
    do {
      const page = await this.deps.catalog.tenantsPage(cursor, this.tenantsPerRun);
      itemsRead += page.tenants.length;
      for (const tenant of page.tenants) {
        // The deadline is checked before each tenant, not only between pages: a page of 50 slow
        // tenants must not carry the invocation past it. A tenant is not started when less time is
        // left than the slowest tenant of this run took, so the run ends before the deadline rather
        // than one tenant after it. At least one tenant a run, so a pass always moves on.
        if (tenants > 0 && o.deadline !== undefined && Date.now() + slowestMs >= o.deadline) {
          stopped = true;
          break;
        }
        const started = Date.now();
        const r = await this.repairTenant(tenant, now);
        slowestMs = Math.max(slowestMs, Date.now() - started);
        cursor = tenantSk(tenant);
        tenants++;
        itemsRead += r.itemsRead;
        orphans += r.orphans;
        missing += r.missing;
        readPoliciesRepaired += r.readPoliciesRepaired;
        secretsCollected += r.secretsCollected;
        untagged.push(...r.untagged);
      }
      completed = page.last && !stopped;
    } while (!completed && !stopped && o.deadline !== undefined && Date.now() + slowestMs < o.deadline);
    await outbox.finishFullPass({ claims: (marker?.claims ?? 0) + 1, ...(completed ? { completedAt: now.toISOString() } : { completedAt: marker?.completedAt, cursor }) });
    const report = { ran: true, tenants, itemsRead, orphans, untagged, missing, readPoliciesRepaired, secretsCollected, completed };
    if (orphans || missing || readPoliciesRepaired || secretsCollected || untagged.length) this.deps.logger.warn('full pass found drift', { ...report });
    return report;
  }

  /** What the diff needs of one tenant. */
  async observe(tenant: string): Promise<TenantObservation> {
    const [objects, effects, resources] = await Promise.all([this.deps.catalog.listObjects(tenant), this.deps.outbox.listEffects(tenant), this.deps.dataPlane.observe(tenant)]);
    // Listed after the objects were read (see `diffTenant`).
    const storedSecrets = this.deps.secrets ? await this.deps.secrets.list(tenant) : undefined;
    return { tenant, objects, effects, resources, ...(storedSecrets ? { storedSecrets } : {}) };
  }

  /** Observes one tenant, diffs, and applies the repairs. */
  async repairTenant(tenant: string, now: Date): Promise<TenantPassResult> {
    const observed = await this.observe(tenant);
    const repairs = diffTenant(observed, now, this.graceMs);
    await this.apply(tenant, repairs, now);
    const effects = repairs.flatMap((r) => (r.repair === 'effect' ? [r.effect] : []));
    const orphans = effects.filter((e) => e.intent === 'drop').length;
    return {
      itemsRead: observed.objects.length + observed.effects.length + observed.resources.length,
      orphans,
      missing: effects.length - orphans,
      readPoliciesRepaired: repairs.filter((r) => r.repair === 'read_policy').length,
      secretsCollected: repairs.filter((r) => r.repair === 'collect_secret').length,
      untagged: repairs.flatMap((r) => (r.repair === 'report_untagged' ? [r.resource] : [])),
    };
  }

  /** Read policies first, then the effects (through the outbox), then the orphaned secrets. */
  private async apply(tenant: string, repairs: readonly Repair[], now: Date): Promise<void> {
    const effects: EffectIntent[] = [];
    const secrets: string[] = [];
    for (const r of repairs) {
      switch (r.repair) {
        case 'read_policy':
          await this.deps.dataPlane.setReadPolicy(r.owner, r.generation, DEFAULT_READ_POLICY);
          break;
        case 'effect':
          effects.push(r.effect);
          break;
        case 'collect_secret':
          secrets.push(r.secretId);
          break;
        case 'report_untagged':
          break;
      }
    }
    if (effects.length) await this.writeEffects(tenant, effects, now);
    for (const secretId of secrets) await this.deps.secrets!.prune(tenant, secretId);
  }

  /** Through the outbox, like any DDL: logged, routed, executed, visible in mz_pending_effects. */
  private async writeEffects(tenant: string, intents: readonly EffectIntent[], now: Date): Promise<void> {
    for (let i = 0; i < intents.length; i += 90) {
      const chunk = intents.slice(i, i + 90);
      const txn: TxnRecord = {
        txnId: `${now.getTime().toString(36).padStart(9, '0')}${randomBytes(5).toString('hex')}`,
        principal: 'system:sweeper',
        statements: chunk.map((x) => `-- sweeper: ${x.intent === 'drop' ? 'collect orphan' : 're-drive missing'} ${x.controller}.${x.kind} of ${x.objectName} (${x.objectId})`),
        tags: ['SWEEPER'],
        createdAt: now.toISOString(),
      };
      await this.deps.outbox.append(tenant, txn, chunk);
    }
  }
}

function resourceIntent(r: ObservedResource, intent: 'drop' | 'ensure', generation: number): EffectIntent {
  const controller = KIND_TO_CONTROLLER.get(r.kind) ?? 'compute';
  return { controller, kind: r.kind, intent, objectId: r.owner!.objectId, objectName: r.owner!.objectName, generation } as EffectIntent;
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
