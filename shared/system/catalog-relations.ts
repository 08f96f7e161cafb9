/**
 * mz_catalog and mz_internal: Materialize's relations (its columns, shared/system/materialize-columns.ts)
 * and a few of our own, each row built by column name from a catalog view and the status, effect
 * and history items it needs. Pure: the caller loads the inputs; the SQL engine answers queries
 * over these rows.
 */
import { AWS, KAFKA, SOURCE_CONNECTORS, WEBHOOK, type SourceType } from '../connectors';
import { knownColumns, NO_DATABASE, type CatalogObject, type CatalogSnapshot, type ItemObject, type NetworkPolicyRule, type ObjectOf } from '../catalog/model';
import type { HistoryRow, ReplicaStatusRecord, StoredStatus } from '../catalog/status-store';
import type { EffectRecord } from '../effects/model';
import { DEFAULT_READ_POLICY } from '../dataplane/contract';
import type { Statement } from '../sql/ast';
import { formatInterval } from '../sql/interval';
import { parse } from '../sql/parser';
import { aclItemText, aclOf, BUILTIN_DEFAULT_PRIVILEGES, BUILTIN_ROLES, MATERIALIZE_ROLE_ID, MZ_SYSTEM_ROLE_ID, ownerOf, PUBLIC_ROLE_ID } from '../planner/roles';
import { MATERIALIZE_COLUMNS } from './materialize-columns';
import { oidsOf, SYSTEM_SCHEMAS } from './oids';
import { relation, type AnyRelation } from './typed';

export interface SystemInputs {
  readonly snapshot: CatalogSnapshot;
  readonly replicaStatuses: readonly ReplicaStatusRecord[];
  readonly effects: readonly EffectRecord[];
  readonly connectorStatuses: readonly StoredStatus[];
  readonly history: readonly HistoryRow[];
}

const def = relation<SystemInputs>();
const mz = MATERIALIZE_COLUMNS;

/** mz_objects.type spellings. */
export const OBJECT_TYPE: Readonly<Record<string, string>> = {
  secret: 'secret',
  connection: 'connection',
  source: 'source',
  subsource: 'source',
  sink: 'sink',
  table: 'table',
  view: 'view',
  materialized_view: 'materialized-view',
  index: 'index',
  type: 'type',
};

/** mz_comments.object_type: the audit log's spellings, as Materialize writes them (items as in mz_objects). */
export const COMMENT_OBJECT_TYPE: Readonly<Record<string, string>> = { ...OBJECT_TYPE, cluster: 'cluster', cluster_replica: 'cluster-replica', database: 'database', schema: 'schema', role: 'role', network_policy: 'network-policy' };

/** An object's ACL as mz_aclitem[] (text items). */
export const aclArray = (snapshot: CatalogSnapshot, o: Parameters<typeof aclOf>[1]): string[] => aclOf(snapshot, o).map(aclItemText);

/** The columns every item in a schema has: its ids, its schema and its name. */
const schemaItem = (snapshot: CatalogSnapshot, x: { readonly id: string; readonly name: string; readonly spec: { readonly schemaId: string } }) => ({
  id: x.id,
  oid: oid(snapshot, x.id),
  schema_id: x.spec.schemaId,
  name: x.name,
});

/** Its owner and privileges (Materialize's `owner_id`, `privileges`). */
const owned = (snapshot: CatalogSnapshot, x: Parameters<typeof aclOf>[1] & Parameters<typeof ownerOf>[1]) => ({ owner_id: ownerOf(snapshot, x), privileges: aclArray(snapshot, x) });

/** Its statement, as typed and redacted (we keep no secret values in create_sql). */
const createSql = (x: { readonly spec: { readonly createSql: string } }) => ({ create_sql: x.spec.createSql, redacted_create_sql: x.spec.createSql });

const oid = (snapshot: CatalogSnapshot, id: string): number | null => oidsOf(snapshot).of(id) ?? null;

/** The first stalled or failed connector this object reads from, transitively (itself excluded). */
export function failingUpstream(snapshot: CatalogSnapshot, statuses: readonly StoredStatus[], id: string): StoredStatus | undefined {
  const byId = new Map(statuses.map((x) => [x.objectId, x]));
  const seen = new Set<string>();
  const visit = (oid: string): StoredStatus | undefined => {
    if (seen.has(oid)) return undefined;
    seen.add(oid);
    const o = snapshot.get(oid);
    if (!o) return undefined;
    if (oid !== id) {
      const sid = o.kind === 'subsource' ? o.spec.sourceId : oid;
      const st = byId.get(sid);
      if (st && (st.status === 'stalled' || st.status === 'failed')) return st;
    }
    const refs = o.kind === 'subsource' ? [o.spec.sourceId] : o.dependsOn;
    for (const d of refs) {
      const dep = snapshot.get(d);
      if (dep && ['source', 'subsource', 'table', 'view', 'materialized_view'].includes(dep.kind)) {
        const f = visit(d);
        if (f) return f;
      }
    }
    return undefined;
  };
  return visit(id);
}

interface StatusRow {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly last_status_change_at: string | null;
  readonly status: string;
  readonly error: string | null;
  readonly details: unknown;
}

/** A connector's status as shown: its own, or a subsource's parent's; a sink shows a failing input. */
function connectorRows(kind: 'source' | 'sink', i: SystemInputs): StatusRow[] {
  const byId = new Map(i.connectorStatuses.map((x) => [x.objectId, x]));
  const rows: StatusRow[] = [];
  const row = (id: string, name: string, type: string, st: StoredStatus | undefined) =>
    rows.push({ id, name, type, last_status_change_at: st?.lastStatusChangeAt ?? null, status: st?.status ?? 'created', error: st?.error ?? null, details: st?.details ?? null });
  if (kind === 'source') {
    for (const x of i.snapshot.ofKind('source')) row(x.id, x.name, x.spec.sourceType, byId.get(x.id));
    for (const x of i.snapshot.ofKind('subsource')) row(x.id, x.name, 'subsource', byId.get(x.spec.sourceId));
    for (const x of i.snapshot.ofKind('table')) if (x.spec.fromSource || x.spec.webhook) row(x.id, x.name, 'table', byId.get(x.id));
  } else {
    for (const x of i.snapshot.ofKind('sink')) {
      const own = byId.get(x.id);
      const upstream = failingUpstream(i.snapshot, i.connectorStatuses, x.id);
      // A sink whose input is stalled or failed cannot be running, whatever its own probe says.
      const shown = upstream && (own?.status ?? 'running') === 'running' ? { ...own!, status: 'stalled' as const, error: `upstream ${upstream.kind} ${upstream.name} is ${upstream.status}: ${upstream.error}` } : own;
      // Kafka is the one sink type (a sink keeps no type of its own).
      row(x.id, x.name, KAFKA.name, shown);
    }
  }
  return rows;
}

/** A reconfiguration's strategy as the system tables spell it. */
const strategyName = (r: NonNullable<ObjectOf<'cluster'>['spec']['reconfiguration']>): string => (r.strategy === 'for' ? 'wait for' : 'wait until ready');

const clusterIdOf = (x: CatalogObject): string | null => (x.spec as { clusterId?: string }).clusterId ?? null;

const RELATION_KINDS: ReadonlySet<string> = new Set(['table', 'source', 'subsource', 'view', 'materialized_view']);

/** The database of a schema, or null for an ambient one (mz_temp). */
const databaseIdOf = (s: ObjectOf<'schema'>): string | null => (s.spec.databaseId === NO_DATABASE ? null : s.spec.databaseId);

const iso = (ms: number): string => new Date(ms).toISOString();

/** The source types that export an upstream database's tables, and the relation that lists them (Materialize's names, in their descriptors). */
const UPSTREAM_TABLES = SOURCE_CONNECTORS.flatMap((c) => ('upstreamTables' in c.source ? [{ type: c.name, relation: c.source.upstreamTables.relation }] : []));

/** The network policies as mz_network_policies lists them: Materialize's built-in `default` (id u1, mz_system's, open ingress) unless a stored one replaced it. */
function networkPolicies(snapshot: CatalogSnapshot): { id: string; name: string; owner: string; rules: readonly NetworkPolicyRule[] }[] {
  const stored = snapshot.ofKind('network_policy').map((p) => ({ id: p.id, name: p.name, owner: ownerOf(snapshot, p), rules: p.spec.rules }));
  const builtin = { id: 'u1', name: 'default', owner: MZ_SYSTEM_ROLE_ID, rules: [{ name: 'open_ingress', action: 'allow', direction: 'ingress', address: '0.0.0.0/0' }] as const };
  return stored.some((p) => p.name === builtin.name) ? stored : [builtin, ...stored];
}

export const CATALOG_RELATIONS: readonly AnyRelation<SystemInputs>[] = [
  def({
    schema: 'mz_catalog',
    name: 'mz_roles',
    columns: mz['mz_catalog.mz_roles'],
    needs: [],
    rows: ({ snapshot }) => [
      ...BUILTIN_ROLES.filter((r) => r.id !== PUBLIC_ROLE_ID).map((r) => ({ id: r.id, oid: oid(snapshot, r.id), name: r.name, inherit: true, rolcanlogin: false, rolsuper: r.id === MZ_SYSTEM_ROLE_ID })),
      ...snapshot.ofKind('role').map((r) => ({ id: r.id, oid: oid(snapshot, r.id), name: r.name, inherit: true, rolcanlogin: false, rolsuper: false })),
    ],
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_role_members',
    columns: mz['mz_catalog.mz_role_members'],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('role_membership').map((m) => ({ role_id: m.spec.roleId, member: m.spec.memberId, grantor: m.spec.grantorId })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_default_privileges',
    columns: mz['mz_catalog.mz_default_privileges'],
    needs: [],
    rows: ({ snapshot }) => [
      ...BUILTIN_DEFAULT_PRIVILEGES.map((d) => ({ role_id: PUBLIC_ROLE_ID, database_id: null, schema_id: null, object_type: d.objectType, grantee: d.grantee, privileges: d.privileges })),
      ...snapshot.ofKind('default_privilege').map((d) => ({ role_id: d.spec.roleId, database_id: d.spec.databaseId ?? null, schema_id: d.spec.schemaId ?? null, object_type: d.spec.objectType, grantee: d.spec.grantee, privileges: d.spec.privileges })),
    ],
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_system_privileges',
    columns: mz['mz_catalog.mz_system_privileges'],
    needs: [],
    rows: ({ snapshot }) => [
      { privileges: `${MZ_SYSTEM_ROLE_ID}=RBNP/${MZ_SYSTEM_ROLE_ID}` },
      { privileges: `${MATERIALIZE_ROLE_ID}=RBNP/${MZ_SYSTEM_ROLE_ID}` },
      // GRANT ... ON SYSTEM TO a role made with CREATE ROLE (granted by mz_system, as in Materialize).
      ...snapshot.ofKind('role').filter((r) => r.spec.systemPrivileges).map((r) => ({ privileges: `${r.id}=${r.spec.systemPrivileges}/${MZ_SYSTEM_ROLE_ID}` })),
    ],
  }),
  /** ALTER ROLE ... SET: each role's session variable defaults. */
  def({
    schema: 'mz_catalog',
    name: 'mz_role_parameters',
    columns: mz['mz_catalog.mz_role_parameters'],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('role').flatMap((r) => Object.entries(r.spec.vars ?? {}).map(([parameter_name, parameter_value]) => ({ role_id: r.id, parameter_name, parameter_value }))),
  }),
  /** CREATE NETWORK POLICY: the built-in `default` (Materialize's open ingress) unless altered, and every stored one. */
  def({
    schema: 'mz_internal',
    name: 'mz_network_policies',
    columns: mz['mz_internal.mz_network_policies'],
    needs: [],
    rows: ({ snapshot }) =>
      networkPolicies(snapshot).map((p) => ({ id: p.id, name: p.name, owner_id: p.owner, privileges: [`${p.owner}=U/${p.owner}`], oid: oid(snapshot, `network_policy:${p.id}`) })),
  }),
  def({
    schema: 'mz_internal',
    name: 'mz_network_policy_rules',
    columns: mz['mz_internal.mz_network_policy_rules'],
    needs: [],
    rows: ({ snapshot }) => networkPolicies(snapshot).flatMap((p) => p.rules.map((r) => ({ name: r.name, policy_id: p.id, action: r.action, address: r.address, direction: r.direction }))),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_clusters',
    columns: mz['mz_catalog.mz_clusters'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().map((c) => ({
        id: c.id,
        name: c.name,
        owner_id: ownerOf(snapshot, c),
        privileges: aclArray(snapshot, c),
        managed: c.spec.managed,
        size: c.spec.size ?? null,
        replication_factor: c.spec.managed ? (c.spec.replicationFactor ?? 1) : null,
        disk: null,
        availability_zones: c.spec.options['AVAILABILITY ZONES'] ? c.spec.options['AVAILABILITY ZONES'].split(',').map((z) => z.trim().replace(/^'|'$/g, '')) : null,
        introspection_debugging: c.spec.managed ? (c.spec.options['INTROSPECTION DEBUGGING'] ?? 'false') === 'true' : null,
        introspection_interval: c.spec.managed ? (c.spec.options['INTROSPECTION INTERVAL']?.replace(/^'|'$/g, '') ?? '1s') : null,
      })),
  }),
  /**
   * A replica of a reconfiguration under way shows here as Materialize shows it (the `-pending`
   * name, its id in mz_internal.mz_pending_cluster_replicas). `disk` is NULL: whether a size has a
   * local disk is the data plane's to know, not the catalog's.
   */
  def({
    schema: 'mz_catalog',
    name: 'mz_cluster_replicas',
    columns: mz['mz_catalog.mz_cluster_replicas'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.replicas().map((r) => ({ id: r.id, name: r.name, cluster_id: r.spec.clusterId, size: r.spec.size, availability_zone: r.spec.options['AVAILABILITY ZONE']?.replace(/^'|'$/g, '') ?? null, owner_id: ownerOf(snapshot, r), disk: null })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_databases',
    columns: mz['mz_catalog.mz_databases'],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('database').map((d) => ({ id: d.id, oid: oid(snapshot, d.id), name: d.name, owner_id: ownerOf(snapshot, d), privileges: aclArray(snapshot, d) })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_schemas',
    columns: mz['mz_catalog.mz_schemas'],
    needs: [],
    rows: ({ snapshot }) => [
      ...SYSTEM_SCHEMAS.map((s) => ({ id: s.id, oid: s.oid, database_id: null, name: s.name, owner_id: MZ_SYSTEM_ROLE_ID, privileges: [`${PUBLIC_ROLE_ID}=U/${MZ_SYSTEM_ROLE_ID}`, `${MZ_SYSTEM_ROLE_ID}=UC/${MZ_SYSTEM_ROLE_ID}`] })),
      ...snapshot.ofKind('schema').map((x) => ({ id: x.id, oid: oid(snapshot, x.id), database_id: databaseIdOf(x), name: x.name, owner_id: ownerOf(snapshot, x), privileges: aclArray(snapshot, x) })),
    ],
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_sources',
    columns: mz['mz_catalog.mz_sources'],
    needs: [],
    rows: ({ snapshot }) => [
      ...snapshot.ofKind('source').map((x) => ({
        ...schemaItem(snapshot, x),
        type: x.spec.sourceType,
        connection_id: x.spec.connectionId ?? null,
        size: null,
        envelope_type: x.spec.envelope ?? null,
        key_format: null,
        value_format: x.spec.format ?? null,
        cluster_id: x.spec.clusterId,
        ...owned(snapshot, x),
        ...createSql(x),
      })),
      ...snapshot.ofKind('subsource').map((x) => ({
        ...schemaItem(snapshot, x),
        type: 'subsource',
        connection_id: null,
        size: null,
        envelope_type: null,
        key_format: null,
        value_format: null,
        cluster_id: null,
        ...owned(snapshot, x),
        create_sql: null,
        redacted_create_sql: null,
      })),
    ],
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_sinks',
    columns: mz['mz_catalog.mz_sinks'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('sink').map((x) => ({
        ...schemaItem(snapshot, x),
        type: KAFKA.name,
        connection_id: x.spec.connectionId,
        size: null,
        envelope_type: x.spec.envelope ?? null,
        format: x.spec.format ?? null,
        key_format: null,
        value_format: x.spec.format ?? null,
        cluster_id: x.spec.clusterId,
        owner_id: ownerOf(snapshot, x),
        ...createSql(x),
      })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_connections',
    columns: mz['mz_catalog.mz_connections'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('connection').map((x) => ({
        ...schemaItem(snapshot, x),
        type: x.spec.connector.type,
        ...owned(snapshot, x),
        ...createSql(x),
      })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_secrets',
    columns: mz['mz_catalog.mz_secrets'],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('secret').map((x) => ({ id: x.id, oid: oid(snapshot, x.id), schema_id: x.spec.schemaId, name: x.name, owner_id: ownerOf(snapshot, x), privileges: aclArray(snapshot, x) })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_tables',
    columns: mz['mz_catalog.mz_tables'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('table').map((x) => ({
        ...schemaItem(snapshot, x),
        ...owned(snapshot, x),
        ...createSql(x),
        source_id: x.spec.fromSource?.sourceId ?? null,
      })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_views',
    columns: mz['mz_catalog.mz_views'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('view').map((x) => ({
        ...schemaItem(snapshot, x),
        definition: x.spec.query,
        ...owned(snapshot, x),
        ...createSql(x),
      })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_materialized_views',
    columns: mz['mz_catalog.mz_materialized_views'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('materialized_view').map((x) => ({
        ...schemaItem(snapshot, x),
        cluster_id: x.spec.clusterId,
        definition: x.spec.query,
        ...owned(snapshot, x),
        ...createSql(x),
      })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_indexes',
    columns: mz['mz_catalog.mz_indexes'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('index').map((x) => ({
        id: x.id,
        oid: oid(snapshot, x.id),
        name: x.name,
        on_id: x.spec.onId,
        cluster_id: x.spec.clusterId,
        owner_id: ownerOf(snapshot, x),
        ...createSql(x),
      })),
  }),
  /** User-defined types (CREATE TYPE); Materialize's built-in types are not listed. */
  def({
    schema: 'mz_catalog',
    name: 'mz_types',
    columns: mz['mz_catalog.mz_types'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('type').map((x) => ({
        ...schemaItem(snapshot, x),
        category: x.spec.category,
        ...owned(snapshot, x),
        ...createSql(x),
      })),
  }),
  /** A list type's element: the id of a user-defined type, else the built-in type's name as written (Materialize gives built-ins ids of their own). */
  def({
    schema: 'mz_catalog',
    name: 'mz_list_types',
    columns: mz['mz_catalog.mz_list_types'],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('type').flatMap((x) => (x.spec.category === 'list' ? [{ id: x.id, element_id: x.spec.element.id ?? x.spec.element.type, element_modifiers: null }] : [])),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_map_types',
    columns: mz['mz_catalog.mz_map_types'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .ofKind('type')
        .flatMap((x) => (x.spec.category === 'map' ? [{ id: x.id, key_id: x.spec.key.id ?? x.spec.key.type, value_id: x.spec.value.id ?? x.spec.value.type, key_modifiers: null, value_modifiers: null }] : [])),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_objects',
    columns: mz['mz_catalog.mz_objects'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.items().map((x) => ({
        ...schemaItem(snapshot, x),
        type: OBJECT_TYPE[x.kind] ?? x.kind,
        owner_id: ownerOf(snapshot, x),
        cluster_id: clusterIdOf(x),
        privileges: aclArray(snapshot, x),
      })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_relations',
    columns: mz['mz_catalog.mz_relations'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .items()
        .filter((x) => RELATION_KINDS.has(x.kind))
        .map((x) => ({
          ...schemaItem(snapshot, x),
          type: OBJECT_TYPE[x.kind] ?? x.kind,
          owner_id: ownerOf(snapshot, x),
          cluster_id: clusterIdOf(x),
          privileges: aclArray(snapshot, x),
        })),
  }),
  /** Columns of tables (the only relations whose columns the catalog keeps). */
  def({
    schema: 'mz_catalog',
    name: 'mz_columns',
    columns: mz['mz_catalog.mz_columns'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('table').flatMap((t) =>
        t.spec.columns.map((c, k) => {
          const type = columnType(c.type);
          return { id: t.id, name: c.name, position: k + 1, nullable: !c.notNull, type: type.name, default: null, type_oid: type.oid, type_mod: type.mod };
        }),
      ),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_kafka_connections',
    columns: mz['mz_catalog.mz_kafka_connections'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .ofKind('connection')
        .filter((c) => c.spec.connector.type === KAFKA.name)
        .map((c) => ({ id: c.id, brokers: splitList(c.spec.connector.options.BROKERS ?? c.spec.connector.options.BROKER ?? ''), sink_progress_topic: c.spec.connector.options['PROGRESS TOPIC'] ?? `_materialize-progress-${c.id}` })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_kafka_sources',
    columns: mz['mz_catalog.mz_kafka_sources'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .ofKind('source')
        .filter((s) => s.spec.sourceType === KAFKA.name)
        .map((s) => ({ id: s.id, group_id_prefix: s.spec.options['GROUP ID PREFIX'] ?? `materialize-${s.id}`, topic: unquote(s.spec.options.TOPIC ?? '') })),
  }),
  def({
    schema: 'mz_catalog',
    name: 'mz_kafka_sinks',
    columns: mz['mz_catalog.mz_kafka_sinks'],
    needs: [],
    rows: ({ snapshot }) => snapshot.ofKind('sink').map((s) => ({ id: s.id, topic: unquote(s.spec.options.TOPIC ?? '') })),
  }),
  def({
    schema: 'mz_internal',
    name: 'mz_webhook_sources',
    columns: mz['mz_internal.mz_webhook_sources'],
    needs: [],
    // Webhook sources and the tables fed by a webhook (CREATE TABLE ... FROM WEBHOOK): both take requests at a URL.
    rows: ({ snapshot }) =>
      [...snapshot.ofKind('source').filter((s) => s.spec.sourceType === WEBHOOK.name), ...snapshot.ofKind('table').filter((t) => t.spec.webhook)].map((s) => ({
        id: s.id,
        name: s.name,
        url: `/api/webhook/${snapshot.qualifiedName(s).map(encodeURIComponent).join('/')}`,
      })),
  }),
  /**
   * AWS connections' settings (what `CREATE CONNECTION ... TO AWS` named, secrets by id).
   * `principal`, `external_id` and `example_trust_policy` are what the data plane assumes roles as:
   * the data plane's to know, so NULL here, as Materialize shows them for access-key credentials.
   */
  def({
    schema: 'mz_internal',
    name: 'mz_aws_connections',
    columns: mz['mz_internal.mz_aws_connections'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .ofKind('connection')
        .filter((c) => c.spec.connector.type === AWS.name)
        .map((c) => {
          const { options: o, secretRefs: secrets } = c.spec.connector;
          const plain = (k: string) => (o[k] !== undefined ? unquote(o[k]) : null);
          return {
            id: c.id,
            endpoint: plain('ENDPOINT'),
            region: plain('REGION'),
            access_key_id: plain('ACCESS KEY ID'),
            access_key_id_secret_id: secrets['ACCESS KEY ID'] ?? null,
            secret_access_key_secret_id: secrets['SECRET ACCESS KEY'] ?? null,
            session_token: plain('SESSION TOKEN'),
            session_token_secret_id: secrets['SESSION TOKEN'] ?? null,
            assume_role_arn: plain('ASSUME ROLE ARN'),
            assume_role_session_name: plain('ASSUME ROLE SESSION NAME'),
            principal: null,
            external_id: null,
            example_trust_policy: null,
          };
        }),
  }),
  /**
   * The key columns of each index, as Materialize lists them: a plain column by its position in the
   * indexed relation, any other key by its expression. Like mz_columns, for the relations whose
   * columns the catalog keeps (tables); a default index's key is all of them.
   */
  def({
    schema: 'mz_catalog',
    name: 'mz_index_columns',
    columns: mz['mz_catalog.mz_index_columns'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('index').flatMap((i) => {
        const on = snapshot.get(i.spec.onId);
        if (on?.kind !== 'table') return [];
        const columns = on.spec.columns;
        const keys = i.spec.keyParts.length ? i.spec.keyParts : columns.map((c) => c.name);
        return keys.map((key, k) => {
          const at = columns.findIndex((c) => c.name === unquoteIdent(key));
          return { index_id: i.id, index_position: k + 1, on_position: at >= 0 ? at + 1 : null, on_expression: at >= 0 ? null : key, nullable: at >= 0 ? !columns[at]!.notNull : true };
        });
      }),
  }),
  /** The addresses the data plane's egress traffic comes from: none are announced here (as in a Materialize started without any). */
  def({ schema: 'mz_catalog', name: 'mz_egress_ips', columns: mz['mz_catalog.mz_egress_ips'], needs: [], rows: () => [] }),
  ...UPSTREAM_TABLES.map(({ type, relation }) =>
    def({
      schema: 'mz_internal',
      name: relation,
      columns: mz[`mz_internal.${relation}`],
      needs: [],
      rows: ({ snapshot }) => upstreamTables(snapshot, type),
    }),
  ),
  /** Tables fed by a Kafka source (`CREATE TABLE ... FROM SOURCE`): the topic, and the envelope and formats they decode with. */
  def({
    schema: 'mz_internal',
    name: 'mz_kafka_source_tables',
    columns: mz['mz_internal.mz_kafka_source_tables'],
    needs: [],
    rows: ({ snapshot }) =>
      exportsOf(snapshot, KAFKA.name).flatMap(({ item }) => {
        if (item.kind !== 'table') return [];
        const topic = unquote((snapshot.get(item.spec.fromSource!.sourceId) as ObjectOf<'source'>).spec.options.TOPIC ?? item.spec.fromSource!.reference);
        return [{ id: item.id, topic, ...kafkaDecoding(item.spec.createSql) }];
      }),
  }),
  /** As in Materialize: which catalog items each item references (clusters and schemas are not items). */
  def({
    schema: 'mz_internal',
    name: 'mz_object_dependencies',
    columns: mz['mz_internal.mz_object_dependencies'],
    needs: [],
    rows: ({ snapshot }) => {
      const items = snapshot.items();
      const ids = new Set(items.map((x) => x.id));
      return items.flatMap((x) => {
        // A subsource is an owned part of its source, so it is not in dependsOn; it still reads from it.
        const refs = new Set([...x.dependsOn, ...(x.kind === 'subsource' ? [x.spec.sourceId] : [])]);
        return [...refs].filter((d) => ids.has(d)).map((d) => ({ object_id: x.id, referenced_object_id: d }));
      });
    },
  }),
  /** Every object's fully qualified name, as Materialize's view gives it (items only). */
  def({
    schema: 'mz_internal',
    name: 'mz_object_fully_qualified_names',
    columns: mz['mz_internal.mz_object_fully_qualified_names'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.items().map((x) => {
        const schema = snapshot.get(x.spec.schemaId) as ObjectOf<'schema'> | undefined;
        const db = schema && schema.spec.databaseId !== NO_DATABASE ? (snapshot.get(schema.spec.databaseId) as ObjectOf<'database'> | undefined) : undefined;
        return { id: x.id, name: x.name, object_type: OBJECT_TYPE[x.kind] ?? x.kind, schema_id: x.spec.schemaId, schema_name: schema?.name ?? null, database_id: db?.id ?? null, database_name: db?.name ?? null, cluster_id: clusterIdOf(x) };
      }),
  }),
  /** COMMENT ON: one row per commented object, and per commented column (object_sub_id = its position, from 1). */
  def({
    schema: 'mz_internal',
    name: 'mz_comments',
    columns: mz['mz_internal.mz_comments'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.all().flatMap((x) => {
        const type = COMMENT_OBJECT_TYPE[x.kind] ?? x.kind;
        const rows: { id: string; object_type: string; object_sub_id: number | null; comment: string }[] = [];
        if (x.comment !== undefined) rows.push({ id: x.id, object_type: type, object_sub_id: null, comment: x.comment });
        if (x.columnComments) {
          (knownColumns(x) ?? []).forEach((c, k) => {
            const text = x.columnComments![c];
            if (text !== undefined) rows.push({ id: x.id, object_type: type, object_sub_id: k + 1, comment: text });
          });
        }
        return rows;
      }),
  }),
  /** CREATE REPLACEMENT MATERIALIZED VIEW: one row per replacement not yet applied, with its target. */
  def({
    schema: 'mz_internal',
    name: 'mz_replacements',
    columns: mz['mz_internal.mz_replacements'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .ofKind('materialized_view')
        .filter((x) => x.spec.replacementFor !== undefined)
        .map((x) => ({ id: x.id, target_id: x.spec.replacementFor! })),
  }),
  def({ schema: 'mz_internal', name: 'mz_source_statuses', columns: mz['mz_internal.mz_source_statuses'], needs: ['connectorStatuses'], rows: (i) => connectorRows('source', i) }),
  def({ schema: 'mz_internal', name: 'mz_sink_statuses', columns: mz['mz_internal.mz_sink_statuses'], needs: ['connectorStatuses'], rows: (i) => connectorRows('sink', i) }),
  def({
    schema: 'mz_internal',
    name: 'mz_source_status_history',
    columns: { occurred_at: 'timestamptz', source_id: 'text', status: 'text', error: 'text', details: 'jsonb', replica_id: 'text' },
    needs: ['history'],
    rows: ({ history }) =>
      history.filter((h) => (h as { kind?: string }).kind !== 'sink').map((h) => ({ occurred_at: h.occurredAt, source_id: h.objectId, status: h.status, error: h.error, details: h.details ?? null, replica_id: null })),
  }),
  def({
    schema: 'mz_internal',
    name: 'mz_sink_status_history',
    columns: { occurred_at: 'timestamptz', sink_id: 'text', status: 'text', error: 'text', details: 'jsonb', replica_id: 'text' },
    needs: ['history'],
    rows: ({ history }) =>
      history.filter((h) => (h as { kind?: string }).kind === 'sink').map((h) => ({ occurred_at: h.occurredAt, sink_id: h.objectId, status: h.status, error: h.error, details: h.details ?? null, replica_id: null })),
  }),
  /** Ours: views, materialized views, indexes and sinks show a stalled or failed source they read from. */
  def({
    schema: 'mz_internal',
    name: 'mz_dependency_statuses',
    columns: { id: 'text', name: 'text', type: 'text', status: 'text', error: 'text', upstream_id: 'text', upstream_name: 'text' },
    needs: ['connectorStatuses'],
    rows: ({ snapshot, connectorStatuses }) =>
      snapshot
        .items()
        .filter((x) => ['view', 'materialized_view', 'index', 'sink'].includes(x.kind))
        .map((x) => {
          const up = failingUpstream(snapshot, connectorStatuses, x.id);
          return { id: x.id, name: x.name, type: OBJECT_TYPE[x.kind] ?? x.kind, status: up ? up.status : 'running', error: up ? `upstream ${up.kind} ${up.name}: ${up.error}` : null, upstream_id: up?.objectId ?? null, upstream_name: up?.name ?? null };
        }),
  }),
  def({
    schema: 'mz_internal',
    name: 'mz_cluster_replica_statuses',
    columns: mz['mz_internal.mz_cluster_replica_statuses'],
    needs: ['replicaStatuses'],
    rows: ({ snapshot, replicaStatuses }) => {
      const byId = new Map(replicaStatuses.map((s) => [s.replicaId, s]));
      return snapshot.replicas().map((r) => {
        const s = byId.get(r.id);
        // Not yet provisioned: offline until the executor reports it, like a replica still starting.
        return s ? { replica_id: r.id, process_id: 0, status: s.status, reason: s.reason, updated_at: s.updatedAt } : { replica_id: r.id, process_id: 0, status: 'offline', reason: 'provisioning', updated_at: r.updatedAt };
      });
    },
  }),
  /** Each table's, source's (subsources are sources there), index's and materialized view's RETAIN HISTORY (`FOR`, in ms; 1000 by default). */
  def({
    schema: 'mz_internal',
    name: 'mz_history_retention_strategies',
    columns: mz['mz_internal.mz_history_retention_strategies'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .items()
        .filter((x) => x.kind === 'table' || x.kind === 'source' || x.kind === 'subsource' || x.kind === 'index' || x.kind === 'materialized_view')
        .map((x) => ({ id: x.id, strategy: 'FOR', value: (x as ItemObject & { spec: { retainHistoryMs?: number } }).spec.retainHistoryMs ?? DEFAULT_READ_POLICY.lagMs })),
  }),
  /** Each managed cluster's SCHEDULE (`manual` or `on-refresh`, with its hydration time estimate). */
  def({
    schema: 'mz_internal',
    name: 'mz_cluster_schedules',
    columns: mz['mz_internal.mz_cluster_schedules'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot
        .clusters()
        .filter((c) => c.spec.managed)
        .map((c) => ({ cluster_id: c.id, type: c.spec.schedule ? 'on-refresh' : 'manual', refresh_hydration_time_estimate: c.spec.schedule ? formatInterval(c.spec.schedule.hydrationTimeEstimateMs * 1000) : null })),
  }),
  /** Each materialized view's REFRESH strategies (`on-commit`, or one row per `at` and `every`). */
  def({
    schema: 'mz_internal',
    name: 'mz_materialized_view_refresh_strategies',
    columns: mz['mz_internal.mz_materialized_view_refresh_strategies'],
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.ofKind('materialized_view').flatMap((mv): { materialized_view_id: string; type: string; interval: string | null; aligned_to: string | null; at: string | null }[] => {
        const r = mv.spec.refresh;
        if (!r) return [{ materialized_view_id: mv.id, type: 'on-commit', interval: null, aligned_to: null, at: null }];
        return [
          ...r.ats.map((at) => ({ materialized_view_id: mv.id, type: 'at', interval: null, aligned_to: null, at: iso(at) })),
          ...r.everies.map((e) => ({ materialized_view_id: mv.id, type: 'every', interval: formatInterval(e.intervalMs * 1000), aligned_to: iso(e.alignedToMs), at: null })),
        ];
      }),
  }),
  /** The replicas of reconfigurations not yet settled (`r1-pending`, ...). */
  def({
    schema: 'mz_internal',
    name: 'mz_pending_cluster_replicas',
    columns: mz['mz_internal.mz_pending_cluster_replicas'],
    needs: [],
    rows: ({ snapshot }) => snapshot.replicas().filter((r) => r.spec.pending).map((r) => ({ id: r.id })),
  }),
  /** Ours: each graceful reconfiguration under way (ALTER CLUSTER ... WITH (WAIT ...)), what it waits for and until when. */
  def({
    schema: 'mz_internal',
    name: 'mz_pending_cluster_reconfigurations',
    columns: {
      cluster_id: 'text', cluster_name: 'text', size: 'text', replication_factor: 'int8', strategy: 'text', on_timeout: 'text',
      pending_replicas: 'text', started_at: 'timestamptz', deadline: 'timestamptz',
    },
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().flatMap((c) => {
        const r = c.spec.reconfiguration;
        if (!r) return [];
        const pending = snapshot.replicas(c.id).filter((x) => x.spec.pending).map((x) => x.name);
        return [{ cluster_id: c.id, cluster_name: c.name, size: r.size, replication_factor: r.replicationFactor, strategy: strategyName(r), on_timeout: r.onTimeout, pending_replicas: pending.join(', '), started_at: r.startedAt, deadline: r.deadline }];
      }),
  }),
  /**
   * Ours: every replica of a cluster under reconfiguration, by id (mz_cluster_replicas.id): the
   * `pending` ones the reconfiguration made (kept on commit, dropped on rollback) and the
   * `current` ones they replace (dropped on commit, kept on rollback), with the deadline.
   */
  def({
    schema: 'mz_internal',
    name: 'mz_cluster_replica_reconfigurations',
    columns: {
      replica_id: 'text', replica_name: 'text', cluster_id: 'text', cluster_name: 'text', role: 'text', strategy: 'text', on_timeout: 'text',
      started_at: 'timestamptz', deadline: 'timestamptz',
    },
    needs: [],
    rows: ({ snapshot }) =>
      snapshot.clusters().flatMap((c) => {
        const r = c.spec.reconfiguration;
        if (!r) return [];
        return snapshot.replicas(c.id).map((x) => ({ replica_id: x.id, replica_name: x.name, cluster_id: c.id, cluster_name: c.name, role: x.spec.pending ? 'pending' : 'current', strategy: strategyName(r), on_timeout: r.onTimeout, started_at: r.startedAt, deadline: r.deadline }));
      }),
  }),
  /** Ours: the effects not yet applied, with their last error. */
  def({
    schema: 'mz_internal',
    name: 'mz_pending_effects',
    columns: {
      effect_id: 'text', object_id: 'text', object_name: 'text', controller: 'text', kind: 'text', intent: 'text', generation: 'int8',
      state: 'text', attempts: 'int8', last_error: 'text', dead_lettered: 'bool', created_at: 'timestamptz', updated_at: 'timestamptz',
    },
    needs: ['effects'],
    rows: ({ effects }) =>
      effects
        .filter((e) => e.state === 'pending' || e.state === 'failed')
        .map((e) => ({
          effect_id: e.effectId, object_id: e.objectId, object_name: e.objectName, controller: e.controller, kind: e.kind, intent: e.intent, generation: e.generation,
          state: e.state, attempts: e.attempts, last_error: e.lastError ?? null, dead_lettered: Boolean((e as { deadLettered?: boolean }).deadLettered), created_at: e.createdAt, updated_at: e.updatedAt,
        })),
  }),
];

/** `'a', 'b'` or `a,b` option text as a list of strings. */
function splitList(v: string): string[] {
  const inner = v.trim().replace(/^\(|\)$/g, '');
  return inner.length ? inner.split(',').map(unquote) : [];
}

function unquote(v: string): string {
  const t = v.trim();
  return t.startsWith("'") && t.endsWith("'") ? t.slice(1, -1).replace(/''/g, "'") : t;
}

/** PostgreSQL's OIDs of the built-in types a table column may have, by the names Materialize accepts. */
const BUILTIN_TYPE_OIDS: Readonly<Record<string, [string, number]>> = {
  bool: ['boolean', 16], boolean: ['boolean', 16], bytea: ['bytea', 17], char: ['character', 1042], character: ['character', 1042], bpchar: ['character', 1042],
  int8: ['bigint', 20], bigint: ['bigint', 20], int2: ['smallint', 21], smallint: ['smallint', 21], int4: ['integer', 23], integer: ['integer', 23], int: ['integer', 23],
  text: ['text', 25], oid: ['oid', 26], json: ['json', 114], float4: ['real', 700], real: ['real', 700], float8: ['double precision', 701], float: ['double precision', 701],
  'double precision': ['double precision', 701], varchar: ['character varying', 1043], 'character varying': ['character varying', 1043], date: ['date', 1082], time: ['time', 1083],
  timestamp: ['timestamp without time zone', 1114], 'timestamp without time zone': ['timestamp without time zone', 1114], timestamptz: ['timestamp with time zone', 1184],
  'timestamp with time zone': ['timestamp with time zone', 1184], interval: ['interval', 1186], numeric: ['numeric', 1700], decimal: ['numeric', 1700], uuid: ['uuid', 2950], jsonb: ['jsonb', 3802],
  'mz_timestamp': ['mz_timestamp', 16552], uint2: ['uint2', 16460], uint4: ['uint4', 16462], uint8: ['uint8', 16464], record: ['record', 2249],
};

/** A column's type as mz_columns and pg_attribute show it: its name, OID and modifier (-1: none). */
export function columnType(written: string): { name: string; oid: number; mod: number } {
  const t = written.trim().toLowerCase().replace(/^pg_catalog\./, '');
  const array = t.endsWith('[]');
  const base = array ? t.slice(0, -2) : t;
  const m = /^([a-z0-9_ ]+?)\s*(?:\((\d+)(?:\s*,\s*(\d+))?\))?$/.exec(base);
  const name = m?.[1] ?? base;
  const known = BUILTIN_TYPE_OIDS[name];
  let mod = -1;
  if (m?.[2] !== undefined) {
    const p = Number(m[2]);
    const s = Number(m[3] ?? 0);
    mod = known?.[1] === 1700 ? ((p << 16) | s) + 4 : p + 4;
  }
  if (!known) return { name: t, oid: 0, mod };
  // Array types: PostgreSQL's array OIDs for the common ones.
  const ARRAY: Record<number, number> = { 16: 1000, 20: 1016, 21: 1005, 23: 1007, 25: 1009, 1043: 1015, 701: 1022, 700: 1021, 1700: 1231, 1184: 1185, 1114: 1115, 1082: 1182, 2950: 2951, 3802: 3807 };
  return { name: array ? `${known[0]}[]` : known[0], oid: array ? (ARRAY[known[1]] ?? 0) : known[1], mod };
}

/** The subsources and source-fed tables of sources of `type`, with the upstream reference each exports. */
function exportsOf(snapshot: CatalogSnapshot, type: ObjectOf<'source'>['spec']['sourceType']): { item: ObjectOf<'subsource'> | ObjectOf<'table'>; reference: string }[] {
  const ofType = (sourceId: string) => (snapshot.get(sourceId) as ObjectOf<'source'> | undefined)?.spec.sourceType === type;
  return [
    ...snapshot.ofKind('subsource').filter((x) => ofType(x.spec.sourceId)).map((item) => ({ item, reference: item.spec.reference })),
    ...snapshot.ofKind('table').flatMap((item) => (item.spec.fromSource && ofType(item.spec.fromSource.sourceId) ? [{ item, reference: item.spec.fromSource.reference }] : [])),
  ];
}

/**
 * Each upstream table of a PostgreSQL, MySQL or SQL Server source's subsources and tables: its
 * schema and name (a PostgreSQL or SQL Server reference's database part is the connection's, and
 * Materialize leaves it out).
 */
function upstreamTables(snapshot: CatalogSnapshot, type: SourceType) {
  return exportsOf(snapshot, type).flatMap(({ item, reference }) => {
    const parts = splitReference(reference);
    if (parts.length < 2) return [];
    return [{ id: item.id, schema_name: parts[parts.length - 2]!, table_name: parts[parts.length - 1]! }];
  });
}

/** `public.orders`, `"my db".public."Orders"` as its parts. */
function splitReference(reference: string): string[] {
  return [...reference.matchAll(/"((?:[^"]|"")*)"|([^.]+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.trim()));
}

const unquoteIdent = (key: string): string => {
  const t = key.trim();
  return /^"(?:[^"]|"")*"$/.test(t) ? t.slice(1, -1).replace(/""/g, '"') : t.toLowerCase();
};

/** A Kafka source-fed table's envelope and formats, as Materialize names them, from its statement. */
function kafkaDecoding(createSql: string): { envelope_type: string | null; key_format: string | null; value_format: string | null } {
  let s: Statement | undefined;
  try {
    s = parse(createSql)[0]?.statement;
  } catch {
    s = undefined;
  }
  if (s?.kind !== 'create_table_from_source') return { envelope_type: null, key_format: null, value_format: null };
  const envelope = s.envelope?.kind ?? 'none';
  const f = s.format;
  const value = f ? (f.kind === 'bare' ? f.format.kind : f.value.kind) : null;
  const key = f?.kind === 'key_value' ? f.key.kind : f && s.includeMetadata.some((m) => m.kind === 'key') ? value : null;
  return { envelope_type: envelope, key_format: key, value_format: value };
}
