/**
 * Tenants' catalog snapshots kept between requests in one process (a warm Lambda, the local
 * API), least recently used first out, bounded by the number of objects held. Pure memory: the
 * store decides what goes in (a snapshot and the catalog version it shows).
 */
import type { ChangeLog } from './change-log';
import type { CatalogSnapshot } from './model';

export interface CachedSnapshot {
  readonly snapshot: CatalogSnapshot;
  readonly version: number;
  /** The change log the version item held at `version`, when known (./change-log.ts). */
  readonly log?: ChangeLog;
}

export class SnapshotCache {
  /** Map order is the recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, CachedSnapshot>();
  private objects = 0;

  constructor(private readonly maxObjects: number) {}

  get(tenant: string): CachedSnapshot | undefined {
    const e = this.entries.get(tenant);
    if (e) {
      this.entries.delete(tenant);
      this.entries.set(tenant, e);
    }
    return e;
  }

  set(tenant: string, entry: CachedSnapshot): void {
    this.delete(tenant);
    const size = entry.snapshot.size;
    if (this.maxObjects <= 0 || size > this.maxObjects) return;
    this.entries.set(tenant, entry);
    this.objects += size;
    for (const [t, e] of this.entries) {
      if (this.objects <= this.maxObjects) break;
      this.entries.delete(t);
      this.objects -= e.snapshot.size;
    }
  }

  delete(tenant: string): void {
    const e = this.entries.get(tenant);
    if (!e) return;
    this.entries.delete(tenant);
    this.objects -= e.snapshot.size;
  }
}
