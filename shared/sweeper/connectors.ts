/**
 * The sweeper's connector pass: for every live source and sink (their status items sit on the
 * attention index), observe the data plane and probe the upstream, run the pure transition,
 * and write the new status with its history row (conditional: two sweepers write it once).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import { objSk, tenantPk } from '../catalog/keys';
import type { CatalogObject, ObjectOf } from '../catalog/model';
import type { DataPlane, ObservedResource } from '../controllers/contract';
import { scrubError } from '../probes/namespace';
import type { ConnectionProbeInput, Prober, ProbeResult } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import { StatusStore, type StoredStatus } from '../status/store';
import { transition, type Observation } from '../status/transition';

export interface ConnectorPassDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly catalogTable: string;
  readonly dataPlane: DataPlane;
  readonly logger: Logger;
  readonly prober?: Prober;
  readonly secrets?: SecretStore;
}

export interface ConnectorPassReport {
  readonly checked: number;
  readonly transitions: number;
  readonly failed: number;
}

export class ConnectorPass {
  private readonly statuses: StatusStore;
  constructor(private readonly deps: ConnectorPassDeps) {
    this.statuses = new StatusStore(deps.doc, deps.catalogTable);
  }

  private async get(tenant: string, id: string): Promise<CatalogObject | undefined> {
    const r = await this.deps.doc.send(new GetCommand({ TableName: this.deps.catalogTable, Key: { pk: tenantPk(tenant), sk: objSk(id) }, ConsistentRead: true }));
    return r.Item as CatalogObject | undefined;
  }

  /** `statuses`: the status items read from the attention index, any tenants. */
  async run(statuses: readonly (StoredStatus & { tenant: string })[], now: Date): Promise<ConnectorPassReport> {
    let transitions = 0;
    let failed = 0;
    const byTenant = new Map<string, (StoredStatus & { tenant: string })[]>();
    for (const s of statuses) byTenant.set(s.tenant, [...(byTenant.get(s.tenant) ?? []), s]);
    for (const [tenant, list] of byTenant) {
      const observed = await this.deps.dataPlane.observe(tenant);
      for (const prev of list) {
        try {
          const obs = await this.observe(tenant, prev, observed);
          const t = transition(prev, obs, now.toISOString());
          if (t.next.status === 'failed') failed++;
          if (t.history && (await this.statuses.apply(tenant, { id: prev.objectId, kind: prev.kind, name: prev.name }, t, prev.version))) {
            transitions++;
            this.deps.logger.info('connector status changed', { tenant, objectId: prev.objectId, from: prev.status, to: t.next.status, error: t.next.error });
          }
        } catch (err) {
          // One connector's trouble must not stop the sweep of the others.
          this.deps.logger.error('connector observation failed', { tenant, objectId: prev.objectId, error: err as Error });
        }
      }
    }
    return { checked: statuses.length, transitions, failed };
  }

  private async observe(tenant: string, prev: StoredStatus, observed: readonly ObservedResource[]): Promise<Observation> {
    const object = await this.get(tenant, prev.objectId);
    if (!object || object.dropped) return { kind: prev.kind, dropped: true, generation: object?.generation ?? prev.generation, resourcePresent: false, replicas: 0 };
    const spec = object.spec as { clusterId: string; connectionId?: string; options?: Record<string, string> };
    const resourceKind = prev.kind === 'source' ? 'ingestion' : 'export';
    const resource = observed.find((r) => r.kind === resourceKind && r.resourceId === object.id && r.generation >= object.generation);
    const replicas = observed.filter((r) => r.kind === 'replica' && r.spec.clusterId === spec.clusterId && r.health !== 'unhealthy').length;
    const probe = await this.probe(tenant, object, spec.connectionId, spec.options ?? {});
    const error = resource?.lastError === undefined ? undefined : scrubError(resource.lastError, await this.secretValues(tenant, spec.connectionId));
    return {
      kind: prev.kind,
      dropped: false,
      generation: object.generation,
      resourcePresent: resource !== undefined,
      replicas,
      ...(resource && resource.health !== 'healthy' ? { health: { healthy: false, ...(error ? { error } : {}), ...(resource.errorIsFatal ? { fatal: true } : {}) } } : {}),
      ...(probe ? { probe } : {}),
    };
  }

  /** The secret values of a connection, to scrub a data plane's error text with. */
  private async secretValues(tenant: string, connectionId: string | undefined): Promise<Record<string, string>> {
    const conn = connectionId === undefined ? undefined : ((await this.get(tenant, connectionId)) as ObjectOf<'connection'> | undefined);
    if (!conn || conn.dropped) return {};
    return { ...(await resolveConnection(tenant, conn, (id) => this.get(tenant, id), this.deps.secrets)).secrets };
  }

  /** Probes the upstream through the object's connection, with secret values from the store. */
  private async probe(tenant: string, object: CatalogObject, connectionId: string | undefined, options: Record<string, string>): Promise<ProbeResult | undefined> {
    if (!this.deps.prober || !connectionId) return undefined;
    const conn = (await this.get(tenant, connectionId)) as ObjectOf<'connection'> | undefined;
    if (!conn || conn.dropped) return undefined;
    const input = await resolveConnection(tenant, conn, (id) => this.get(tenant, id), this.deps.secrets);
    return object.kind === 'sink' ? this.deps.prober.probeSink(input, options) : this.deps.prober.probeSource(input, options);
  }
}

/** A connection's probe input: its options, and its secret references resolved to values. */
export async function resolveConnection(
  tenant: string,
  conn: ObjectOf<'connection'>,
  get: (id: string) => Promise<CatalogObject | undefined>,
  secrets: SecretStore | undefined,
  pendingValues: ReadonlyMap<string, string> = new Map(),
): Promise<ConnectionProbeInput> {
  const values: Record<string, string> = {};
  for (const [option, secretId] of Object.entries(conn.spec.connector.secretRefs)) {
    const pending = pendingValues.get(secretId);
    if (pending !== undefined) {
      values[option] = pending;
      continue;
    }
    const secret = await get(secretId);
    const value = secret && secrets ? await secrets.get(tenant, secretId, secret.generation) : undefined;
    if (value !== undefined) values[option] = value;
  }
  return { type: conn.spec.connector.type, options: conn.spec.connector.options, secrets: values };
}
