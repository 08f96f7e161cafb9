/**
 * The sweeper's connector pass. Health is reported by the data plane (shared/status-ingest/ingest.ts);
 * this pass only catches silence: a connector whose report deadline passed (no heartbeat, or a
 * `starting` that never got a first report) becomes `stalled` with "no status reported by the
 * data plane for N s". A control-plane probe of the upstream runs then, as a diagnostic in the
 * details, never as the source of the status. Writes are conditional on the status's version, so
 * a report that lands meanwhile wins and two sweepers write one history row.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { resolveConnection } from '../catalog/connections';
import { connectorKind, type ObjectOf } from '../catalog/model';
import { reportState, type StatusStore, type StoredStatus } from '../catalog/status-store';
import type { ObjectReader } from '../catalog/stores';
import { HEARTBEAT_TIMEOUT_SECONDS } from '../dataplane/contract';
import type { Prober, ProbeResult } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import { transition } from '../status/transition';
import { WATCHED_STATUSES } from '../status/data-plane';
import type { FaultInjector } from '../dataplane/faults';

export interface ConnectorPassDeps {
  /** The connector's object and its connection, for the diagnostic probe. */
  readonly catalog: ObjectReader;
  readonly statuses: Pick<StatusStore, 'apply' | 'touch'>;
  readonly logger: Logger;
  readonly prober?: Prober;
  readonly secrets?: SecretStore;
  /** Overdue connectors marked at once (default {@link CONNECTOR_PASS_CONCURRENCY}). */
  readonly concurrency?: number;
  /** Crash injection for tests. */
  readonly faults?: FaultInjector;
}

export interface ConnectorPassReport {
  readonly checked: number;
  readonly transitions: number;
  readonly failed: number;
  /** Connectors whose report deadline had passed. */
  readonly overdue: number;
  /** Diagnostic probes run for them. */
  readonly probes: number;
  /** Secret store reads for those probes (one per secret generation per sweep). */
  readonly secretReads: number;
  /** Overdue connectors left for the next sweep because the sweep's deadline passed (they stay on the index). */
  readonly deferred: number;
}

/**
 * Overdue connectors marked at once. Marking one is two DynamoDB calls one after the other (the
 * connector's object for the diagnostic probe, then a conditional transaction: status and history
 * row), about 20 ms in-region: one at a time, a sweep's 30 s mark about 1 500, so a whole data
 * plane going silent took hundreds of sweeps. 32 at once mark about 48 000 a sweep; each is a
 * separate item, so they do not contend (a status's writes are conditional on its version).
 */
export const CONNECTOR_PASS_CONCURRENCY = 32;

/** The statuses whose report deadline has passed at `now` (of those the data plane should keep reporting on). */
export function overdue<S extends Pick<StoredStatus, 'status' | 'reportDueAt' | 'lastStatusChangeAt' | 'lastReportAt'>>(statuses: readonly S[], now: Date): S[] {
  return statuses.filter((s) => WATCHED_STATUSES.has(s.status) && deadlineOf(s) <= now.getTime());
}

/** When a report is due at the latest: the stored deadline, or (a status written before deadlines existed) its last change plus the timeout. */
export function deadlineOf(s: Pick<StoredStatus, 'reportDueAt' | 'lastStatusChangeAt' | 'lastReportAt'>): number {
  if (s.reportDueAt) return Date.parse(s.reportDueAt);
  return Date.parse(s.lastReportAt ?? s.lastStatusChangeAt) + HEARTBEAT_TIMEOUT_SECONDS * 1000;
}

/**
 * A sweep's view of the secret store: each (tenant, secret, generation) is read once per sweep,
 * however many connectors share the connection. A value never changes within a generation, so
 * keying by it can never serve a stale value.
 */
export function cachedSecrets(store: SecretStore | undefined): { store: SecretStore | undefined; reads: () => number } {
  if (!store) return { store, reads: () => 0 };
  const cache = new Map<string, Promise<string | undefined>>();
  let reads = 0;
  const cached: SecretStore = {
    put: (...a) => store.put(...a),
    has: (...a) => store.has(...a),
    prune: (...a) => store.prune(...a),
    list: (...a) => store.list(...a),
    get(tenant, secretId, generation) {
      const key = `${tenant}/${secretId}/${generation}`;
      let v = cache.get(key);
      if (!v) {
        reads++;
        v = store.get(tenant, secretId, generation);
        cache.set(key, v);
      }
      return v;
    },
  };
  return { store: cached, reads: () => reads };
}

export class ConnectorPass {
  private readonly secrets: ReturnType<typeof cachedSecrets>;
  private probes = 0;
  constructor(private readonly deps: ConnectorPassDeps) {
    this.secrets = cachedSecrets(deps.secrets);
  }

  /**
   * `statuses`: the status items read from the attention index, any tenants. Overdue connectors
   * are marked up to `concurrency` at once, whatever their shard or tenant. `deadline` (epoch ms,
   * the sweep's): past it, or closer to it than the slowest mark so far took, no connector is
   * started; those left keep their passed deadline on the
   * index, so the next sweep reads them first.
   */
  async run(statuses: readonly (StoredStatus & { tenant: string })[], now: Date, deadline?: number, o: { dataPlaneSilentSince?: string } = {}): Promise<ConnectorPassReport> {
    let transitions = 0;
    let deferred = 0;
    const failed = statuses.filter((s) => s.status === 'failed').length;
    const due = overdue(statuses, now);
    let next = 0;
    // No mark is started when less time is left than the slowest mark so far took, so the marks in
    // flight end by the deadline rather than one mark after it.
    let slowestMs = 0;
    const worker = async () => {
      while (next < due.length) {
        const prev = due[next++]!;
        if (deadline !== undefined && Date.now() + slowestMs >= deadline) {
          deferred++;
          continue;
        }
        const started = Date.now();
        // A sweeper dying here has marked nothing of this connector (a crash-test point).
        this.deps.faults?.point('sweeper.connector-mark');
        if (await this.mark(prev, now, o.dataPlaneSilentSince)) transitions++;
        slowestMs = Math.max(slowestMs, Date.now() - started);
      }
    };
    const width = Math.max(1, Math.min(this.deps.concurrency ?? CONNECTOR_PASS_CONCURRENCY, due.length));
    await Promise.all(Array.from({ length: width }, worker));
    return { checked: statuses.length, transitions, failed, overdue: due.length, probes: this.probes, secretReads: this.secrets.reads(), deferred };
  }

  /** Marks one overdue connector (stalled, or its deadline moved on); true when its status changed. */
  private async mark(prev: StoredStatus & { tenant: string }, now: Date, dataPlaneSilentSince: string | undefined): Promise<boolean> {
    try {
      const since = Date.parse(prev.lastReportAt ?? prev.lastStatusChangeAt);
      // The whole data plane is silent: the upstream is not the question, and probing every
      // connector's upstream would cost a probe (and its secrets) per connector for nothing.
      const probe = dataPlaneSilentSince ? undefined : await this.diagnose(prev.tenant, prev.objectId);
      const t = transition(
        prev,
        { kind: prev.kind, dropped: false, generation: prev.generation, resourcePresent: true, replicas: 1, silentSeconds: (now.getTime() - since) / 1000, ...(probe ? { probe } : {}), ...(dataPlaneSilentSince ? { dataPlaneSilentSince } : {}) },
        now.toISOString(),
      );
      // Look again one timeout later, not every sweep: a long silence costs one read per timeout.
      const state = { ...reportState(prev), reportDueAt: new Date(now.getTime() + HEARTBEAT_TIMEOUT_SECONDS * 1000).toISOString() };
      if (t.history) {
        if (await this.deps.statuses.apply(prev.tenant, { id: prev.objectId, kind: prev.kind, name: prev.name }, t, prev.version, state)) {
          this.deps.logger.info('connector status changed', { tenant: prev.tenant, objectId: prev.objectId, from: prev.status, to: t.next.status, error: t.next.error });
          return true;
        }
      } else {
        await this.deps.statuses.touch(prev.tenant, prev.objectId, prev.generation, prev.version, state);
      }
    } catch (err) {
      // One connector's trouble must not stop the sweep of the others.
      this.deps.logger.error('connector check failed', { tenant: prev.tenant, objectId: prev.objectId, error: err as Error });
    }
    return false;
  }

  /** Probes the upstream through the object's connection, with secret values from the store: a diagnostic for a silent connector. */
  private async diagnose(tenant: string, objectId: string): Promise<ProbeResult | undefined> {
    const get = (id: string) => this.deps.catalog.getObject(tenant, id);
    const object = await get(objectId);
    if (!this.deps.prober || !object || object.dropped || !connectorKind(object)) return undefined;
    // A source-fed table reaches upstream through its source.
    const from = object.kind === 'table' ? object.spec.fromSource : undefined;
    const fed = from ? await get(from.sourceId) : object;
    if (!fed || fed.dropped) return undefined;
    const spec = fed.spec as { connectionId?: string; options?: Record<string, string> };
    if (!spec.connectionId) return undefined;
    const conn = (await get(spec.connectionId)) as ObjectOf<'connection'> | undefined;
    if (!conn || conn.dropped) return undefined;
    const input = await resolveConnection(tenant, conn, get, this.secrets.store);
    this.probes++;
    return object.kind === 'sink' ? this.deps.prober.probeSink(input, spec.options ?? {}) : this.deps.prober.probeSource(input, spec.options ?? {});
  }
}
