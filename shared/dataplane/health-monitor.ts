/**
 * The reference data plane's runtime side: it runs each live ingestion's and export's checks
 * itself (the upstream probes of shared/probes, the replicas of its cluster, the faults a test
 * injected) and pushes what it sees to the status queue, as a real data plane's ingestions report
 * their own health: a report when health changes, a heartbeat every `heartbeatIntervalSeconds`
 * while nothing does. The control plane never polls it for health.
 *
 * A new or changed ingestion is checked as soon as the data plane applies it (`onChange`), so its
 * first report does not wait for the next round.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import { HEARTBEAT_INTERVAL_SECONDS, type ConnectorSpec, type ReportedStatus, type ResourceKind, type StatusReport } from './contract';
import type { ProbeResult, Prober } from '../probes/types';
import type { NewestGeneration, SecretStore } from '../secrets/store';
import { scrubError } from '../probes/namespace';
import { isReprobed } from '../connectors';
import type { ReferenceDataPlane, ResourceItem } from './reference';

export interface HealthMonitorDeps {
  readonly dataPlane: ReferenceDataPlane;
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly logger: Logger;
  /** Probes upstreams; without one, only replicas and injected faults decide health. */
  readonly prober?: Prober;
  /** Where connectors' secret values are read (the newest generation of each). */
  readonly secrets?: SecretStore;
  /** @default HEARTBEAT_INTERVAL_SECONDS */
  readonly heartbeatIntervalSeconds?: number;
  readonly clock?: () => Date;
}

interface Sent {
  readonly generation: number;
  readonly status: ReportedStatus;
  readonly error: string | null;
  readonly sequence: number;
  readonly at: number;
}

type Health = Pick<StatusReport, 'status' | 'error' | 'hints' | 'namespaced'>;

export class HealthMonitor {
  private readonly sent = new Map<string, Sent>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly clock: () => Date;
  private readonly heartbeatMs: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: HealthMonitorDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.heartbeatMs = (deps.heartbeatIntervalSeconds ?? HEARTBEAT_INTERVAL_SECONDS) * 1000;
    deps.dataPlane.onChange = (tenant, kind, resourceId) => this.changed(tenant, kind, resourceId);
  }

  /** Checks every live connector every `intervalSeconds` (reports on change, heartbeats when due). */
  start(intervalSeconds: number): void {
    let round: Promise<unknown> | undefined;
    const tick = () => {
      // A round slower than the interval (probes waiting on a dead upstream) is not stacked on.
      if (round) return;
      round = this.track(this.checkAll())
        .catch((err) => this.deps.logger.error('health round failed', { error: err as Error }))
        .finally(() => (round = undefined));
    };
    this.timer = setInterval(tick, intervalSeconds * 1000);
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  /** Waits for the checks started so far. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * One round over every live connector. `force` sends a report for each even when nothing
   * changed and no heartbeat is due (tests use it to know what the control plane has seen).
   */
  async checkAll(force = false): Promise<StatusReport[]> {
    const connectors = await this.deps.dataPlane.liveConnectors();
    const out = await Promise.all(connectors.map((c) => this.checkItem(c, force)));
    return out.filter((r): r is StatusReport => r !== undefined);
  }

  private changed(tenant: string, kind: ResourceKind, resourceId: string): void {
    if (this.stopped) return;
    const work: Promise<unknown> | undefined =
      kind === 'replica'
        ? // A replica came or went: the connectors of that tenant may be paused or running now. (Its
          // own partition: a scan of every tenant's resources per replica change made 10 000
          // replica effects quadratic — the capacity bench's drain fell from 40 to 6 a second.)
          this.deps.dataPlane.liveConnectorsOf(tenant).then((own) => Promise.all(own.map((c) => this.checkItem(c, false))))
        : kind === 'ingestion' || kind === 'export'
          ? this.deps.dataPlane.resource(tenant, kind, resourceId).then((item) => (item?.present ? this.checkItem(item, false) : undefined))
          : undefined;
    if (work) this.track(work).catch((err) => this.deps.logger.error('health check failed', { tenant, resourceId, error: err as Error }));
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  private async checkItem(item: ResourceItem, force: boolean): Promise<StatusReport | undefined> {
    const health = await this.health(item);
    const key = `${item.tenant}/${item.kind}/${item.resourceId}`;
    const prev = this.sent.get(key);
    const now = this.clock();
    const changed = !prev || prev.generation !== item.generation || prev.status !== health.status || prev.error !== health.error;
    if (!changed && !force && now.getTime() - prev.at < this.heartbeatMs) return undefined;
    // Milliseconds since the epoch, or one more than the last: grows across restarts of this process too.
    const sequence = Math.max((prev?.sequence ?? 0) + 1, now.getTime());
    this.sent.set(key, { generation: item.generation, status: health.status, error: health.error, sequence, at: now.getTime() });
    const report: StatusReport = {
      tenant: item.tenant,
      objectId: item.resourceId,
      kind: item.kind as 'ingestion' | 'export',
      generation: item.generation,
      sequence,
      reason: changed ? 'change' : 'heartbeat',
      ...health,
      observedAt: now.toISOString(),
    };
    await this.deps.sqs.send(new SendMessageCommand({ QueueUrl: this.deps.queueUrl, MessageBody: JSON.stringify(report) }));
    return report;
  }

  /** What the ingestion sees now, in the order that matters: definite errors first, then why it cannot run, then transient trouble. */
  private async health(item: ResourceItem): Promise<Health> {
    const ok: Health = { status: 'running', error: null, hints: [], namespaced: {} };
    const spec = item.spec as { clusterId?: string | null; connector?: ConnectorSpec };
    const probe = await this.probe(item, spec.connector);
    // The data plane's own error text may echo a credential: scrub it with the connection's secret
    // values here, where they can be read (status-ingest has no access to the secret store).
    const fault =
      item.health === 'unhealthy'
        ? { error: item.lastError ? scrubError(item.lastError, await this.connectorSecrets(item, spec.connector)) : 'the data plane reported the connector unhealthy', fatal: item.errorIsFatal ?? false }
        : undefined;
    if (probe && !probe.ok && probe.fatal) return fromProbe('failed', probe);
    if (fault?.fatal) return { ...ok, status: 'failed', error: fault.error };
    if (!(await this.hasReplica(item.tenant, spec.clusterId ?? null))) {
      return { ...ok, status: 'paused', hints: [`There is currently no replica running this ${item.kind === 'ingestion' ? 'source' : 'sink'}`] };
    }
    if (probe && !probe.ok) return fromProbe('stalled', probe);
    if (fault) return { ...ok, status: 'stalled', error: fault.error };
    return ok;
  }

  private async hasReplica(tenant: string, clusterId: string | null): Promise<boolean> {
    if (!clusterId) return true;
    const observed = await this.deps.dataPlane.observe(tenant);
    return observed.some((r) => r.kind === 'replica' && r.spec.clusterId === clusterId && r.health !== 'unhealthy');
  }

  private async probe(item: ResourceItem, connector: ConnectorSpec | undefined): Promise<ProbeResult | undefined> {
    // Types with an upstream to check again (their descriptor's `probe.reprobed`); the others (load
    // generators, webhooks) run in the data plane itself.
    if (!this.deps.prober || !connector || !isReprobed(connector.type)) return undefined;
    const secrets = await this.connectorSecrets(item, connector);
    const input = { type: connector.type, options: connector.options, secrets };
    return item.kind === 'export' ? this.deps.prober.probeSink(input, connector.options) : this.deps.prober.probeSource(input, connector.options);
  }

  /** The newest value of each secret the connector's connection refers to, by option name. */
  private async connectorSecrets(item: ResourceItem, connector: ConnectorSpec | undefined): Promise<Record<string, string>> {
    const secrets: Record<string, string> = {};
    const store = this.deps.secrets;
    if (connector && Object.keys(connector.secretRefs).length && store) {
      const scoped = 'newestGeneration' in store ? (store as SecretStore & NewestGeneration) : undefined;
      const versions = scoped ? [] : await store.list(item.tenant);
      for (const [option, secretId] of Object.entries(connector.secretRefs)) {
        const newest = scoped ? await scoped.newestGeneration(item.tenant, secretId) : Math.max(-1, ...(versions.find((v) => v.secretId === secretId)?.generations ?? []));
        const value = newest !== undefined && newest >= 0 ? await store.get(item.tenant, secretId, newest) : undefined;
        if (value !== undefined) secrets[option] = value;
      }
    }
    return secrets;
  }
}

function fromProbe(status: 'failed' | 'stalled', p: ProbeResult): Health {
  const error = p.error ?? (status === 'failed' ? 'failed' : 'unavailable');
  // The namespaced error is where the upstream's detail fits (which MySQL settings are off, and how).
  return { status, error: `${p.namespace}: ${error}`, hints: p.hint ? [p.hint] : [], namespaced: { [p.namespace]: p.detail ?? error } };
}
