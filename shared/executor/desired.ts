/**
 * The desired state of a data-plane resource, from the catalog object that owns it: a pure
 * function of the object and the objects it references (fetched by the caller).
 */
import type { CatalogObject, ConnectorSettings, ObjectOf, TableSource } from '../catalog/model';
import { KAFKA, WEBHOOK, type SinkType, type SourceType } from '../connectors';
import { DEFAULT_READ_POLICY, type ConnectorSpec, type ReadPolicy, type ResourceKind, type ResourceSpecs } from '../dataplane/contract';

export type Lookup = (id: string) => Promise<CatalogObject | undefined>;

function connector(type: SourceType | SinkType, own: Readonly<Record<string, string>>, conn?: ConnectorSettings, ownSecrets?: Readonly<Record<string, string>>): ConnectorSpec {
  return {
    type: (conn?.type ?? type) as ConnectorSpec['type'],
    options: { ...(conn?.options ?? {}), ...own },
    secretRefs: { ...(conn?.secretRefs ?? {}), ...(ownSecrets ?? {}) },
  };
}

/** The ids a resource reads (everything it references except its schema and cluster). */
function inputsOf(o: CatalogObject, clusterId: string): string[] {
  const schemaId = (o.spec as { schemaId?: string }).schemaId;
  return o.dependsOn.filter((d) => d !== schemaId && d !== clusterId);
}

/** An object's RETAIN HISTORY is its read policy's lag. */
function readPolicyOf(o: CatalogObject): ReadPolicy {
  const ms = (o.spec as { retainHistoryMs?: number }).retainHistoryMs;
  return ms === undefined ? DEFAULT_READ_POLICY : { kind: 'lag', lagMs: ms };
}

export async function desiredSpec(kind: ResourceKind, o: CatalogObject, lookup: Lookup): Promise<ResourceSpecs[ResourceKind]> {
  switch (kind) {
    case 'replica': {
      const r = o as ObjectOf<'cluster_replica'>;
      return { clusterId: r.spec.clusterId, size: r.spec.size, ...(r.spec.schedule ? { schedule: r.spec.schedule } : {}) };
    }
    case 'collection':
      return { objectKind: o.kind, readPolicy: readPolicyOf(o) };
    case 'dataflow': {
      const d = o as ObjectOf<'materialized_view'> | ObjectOf<'index'>;
      const replaces = d.kind === 'materialized_view' ? d.spec.replacementFor : undefined;
      return {
        clusterId: d.spec.clusterId,
        objectKind: d.kind,
        // A replacement depends on its target in the catalog; it does not read it.
        inputs: inputsOf(d, d.spec.clusterId).filter((i) => i !== replaces),
        ...(replaces ? { replaces } : {}),
        ...(d.kind === 'index' ? { readPolicy: readPolicyOf(d) } : {}),
        ...(d.kind === 'materialized_view' && d.spec.refresh ? { refresh: d.spec.refresh } : {}),
      };
    }
    case 'ingestion': {
      if (o.kind === 'table' && o.spec.fromSource) return tableExport(o, o.spec.fromSource, lookup);
      if (o.kind === 'table' && o.spec.webhook) return { clusterId: o.spec.webhook.clusterId, connector: connector(WEBHOOK.name, o.spec.webhook.options, undefined, o.spec.webhook.secretRefs) };
      const s = o as ObjectOf<'source'>;
      const conn = s.spec.connectionId ? ((await lookup(s.spec.connectionId)) as ObjectOf<'connection'> | undefined) : undefined;
      return { clusterId: s.spec.clusterId, connector: connector(s.spec.sourceType, s.spec.options, conn?.spec.connector, s.spec.secretRefs) };
    }
    case 'export': {
      const k = o as ObjectOf<'sink'>;
      const conn = (await lookup(k.spec.connectionId)) as ObjectOf<'connection'> | undefined;
      // A sink keeps no type of its own: its connection's is its type (Kafka, the one sink type, when the connection is gone).
      return { clusterId: k.spec.clusterId, from: k.spec.fromId, connector: connector(KAFKA.name, k.spec.options, conn?.spec.connector) };
    }
  }
}

/**
 * A source-fed table's ingestion export: the source's connector and cluster, with the upstream
 * reference it exports (`REFERENCE`), read from the source as it is now.
 */
async function tableExport(t: CatalogObject, from: TableSource, lookup: Lookup): Promise<ResourceSpecs['ingestion']> {
  const source = (await lookup(from.sourceId)) as ObjectOf<'source'> | undefined;
  if (!source || source.dropped) throw new Error(`table ${t.name} reads from source ${from.sourceId}, which is gone`);
  const conn = source.spec.connectionId ? ((await lookup(source.spec.connectionId)) as ObjectOf<'connection'> | undefined) : undefined;
  const own = { ...source.spec.options, ...(from.reference ? { REFERENCE: from.reference } : {}) };
  return { clusterId: source.spec.clusterId, connector: connector(source.spec.sourceType, own, conn?.spec.connector) };
}
