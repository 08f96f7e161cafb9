/**
 * The invariant checker: compares the catalog, the outbox and the data plane and counts every
 * way they can disagree (DESIGN.md invariants 2–5), and connector statuses ahead of their objects. Read-only; usable in production as an audit
 * (`ddlctl check`), by the chaos run and by the tests. Pure core (`checkTenant`) over an
 * adapter that reads the three stores.
 */
import type { CatalogObject } from '../catalog/model';
import type { OutboxStore } from '../catalog/outbox-store';
import type { StatusStore, StoredStatus } from '../catalog/status-store';
import type { CatalogStore } from '../catalog/store';
import type { ObservedResource } from '../dataplane/contract';
import type { ActionLogEntry, ReferenceDataPlane } from '../dataplane/reference';
import { resourcesOf } from '../catalog/derive';
import type { EffectRecord } from '../effects/model';

export interface CheckCounts {
  /** Resources we own whose owner object is dropped or gone. */
  orphans: number;
  /** Live objects whose data-plane resource does not exist. */
  missing: number;
  /** Collections (and index arrangements) without a read policy. */
  collectionsWithoutReadPolicy: number;
  /** Effects still pending that were never attempted: committed but never applied or visibly failed. */
  lostEffects: number;
  /** Pending effects without a visible reason (no last error, not dead-lettered). */
  pendingWithoutReason: number;
  /** The same real change applied more than once (from the data plane's action log). */
  doubleApplied: number;
  /** References to dropped objects, or dependents counters that do not match. */
  dependencyViolations: number;
  /**
   * Connector statuses at (or whose last report is from) a generation their object never had: no
   * genuine report is ahead of the catalog, and such a status would refuse every genuine one.
   */
  statusesAhead: number;
}

export interface CheckReport {
  readonly tenants: number;
  readonly counts: CheckCounts;
  /** One line per problem, for a human. */
  readonly problems: readonly string[];
}

export const ZERO: CheckCounts = { orphans: 0, missing: 0, collectionsWithoutReadPolicy: 0, lostEffects: 0, pendingWithoutReason: 0, doubleApplied: 0, dependencyViolations: 0, statusesAhead: 0 };

export interface TenantState {
  readonly tenant: string;
  readonly objects: readonly CatalogObject[];
  readonly effects: readonly (EffectRecord & { deadLettered?: boolean })[];
  readonly resources: readonly ObservedResource[];
  readonly actions: readonly ActionLogEntry[];
  /** Connector statuses (absent: not checked). */
  readonly statuses?: readonly Pick<StoredStatus, 'objectId' | 'status' | 'generation' | 'reportGeneration'>[];
}

/** Pure: the disagreements in one tenant's state. */
export function checkTenant(s: TenantState): { counts: CheckCounts; problems: string[] } {
  const counts: CheckCounts = { ...ZERO };
  const problems: string[] = [];
  const flag = (k: keyof CheckCounts, msg: string) => {
    counts[k]++;
    problems.push(`${s.tenant}: ${k}: ${msg}`);
  };
  const objects = new Map(s.objects.map((o) => [o.id, o]));
  const live = (id: string) => {
    const o = objects.get(id);
    return o !== undefined && !o.dropped;
  };
  const present = new Set(s.resources.map((r) => `${r.resourceId}/${r.kind}`));
  // Effects still in flight explain a difference; only a quiet system must agree exactly.
  const pendingFor = new Set(s.effects.filter((e) => e.state === 'pending').map((e) => `${e.objectId}/${e.kind}`));
  const failedFor = new Set(s.effects.filter((e) => e.state === 'failed').map((e) => `${e.objectId}/${e.kind}`));

  for (const r of s.resources) {
    if (!r.owner) continue; // not ours: reported by the sweeper, never counted against us
    if (!live(r.owner.objectId) && !pendingFor.has(`${r.resourceId}/${r.kind}`)) flag('orphans', `${r.kind} ${r.resourceId} (${r.owner.objectName}) has no live owner`);
    const bearing = r.kind === 'collection' || (r.kind === 'dataflow' && (r.spec as { objectKind?: string }).objectKind === 'index');
    if (bearing && !r.readPolicy) flag('collectionsWithoutReadPolicy', `${r.kind} ${r.resourceId} (${r.owner.objectName})`);
  }
  for (const o of s.objects) {
    if (o.dropped) continue;
    for (const res of resourcesOf(o)) {
      if (res.controller === 'secrets') continue;
      const key = `${o.id}/${res.kind}`;
      if (!present.has(key) && !pendingFor.has(key) && !failedFor.has(key)) flag('missing', `${o.kind} ${o.name} (${o.id}) lacks its ${res.kind}`);
    }
    const counted = s.objects.filter((d) => !d.dropped && d.dependsOn.includes(o.id)).length;
    if ((o.dependents ?? 0) !== counted) flag('dependencyViolations', `${o.kind} ${o.name}: dependents ${o.dependents ?? 0}, actually ${counted}`);
    for (const d of o.dependsOn) if (!live(d)) flag('dependencyViolations', `${o.kind} ${o.name} depends on ${d}, which is not live`);
  }
  for (const e of s.effects) {
    if (e.state !== 'pending') continue;
    if (!e.attempts) flag('lostEffects', `${e.effectId}: ${e.intent} ${e.controller}.${e.kind} of ${e.objectName} never attempted`);
    else if (!e.lastError && !e.deadLettered) flag('pendingWithoutReason', `${e.effectId}: pending after ${e.attempts} attempts with no error`);
  }
  const applied = new Map<string, number>();
  for (const a of s.actions) {
    if (a.action === 'set_read_policy') continue;
    const k = `${a.kind}/${a.resourceId}/${a.generation}/${a.action}`;
    applied.set(k, (applied.get(k) ?? 0) + 1);
  }
  for (const [k, n] of applied) if (n > 1) flag('doubleApplied', `${k} applied ${n} times`);
  for (const st of s.statuses ?? []) {
    const o = objects.get(st.objectId);
    if (!o || st.status === 'dropped') continue;
    if (st.generation > o.generation) flag('statusesAhead', `${o.kind} ${o.name} (${o.id}): status at generation ${st.generation}, the catalog at ${o.generation}`);
    else if ((st.reportGeneration ?? 0) > o.generation) flag('statusesAhead', `${o.kind} ${o.name} (${o.id}): last report from generation ${st.reportGeneration}, the catalog at ${o.generation}`);
  }
  return { counts, problems };
}

export function addCounts(a: CheckCounts, b: CheckCounts): CheckCounts {
  const out = { ...a };
  for (const k of Object.keys(out) as (keyof CheckCounts)[]) out[k] += b[k];
  return out;
}

export function isClean(c: CheckCounts): boolean {
  return Object.values(c).every((n) => n === 0);
}

/** Reads every tenant (or the ones given) from the catalog and the reference data plane, and checks them. */
export class Checker {
  private readonly catalog: Pick<CatalogStore, 'listTenants' | 'listObjects'>;
  private readonly outbox: Pick<OutboxStore, 'listEffects'>;
  private readonly statuses: Pick<StatusStore, 'list'>;

  /** Reads only: build the stores without a snapshot cache (`tableStores(doc, table, { snapshotCacheObjects: 0 })`). */
  constructor(
    stores: { readonly catalog: Pick<CatalogStore, 'listTenants' | 'listObjects'>; readonly outbox: Pick<OutboxStore, 'listEffects'>; readonly statuses: Pick<StatusStore, 'list'> },
    private readonly dataPlane: Pick<ReferenceDataPlane, 'observe' | 'actionLog'>,
  ) {
    this.catalog = stores.catalog;
    this.outbox = stores.outbox;
    this.statuses = stores.statuses;
  }

  tenants(): Promise<string[]> {
    return this.catalog.listTenants();
  }

  async check(tenants?: readonly string[]): Promise<CheckReport> {
    const list = tenants ?? (await this.tenants());
    let counts = { ...ZERO };
    const problems: string[] = [];
    for (const tenant of list) {
      const [objects, effects, resources, actions, statuses] = await Promise.all([
        this.catalog.listObjects(tenant),
        this.outbox.listEffects(tenant),
        this.dataPlane.observe(tenant),
        this.dataPlane.actionLog(tenant),
        this.statuses.list(tenant),
      ]);
      const r = checkTenant({ tenant, objects, effects, resources, actions, statuses });
      counts = addCounts(counts, r.counts);
      problems.push(...r.problems);
    }
    return { tenants: list.length, counts, problems };
  }
}
