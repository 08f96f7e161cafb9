/**
 * The planner: statement + catalog (a Workspace) → catalog changes, or a read. Pure: ids and the
 * clock come in through the context; errors are PlanErrors with SQLSTATEs and positions.
 * The AST records what the user typed (`cascade`); the plan resolves what it means (every
 * object the drop takes with it).
 */
import {
  DEFAULT_DATABASE,
  DEFAULT_SCHEMA,
  NO_DATABASE,
  TEMP_SCHEMA,
  isItemKind,
  knownColumns,
  type CatalogObject,
  type CatalogSnapshot,
  type ClusterObject,
  type ConnectorSettings,
  type ItemKind,
  type ItemObject,
  type ObjectKind,
  type ObjectOf,
  type ObjectSpec,
  type ReplicaObject,
  type Reconfiguration,
  type TypeSpec,
} from '../catalog/model';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import { mz, quoted } from '../mz-errors';
import type { DataType, ExternalReferences, FormatSpecifier, ObjectName, OptionValue, ParsedStatement, ReplicaDefinition, SqlOption, Statement } from '../sql/ast';
import { SECRET_ONLY_OPTIONS } from '../sql/options';
import { parse } from '../sql/parser';
import { dataType, objectName as printName, optionList, print, sourceClauses, webhookCheck } from '../sql/printer';
import { DEFAULT_CLUSTER, isReplicaSize, MAX_REPLICATION_FACTOR, REPLICA_SIZES } from './limits';
import {
  activeDatabase,
  DEFAULT_SCOPE,
  findItem,
  isSystemRelation,
  minimalName,
  type NameScope,
  SYSTEM_SCHEMAS,
  itemTarget,
  KIND_LABEL,
  KINDS_OF_TYPE,
  RELATION_KINDS,
  RESERVED_PREFIXES,
  resolveItem,
  notOwner,
  SYSTEM_CLUSTERS,
  tempSchema,
  unknownCluster,
  unknownDatabase,
  unknownItem,
  unknownSchema,
  validateName,
  wrongType,
} from './names';
import { checkOptionsTaken, validateConnectionOptions } from './connection-options';
import { checkSinkColumns, checkSinkOptions, checkSourceEncoding, checkSourceOptions, intervalMicros, mapValueOfText } from './source-sink-checks';
import { builtinTypeName, checkColumnDefault, checkPartitionBy, checkPartitionByNames, resolveColumnType, resolveTypeComponent, typesNamedIn } from './types';
import { optionString } from './options';
import { describeReconfiguration, durationMs, pendingReplicaName, reconfigurationNotice, reconfigurationOf } from './reconfigure';
import { clusterSchedule, REPLICATION_FACTOR_OF_SCHEDULED, SCHEDULE_WITH_REPLICATION_FACTOR } from './schedule';
import type { ReplicaSchedule } from '../dataplane/contract';
import { DEFAULT_READ_POLICY } from '../dataplane/contract';

/** Materialize's default and lowest history window (its DEFAULT_LOGICAL_COMPACTION_WINDOW): the default read policy's lag. */
const DEFAULT_RETAIN_HISTORY_MS = DEFAULT_READ_POLICY.lagMs;
import { evaluateSecretExpr } from '../sql/secret-expr';
import { planTableExport } from './table-from-source';
import { connectionOf, connectionPart, generatesKeys, generatorOf, sourceOf, sqlWords, WEBHOOK, type ConnectionType, type TunnelType } from '../connectors';
import type { Workspace } from './workspace';
import type { UpstreamReferences } from '../probes/types';
import { AccessPlanner, explainName, ownedBy, requireOwner, type Written } from './access';
import { aclOf, isBuiltinRoleId, resolveRole, revokeAcl, roleMembership, MATERIALIZE_ACTOR, MATERIALIZE_ROLE_ID, type Actor } from './roles';
import { nameOffset, offsetAfterWords } from '../sql/lexer';
import type { SingleRelationBody, ViewShape } from '../sql/view-deps';

export { MAX_IDENTIFIER_BYTES, MAX_REPLICATION_FACTOR, REPLICA_SIZES } from './limits';
/** Secrets Manager's limit for one secret value. */
export const MAX_SECRET_BYTES = 65_536;
export { validateName } from './names';

export interface PlanContext {
  readonly principal: string;
  /** The role statements act as, and whether it is a superuser. @default materialize, not a superuser */
  readonly actor?: Actor;
  readonly now: string;
  readonly newId: () => string;
  /**
   * Finds the relations a view body reads (shared/sql/view-deps.ts, a real SQL parser). Passed
   * in so the planner stays synchronous while the caller loads that parser only when a request
   * has a view to plan.
   */
  readonly relationsReferenced?: (query: string, options: { basePosition: number }) => ObjectName[];
  /** The output shape of the body `relationsReferenced` just read, when its reader shows it. */
  readonly viewShape?: (query: string) => ViewShape | undefined;
  /** ./occasional.ts, loaded for the statements occasionalNeeded() names (not on every cold start). */
  readonly occasional?: typeof import('./occasional');
  /** The session's `cluster`: where objects go that name no cluster (dbt sets it). @default quickstart */
  readonly currentCluster?: () => string;
  /** The session's `database` and `search_path`: where names resolve that do not say theirs. @default materialize, public */
  readonly nameScope?: () => NameScope;
}

/** A secret value to put in the secret store before the commit (never into the catalog). */
export interface SecretWrite {
  readonly secretId: string;
  readonly generation: number;
  readonly value: string;
}

export type PlanValue = string | number | boolean | null;

export type StatementPlan =
  | { readonly kind: 'write'; readonly tag: string; readonly notices: readonly string[] }
  | { readonly kind: 'read'; readonly statement: Extract<Statement, { kind: 'show' | 'select' | 'query' }> }
  /** SET, RESET and SHOW of a session variable: the caller's session answers them. */
  | { readonly kind: 'session'; readonly statement: Extract<Statement, { kind: 'set_variable' | 'reset_variable' | 'show_variable' }> }
  | { readonly kind: 'rows'; readonly columns: readonly string[]; readonly rows: readonly (readonly PlanValue[])[] }
  | { readonly kind: 'txn'; readonly tag: 'BEGIN' | 'COMMIT' | 'ROLLBACK' }
  /** `VALIDATE CONNECTION`: the caller runs the connection's upstream check (I/O, so not here). */
  | { readonly kind: 'validate'; readonly connection: ObjectOf<'connection'> };

type S<K extends Statement['kind']> = Extract<Statement, { kind: K }>;

/** System schemas whose relations may change between versions (Materialize's unstable schemas). */
const UNSTABLE_SCHEMAS: ReadonlySet<string> = new Set(['mz_internal', 'mz_introspection', 'mz_unsafe']);


/**
 * Whether CREATE / ALTER CONNECTION checks the upstream when WITH (VALIDATE) is not given:
 * Materialize's `validate_by_default` (src/storage-types/src/connections.rs). An SSH tunnel cannot
 * answer before its public keys are installed on the bastion, and AWS and PrivateLink connections
 * need the other side's setup first, so those are checked only by VALIDATE CONNECTION or an
 * explicit WITH (VALIDATE = true).
 */
/** The connection reference of a broker reached through a tunnel: `BROKER <address> SSH TUNNEL` (the tunnel type's words, as the catalog keeps them). */
function brokerTunnelKey(address: string, via: TunnelType): string {
  return `BROKER ${address} ${sqlWords(via)}`;
}

export function validatesByDefault(type: string): boolean {
  return connectionPart(type)?.validateByDefault ?? true;
}

/** Whether planning `s` may call into ./occasional.ts (EXPLAIN EFFECTS plans the statement it explains). */
export function occasionalNeeded(s: Statement): boolean {
  switch (s.kind) {
    case 'create_view':
    case 'create_materialized_view':
    case 'create_webhook_source':
    case 'create_sink':
    case 'alter_rename':
    case 'alter_swap':
      return true;
    case 'create_index':
      return (s.keyParts?.length ?? 0) > 0;
    case 'explain_effects':
      return occasionalNeeded(s.statement);
    default:
      return false;
  }
}

export class Planner {
  /** Secret values this request sets, by secret id (latest wins). */
  private secrets = new Map<string, SecretWrite>();
  private savedSecrets: Map<string, SecretWrite> | undefined;
  private readonly references = new Map<string, UpstreamReferences>();

  private readonly access: AccessPlanner;
  private readonly actor: Actor;

  constructor(
    private readonly ws: Workspace,
    private readonly ctx: PlanContext,
  ) {
    this.actor = ctx.actor ?? MATERIALIZE_ACTOR;
    this.access = new AccessPlanner(ws, (kind, name, dependsOn, spec) => this.base(kind, name, dependsOn, spec), this.actor, () => this.scope());
  }

  /** The planner parts few statements need (./occasional.ts), which the caller loaded for them. */
  private occasional(): typeof import('./occasional') {
    if (!this.ctx.occasional) throw new Error('planner context lacks its occasional parts: load them for the statements occasionalNeeded() names');
    return this.ctx.occasional;
  }

  secretWrites(): SecretWrite[] {
    return [...this.secrets.values()].filter((w) => this.ws.get(w.secretId));
  }

  /**
   * The upstream tables each source this request creates names (`FOR TABLES`, `FOR ALL TABLES`,
   * `FOR SCHEMAS`), by source id: only the upstream knows whether they exist, so purification
   * checks them. A source rolled back within the request is not in the workspace, so not here.
   */
  upstreamReferences(): ReadonlyMap<string, UpstreamReferences> {
    return new Map([...this.references].filter(([id]) => this.ws.get(id)));
  }

  plan(parsed: ParsedStatement): StatementPlan {
    this.nameConflict = undefined;
    const plan = this.planStatement(parsed.statement, parsed.start, parsed);
    if (this.nameConflict) throw this.nameConflict;
    return plan;
  }

  /**
   * A new item's name already taken, raised once the statement is otherwise planned: Materialize
   * checks names when it commits, after planning, so an invalid statement reports what is wrong
   * with it rather than the name (the request fails either way; nothing is committed).
   */
  private nameConflict: PlanError | undefined;

  private planStatement(s: Statement, at: number, parsed: ParsedStatement): StatementPlan {
    switch (s.kind) {
      case 'create_cluster':
        return this.createCluster(s, at);
      case 'create_cluster_replica':
        return this.createReplica(s, at);
      case 'create_database':
        return this.createDatabase(s, at);
      case 'create_schema':
        return this.createSchema(s, at);
      case 'create_secret':
        return this.createSecret(s, at);
      case 'alter_secret':
        return this.alterSecret(s, at);
      case 'create_connection':
        return this.createConnection(s, at);
      case 'alter_connection':
        return this.alterConnection(s, at);
      case 'validate_connection':
        return { kind: 'validate', connection: resolveItem(this.view(), s.name, ['connection'], 'connection', at, this.scope()) };
      case 'create_source':
        return this.createSource(s, at, parsed);
      case 'create_webhook_source':
        return this.createWebhookSource(s, at);
      case 'create_sink':
        return this.createSink(s, at);
      case 'create_table':
        return this.createTable(s, at);
      case 'create_table_from_source':
        return this.createTableFromSource(s, at, parsed);
      case 'create_type':
        return this.createType(s, at);
      case 'create_view':
        return this.createView(s, at);
      case 'create_materialized_view':
        return this.createMaterializedView(s, at);
      case 'create_index':
        return this.createIndex(s, at);
      case 'drop':
        return this.drop(s, at);
      case 'alter_rename':
        return this.alterRename(s, at);
      case 'alter_owner':
        return this.alterOwner(s, at);
      case 'alter_set_cluster':
        return this.alterSetCluster(s, at);
      case 'alter_swap':
        return this.alterSwap(s, at);
      case 'alter_restart':
        return this.alterRestart(s, at);
      case 'alter_retain_history':
        return this.alterRetainHistory(s, at);
      case 'alter_source':
        return this.alterSource(s, at);
      case 'alter_table_add_column':
        return this.alterTableAddColumn(s, at);
      case 'alter_cluster':
        return this.alterCluster(s, at);
      case 'alter_apply_replacement':
        return this.applyReplacement(s, at);
      case 'show_create':
        return this.showCreate(s, at);
      case 'comment':
        return this.comment(s);
      case 'show':
      case 'select':
      case 'query':
        return { kind: 'read', statement: s };
      case 'set_variable':
      case 'reset_variable':
      case 'show_variable':
        return { kind: 'session', statement: s };
      case 'start_transaction':
        this.ws.begin();
        this.savedSecrets = new Map(this.secrets);
        return { kind: 'txn', tag: 'BEGIN' };
      case 'commit':
        if (s.chain) throw mz.Unsupported('CHAIN').at(at);
        return { kind: 'txn', tag: 'COMMIT' };
      case 'rollback':
        if (s.chain) throw mz.Unsupported('CHAIN').at(at);
        this.ws.rollback();
        this.secrets = this.savedSecrets ?? new Map();
        return { kind: 'txn', tag: 'ROLLBACK' };
      case 'explain_effects':
        return this.explainEffects(s, at, parsed);
      case 'create_role':
        return this.written(this.access.createRole(s, at));
      case 'alter_role':
        return this.written(this.access.alterRole(s, at));
      case 'drop_role':
        return this.written(this.access.dropRole(s, at));
      case 'grant_role':
      case 'revoke_role':
        return this.written(this.access.grantOrRevokeRole(s, at));
      case 'grant_privileges':
      case 'revoke_privileges':
        return this.written(this.access.grantOrRevokePrivileges(s, at));
      case 'alter_default_privileges':
        return this.written(this.access.alterDefaultPrivileges(s, at));
      case 'reassign_owned':
        return this.written(this.access.reassignOwned(s, at));
      case 'drop_owned':
        return this.dropOwned(s, at);
      case 'create_network_policy':
      case 'alter_network_policy':
      case 'drop_network_policy':
        return this.written(this.access.networkPolicy(s, at));
      case 'alter_system_set':
      case 'alter_system_reset':
        return this.written(this.access.alterSystem(s, at));
      case 'alter_sink_from':
        return this.alterSinkFrom(s, at);
    }
  }

  private written(w: Written): StatementPlan {
    return this.write(w.tag, w.notices);
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private view(): CatalogSnapshot {
    return this.ws.view();
  }

  /** Where the session resolves names that do not say their database or schema. */
  private scope(): NameScope {
    return this.ctx.nameScope?.() ?? DEFAULT_SCOPE;
  }

  /** An object's name as Materialize's messages print it for this session. */
  private minimal(o: CatalogObject): string {
    return minimalName(this.view(), o, this.scope());
  }

  private base<K extends ObjectKind>(kind: K, name: string, dependsOn: readonly string[], spec: ObjectSpec[K]): ObjectOf<K> {
    const now = this.ctx.now;
    let id = this.ctx.newId();
    // A stored role must not take a built-in role's id (object ids never look like `u1`; the planner goldens' do).
    while (kind === 'role' && isBuiltinRoleId(id)) id = this.ctx.newId();
    // Owned by the principal that created it, which acts as materialize; a password made for another role makes that role the owner.
    const owner = this.actor.id === MATERIALIZE_ROLE_ID ? this.ctx.principal : this.actor.id;
    const o = { id, kind, name, generation: 1, version: 1, dependents: 0, dependsOn: [...new Set(dependsOn)], createdAt: now, updatedAt: now, owner, spec } as unknown as ObjectOf<K>;
    // Default privileges (ALTER DEFAULT PRIVILEGES) are given at creation, as in Materialize.
    const privileges = this.access.initialPrivileges(o);
    return privileges ? { ...o, privileges } : o;
  }

  private cluster(name: string | undefined, at: number): ClusterObject {
    const clusterName = name ?? this.ctx.currentCluster?.() ?? DEFAULT_CLUSTER;
    const c = this.view().cluster(clusterName);
    // What runs on a cluster needs CREATE on it, and no role holds that on a system cluster (their
    // privileges in Materialize's builtin.rs); the check is mandatory even for a superuser (rbac.rs).
    if (!c && SYSTEM_CLUSTERS.has(clusterName)) throw mz.Privilege(`CLUSTER ${quoted(clusterName)}`, this.actor.name, 'CREATE').at(at);
    if (!c) {
      throw new PlanError(`unknown cluster '${clusterName}'`, {
        code: SQLSTATE.undefinedObject,
        position: at,
        ...(name === undefined && clusterName === DEFAULT_CLUSTER ? { hint: `Name a cluster with IN CLUSTER, or create the default one: CREATE CLUSTER ${DEFAULT_CLUSTER} (SIZE = '25cc').` } : {}),
      });
    }
    return c;
  }

  /**
   * A new item's target; a duplicate name is 42P07 unless IF NOT EXISTS (then a notice and
   * `undefined`: nothing to do).
   */
  private newItem(name: ObjectName, what: string, ifNotExists: boolean, at: number, notices: string[]): { schemaId: string; name: string } | undefined {
    const t = itemTarget(this.view(), name, at, this.scope());
    validateName(t.name, at, what);
    const existing = this.view().item(t.schema.id, t.name);
    if (existing) {
      if (ifNotExists) {
        notices.push(`${KIND_LABEL[existing.kind]} "${t.name}" already exists, skipping`);
        return undefined;
      }
      this.nameConflict ??= alreadyExists(existing, this.view().qualifiedName(existing), at);
    }
    return { schemaId: t.schema.id, name: t.name };
  }

  private write(tag: string, notices: readonly string[] = []): StatementPlan {
    return { kind: 'write', tag, notices };
  }

  // ---- clusters --------------------------------------------------------------------------------

  /**
   * `CREATE CLUSTER`, with Materialize's rules (plan_create_cluster_inner) in its order: the
   * options a system user alone may give, then what a managed or an unmanaged cluster takes, then
   * the name (its catalog's checks, at commit).
   */
  private createCluster(s: S<'create_cluster'>, at: number): StatementPlan {
    const opts = optionMap(s.options);
    const managedOpt = opts.get('MANAGED');
    const managed = managedOpt ? managedValue(managedOpt) : s.replicas === undefined;
    if (s.features && s.features.options.length > 0) throw mz.NonSystemUserOption('FEATURES').at(s.features.position);
    refuseWorkloadClass(opts.get('WORKLOAD CLASS'));
    const schedule = clusterSchedule(opts.get('SCHEDULE'));
    if (managed) {
      if (s.replicas !== undefined) throw mz.ManagedClusterReplicas().at(at);
      if (!opts.has('SIZE')) throw mz.ManagedClusterSizeRequired().at(at);
      const size = parseSize(opts.get('SIZE'), at);
      refuseDisk(opts.get('DISK'));
      checkIntrospection(opts);
      const rfOpt = opts.get('REPLICATION FACTOR');
      if (schedule && rfOpt) throw mz.ScheduleWithReplicationFactor().at(rfOpt.position);
      // SCHEDULE = ON REFRESH: one replica, which the data plane runs only around refreshes.
      const replicationFactor = schedule ? 1 : parseReplicationFactor(rfOpt, at);
      this.checkNewCluster(s.name, at);
      const cluster = this.base('cluster', s.name, [], { managed: true, size, replicationFactor, options: otherOptions(s.options, ['SIZE', 'REPLICATION FACTOR']), ...(schedule ? { schedule } : {}) });
      this.ws.create(cluster);
      for (let i = 1; i <= replicationFactor; i++) this.ws.create(this.replica(cluster.id, `r${i}`, size, true, {}, schedule ?? undefined));
    } else {
      if (s.replicas === undefined) throw mz.UnmanagedClusterReplicasRequired().at(at);
      for (const name of ['AVAILABILITY ZONES', 'REPLICATION FACTOR', 'INTROSPECTION DEBUGGING', 'INTROSPECTION INTERVAL', 'SIZE', 'DISK'] as const) {
        const o = opts.get(name);
        if (o) throw mz.UnmanagedClusterOption(name).at(o.position);
      }
      if (schedule) throw mz.UnmanagedClusterSchedule().at(opts.get('SCHEDULE')!.position);
      const defs = s.replicas.map((r) => ({ r, config: this.replicaConfig(r.options, at) }));
      this.checkNewCluster(s.name, at);
      const cluster = this.base('cluster', s.name, [], { managed: false, options: otherOptions(s.options, ['MANAGED']) });
      this.ws.create(cluster);
      const seen = new Set<string>();
      for (const { r, config } of defs) {
        checkReplicaName(r.name, at);
        if (seen.has(r.name)) throw mz.DuplicateReplica(r.name, s.name).at(at);
        seen.add(r.name);
        this.ws.create(this.replica(cluster.id, r.name, config.size, false, config.options));
      }
    }
    return this.write('CREATE CLUSTER');
  }

  /** A new cluster's name: valid, not reserved (`mz_`, `pg_`, `external_`), not taken (the catalog's checks, in its order). */
  private checkNewCluster(name: string, at: number): void {
    validateName(name, at, 'cluster');
    if (RESERVED_PREFIXES.some((p) => name.startsWith(p))) throw mz.ReservedClusterName(name).at(at);
    if (this.view().cluster(name)) throw mz.ClusterAlreadyExists(name).at(at);
  }

  /** A replica's options (Materialize's plan_replica_config): a size, and the others as the catalog keeps them. */
  private replicaConfig(options: readonly SqlOption[], at: number): { size: string; options: Record<string, string> } {
    const opts = optionMap(options);
    if (!opts.has('SIZE')) throw mz.ReplicaSizeRequired().at(at);
    const size = parseSize(opts.get('SIZE'), at);
    refuseDisk(opts.get('DISK'));
    checkIntrospection(opts);
    for (const name of ['INTERNAL', 'BILLED AS'] as const) {
      const o = opts.get(name);
      if (o) throw mz.InternalReplicaOption().at(o.position);
    }
    return { size, options: otherOptions(options, ['SIZE']) };
  }

  private replica(clusterId: string, name: string, size: string, managed: boolean, options: Record<string, string>, schedule?: ReplicaSchedule): ReplicaObject {
    // Replicas belong to their cluster (dropped with it), so they are not counted as its dependents.
    return this.base('cluster_replica', name, [], { size, clusterId, managed, options, ...(schedule ? { schedule } : {}) });
  }

  /**
   * `CREATE CLUSTER REPLICA c.r`: Materialize's plan_create_cluster_replica, then its catalog's
   * checks. A managed cluster's replicas are the system's (`cannot modify managed cluster c`).
   */
  private createReplica(s: S<'create_cluster_replica'>, at: number): StatementPlan {
    const view = this.view();
    // The built-in clusters are managed ones the system owns.
    if (!view.cluster(s.cluster) && SYSTEM_CLUSTERS.has(s.cluster)) throw mz.ManagedCluster(s.cluster).at(at);
    const cluster = view.cluster(s.cluster);
    if (!cluster) throw unknownCluster(s.cluster, at);
    const config = this.replicaConfig(s.options, at);
    if (cluster.spec.managed) throw mz.ManagedCluster(cluster.name).at(at);
    validateName(s.name, at, 'cluster replica');
    checkReplicaName(s.name, at);
    requireOwner(view, cluster, at, this.actor);
    if (view.replicas(cluster.id).some((r) => r.name === s.name)) throw mz.DuplicateReplica(s.name, cluster.name).at(at);
    this.ws.create(this.replica(cluster.id, s.name, config.size, false, config.options));
    // Fences a concurrent DROP CLUSTER that did not see this replica.
    this.ws.touch(cluster.id);
    return this.write('CREATE CLUSTER REPLICA');
  }

  /**
   * `ALTER CLUSTER ... SET (...) / RESET (...)`, with Materialize's rules in its order: the
   * planner's (plan_alter_cluster: what the cluster, managed or unmanaged after the statement,
   * takes in SET), then its sequencer's (sequence_alter_cluster_staged: RESET puts an option back
   * to its default, and what an unmanaged cluster has no value for cannot change). A statement
   * that changes nothing is a success that changes nothing.
   */
  private alterCluster(s: S<'alter_cluster'>, at: number): StatementPlan {
    const cluster = this.view().cluster(s.name);
    if (!cluster) {
      if (SYSTEM_CLUSTERS.has(s.name)) throw notOwner('CLUSTER', s.name, at);
      if (s.ifExists) return this.write('ALTER CLUSTER', [`cluster "${s.name}" does not exist, skipping`]);
      throw unknownCluster(s.name, at);
    }
    const action = s.action;
    const opts = action.kind === 'set' ? optionMap(action.options) : new Map<string, SqlOption>();
    const reset = new Set(action.kind === 'reset' ? action.names : []);
    // ---- the planner's checks (plan_alter_cluster)
    if (action.kind === 'set') {
      refuseWorkloadClass(opts.get('WORKLOAD CLASS'));
      const managedOpt = opts.get('MANAGED');
      const willBeManaged = managedOpt ? managedValue(managedOpt) : cluster.spec.managed;
      const schedule = clusterSchedule(opts.get('SCHEDULE'));
      if (willBeManaged) {
        if (action.replicas) throw mz.ManagedClusterReplicas().at(at);
        const rfOpt = opts.get('REPLICATION FACTOR');
        if (rfOpt && schedule) throw mz.ScheduleWithReplicationFactor().at(rfOpt.position);
        if (rfOpt && cluster.spec.schedule) throw mz.ReplicationFactorOfScheduled().at(rfOpt.position);
        refuseDisk(opts.get('DISK'));
      } else {
        if (action.wait) throw mz.UnmanagedClusterAlterWith().at(at);
        for (const name of ['AVAILABILITY ZONES', 'REPLICATION FACTOR', 'INTROSPECTION DEBUGGING', 'INTROSPECTION INTERVAL', 'SIZE', 'DISK'] as const) {
          const o = opts.get(name);
          if (o) throw mz.UnmanagedClusterOption(name).at(o.position);
        }
        if (schedule) throw mz.UnmanagedClusterSchedule().at(opts.get('SCHEDULE')!.position);
        if (cluster.spec.schedule && !opts.has('SCHEDULE')) throw mz.UnmanagedSwitchSchedule().at(at);
      }
      for (const r of action.replicas ?? []) this.replicaConfig(r.options, at);
    } else if (reset.has('WORKLOAD CLASS')) {
      throw mz.NonSystemUserOption('WORKLOAD CLASS').at(at);
    }
    requireOwner(this.view(), cluster, at, this.actor);
    if (cluster.spec.reconfiguration) {
      throw mz.AlterClusterWhilePendingReplicas().with({ hint: `Cluster ${s.name} is being reconfigured until ${cluster.spec.reconfiguration.deadline} at the latest (mz_internal.mz_pending_cluster_reconfigurations).` }).at(at);
    }
    // ---- the sequencer's (sequence_alter_cluster_staged)
    const managedOpt = opts.get('MANAGED');
    // RESET (MANAGED) makes a cluster managed, as in Materialize.
    const managed = managedOpt ? managedValue(managedOpt) : reset.has('MANAGED') || cluster.spec.managed;
    const replicasChanged = action.kind === 'set' ? action.replicas !== undefined : reset.has('REPLICAS');
    if (managed) {
      if (reset.has('SIZE')) throw mz.SizeHasNoDefault().at(at);
      if (replicasChanged) throw mz.CannotChangeReplicasOfManaged().at(at);
    } else {
      for (const name of ['SIZE', 'AVAILABILITY ZONES', 'INTROSPECTION DEBUGGING', 'INTROSPECTION INTERVAL', 'REPLICATION FACTOR'] as const) {
        if (opts.has(name) || reset.has(name)) throw mz.CannotChangeOfUnmanaged(name).at(opts.get(name)?.position ?? at);
      }
    }
    if (managed !== cluster.spec.managed) return this.convertCluster(cluster, managed, opts, [...reset], at);
    if (!managed) return this.alterUnmanagedCluster(cluster, opts, reset, replicasChanged, at);
    const size = opts.has('SIZE') ? parseSize(opts.get('SIZE'), at) : cluster.spec.size!;
    // SCHEDULE: null is MANUAL (given or reset), undefined unchanged.
    const given = reset.has('SCHEDULE') ? null : clusterSchedule(opts.get('SCHEDULE'));
    const schedule = given === undefined ? cluster.spec.schedule : (given ?? undefined);
    const rfOpt = opts.get('REPLICATION FACTOR');
    // RESET (REPLICATION FACTOR) is the system's default_cluster_replication_factor (1).
    const replicationFactor = schedule ? 1 : rfOpt ? parseReplicationFactor(rfOpt, at) : reset.has('REPLICATION FACTOR') ? 1 : (cluster.spec.replicationFactor ?? 1);
    const other = { ...cluster.spec.options, ...otherOptions(action.kind === 'set' ? action.options : [], ['SIZE', 'REPLICATION FACTOR', 'MANAGED', 'DISK']) };
    for (const r of reset) delete other[r];
    const wait = action.kind === 'set' ? action.wait : undefined;
    // Validated whenever given; graceful only when the size changes (otherwise nothing restarts), as in Materialize.
    // The target's schedule, when it is or was ON REFRESH (absent: MANUAL stays MANUAL).
    const target = { size, replicationFactor, ...(schedule || cluster.spec.schedule ? { schedule: schedule ?? null } : {}) };
    const reconfiguration = wait ? reconfigurationOf(wait, target, this.ctx.now) : undefined;
    if (reconfiguration && size !== cluster.spec.size) return this.startReconfiguration(cluster, other, reconfiguration);
    const unchanged =
      size === cluster.spec.size &&
      replicationFactor === cluster.spec.replicationFactor &&
      JSON.stringify(schedule ?? null) === JSON.stringify(cluster.spec.schedule ?? null) &&
      JSON.stringify(sortedEntries(other)) === JSON.stringify(sortedEntries(cluster.spec.options));
    if (unchanged) return this.write('ALTER CLUSTER');
    this.ws.update(cluster.id, (o) => {
      const { schedule: _old, ...spec } = cluster.spec;
      return { ...(o as ClusterObject), spec: { ...spec, size, replicationFactor, options: other, ...(schedule ? { schedule } : {}) } };
    }, false);
    const replicas = this.view().replicas(cluster.id);
    const sameSchedule = (r: ReplicaObject) => JSON.stringify(r.spec.schedule ?? null) === JSON.stringify(schedule ?? null);
    for (const r of replicas) {
      const index = Number(/^r(\d+)$/.exec(r.name)?.[1] ?? Number.NaN);
      if (!(index <= replicationFactor)) this.ws.drop(r.id);
      else if (r.spec.size !== size || !sameSchedule(r)) {
        // A new size or schedule is a new generation: the data plane gets the replica again.
        this.ws.update(r.id, (o) => {
          const { schedule: _old, ...spec } = (o as ReplicaObject).spec;
          return { ...(o as ReplicaObject), spec: { ...spec, size, ...(schedule ? { schedule } : {}) } };
        }, true);
      }
    }
    const names = new Set(this.view().replicas(cluster.id).map((r) => r.name));
    for (let i = 1; i <= replicationFactor; i++) if (!names.has(`r${i}`)) this.ws.create(this.replica(cluster.id, `r${i}`, size, true, {}, schedule));
    return this.write('ALTER CLUSTER');
  }

  /**
   * An unmanaged cluster that stays unmanaged. Its replicas are not part of the configuration
   * Materialize compares, so `SET (REPLICAS (...))` / `RESET (REPLICAS)` alone change nothing, and
   * together with a real change refuse it ("Cannot alter replicas in unmanaged cluster").
   */
  private alterUnmanagedCluster(cluster: ClusterObject, opts: Map<string, SqlOption>, reset: ReadonlySet<string>, replicasChanged: boolean, at: number): StatementPlan {
    const other = { ...cluster.spec.options, ...otherOptions([...opts.values()], ['MANAGED', 'SCHEDULE', 'DISK']) };
    // An unmanaged cluster has no schedule, so SET / RESET (SCHEDULE) changes nothing (MANUAL was checked).
    for (const r of reset) delete other[r];
    if (JSON.stringify(sortedEntries(other)) === JSON.stringify(sortedEntries(cluster.spec.options))) return this.write('ALTER CLUSTER');
    if (replicasChanged) throw mz.CannotAlterReplicasOfUnmanaged().at(at);
    this.ws.update(cluster.id, (o) => ({ ...(o as ClusterObject), spec: { ...cluster.spec, options: other } }), false);
    return this.write('ALTER CLUSTER');
  }

  /**
   * `ALTER CLUSTER ... SET (MANAGED [= false], ...)` / `RESET (MANAGED)`, with Materialize's
   * validations and messages (sequence_alter_cluster_unmanaged_to_managed). Converting never
   * changes what runs: an unmanaged cluster becomes managed only when its replicas already are
   * what the managed one would make (`r1`..`rN`, one size), and a managed one hands its replicas
   * over as they are. No effect, no new generation.
   */
  private convertCluster(cluster: ClusterObject, managed: boolean, opts: Map<string, SqlOption>, reset: readonly string[], at: number): StatementPlan {
    const replicas = this.view().replicas(cluster.id);
    const options = { ...cluster.spec.options, ...otherOptions([...opts.values()], ['SIZE', 'REPLICATION FACTOR', 'MANAGED', 'DISK']) };
    for (const r of reset) delete options[r];
    let spec: ClusterObject['spec'];
    const given = reset.includes('SCHEDULE') ? null : clusterSchedule(opts.get('SCHEDULE'));
    const schedule = given === undefined ? cluster.spec.schedule : (given ?? undefined);
    if (!managed) {
      // Switching to unmanaged keeps the replicas; the options only a managed cluster has go.
      for (const name of ['AVAILABILITY ZONES', 'INTROSPECTION DEBUGGING', 'INTROSPECTION INTERVAL']) delete options[name];
      spec = { managed: false, options };
    } else {
      const rfOpt = opts.get('REPLICATION FACTOR');
      const replicationFactor = rfOpt ? parseReplicationFactor(rfOpt, at) : replicas.length;
      if (rfOpt && replicationFactor !== replicas.length) throw mz.ReplicationFactorMismatch(replicationFactor, replicas.length).at(rfOpt.position);
      const sizes = [...new Set(replicas.map((r) => r.spec.size))].sort();
      const sizeOpt = opts.get('SIZE');
      const wanted = sizeOpt ? parseSize(sizeOpt, at) : undefined;
      if (sizes.length === 0 && wanted === undefined) throw mz.MissingSizeForEmptyCluster().at(at);
      if (sizes.length === 1 && wanted !== undefined && wanted !== sizes[0]) throw mz.ReplicaSizeMismatch(sizes[0]!, wanted).at(sizeOpt?.position ?? at);
      if (sizes.length > 1) throw mz.NonUniqueReplicaSizes(sizes).at(at);
      const names = new Set(Array.from({ length: replicationFactor }, (_, i) => `r${i + 1}`));
      const invalidNames = replicas.map((r) => r.name).filter((n) => !names.has(n)).sort();
      if (invalidNames.length) throw mz.InvalidReplicaNames(invalidNames).at(at);
      if (schedule && replicas.length > 1) throw mz.ReplicationFactorMismatch(1, replicas.length).at(at);
      spec = { managed: true, size: sizes[0] ?? wanted!, replicationFactor, options, ...(schedule ? { schedule } : {}) };
    }
    this.ws.update(cluster.id, (o) => ({ ...(o as ClusterObject), spec }), false);
    for (const r of replicas) {
      // A replica whose schedule changes is a new generation; the handover alone changes nothing on the data plane.
      const scheduleChanged = JSON.stringify(r.spec.schedule ?? null) !== JSON.stringify(schedule ?? null);
      this.ws.update(r.id, (o) => {
        const { schedule: _old, ...rest } = (o as ReplicaObject).spec;
        return { ...(o as ReplicaObject), spec: { ...rest, managed, ...(schedule ? { schedule } : {}) } };
      }, scheduleChanged);
    }
    return this.write('ALTER CLUSTER');
  }

  /**
   * The first step of a graceful reconfiguration: the new replicas, pending, beside the current
   * ones, and the cluster marked with what it becomes. The compute executor's reconfiguration
   * step settles it (shared/executor/reconfigure.ts); the statement returns without waiting.
   */
  private startReconfiguration(cluster: ClusterObject, options: Record<string, string>, r: Reconfiguration): StatementPlan {
    this.ws.update(cluster.id, (o) => ({ ...(o as ClusterObject), spec: { ...cluster.spec, options, reconfiguration: r } }), true);
    const names: string[] = [];
    for (let i = 1; i <= r.replicationFactor; i++) {
      // On the target's schedule: these replicas are the cluster's once it commits.
      const replica = this.replica(cluster.id, pendingReplicaName(`r${i}`), r.size, true, {}, r.schedule ?? undefined);
      this.ws.create({ ...replica, spec: { ...replica.spec, pending: true } });
      names.push(replica.name);
    }
    return this.write('ALTER CLUSTER', [reconfigurationNotice(cluster.name, r, names)]);
  }

  // ---- databases and schemas -------------------------------------------------------------------

  private createDatabase(s: S<'create_database'>, at: number): StatementPlan {
    validateName(s.name, at, 'database');
    if (this.view().database(s.name)) {
      if (s.ifNotExists) return this.write('CREATE DATABASE', [`database "${s.name}" already exists, skipping`]);
      throw mz.DatabaseAlreadyExists(s.name).at(at);
    }
    const db = this.base('database', s.name, [], {});
    this.ws.create(db);
    // Like Materialize (and PostgreSQL), a new database comes with a public schema.
    this.ws.create(this.base('schema', DEFAULT_SCHEMA, [db.id], { databaseId: db.id }));
    return this.write('CREATE DATABASE');
  }

  /** plan_create_schema (at most two parts; the database must exist), then the catalog's checks (a reserved name, a taken one). */
  private createSchema(s: S<'create_schema'>, at: number): StatementPlan {
    if (s.name.length > 2) throw mz.SchemaNameTooLong(s.name.join('.')).at(at);
    const schemaName = s.name[s.name.length - 1]!;
    // A schema named alone goes to the session's database, which must exist.
    const db = s.name.length === 2 ? this.view().database(s.name[0]!) : activeDatabase(this.view(), this.scope(), at);
    if (!db) throw mz.InvalidDatabase(s.name[0]!).at(at);
    validateName(schemaName, at, 'schema');
    if (RESERVED_PREFIXES.some((p) => schemaName.startsWith(p))) throw mz.ReservedSchemaName(schemaName).at(at);
    if (this.view().schema(db.id, schemaName)) {
      if (s.ifNotExists) return this.write('CREATE SCHEMA', [`schema "${schemaName}" already exists, skipping`]);
      throw mz.SchemaAlreadyExists(schemaName).at(at);
    }
    this.ws.create(this.base('schema', schemaName, [db.id], { databaseId: db.id }));
    return this.write('CREATE SCHEMA');
  }

  // ---- secrets and connections -----------------------------------------------------------------

  private secretValue(v: S<'create_secret'>['value'], at: number): string {
    if (v.kind === 'string') {
      if (Buffer.byteLength(v.value) > MAX_SECRET_BYTES) {
        throw new PlanError(`secret value exceeds ${MAX_SECRET_BYTES} bytes`, { code: SQLSTATE.programLimitExceeded, position: at, hint: 'AWS Secrets Manager holds at most 64 KiB per secret.' });
      }
      return v.value;
    }
    const bytes = evaluateSecretExpr(v.expr.text, v.expr.position ?? at);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new NotSupportedError('binary secret values are not supported: the value must be valid UTF-8 (the secret store holds text)', { position: v.expr.position ?? at });
    }
    return this.secretValue({ kind: 'string', value: text }, at);
  }

  private createSecret(s: S<'create_secret'>, at: number): StatementPlan {
    const notices: string[] = [];
    const t = this.newItem(s.name, 'secret', s.ifNotExists, at, notices);
    if (!t) return this.write('CREATE SECRET', notices);
    const value = this.secretValue(s.value, at);
    const secret = this.base('secret', t.name, [t.schemaId], { schemaId: t.schemaId, createSql: print(s, { redacted: true }) });
    this.ws.create(secret);
    this.secrets.set(secret.id, { secretId: secret.id, generation: secret.generation, value });
    return this.write('CREATE SECRET', notices);
  }

  private alterSecret(s: S<'alter_secret'>, at: number): StatementPlan {
    const found = findItem(this.view(), s.name, at, this.scope());
    if (!found) {
      if (s.ifExists) return this.write('ALTER SECRET', [`secret "${s.name.join('.')}" does not exist, skipping`]);
      throw unknownItem(s.name, at);
    }
    if (found.kind !== 'secret') throw wrongType(found, 'secret', at);
    requireOwner(this.view(), found, at, this.actor);
    const value = this.secretValue(s.value, at);
    this.ws.update(found.id, (o) => o, true);
    const updated = this.ws.get(found.id)!;
    this.secrets.set(found.id, { secretId: found.id, generation: updated.generation, value });
    // The connectors that read the secret through a connection pick the new value up when they start again.
    this.reensureUsers(found.id);
    return this.write('ALTER SECRET');
  }

  /**
   * A new generation for every source, sink and table fed by a source that uses `id` (a secret or
   * a connection), directly or through connections (an SSH tunnel, a schema registry): their
   * effects ensure the ingestion or export again, so the data plane restarts them with what changed.
   */
  private reensureUsers(id: string): void {
    const seen = new Set([id]);
    const queue = [id];
    while (queue.length) {
      for (const d of this.view().dependentsOf(queue.shift()!)) {
        if (seen.has(d.id)) continue;
        seen.add(d.id);
        if (d.kind === 'connection') queue.push(d.id);
        else if (d.kind === 'source' || d.kind === 'sink' || (d.kind === 'table' && d.spec.fromSource)) {
          this.ws.update(d.id, (x) => x, true);
          // A source's tables are exports of its ingestion: they start again with it.
          if (d.kind === 'source') queue.push(d.id);
        }
      }
    }
  }

  /**
   * A connection definition's options with the objects they name (secrets, SSH tunnels, PrivateLink
   * connections) named as they are now. The definition keeps the names it was written with, which a
   * rename since leaves pointing nowhere (or at another object); the ids the connection recorded
   * (`secretRefs`, `connectionRefs`) say which objects they are.
   */
  private namedAsNow(options: readonly SqlOption[], connector: ConnectorSettings): SqlOption[] {
    const view = this.view();
    const now = (written: ObjectName, id: string | undefined): ObjectName => {
      const o = id === undefined ? undefined : view.get(id);
      if (!o) return written;
      let found: CatalogObject | undefined;
      try {
        // A definition is read again in no session: its names as a fresh session resolves them.
        found = findItem(view, written, 0, DEFAULT_SCOPE);
      } catch {
        // Its schema or database is gone or renamed: the name no longer resolves.
      }
      if (found?.id === o.id) return written;
      const q = view.qualifiedName(o);
      return q[0] === DEFAULT_DATABASE && q[1] === DEFAULT_SCHEMA ? [q[2]!] : q;
    };
    const broker = (v: OptionValue): OptionValue =>
      v.kind === 'broker' ? { ...v, via: { ...v.via, connection: now(v.via.connection, connector.connectionRefs[brokerTunnelKey(v.address, v.via.kind)]) } } : v;
    return options.map((x): SqlOption => {
      const v = x.value;
      switch (v.kind) {
        case 'secret':
          return { ...x, value: { ...v, name: now(v.name, connector.secretRefs[x.name]) } };
        case 'object':
          return { ...x, value: { ...v, name: now(v.name, connector.connectionRefs[x.name]) } };
        case 'ident': {
          const id = /CONNECTION|TUNNEL|PRIVATELINK/.test(x.name) ? connector.connectionRefs[x.name] : undefined;
          const name = now([v.value], id);
          return name.length === 1 && name[0] === v.value ? x : { ...x, value: { kind: 'object', name } };
        }
        case 'privatelink':
          return { ...x, value: { ...v, connection: now(v.connection, connector.connectionRefs[x.name]) } };
        case 'broker':
          return { ...x, value: broker(v) };
        case 'list':
          return { ...x, value: { ...v, items: v.items.map(broker) } };
        default:
          return x;
      }
    });
  }

  /**
   * The tables fed by a source whose ingestion changed (its cluster, its options): each is an export
   * built from the source's cluster and options (desiredSpec's table export), so it is ensured
   * again at a new generation too, as Materialize restarts every export of an ingestion with it.
   */
  private reensureTablesOf(sourceId: string): void {
    for (const d of this.view().dependentsOf(sourceId)) {
      if (d.kind === 'table' && d.spec.fromSource?.sourceId === sourceId) this.ws.update(d.id, (x) => x, true);
    }
  }

  /**
   * `ALTER CONNECTION ... SET / DROP / RESET (option), ... [WITH (VALIDATE = b)]` and `ROTATE KEYS`,
   * with Materialize's checks and messages (plan_alter_connection, then the connection planned
   * again from its definition with the options changed: errors there are `invalid ALTER
   * CONNECTION: ...`, 0A000). The connection's users are ensured again at a new generation.
   */
  private alterConnection(s: S<'alter_connection'>, at: number): StatementPlan {
    const tag = 'ALTER CONNECTION';
    const o = this.findForAlter('connection', s.name, s.ifExists, at);
    if (!o) return this.write(tag, [`connection "${s.name.join('.')}" does not exist, skipping`]);
    const conn = o as ObjectOf<'connection'>;
    const type = conn.spec.connector.type;
    const typeWords = connectionOf(type) ? sqlWords(connectionOf(type)!) : type.toUpperCase();
    const bail = (message: string, position = at) => new PlanError(message, { code: SQLSTATE.internalError, position });
    const rotate = s.actions.find((a) => a.kind === 'rotate_keys');
    if (rotate) {
      if (s.actions.length > 1) throw bail('cannot specify any other actions alongside ALTER CONNECTION...ROTATE KEYS', rotate.position);
      if (s.withOptions.length) throw bail(`ALTER CONNECTION...ROTATE KEYS does not support WITH (${optionList(s.withOptions).slice(1, -1)})`, s.withOptions[0]!.position);
      if (!connectionPart(type)?.rotatesKeys) throw bail(`${this.view().qualifiedName(o).join('.')} is not an SSH connection`);
      // The key pair is the data plane's: a new generation of the tunnel's users makes them connect with a new one.
      this.ws.update(o.id, (x) => x, true);
      this.reensureUsers(o.id);
      return this.write(tag);
    }
    let validate = validatesByDefault(type);
    const seenWith = new Set<string>();
    for (const w of s.withOptions) {
      if (seenWith.has(w.name)) throw bail(`${w.name} specified more than once`, w.position);
      seenWith.add(w.name);
      if (w.value.kind === 'none') validate = true;
      else if (w.value.kind === 'boolean') validate = w.value.value;
      else throw bail(`invalid ${w.name}: cannot use value as boolean`, w.position);
    }
    const sets = s.actions.flatMap((a) => (a.kind === 'set' ? [a.option] : []));
    const drops = s.actions.flatMap((a) => (a.kind === 'drop' ? [a] : []));
    const specified = [...sets.map((x) => ({ name: x.name, position: x.position })), ...drops];
    for (const inalterable of ['PROGRESS TOPIC', 'PROGRESS TOPIC REPLICATION FACTOR']) {
      const hit = specified.find((x) => x.name === inalterable);
      if (hit) throw bail(`cannot ALTER ${typeWords} option ${inalterable}`, hit.position);
    }
    checkOptionsTaken(type, specified.map((x) => ({ name: x.name, value: { kind: 'none' }, position: x.position })));
    const setNames = new Set<string>();
    for (const x of sets) {
      if (setNames.has(x.name)) throw bail(`${x.name} specified more than once`, x.position);
      setNames.add(x.name);
    }
    const dropNames = new Set(drops.map((d) => d.name));
    const both = [...setNames].filter((n) => dropNames.has(n)).sort();
    if (both.length) throw bail(`cannot both SET and DROP/RESET options ${both.join(', ')}`, drops.find((d) => d.name === both[0])!.position);
    for (const exclusive of [['BROKER', 'BROKERS']]) {
      const set = exclusive.some((n) => setNames.has(n));
      const dropped = exclusive.some((n) => dropNames.has(n));
      if (set && dropped) throw bail(`cannot both SET and DROP/RESET mutually exclusive ${typeWords} options ${exclusive.join(', ')}`);
      // Setting one drops the others, as in Materialize: the new one replaces them.
      if (set || dropped) for (const n of exclusive) dropNames.add(n);
    }
    const created = parse(conn.spec.createSql)[0]?.statement;
    if (created?.kind !== 'create_connection') throw new PlanError(`connection ${conn.name} has no definition to alter`, { code: SQLSTATE.internalError, position: at });
    // Options kept from the definition point at the statement (their own positions are the definition's).
    const kept = this.namedAsNow(created.options, conn.spec.connector).filter((x) => !setNames.has(x.name) && !dropNames.has(x.name));
    const options = [...kept.map((x) => ({ ...x, position: at })), ...sets];
    let planned: { settings: ConnectorSettings; dependsOn: string[] };
    try {
      planned = this.connectorSettings(type, options, at);
      if (planned.dependsOn.includes(conn.id)) throw unknownItem(s.name, at);
      checkOptionsTaken(created.connectionType, options);
      validateConnectionOptions(type, options, at);
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
      throw new PlanError(`invalid ALTER CONNECTION: ${e.message}`, { code: SQLSTATE.featureNotSupported, position: e.position ?? at, ...(e.hint ? { hint: e.hint } : {}) });
    }
    const withOptions: SqlOption[] = validate || !validatesByDefault(type) ? [] : [{ name: 'VALIDATE', value: { kind: 'boolean', value: false }, position: at }];
    const createSql = print({ ...created, options, withOptions }, { redacted: true });
    this.ws.update(o.id, (x) => ({ ...x, dependsOn: [...new Set([conn.spec.schemaId, ...planned.dependsOn])], spec: { ...conn.spec, createSql, connector: planned.settings, validate } }) as CatalogObject, true);
    this.reensureUsers(o.id);
    return this.write(tag);
  }

  /** Splits options into plain values, secret references and connection references. */
  private connectorSettings(type: ConnectionType, options: readonly SqlOption[], at: number): { settings: ConnectorSettings; dependsOn: string[] } {
    const plain: Record<string, string> = {};
    const secretRefs: Record<string, string> = {};
    const connectionRefs: Record<string, string> = {};
    const dependsOn: string[] = [];
    for (const o of options) {
      const v = o.value;
      if (v.kind === 'secret') {
        const secret = resolveItem(this.view(), v.name, ['secret'], 'secret', o.position ?? at, this.scope());
        secretRefs[o.name] = secret.id;
        dependsOn.push(secret.id);
      } else if (v.kind === 'object' || (v.kind === 'ident' && /CONNECTION|TUNNEL|PRIVATELINK/.test(o.name))) {
        const name = v.kind === 'object' ? v.name : [v.value];
        const conn = resolveItem(this.view(), name, ['connection'], 'connection', o.position ?? at, this.scope());
        connectionRefs[o.name] = conn.id;
        dependsOn.push(conn.id);
      } else if (SECRET_ONLY_OPTIONS.has(o.name)) {
        // Materialize's words and code (a plan error: XX000); the value itself is never echoed.
        throw new PlanError(`invalid ${o.name}: must provide a secret value`, { code: SQLSTATE.internalError, position: o.position ?? at, hint: `Store it with CREATE SECRET and write ${o.name} SECRET <name>.` });
      } else if (v.kind === 'privatelink') {
        // `AWS PRIVATELINK pl (PORT 9093)`: the connection, and its options beside it.
        const conn = resolveItem(this.view(), v.connection, ['connection'], 'connection', o.position ?? at, this.scope());
        connectionRefs[o.name] = conn.id;
        dependsOn.push(conn.id);
        for (const x of v.options) plain[`${o.name} ${x.name}`] = optionString(x.value) ?? '';
      } else {
        // Brokers reached through a tunnel (`'b:9092' USING SSH TUNNEL t`): one reference per broker and tunnel.
        const brokers = v.kind === 'list' ? v.items : [v];
        for (const b of brokers) {
          if (b.kind !== 'broker') continue;
          const key = brokerTunnelKey(b.address, b.via.kind);
          const conn = resolveItem(this.view(), b.via.connection, ['connection'], 'connection', o.position ?? at, this.scope());
          connectionRefs[key] = conn.id;
          dependsOn.push(conn.id);
          for (const x of b.via.options) plain[`${key} ${x.name}`] = optionString(x.value) ?? '';
        }
        plain[o.name] = optionString(v) ?? '';
      }
    }
    return { settings: { type, options: plain, secretRefs, connectionRefs }, dependsOn };
  }

  private createConnection(s: S<'create_connection'>, at: number): StatementPlan {
    const notices: string[] = [];
    const t = this.newItem(s.name, 'connection', s.ifNotExists, at, notices);
    if (!t) return this.write('CREATE CONNECTION', notices);
    // Names are resolved first (an unknown secret is reported before a missing option), as in Materialize.
    const { settings, dependsOn } = this.connectorSettings(s.connectionType, s.options, at);
    checkOptionsTaken(s.connectionType, s.options);
    validateConnectionOptions(settings.type, s.options, at);
    const validateOpt = s.withOptions.find((o) => o.name === 'VALIDATE');
    const validate = validateOpt ? !(validateOpt.value.kind === 'boolean' && !validateOpt.value.value) : validatesByDefault(settings.type);
    this.ws.create(
      this.base('connection', t.name, [t.schemaId, ...dependsOn], { schemaId: t.schemaId, createSql: print(s, { redacted: true }), connector: settings, validate }),
    );
    return this.write('CREATE CONNECTION', notices);
  }

  // ---- sources and sinks -----------------------------------------------------------------------

  private createSource(s: S<'create_source'>, at: number, parsed: ParsedStatement): StatementPlan {
    const notices: string[] = [];
    checkSourceOptions(s, at);
    checkSourceEncoding(s, generatesKeys(s.connection.kind, 'generator' in s.connection ? s.connection.generator : undefined), at, s.columns && { label: `source ${printName(s.name)}`, names: s.columns });
    const t = this.newItem(s.name, 'source', s.ifNotExists, at, notices);
    if (!t) return this.write('CREATE SOURCE', notices);
    const cluster = this.cluster(s.inCluster, at);
    const conn = s.connection;
    let connectionId: string | undefined;
    let sourceType: ObjectSpec['source']['sourceType'];
    const options: Record<string, string> = {};
    for (const o of conn.options) options[o.name] = optionString(o.value) ?? '';
    if ('generator' in conn) {
      sourceType = conn.kind;
      options.GENERATOR = conn.generator.toUpperCase();
    } else {
      sourceType = conn.kind;
      const c = resolveItem(this.view(), conn.connection, ['connection'], 'connection', at, this.scope());
      if (c.spec.connector.type !== sourceType) {
        throw new PlanError(`${c.name} is not a ${sqlWords(conn.kind)} CONNECTION`, { code: SQLSTATE.wrongObjectType, position: at });
      }
      connectionId = c.id;
    }
    const registries = this.registryConnections(s.format, parsed);
    const source = this.base('source', t.name, [t.schemaId, cluster.id, ...(connectionId ? [connectionId] : []), ...registries], {
      schemaId: t.schemaId,
      createSql: print(s),
      clusterId: cluster.id,
      ...(connectionId ? { connectionId } : {}),
      sourceType,
      options,
      ...retention(s.withOptions, at),
      // The source's clauses from FORMAT on: the printer's own, so nothing inside FROM is mistaken for them.
      ...(s.format ? { format: sourceClauses(s) } : {}),
      ...(s.envelope ? { envelope: s.envelope.kind } : {}),
    });
    this.ws.create(source);
    if (s.references) this.references.set(source.id, upstreamReferences(s.references));
    for (const sub of this.subsources(s, at)) this.createSubsource(sub.name, source.id, sub.reference, at, 'Name the subsource with AS in FOR TABLES (...).');
    return this.write('CREATE SOURCE', notices);
  }

  /** A subsource of `sourceId` exporting the upstream `reference`, named `name`. */
  private createSubsource(name: ObjectName, sourceId: string, reference: string, at: number, hint: string): void {
    const target = itemTarget(this.view(), name, at, this.scope());
    validateName(target.name, at, 'subsource');
    if (this.view().item(target.schema.id, target.name)) {
      throw new PlanError(`catalog item '${name.join('.')}' already exists`, { code: SQLSTATE.duplicateObject, position: at, hint });
    }
    this.ws.create(this.base('subsource', target.name, [target.schema.id], { schemaId: target.schema.id, createSql: '', sourceId, reference }));
  }

  /** The subsources a source makes: one per referenced upstream table. */
  private subsources(s: S<'create_source'>, at: number): { name: ObjectName; reference: string }[] {
    const refs = s.references;
    if (!refs) return [];
    const qualifier = s.name.slice(0, -1);
    if ('generator' in s.connection) {
      const tables = generatorOf(s.connection.generator)?.tables;
      // Materialize's purification errors, word for word.
      if (refs.kind === 'schemas') throw new PlanError('FOR SCHEMAS (..) unsupported', { code: SQLSTATE.invalidParameterValue, position: at });
      if (!tables) {
        const message = refs.kind === 'all' ? 'FOR ALL TABLES is only valid for multi-output sources' : 'FOR TABLES (..) unsupported';
        throw new PlanError(message, { code: SQLSTATE.invalidParameterValue, position: at, hint: `LOAD GENERATOR ${s.connection.generator.toUpperCase()} has no tables.` });
      }
      if (refs.kind === 'all') return Object.keys(tables).sort().map((tbl) => ({ name: [...qualifier, tbl], reference: tbl }));
      return refs.tables.map((r) => ({ name: r.alias ?? [...qualifier, r.reference[r.reference.length - 1]!], reference: r.reference.join('.') }));
    }
    if (refs.kind === 'tables') return refs.tables.map((r) => ({ name: r.alias ?? [...qualifier, r.reference[r.reference.length - 1]!], reference: r.reference.join('.') }));
    // FOR ALL TABLES / FOR SCHEMAS on an upstream: the table list is only known upstream; the
    // ingestion writes them under the source itself.
    return [];
  }

  /**
   * A webhook source, with its `CHECK` planned as Materialize plans it (shared/planner/webhook-check.ts):
   * the secrets it reads are dependencies (DROP SECRET answers 2BP01; CASCADE takes the source)
   * and reach the data plane as the ingestion's secret references, which evaluates the check.
   */
  private createWebhookSource(s: S<'create_webhook_source'>, at: number): StatementPlan {
    const tag = s.isTable ? 'CREATE TABLE' : 'CREATE SOURCE';
    const notices: string[] = [];
    const t = this.newItem(s.name, s.isTable ? 'table' : 'source', s.ifNotExists, at, notices);
    if (!t) return this.write(tag, notices);
    const check = s.check ? this.occasional().planWebhookCheck(s.check, (name, position) => this.checkSecret(name, position)) : undefined;
    // A webhook table runs on the session's cluster (Materialize's grammar gives it no IN CLUSTER).
    const cluster = this.cluster(s.inCluster, at);
    // The columns: `body`, `headers` with INCLUDE HEADERS, then one per INCLUDE HEADER (Materialize's plan_create_webhook_source).
    const body = s.bodyFormat.kind === 'json' ? 'jsonb' : s.bodyFormat.kind === 'bytes' ? 'bytea' : 'text';
    const columns = [
      { name: 'body', type: body, notNull: true },
      ...(s.includeHeaders ? [{ name: 'headers', type: 'map[text=>text]', notNull: true }] : []),
      ...s.includeHeader.map((h) => ({ name: h.alias, type: h.bytes ? 'bytea' : 'text', notNull: false })),
    ];
    const names = columns.map((c) => c.name);
    const twice = names.find((c, i) => names.indexOf(c) !== i);
    if (twice !== undefined) throw new PlanError(`column reference "${twice}" is ambiguous`, { code: SQLSTATE.ambiguousColumn, position: at });
    const secretRefs = Object.fromEntries((check?.secrets ?? []).map((x) => [`CHECK SECRET ${x.column}`, x.id]));
    const dependsOn = [t.schemaId, cluster.id, ...(check?.secrets ?? []).map((x) => x.id)];
    const options = { 'BODY FORMAT': s.bodyFormat.kind.toUpperCase(), ...(s.check ? { CHECK: webhookCheck(s.check) } : {}) };
    const secrets = check?.secrets.length ? { secretRefs } : {};
    if (s.isTable) {
      this.ws.create(this.base('table', t.name, dependsOn, { schemaId: t.schemaId, createSql: print(s), columns, webhook: { clusterId: cluster.id, options, ...secrets } }));
    } else {
      this.ws.create(this.base('source', t.name, dependsOn, { schemaId: t.schemaId, createSql: print(s), clusterId: cluster.id, sourceType: WEBHOOK.name, options, ...secrets }));
    }
    return this.write(tag, notices);
  }

  /** A secret a webhook CHECK names: an unknown one is 42704, as for any object that is not a relation. */
  private checkSecret(name: ObjectName, position: number): { id: string; name: string } {
    const found = findItem(this.view(), name, position, this.scope());
    if (!found) throw new PlanError(`unknown catalog item '${name.join('.')}'`, { code: SQLSTATE.undefinedObject, position });
    if (found.kind !== 'secret') throw wrongType(found, 'secret', position);
    return { id: found.id, name: found.name };
  }

  /** The value type of a column's type when it is a map, written out or a user-defined map type (`CREATE TYPE m AS MAP (...)`). */
  private mapValueType(type: string, at: number): string | undefined {
    const written = mapValueOfText(type);
    if (written !== undefined) return written;
    if (/[[\]()]/.test(type)) return undefined;
    const named = findItem(this.view(), type.split('.'), at, this.scope());
    return named?.kind === 'type' && named.spec.category === 'map' ? named.spec.value.type : undefined;
  }

  private createSink(s: S<'create_sink'>, at: number): StatementPlan {
    const notices: string[] = [];
    if (!s.name) {
      // Materialize resolves the statement's names before plan_create_sink finds it has none.
      if (!isSystemRelation(s.from) && !findItem(this.view(), s.from, at, this.scope())) throw unknownItem(s.from, at);
      resolveItem(this.view(), s.connection.connection, ['connection'], 'connection', at, this.scope());
      throw mz.MissingName('sink').at(at);
    }
    const t = this.newItem(s.name, 'sink', s.ifNotExists, at, notices);
    if (!t) return this.write('CREATE SINK', notices);
    const cluster = this.cluster(s.inCluster, at);
    refuseSystemSinkInput(s.from, at);
    const found = findItem(this.view(), s.from, at, this.scope());
    if (!found) throw unknownItem(s.from, at);
    // Materialize exports tables, sources and materialized views; a view has no storage to export.
    checkSinkInput(this.view(), found, at, this.scope());
    const from = found as Extract<typeof found, { kind: (typeof RELATION_KINDS)[number] }>;
    const conn = resolveItem(this.view(), s.connection.connection, ['connection'], 'connection', at, this.scope());
    if (conn.spec.connector.type !== s.connection.kind) throw new PlanError(`${conn.name} is not a ${sqlWords(s.connection.kind)} CONNECTION`, { code: SQLSTATE.wrongObjectType, position: at });
    // DOC ON names resolve with the statement's other names, before any option is checked.
    const format = this.occasional().purifyAvroDocs(this.view(), s.format, from, this.scope());
    checkSinkOptions(s, at);
    if (from.kind === 'table' && !from.spec.fromSource) checkSinkColumns(s, from.spec.columns, (type) => this.mapValueType(type, at), at);
    const avroDocs = this.occasional().planCsrConfig(this.view(), format, this.scope());
    const options: Record<string, string> = {};
    for (const o of s.connection.options) options[o.name] = optionString(o.value) ?? '';
    this.ws.create(
      // What DOC ON names is part of the sink's definition, so a dependency, as in Materialize.
      this.base('sink', t.name, [t.schemaId, cluster.id, from.id, conn.id, ...docTargets(avroDocs)], {
        schemaId: t.schemaId,
        createSql: print(format ? { ...s, format } : s),
        clusterId: cluster.id,
        fromId: from.id,
        connectionId: conn.id,
        options,
        ...(s.envelope ? { envelope: s.envelope } : {}),
        ...(avroDocs ? { avroDocs } : {}),
      }),
    );
    return this.write('CREATE SINK', notices);
  }

  // ---- tables, views, indexes ------------------------------------------------------------------

  private createTable(s: S<'create_table'>, at: number): StatementPlan {
    const notices: string[] = [];
    // A temporary view is only a name for a query; a temporary table holds rows, which the data plane would keep for one request.
    if (s.temporary) throw new NotSupportedError('temporary tables are not supported: their rows live as long as the session, and over the HTTP API a session is one request', { position: at });
    const seen = new Set<string>();
    const typeIds: string[] = [];
    for (const c of s.columns) {
      validateName(c.name, at, 'column');
      typeIds.push(...resolveColumnType(this.view(), c.type, at, this.scope()), ...(c.default ? typesNamedIn(this.view(), c.default.text, this.scope()) : []));
      if (seen.has(c.name)) throw new PlanError(`column "${c.name}" specified more than once`, { code: SQLSTATE.duplicateColumn, position: at });
      seen.add(c.name);
    }
    const columnNames = new Set(s.columns.map((c) => c.name));
    for (const c of s.columns) checkColumnDefault(c, columnNames);
    checkTableKeys(s, at);
    checkPartitionBy(s.columns, s.withOptions);
    const t = this.newItem(s.name, 'table', s.ifNotExists, at, notices);
    if (!t) return this.write('CREATE TABLE', notices);
    const columns = s.columns.map((c) => ({ name: c.name, type: columnTypeText(c.type), notNull: c.notNull }));
    this.ws.create(this.base('table', t.name, [t.schemaId, ...typeIds], { schemaId: t.schemaId, createSql: print(s), columns, ...retention(s.withOptions, at) }));
    return this.write('CREATE TABLE', notices);
  }

  /**
   * `CREATE TYPE ... AS LIST | MAP | (fields)`: a catalog item alone (no effect), in its schema's
   * namespace (a relation of the same name is 42710, both ways). The types it names must be named
   * types (Materialize's rule); the user-defined ones become its dependencies.
   */
  private createType(s: S<'create_type'>, at: number): StatementPlan {
    const view = this.view();
    const ids: string[] = [];
    const component = (type: DataType, asType: string, key: string, position: number) => {
      const id = resolveTypeComponent(view, type, asType, key, position, this.scope());
      if (id) ids.push(id);
      return { type: dataType(type), ...(id ? { id } : {}) };
    };
    let spec: TypeSpec;
    if (s.as.kind === 'record') {
      const seen = new Set<string>();
      const fields = s.as.fields.map((f) => {
        validateName(f.name, at, 'column');
        if (seen.has(f.name)) throw new PlanError(`column "${f.name}" specified more than once`, { code: SQLSTATE.duplicateColumn, position: at });
        seen.add(f.name);
        return { name: f.name, ...component(f.type, '', f.name, at) };
      });
      spec = { category: 'record', fields };
    } else {
      const options = new Map<string, { type: DataType; position: number }>();
      for (const o of s.as.options) {
        if (options.has(o.name)) throw new PlanError(`${o.name} specified more than once`, { code: SQLSTATE.internalError, position: o.position });
        options.set(o.name, o);
      }
      const required = (name: string) => {
        const o = options.get(name);
        if (!o) throw new PlanError(`${name} option is required`, { code: SQLSTATE.internalError, position: at });
        return o;
      };
      if (s.as.kind === 'list') {
        const e = required('ELEMENT TYPE');
        spec = { category: 'list', element: component(e.type, 'LIST ', 'ELEMENT TYPE', e.position) };
      } else {
        const k = required('KEY TYPE');
        const v = required('VALUE TYPE');
        const key = component(k.type, 'MAP ', 'KEY TYPE', k.position);
        spec = { category: 'map', key, value: component(v.type, 'MAP ', 'VALUE TYPE', v.position) };
      }
    }
    const t = this.newItem(s.name, 'type', false, at, []);
    if (!t) return this.write('CREATE TYPE');
    this.ws.create(this.base('type', t.name, [t.schemaId, ...ids], { schemaId: t.schemaId, createSql: print(s), ...spec }));
    return this.write('CREATE TYPE');
  }

  /**
   * A read-only table the source's ingestion exports into: a dependent of the source (DROP SOURCE
   * needs CASCADE; DROP TABLE alone stops its export), with a collection and an ingestion export
   * of its own, so it has a connector status like a source.
   */
  private createTableFromSource(s: S<'create_table_from_source'>, at: number, parsed: ParsedStatement): StatementPlan {
    const notices: string[] = [];
    const source = resolveItem(this.view(), s.source, ['source'], 'source', at, this.scope());
    const registries = this.registryConnections(s.format, parsed);
    const { fromSource, columns } = planTableExport(s, source, at);
    const t = this.newItem(s.name, 'table', s.ifNotExists, at, notices);
    if (!t) return this.write('CREATE TABLE', notices);
    this.ws.create(this.base('table', t.name, [t.schemaId, source.id, ...registries], { schemaId: t.schemaId, createSql: print(s), columns, fromSource }));
    return this.write('CREATE TABLE', notices);
  }

  /**
   * The schema registry connections a FORMAT reads through (`USING CONFLUENT SCHEMA REGISTRY
   * CONNECTION c`), resolved like every other name (an unknown one points at itself): the object
   * depends on them, so they cannot be dropped from under it.
   */
  private registryConnections(format: FormatSpecifier | undefined, parsed: ParsedStatement): string[] {
    if (!format) return [];
    const ids: string[] = [];
    for (const f of format.kind === 'bare' ? [format.format] : [format.key, format.value]) {
      if ((f.kind !== 'avro' && f.kind !== 'protobuf') || !f.csrConnection) continue;
      const position = parsed.start + offsetAfterWords(parsed.text, ['registry', 'connection'], f.csrConnection[0]!);
      ids.push(resolveItem(this.view(), f.csrConnection, ['connection'], 'connection', position, this.scope()).id);
    }
    return ids;
  }

  /** The catalog items a query reads (found by a real SQL parser), resolved; system relations skipped. */
  private queryDependencies(query: string, position: number, system?: { reads: boolean; unstable: { schema: string; name: string }[] }): string[] {
    const ids: string[] = [];
    if (!this.ctx.relationsReferenced) throw new Error('planner context lacks relationsReferenced');
    for (const name of this.ctx.relationsReferenced(query, { basePosition: position })) {
      if (isSystemRelation(name)) {
        if (system) system.reads = true;
        if (system && name.length >= 2 && UNSTABLE_SCHEMAS.has(name[name.length - 2]!)) system.unstable.push({ schema: name[name.length - 2]!, name: name[name.length - 1]! });
        continue;
      }
      const item = findItem(this.view(), name, position, this.scope());
      if (!item) throw unknownItem(name, position);
      if (item.kind === 'sink' || item.kind === 'index') {
        throw new PlanError(`${KIND_LABEL[item.kind]} ${this.view().qualifiedName(item).join('.')} cannot be depended upon`, { code: SQLSTATE.wrongObjectType, position });
      }
      if (!(RELATION_KINDS as readonly string[]).includes(item.kind)) throw wrongType(item, 'relation', position);
      ids.push(item.id);
    }
    return ids;
  }

  /**
   * `CREATE [OR REPLACE] VIEW` and `CREATE [OR REPLACE | REPLACEMENT] MATERIALIZED VIEW`, with
   * Materialize's rules (plan_view, plan_create_materialized_view, validate_view_dependencies,
   * then its sequencer's and catalog's checks): the cluster a materialized view runs on (a
   * replica-targeted one needs a flag a fresh environment keeps off), its options (`ASSERT NOT
   * NULL` names output columns, once each; `REFRESH`; `RETAIN HISTORY`), what it may read (not a
   * replacement, not a temporary item, not an unstable system relation), and a replacement's
   * target (`FOR mv`).
   */
  private viewLike(s: S<'create_view'> | S<'create_materialized_view'>, at: number, kind: 'view' | 'materialized_view'): StatementPlan {
    const tag = kind === 'view' ? 'CREATE VIEW' : 'CREATE MATERIALIZED VIEW';
    if (s.kind === 'create_view' && s.temporary) return this.createTemporaryView(s, at);
    const mv = s.kind === 'create_materialized_view' ? s : undefined;
    // Name resolution, in the statement's order: the replacement's target, IN CLUSTER, the body's names.
    const replacementTarget = mv?.replacementFor ? resolveItem(this.view(), mv.replacementFor.name, ITEM_KINDS_ALL, 'item', mv.replacementFor.position, this.scope()) : undefined;
    const named = mv?.inCluster !== undefined ? this.cluster(mv.inCluster, at) : undefined;
    const notices: string[] = [];
    const target = itemTarget(this.view(), s.name, at, this.scope());
    const existing = this.view().item(target.schema.id, target.name);
    const system = { reads: false, unstable: [] as { schema: string; name: string }[] };
    const refs = this.queryDependencies(s.query, s.queryPosition, system);
    refs.push(...typesNamedIn(this.view(), s.query, this.scope()));
    // Then plan_create_materialized_view: the session's cluster when none is named, the replica's flag.
    const cluster = mv ? (named ?? this.cluster(undefined, at)) : undefined;
    if (mv?.inReplica) throw mz.RequiresFeatureFlag('replica-targeted materialized views', 'enable_replica_targeted_materialized_views').at(mv.inReplica.position);
    this.occasional().checkMaterializable(s.query, { materialized: kind === 'materialized_view', allowMzNow: true, basePosition: s.queryPosition });
    this.checkViewShape(s, kind, system.reads);
    const columns = this.outputColumns(s);
    // REFRESH options, purified as Materialize does (SHOW CREATE shows the times they resolved to).
    const refresh = mv ? this.occasional().planRefresh(mv.withOptions, Date.parse(this.ctx.now)) : undefined;
    const retained = mv ? retention(mv.withOptions, at) : {};
    if (mv) checkAssertNotNull(mv.withOptions, columns, at);
    // WITH (PARTITION BY ...): a prefix of the output columns (check_partition_by; their types are the data plane's to check).
    // With the output's names unknown here, a column list names the first ones.
    const knownNames = columns && columns.every((c): c is string => c !== undefined) ? columns : s.columns;
    if (mv && knownNames) checkPartitionByNames(knownNames, mv.withOptions);
    if (existing && s.orReplace && existing.kind !== kind) {
      if (kind === 'view' && existing.kind === 'materialized_view') throw mz.DropViewOnMaterializedView(this.minimal(existing)).at(at);
      throw wrongType(existing, KIND_LABEL[kind], at);
    }
    if (existing && s.orReplace && refs.includes(existing.id)) {
      throw mz.ReplaceDependedUpon(KIND_LABEL[kind], this.view().qualifiedName(existing).join('.')).at(at);
    }
    if (replacementTarget) this.checkReplacementTarget(replacementTarget, s.name, refs, mv!.replacementFor!.position);
    this.refuseReplacementDependency(refs, s.queryPosition);
    if (system.unstable.length > 0) {
      // Materialized views may not read the replicas' logs (the sequencer's check, before the catalog's).
      const logs = system.unstable.filter((n) => n.schema === 'mz_introspection').map((n) => n.name);
      if (kind === 'materialized_view' && logs.length > 0) throw mz.InvalidLogDependency('materialized view', logs).at(s.queryPosition);
      // Materialize's catalog error: these relations may change between versions, so nothing durable may be built on them.
      throw mz.UnstableDependency(KIND_LABEL[kind], system.unstable.map((n) => n.name)).at(s.queryPosition);
    }
    this.refuseTemporaryDependency(refs, s.queryPosition);
    if (replacementTarget) this.checkReplacementSchema(replacementTarget as ObjectOf<'materialized_view'>, columns, at);
    const createSql = print(mv ? { ...mv, withOptions: refresh!.options } : s);
    const known = columns && columns.every((c): c is string => c !== undefined) ? { columns } : {};
    const mvSpec = mv
      ? { clusterId: cluster!.id, ...retained, ...(refresh?.schedule ? { refresh: refresh.schedule } : {}), ...(replacementTarget ? { replacementFor: replacementTarget.id } : {}) }
      : {};
    if (replacementTarget) refs.push(replacementTarget.id);
    if (existing && s.orReplace) {
      // As in Materialize, replacing drops the old definition: its indexes go with it, anything
      // else built on it refuses the replacement like a DROP without CASCADE.
      const dependents = this.view().dependentsOf(existing.id);
      const blocking = dependents.filter((d) => d.kind !== 'index');
      if (blocking.length) {
        const minimal = (x: CatalogObject) => this.minimal(x);
        throw mz.DependentObjectsStillExist(KIND_LABEL[kind], minimal(existing), [[mzItemType(blocking[0]!), minimal(blocking[0]!)]]).at(at);
      }
      for (const d of dependents) this.ws.drop(d.id);
      this.ws.update(
        existing.id,
        (o) => {
          const { refresh: _old, retainHistoryMs: _r, columns: _c, replacementFor: _f, ...spec } = o.spec as { refresh?: unknown; retainHistoryMs?: unknown; columns?: unknown; replacementFor?: unknown };
          // A new definition is a new object in Materialize: the old one's comments go with it.
          const { comment: _comment, columnComments: _columns, ...rest } = o;
          return { ...rest, dependsOn: [target.schema.id, ...(cluster ? [cluster.id] : []), ...refs], spec: { ...spec, query: s.query, createSql, ...mvSpec, ...known } } as unknown as CatalogObject;
        },
        true,
      );
      return this.write(tag);
    }
    const t = this.newItem(s.name, KIND_LABEL[kind], s.ifNotExists, at, notices);
    if (!t) return this.write(tag, notices);
    if (kind === 'view') {
      this.ws.create(this.base('view', t.name, [t.schemaId, ...refs], { schemaId: t.schemaId, createSql, query: s.query, ...known }));
    } else {
      this.ws.create(this.base('materialized_view', t.name, [t.schemaId, cluster!.id, ...refs], { schemaId: t.schemaId, createSql, query: s.query, ...mvSpec, ...known } as ObjectSpec['materialized_view']));
    }
    return this.write(tag, notices);
  }

  /**
   * The output column names of a body, where its reader shows them: the select list's names
   * (`undefined` for an expression it does not name), `*` over one relation whose columns the
   * catalog knows expanded, the column list given with the view taking their place.
   */
  private outputColumns(s: S<'create_view'> | S<'create_materialized_view'>): (string | undefined)[] | undefined {
    const shape = this.ctx.viewShape?.(s.query);
    if (!shape) return undefined;
    let names: (string | undefined)[] = [...shape.columns];
    if (shape.wildcard) {
      const rel = shape.singleRelation;
      const item = rel && shape.columns.length === 0 && !isSystemRelation(rel.relation) ? findItem(this.view(), rel.relation, s.queryPosition, this.scope()) : undefined;
      const known = item ? relationColumns(item) : undefined;
      if (!known) return undefined;
      names = [...known];
    }
    const given = s.columns ?? [];
    return names.map((n, i) => given[i] ?? n);
  }

  /**
   * A replacement's target (plan_create_materialized_view): a materialized view of the user's,
   * which the replacement does not read (directly or through what is built on it), and which has
   * no other replacement.
   */
  private checkReplacementTarget(t: ItemObject, name: ObjectName, refs: readonly string[], at: number): void {
    const view = this.view();
    const minimal = (x: CatalogObject) => minimalName(view, x, this.scope());
    if (t.kind !== 'materialized_view') throw mz.InvalidReplacement(mzItemType(t), minimal(t), 'materialized view', name.join('.')).at(at);
    const within = new Set<string>();
    const visit = (id: string) => {
      if (within.has(id)) return;
      within.add(id);
      for (const d of view.dependentsOf(id)) visit(d.id);
    };
    visit(t.id);
    if (refs.some((r) => within.has(r))) throw mz.ReplacementCycle(minimal(t)).at(at);
    const other = view.dependentsOf(t.id).find((d) => d.kind === 'materialized_view' && d.spec.replacementFor === t.id);
    if (other) throw mz.ReplacementExists(minimal(t), minimal(other)).at(at);
  }

  /**
   * The replacement must have its target's output (the sequencer's ReplacementSchemaMismatch):
   * compared by name and position where the catalog knows both bodies' columns (their types are
   * the data plane's to know).
   */
  private checkReplacementSchema(t: ObjectOf<'materialized_view'>, columns: readonly (string | undefined)[] | undefined, at: number): void {
    const left = t.spec.columns;
    if (!left || !columns) return;
    const lines: string[] = [];
    const common = Math.min(left.length, columns.length);
    for (let i = 0; i < common; i++) {
      const right = columns[i];
      if (right !== undefined && right !== left[i]) lines.push(`column at position ${i + 1}: name mismatch (target: ${quoted(left[i]!)}, replacement: ${quoted(right)})`);
    }
    for (let i = common; i < left.length; i++) lines.push(`missing column ${quoted(left[i]!)} at position ${i + 1}`);
    for (let i = common; i < columns.length; i++) lines.push(`extra column ${quoted(columns[i] ?? '?column?')} at position ${i + 1}`);
    if (lines.length) throw mz.ReplacementSchemaMismatch(lines.join('\n')).at(at);
  }

  /** validate_view_dependencies: a replacement materialized view is not there to be built on. */
  private refuseReplacementDependency(refs: readonly string[], position: number): void {
    for (const id of refs) {
      const o = this.ws.get(id);
      if (o?.kind === 'materialized_view' && o.spec.replacementFor) {
        throw mz.InvalidDependency(this.minimal(o), 'replacement materialized view').at(position);
      }
    }
  }

  /**
   * `ALTER MATERIALIZED VIEW mv APPLY REPLACEMENT r`: the target takes the replacement's
   * definition (its body, columns, cluster and options) under its own name, and the replacement
   * goes, in one commit (Materialize's Op::AlterMaterializedViewApplyReplacement). The target is a
   * new generation, so its dataflow is ensured again as defined now; the replacement's dataflow
   * is dropped. Unlike Materialize, the materialized view keeps its id (there it takes the
   * replacement's).
   */
  private applyReplacement(s: S<'alter_apply_replacement'>, at: number): StatementPlan {
    const view = this.view();
    const minimal = (x: CatalogObject) => minimalName(view, x, this.scope());
    const target = findItem(view, s.name, at, this.scope());
    if (!target) {
      if (s.ifExists) return this.write('ALTER MATERIALIZED VIEW', [`materialized view "${s.name.join('.')}" does not exist, skipping`]);
      throw unknownItem(s.name, at);
    }
    if (target.kind !== 'materialized_view') throw mz.MismatchedObjectType(minimal(target), mzItemType(target), 'materialized view').at(at);
    const r = resolveItem(view, s.replacement, ITEM_KINDS_ALL, 'item', s.replacementPosition, this.scope());
    if (r.kind !== 'materialized_view') throw mz.MismatchedObjectType(minimal(r), mzItemType(r), 'materialized view').at(s.replacementPosition);
    if (r.spec.replacementFor !== target.id) throw mz.InvalidReplacement(mzItemType(target), minimal(target), mzItemType(r), minimal(r)).at(at);
    requireOwner(view, target, at, this.actor);
    requireOwner(view, r, s.replacementPosition, this.actor);
    const created = parse(r.spec.createSql)[0]?.statement;
    const previous = parse(target.spec.createSql)[0]?.statement;
    if (created?.kind !== 'create_materialized_view' || previous?.kind !== 'create_materialized_view') throw new Error(`materialized view ${r.name} has no definition to apply`);
    const { replacementFor: _for, ...rest } = created;
    const createSql = print({ ...rest, name: previous.name, orReplace: false, ifNotExists: false });
    const { replacementFor: _f, columns: _c, refresh: _r, retainHistoryMs: _h, ...kept } = target.spec as ObjectSpec['materialized_view'];
    const { replacementFor: _rf, schemaId: _s, createSql: _cs, ...taken } = r.spec;
    const dependsOn = [target.spec.schemaId, ...r.dependsOn.filter((d) => d !== r.spec.schemaId && d !== target.id)];
    this.ws.drop(r.id);
    this.ws.update(target.id, (o) => ({ ...o, dependsOn, spec: { ...kept, ...taken, createSql } }) as CatalogObject, true);
    return this.write('ALTER MATERIALIZED VIEW');
  }

  /** Materialize's rule (its catalog's): a durable object cannot read what vanishes with the session. */
  private refuseTemporaryDependency(refs: readonly string[], position: number): void {
    const temporary = refs.find((id) => this.ws.isTemporary(id));
    if (temporary === undefined) return;
    throw new PlanError(`non-temporary items cannot depend on temporary item '${this.ws.get(temporary)?.name ?? temporary}'`, { code: SQLSTATE.internalError, position });
  }

  /**
   * `CREATE TEMPORARY VIEW`: a view in the request's `mz_temp` schema (made on first use), with
   * Materialize's rules: it may read permanent objects, unqualified names find it first, its name
   * may be qualified by `mz_temp` only, and it may read system relations Materialize calls
   * unstable (nothing durable is built on it). It is never committed: the request is the session.
   */
  private createTemporaryView(s: S<'create_view'>, at: number): StatementPlan {
    const notices: string[] = [];
    const system = { reads: false, unstable: [] as { schema: string; name: string }[] };
    const refs = [...this.queryDependencies(s.query, s.queryPosition, system), ...typesNamedIn(this.view(), s.query, this.scope())];
    this.occasional().checkMaterializable(s.query, { materialized: false, allowMzNow: true, basePosition: s.queryPosition });
    this.checkViewShape(s, 'view', system.reads);
    if (s.name.length > 1 && s.name[s.name.length - 2] !== TEMP_SCHEMA) {
      throw new PlanError('cannot create temporary item in non-temporary schema', { code: SQLSTATE.internalError, position: at });
    }
    const name = s.name[s.name.length - 1]!;
    validateName(name, at, 'view');
    const schema = this.temporarySchema();
    const existing = this.view().item(schema.id, name);
    if (existing && s.orReplace) {
      if (existing.kind !== 'view') throw wrongType(existing, 'view', at);
      const full = this.view().qualifiedName(existing).join('.');
      if (refs.includes(existing.id)) throw new PlanError(`cannot replace view ${full}: depended upon by new ${full} definition`, { code: SQLSTATE.invalidParameterValue, position: at });
      const blocking = this.view().dependentsOf(existing.id).filter((d) => d.kind !== 'index');
      if (blocking.length) {
        throw new PlanError(`cannot drop view "${full}": still depended upon by ${blocking.map((d) => `${KIND_LABEL[d.kind]} "${this.minimal(d)}"`).join(', ')}`, {
          code: SQLSTATE.dependentObjectsStillExist,
          position: at,
          hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
        });
      }
      for (const d of this.view().dependentsOf(existing.id)) this.ws.drop(d.id);
      this.ws.update(existing.id, (o) => ({ ...o, dependsOn: [schema.id, ...refs], spec: { ...(o.spec as ObjectSpec['view']), query: s.query, createSql: print(s) } }) as CatalogObject, false);
      return this.write('CREATE VIEW');
    }
    if (existing) {
      if (s.ifNotExists) return this.write('CREATE VIEW', [`${KIND_LABEL[existing.kind]} "${name}" already exists, skipping`]);
      this.nameConflict ??= alreadyExists(existing, this.view().qualifiedName(existing), at);
    }
    this.ws.createTemporary(this.base('view', name, [schema.id, ...refs], { schemaId: schema.id, createSql: print(s), query: s.query }));
    return this.write('CREATE VIEW', notices);
  }

  /** The request's `mz_temp` schema, made by its first temporary item (Materialize makes it lazily too). */
  private temporarySchema(): ObjectOf<'schema'> {
    const existing = tempSchema(this.view());
    if (existing) return existing;
    const schema = this.base('schema', TEMP_SCHEMA, [], { databaseId: NO_DATABASE });
    this.ws.createTemporary(schema);
    return schema;
  }

  /** Materialize's checks of a body's output columns, where the body's reader shows them. */
  private checkViewShape(s: S<'create_view'> | S<'create_materialized_view'>, kind: 'view' | 'materialized_view', readsSystem: boolean): void {
    const at = s.queryPosition;
    // What the query planner finds in the body's words: a column an alias's column list names twice, mixed group size hints.
    const { ambiguousAliasColumn, hasRecordWildcard, mixesGroupSizeHints } = this.occasional();
    const ambiguous = ambiguousAliasColumn(s.query);
    if (ambiguous !== undefined) throw mz.AmbiguousColumn(ambiguous).at(at);
    if (mixesGroupSizeHints(s.query)) throw mz.InvalidGroupSizeHints().at(at);
    const shape = this.ctx.viewShape?.(s.query);
    // The system catalog's columns may change between versions; a view must name the ones it reads.
    if (readsSystem && (shape?.wildcard || hasRecordWildcard(s.query))) throw mz.WildcardOverSystemObjects().at(at);
    if (!shape) return;
    if (shape.singleRelation) this.resolveColumns(s.query, at, shape.singleRelation);
    if (shape.wildcard) return;
    const given = s.columns ?? [];
    const label = KIND_LABEL[kind];
    if (given.length > shape.columns.length) {
      const plural = (n: number) => `${n} column${n === 1 ? '' : 's'}`;
      throw mz.ColumnListTooLong(label, given.length, shape.columns.length).at(at);
    }
    const seen = new Set<string>();
    for (const name of [...given, ...shape.columns.slice(given.length)]) {
      if (name === undefined) continue;
      if (seen.has(name)) throw mz.ColumnSpecifiedMoreThanOnce(name).at(at);
      seen.add(name);
    }
  }

  /**
   * Resolves the column names of a body that reads one table (the shape the first reader reports),
   * as Materialize does: an unknown one is `column "x" does not exist` (42703), at its first use.
   */
  private resolveColumns(query: string, base: number, body: SingleRelationBody): void {
    if (isSystemRelation(body.relation)) return;
    const item = findItem(this.view(), body.relation, base, this.scope());
    if (item?.kind !== 'table') return;
    // A table fed by a source has the upstream's columns, which the catalog knows only for the
    // single-output load generators: anything else is left to the data plane, as a source is.
    if (item.spec.fromSource && (item.spec.columns.length === 0 || item.spec.columns.some((c) => c.type === 'unknown'))) return;
    const columns = new Set(item.spec.columns.map((c) => c.name));
    for (const ref of body.columnRefs) {
      if (ref.qualifier !== undefined && ref.qualifier !== body.rangeName) continue;
      if (columns.has(ref.column) || (ref.qualifier === undefined && body.outputAliases.includes(ref.column))) continue;
      const written = ref.qualifier !== undefined ? `${ref.qualifier}.${ref.column}` : ref.column;
      throw new PlanError(`column "${written}" does not exist`, { code: SQLSTATE.undefinedColumn, position: base + nameOffset(query, ref.column) });
    }
  }

  private createView(s: S<'create_view'>, at: number): StatementPlan {
    return this.viewLike(s, at, 'view');
  }

  private createMaterializedView(s: S<'create_materialized_view'>, at: number): StatementPlan {
    return this.viewLike(s, at, 'materialized_view');
  }

  private createIndex(s: S<'create_index'>, at: number): StatementPlan {
    const notices: string[] = [];
    const onItem = resolveItem(this.view(), s.on, ITEM_KINDS_ALL, 'relation', at, this.scope());
    // plan_create_index: an index is built on a relation, and not on a replacement materialized view.
    const full = this.view().qualifiedName(onItem).join('.');
    if (!(RELATION_KINDS as readonly string[]).includes(onItem.kind)) throw mz.IndexOnNonRelation(full, mzItemType(onItem)).at(at);
    if (onItem.kind === 'materialized_view' && onItem.spec.replacementFor) throw mz.IndexOnNonRelation(full, 'replacement materialized view').at(at);
    const on = onItem as Extract<ItemObject, { kind: (typeof RELATION_KINDS)[number] }>;
    for (const k of s.keyParts ?? []) this.occasional().checkMaterializable(k.text, { materialized: true, allowMzNow: false, basePosition: k.position });
    const keyParts = (s.keyParts ?? []).map((k) => k.text);
    const derived = s.keyParts ? `${on.name}_${keyParts.map((k) => k.replace(/[^A-Za-z0-9_]+/g, '_')).join('_')}_idx` : `${on.name}_primary_idx`;
    const schemaId = on.spec.schemaId;
    // A derived name that is taken gets the first free numeric suffix, as in Materialize
    // (`t_primary_idx`, then `t_primary_idx1`); a name the user gave must be free.
    let name = s.name ?? derived;
    for (let i = 1; s.name === undefined && this.view().item(schemaId, name); i++) name = `${derived}${i}`;
    validateName(name, at, 'index');
    const existing = this.view().item(schemaId, name);
    if (existing) {
      if (s.ifNotExists) return this.write('CREATE INDEX', [`${KIND_LABEL[existing.kind]} "${name}" already exists, skipping`]);
      throw alreadyExists(existing, this.view().qualifiedName(existing), at);
    }
    const cluster = this.cluster(s.inCluster, at);
    const typeIds = (s.keyParts ?? []).flatMap((k) => typesNamedIn(this.view(), k.text, this.scope()));
    const index = this.base('index', name, [schemaId, cluster.id, on.id, ...typeIds], { schemaId, createSql: print(s), clusterId: cluster.id, onId: on.id, keyParts, ...retention(s.withOptions, at) });
    // An index on a temporary view is temporary too, as in Materialize: it vanishes with the
    // request before the data plane could build it, so it is planned and never committed.
    if (this.ws.isTemporary(on.id)) this.ws.createTemporary(index);
    else this.ws.create(index);
    return this.write('CREATE INDEX', notices);
  }

  // ---- DROP ------------------------------------------------------------------------------------

  private drop(s: S<'drop'>, at: number): StatementPlan {
    const notices: string[] = [];
    const tag = `DROP ${s.objectType.toUpperCase()}`;
    // Databases drop their contents unless RESTRICT (Materialize's default); everything else restricts.
    const cascade = s.cascade || (s.objectType === 'database' && !s.restrict);
    for (const name of s.names) {
      if (s.objectType === 'schema' && name.length === 1 && name[0] === 'mz_temp') {
        throw mz.DropTemporarySchema().at(at);
      }
      if (s.objectType === 'schema' && name.length === 1 && SYSTEM_SCHEMAS.has(name[0]!)) {
        throw mz.DropSystemObject('schema', name[0]!).at(at);
      }
      if ((s.objectType === 'cluster' || s.objectType === 'cluster replica') && SYSTEM_CLUSTERS.has(name[0]!)) {
        throw notOwner(s.objectType.toUpperCase(), name.join('.'), at);
      }
      if (name.length >= 2 && SYSTEM_SCHEMAS.has(name[name.length - 2]!)) {
        throw mz.DropSystemObject(s.objectType, name.join('.')).at(at);
      }
      if (s.objectType === 'type' && builtinTypeName(name)) {
        // Built-in types come first on the search path: `bool` is pg_catalog's even when public.bool exists.
        throw mz.DropSystemObject('type', name.join('.')).at(at);
      }
      const target = this.findForDropIfExists(s, name, at);
      if (!target) {
        if (s.ifExists) {
          notices.push(`${s.objectType} "${name.join('.')}" does not exist, skipping`);
          continue;
        }
        throw s.objectType === 'cluster'
          ? unknownCluster(name[0]!, at)
          : s.objectType === 'cluster replica'
            ? this.view().cluster(name[0]!)
              ? mz.NoClusterReplicaNamed(name[0]!, name[1]!).at(at)
              : unknownCluster(name[0]!, at)
            : s.objectType === 'database'
              ? unknownDatabase(name[0]!, at)
              : s.objectType === 'schema'
                ? unknownSchema(name[name.length - 1]!, at)
                : unknownItem(name, at);
      }
      if (s.objectType === 'view' && target.kind === 'materialized_view') {
        throw mz.DropViewOnMaterializedView(this.minimal(target)).at(at);
      }
      if (!KINDS_OF_TYPE[s.objectType].includes(target.kind)) throw wrongType(target, s.objectType, at);
      // Materialize's RESTRICT checks on containers, in its words, before any dependents are listed.
      if (target.kind === 'database' && !cascade && this.view().ofKind('schema').some((x) => x.spec.databaseId === target.id)) {
        throw mz.DatabaseNotEmpty(target.name).at(at);
      }
      if (target.kind === 'schema' && !cascade && this.view().items().some((x) => x.spec.schemaId === target.id)) {
        throw mz.SchemaNotEmpty(this.view().qualifiedName(target).join('.')).at(at);
      }
      if (target.kind === 'cluster_replica') {
        const cluster = this.view().get(target.spec.clusterId) as ClusterObject | undefined;
        if (cluster?.spec.managed) {
          throw mz.DropReplicaOfManagedCluster().with({ hint: `Use ALTER CLUSTER ${cluster.name} SET (REPLICATION FACTOR = ...) to change the replica count of a managed cluster.` }).at(at);
        }
        if (cluster) this.ws.touch(cluster.id);
      }
      // As in Materialize, a subsource goes on its own (the way to stop ingesting one upstream
      // table): its source's ingestion is ensured again at a new generation, without the export.
      if (target.kind === 'subsource') this.ws.update(target.spec.sourceId, (x) => x, true);
      const doomed = this.dropClosure(target, cascade, at);
      // Materialize checks ownership once the plan stands (of what was named, not of what cascades).
      requireOwner(this.view(), target, at, this.actor);
      for (const id of doomed) this.ws.drop(id);
    }
    return this.write(tag, notices);
  }

  /** With IF EXISTS, a name whose schema or database is missing names nothing (Materialize's notice, not an error). */
  private findForDropIfExists(s: S<'drop'>, name: ObjectName, at: number): CatalogObject | undefined {
    try {
      return this.findForDrop(s.objectType, name, at);
    } catch (e) {
      if (s.ifExists && e instanceof PlanError && (e.code === SQLSTATE.undefinedObject || e.code === SQLSTATE.invalidSchemaName)) return undefined;
      throw e;
    }
  }

  private findForDrop(type: S<'drop'>['objectType'], name: ObjectName, at: number): CatalogObject | undefined {
    const view = this.view();
    switch (type) {
      case 'cluster':
        return view.cluster(name[0]!);
      case 'cluster replica': {
        const cluster = view.cluster(name[0]!);
        return cluster ? view.replicas(cluster.id).find((r) => r.name === name[1]) : undefined;
      }
      case 'database':
        return view.database(name[0]!);
      case 'schema': {
        const [dbName, schemaName] = name.length === 2 ? [name[0]!, name[1]!] : [this.scope().database, name[0]!];
        const db = view.database(dbName);
        return db ? view.schema(db.id, schemaName) : undefined;
      }
      default:
        return findItem(view, name, at, this.scope());
    }
  }

  /** Everything a drop takes: owned parts always; dependents only with CASCADE (else 2BP01). */
  private dropClosure(root: CatalogObject, cascade: boolean, at: number): string[] {
    const view = this.view();
    const order: string[] = [];
    const seen = new Set<string>();
    // Default privileges and memberships naming an object go with it; they never keep it.
    const owned = (o: CatalogObject): CatalogObject[] => [
      ...(o.kind === 'cluster' ? view.replicas(o.id) : o.kind === 'source' ? view.ofKind('subsource').filter((s) => s.spec.sourceId === o.id) : []),
      ...view.dependentsOf(o.id).filter((d) => PASSENGER_KINDS.has(d.kind)),
    ];
    const visit = (o: CatalogObject, isRoot: boolean) => {
      if (seen.has(o.id)) return;
      seen.add(o.id);
      const parts = owned(o);
      const dependents = [...view.dependentsOf(o.id), ...parts.flatMap((p) => view.dependentsOf(p.id))].filter((d) => !parts.some((p) => p.id === d.id));
      // As in Materialize, an item's indexes go with it without CASCADE (its
      // dependency_prevents_drop); a cluster, schema or database keeps them as contents.
      const blocking = CONTAINER_KINDS.has(o.kind) ? dependents : dependents.filter((d) => d.kind !== 'index' || d.spec.onId !== o.id);
      if (blocking.length && !cascade) {
        // Materialize's wording: names minimally qualified and quoted; a cluster, schema or
        // database does not list what depends on it.
        // A type named like a built-in one keeps its schema (`public.bool`): unqualified, the name means the built-in.
        const minimal = (x: CatalogObject) => {
          const q = view.qualifiedName(x);
          return x.kind === 'type' && builtinTypeName([x.name]) ? q.slice(q[0] === this.scope().database ? 1 : 0).join('.') : minimalName(view, x, this.scope());
        };
        // Materialize's item types: a subsource is a source there.
        const label = (x: CatalogObject) => (x.kind === 'subsource' ? 'source' : KIND_LABEL[x.kind]);
        // plan_drop_item names the first dependent that prevents the drop; a cluster, schema or
        // database names none.
        const first = blocking[0]!;
        const dependents: [string, string][] = CONTAINER_KINDS.has(o.kind) ? [] : [[label(first), minimal(first)]];
        throw mz.DependentObjectsStillExist(isRoot ? label(o) : `${label(o)} dependency`, minimal(o), dependents).at(at);
      }
      for (const d of dependents) visit(d, false);
      for (const p of parts) visit(p, false);
      order.push(o.id);
    };
    visit(root, true);
    return order;
  }

  // ---- ALTER -----------------------------------------------------------------------------------

  /** The object an ALTER changes (or SHOW CREATE reads, which needs no ownership: `owned` false). */
  private findForAlter(type: S<'alter_rename'>['objectType'], name: ObjectName, ifExists: boolean, at: number, owned = true): CatalogObject | undefined {
    const o = this.findForDrop(type, name, at);
    if (!o) {
      if ((type === 'cluster' || type === 'cluster replica') && SYSTEM_CLUSTERS.has(name[0]!)) throw notOwner(type.toUpperCase(), name.join('.'), at);
      if (ifExists) return undefined;
      if (type === 'cluster replica' && this.view().cluster(name[0]!)) throw mz.NoClusterReplicaNamed(name[0]!, name[1]!).at(at);
      throw type === 'cluster' || type === 'cluster replica'
        ? unknownCluster(name[0]!, at)
        : type === 'database'
          ? unknownDatabase(name[0]!, at)
          : type === 'schema'
            ? unknownSchema(name[name.length - 1]!, at)
            : unknownItem(name, at);
    }
    if (!KINDS_OF_TYPE[type].includes(o.kind)) throw wrongType(o, type, at);
    if (owned) requireOwner(this.view(), o, at, this.actor);
    return o;
  }

  /**
   * `ALTER <type> ... RENAME TO`, with Materialize's rules per kind (plan_alter_object_rename and
   * the catalog's Op::Rename*): an item's new name must be free among the items and types of its
   * schema; a cluster's and a replica's are checked by the catalog (reserved prefixes, then its
   * uniqueness), a replica of a managed cluster is the system's; a schema keeps the system's
   * prefixes and names. What names the renamed object is rewritten as Materialize rewrites
   * it (renameReferences), or the rename is refused where that would be ambiguous.
   */
  private alterRename(s: S<'alter_rename'>, at: number): StatementPlan {
    const tag = `ALTER ${s.objectType.toUpperCase()}`;
    const skip = () => this.write(tag, [`${s.objectType} "${s.name.join('.')}" does not exist, skipping`]);
    const view = this.view();
    if (s.objectType === 'schema') return this.renameSchema(s, at);
    if (s.objectType === 'cluster replica') {
      const cluster = view.cluster(s.name[0]!);
      if (!cluster) {
        if (SYSTEM_CLUSTERS.has(s.name[0]!)) throw notOwner('CLUSTER REPLICA', s.name.join('.'), at);
        if (s.ifExists) return skip();
        throw unknownCluster(s.name[0]!, at);
      }
      const replica = view.replicas(cluster.id).find((r) => r.name === s.name[1]);
      if (!replica) {
        if (s.ifExists) return skip();
        throw mz.NoClusterReplicaNamed(cluster.name, s.name[1]!).at(at);
      }
      if (cluster.spec.managed) throw mz.ManagedCluster(cluster.name).at(at);
      requireOwner(view, replica, at, this.actor);
      validateName(s.newName, at, 'cluster replica');
      checkReplicaName(s.newName, at);
      if (view.replicas(cluster.id).some((r) => r.name === s.newName && r.id !== replica.id)) throw mz.UniquenessViolation().at(at);
      this.ws.update(replica.id, (x) => ({ ...x, name: s.newName }) as CatalogObject, false);
      return this.write(tag);
    }
    if (s.objectType === 'cluster') {
      const o = this.findForAlter('cluster', s.name, s.ifExists, at);
      if (!o) return skip();
      validateName(s.newName, at, 'cluster');
      if (RESERVED_PREFIXES.some((p) => s.newName.startsWith(p))) throw mz.ReservedClusterName(s.newName).at(at);
      if (o.name !== s.newName && view.cluster(s.newName)) throw mz.UniquenessViolation().at(at);
      this.ws.update(o.id, (x) => ({ ...x, name: s.newName }) as CatalogObject, false);
      return this.write(tag);
    }
    // An item: plan_alter_item_rename, then the catalog's rename of it and of what names it.
    const found = this.findForDrop(s.objectType, s.name, at);
    if (!found) {
      if (s.ifExists) return skip();
      throw s.objectType === 'database' ? unknownDatabase(s.name[0]!, at) : unknownItem(s.name, at);
    }
    const minimal = minimalName(view, found, this.scope());
    if (s.objectType === 'view' && found.kind === 'materialized_view') throw mz.AlterViewOnMaterializedView(minimal).at(at);
    if (!KINDS_OF_TYPE[s.objectType].includes(found.kind)) throw mz.MismatchedObjectType(minimal, mzItemType(found), s.objectType).at(at);
    validateName(s.newName, at, KIND_LABEL[found.kind]);
    if (this.nameTaken(found, s.newName)) throw mz.CatalogItemAlreadyExists(s.newName).at(at);
    requireOwner(view, found, at, this.actor);
    this.renameReferences(found, s.newName, at);
    return this.write(tag);
  }

  /**
   * The catalog's Op::RenameItem: the item takes its new name in its own definition, and every
   * item that names it has the name rewritten (a view's or materialized view's body, an index's
   * ON, a sink's FROM, a replacement's FOR), as Materialize rewrites their create_sql; a body in
   * which the rename would be ambiguous refuses it, naming the definition and what it uses.
   */
  private renameReferences(item: CatalogObject, to: string, at: number): void {
    const view = this.view();
    const full = (o: CatalogObject) => view.qualifiedName(o).join('.');
    const [database, schema, name] = view.qualifiedName(item);
    const from = { database: database!, schema: schema!, item: name! };
    const rewrite = (o: CatalogObject, self: boolean) => {
      const created = o.kind === 'cluster' || o.kind === 'cluster_replica' ? undefined : (o.spec as { createSql?: string }).createSql;
      const statement = created ? parse(created)[0]?.statement : undefined;
      if (!statement) return;
      let next: Statement = statement;
      if (self && next.kind === 'create_index') next = { ...next, name: to };
      else if (self && 'name' in next && Array.isArray(next.name)) next = { ...next, name: [...next.name.slice(0, -1), to] } as Statement;
      const renamedAt = (n: ObjectName) => findItem(view, n, at, this.scope())?.id === item.id;
      const renamed = (n: ObjectName) => [...n.slice(0, -1), to];
      let query: string | undefined;
      if (next.kind === 'create_view' || next.kind === 'create_materialized_view') {
        const r = this.occasional().renameItemInQuery(next.query, from, to, (n) => this.fullName(n, at));
        if (!r.ok) throw mz.AmbiguousRename(full(o), full(item), r.message).at(at);
        query = r.text;
        next = { ...next, query: r.text };
        if (next.kind === 'create_materialized_view' && next.replacementFor && renamedAt(next.replacementFor.name)) {
          next = { ...next, replacementFor: { ...next.replacementFor, name: renamed(next.replacementFor.name) } };
        }
      } else if (next.kind === 'create_index' && renamedAt(next.on)) {
        next = { ...next, on: renamed(next.on) };
      } else if (next.kind === 'create_sink' && renamedAt(next.from)) {
        next = { ...next, from: renamed(next.from) };
      }
      if (next === statement) return;
      const createSql = print(next);
      updates.push({ id: o.id, spec: { createSql, ...(query !== undefined ? { query } : {}) } });
    };
    // Materialize checks the item's own definition (with its old name) first, then its dependents',
    // all against the catalog as it was; the changes are made once every one is known.
    const updates: { id: string; spec: { createSql: string; query?: string } }[] = [];
    rewrite(item, true);
    for (const d of view.dependentsOf(item.id)) if (isItemKind(d.kind)) rewrite(d, false);
    this.ws.update(item.id, (x) => ({ ...x, name: to }) as CatalogObject, false);
    for (const u of updates) this.ws.update(u.id, (x) => ({ ...x, spec: { ...x.spec, ...u.spec } }) as CatalogObject, false);
  }

  /** A name as the catalog resolves it: database, schema, item (system relations are in no database). */
  private fullName(n: ObjectName, at: number): { database: string; schema: string; item: string } | undefined {
    if (isSystemRelation(n)) return { database: '', schema: n.length >= 2 ? n[n.length - 2]! : 'mz_catalog', item: n[n.length - 1]! };
    let found: ItemObject | undefined;
    try {
      found = findItem(this.view(), n, at, this.scope());
    } catch {
      return undefined;
    }
    if (!found) return undefined;
    const [database, schema, item] = this.view().qualifiedName(found);
    return { database: database!, schema: schema!, item: item! };
  }

  /**
   * `ALTER SCHEMA s RENAME TO t` (plan_alter_schema_rename, then the catalog's Op::RenameSchema):
   * the new name must be free in the database and not a system one; the system's schemas keep
   * theirs. Every item of the schema, and what uses them, has the schema renamed where its
   * definition names it, or refuses a column qualified by schema and item but no database.
   */
  private renameSchema(s: S<'alter_rename'>, at: number): StatementPlan {
    if (s.name.length === 1 && s.name[0] === TEMP_SCHEMA) throw mz.AmbientSchemaRename(TEMP_SCHEMA).at(at);
    const view = this.view();
    const [dbName, schemaName] = s.name.length === 2 ? [s.name[0]!, s.name[1]!] : [this.scope().database, s.name[0]!];
    if (s.name.length === 1 && SYSTEM_SCHEMAS.has(schemaName)) throw mz.RenameSystemSchema(schemaName).at(at);
    const db = view.database(dbName);
    const schema = db ? view.schema(db.id, schemaName) : undefined;
    if (!schema) {
      if (s.ifExists) return this.write('ALTER SCHEMA', [`schema "${s.name.join('.')}" does not exist, skipping`]);
      throw db ? unknownSchema(schemaName, at) : unknownDatabase(dbName, at);
    }
    if (view.schema(db!.id, s.newName)) throw mz.SchemaAlreadyExists(s.newName).at(at);
    requireOwner(view, schema, at, this.actor);
    validateName(s.newName, at, 'schema');
    if (RESERVED_PREFIXES.some((p) => s.newName.startsWith(p))) throw mz.ReservedSchemaName(s.newName).at(at);
    this.renameSchemaReferences(schema, db!.name, s.newName, at);
    this.ws.update(schema.id, (x) => ({ ...x, name: s.newName }) as CatalogObject, false);
    return this.write('ALTER SCHEMA');
  }

  private renameSchemaReferences(schema: ObjectOf<'schema'>, database: string, to: string, at: number): void {
    const view = this.view();
    const items = view.items().filter((i) => i.spec.schemaId === schema.id);
    const touched = new Set<string>();
    for (const o of [...items, ...items.flatMap((i) => view.dependentsOf(i.id))]) {
      if (touched.has(o.id) || !isItemKind(o.kind)) continue;
      touched.add(o.id);
      const created = (o.spec as { createSql?: string }).createSql;
      const statement = created ? parse(created)[0]?.statement : undefined;
      if (statement?.kind !== 'create_view' && statement?.kind !== 'create_materialized_view') continue;
      const r = this.occasional().renameSchemaInQuery(statement.query, database, schema.name, to, (n) => this.fullName(n, at));
      if (!r.ok) throw mz.AmbiguousRename(view.qualifiedName(o).join('.'), `${database}.${schema.name}`, r.message).at(at);
      if (r.text === statement.query) continue;
      const createSql = print({ ...statement, query: r.text });
      this.ws.update(o.id, (x) => ({ ...x, spec: { ...x.spec, createSql, query: r.text } }) as CatalogObject, false);
    }
  }

  private nameTaken(o: CatalogObject, name: string): boolean {
    const view = this.view();
    if (isItemKind(o.kind)) return view.item((o.spec as { schemaId: string }).schemaId, name) !== undefined;
    switch (o.kind) {
      case 'cluster':
        return view.cluster(name) !== undefined;
      case 'cluster_replica':
        return view.replicas(o.spec.clusterId).some((r) => r.name === name);
      case 'database':
        return view.database(name) !== undefined;
      case 'schema':
        return view.schema(o.spec.databaseId, name) !== undefined;
    }
    return false;
  }

  private alterOwner(s: S<'alter_owner'>, at: number): StatementPlan {
    const tag = `ALTER ${s.objectType.toUpperCase()}`;
    // A replica's owner is its cluster's; Materialize refuses this before it looks the replica up.
    if (s.objectType === 'cluster replica') throw new NotSupportedError('altering the owner of a cluster replica is not supported', { position: at });
    // Materialize resolves the new owner's name before the object's.
    resolveRole(this.view(), s.owner, at);
    const o = this.findForAlter(s.objectType, s.name, s.ifExists, at);
    if (!o) return this.write(tag, [`${s.objectType} "${s.name.join('.')}" does not exist, skipping`]);
    return this.write(tag, this.access.alterOwner(o, s.owner, at).notices);
  }

  /**
   * `DROP OWNED BY r, ...`: drops what the roles own (RESTRICT, the default, refuses when an object
   * they do not own depends on it), revokes the privileges granted to them and drops the default
   * privileges that name them (Materialize's plan_drop_owned).
   */
  private dropOwned(s: S<'drop_owned'>, at: number): StatementPlan {
    const view = this.view();
    const roles = s.roles.map((n) => resolveRole(view, n, at));
    const held = roleMembership(view, this.actor.id);
    const missing = this.actor.superuser ? [] : roles.filter((r) => !held.has(r.id));
    if (missing.length) throw new PlanError(`must be a member of ${missing.map((r) => `"${r.name}"`).join(', ')}`, { code: SQLSTATE.insufficientPrivilege, position: at });
    for (const r of roles) if (r.builtin) throw new PlanError(`role name "${r.name}" is reserved`, { code: SQLSTATE.reservedName, position: at });
    const ids = new Set(roles.map((r) => r.id));
    const owned = ownedBy(view, ids);
    const ownedIds = new Set(owned.map((o) => o.id));
    const full = (o: CatalogObject) => `"${view.qualifiedName(o).join('.')}"`;
    if (!s.cascade) {
      for (const o of owned) {
        if (o.kind === 'cluster') {
          const bound = view.items().filter((i) => (i.spec as { clusterId?: string }).clusterId === o.id && !ownedIds.has(i.id));
          if (bound.length) throw stillDepended('cluster', `"${o.name}"`, bound.map((b) => `${KIND_LABEL[b.kind]} ${full(b)}`), at);
        } else if (o.kind === 'schema') {
          if (view.items().some((i) => i.spec.schemaId === o.id && !ownedIds.has(i.id))) {
            throw new PlanError(`schema "${view.qualifiedName(o).join('.')}" cannot be dropped without CASCADE while it contains non-owned objects`, { code: SQLSTATE.dependentObjectsStillExist, position: at });
          }
        } else if (o.kind === 'database') {
          if (view.ofKind('schema').some((x) => x.spec.databaseId === o.id && !ownedIds.has(x.id))) {
            throw new PlanError(`database "${o.name}" cannot be dropped without CASCADE while it contains non-owned schemas`, { code: SQLSTATE.dependentObjectsStillExist, position: at });
          }
        } else if (o.kind !== 'cluster_replica') {
          const users = view.dependentsOf(o.id).filter((d) => !ownedIds.has(d.id) && !PASSENGER_KINDS.has(d.kind) && !(d.kind === 'index' && d.spec.onId === o.id));
          if (users.length) throw stillDepended(KIND_LABEL[o.kind], full(o), users.map((d) => `${KIND_LABEL[d.kind]} ${full(d)}`), at);
        }
      }
    }
    for (const o of owned) for (const id of this.dropClosure(o, true, at)) this.ws.drop(id);
    for (const o of this.view().all()) {
      if (!o.privileges || !o.privileges.some((a) => ids.has(a.grantee))) continue;
      let acl = aclOf(this.view(), o);
      for (const a of acl) if (ids.has(a.grantee)) acl = revokeAcl(acl, a.grantee, a.grantor, a.privileges);
      this.ws.update(o.id, (x) => ({ ...x, privileges: acl }) as CatalogObject, false);
    }
    for (const d of this.view().ofKind('default_privilege')) if (ids.has(d.spec.roleId) || ids.has(d.spec.grantee)) this.ws.drop(d.id);
    return this.write('DROP OWNED');
  }

  private alterSetCluster(s: S<'alter_set_cluster'>, at: number): StatementPlan {
    const tag = `ALTER ${s.objectType.toUpperCase()}`;
    const o = this.findForAlter(s.objectType, s.name, s.ifExists, at);
    if (!o) return this.write(tag, [`${s.objectType} "${s.name.join('.')}" does not exist, skipping`]);
    if (!['source', 'sink', 'materialized_view', 'index'].includes(o.kind)) {
      throw new NotSupportedError(`ALTER ${s.objectType.toUpperCase()} ... SET CLUSTER is not supported for a ${KIND_LABEL[o.kind]}`, { position: at });
    }
    const cluster = this.cluster(s.cluster, at);
    const spec = o.spec as { clusterId: string };
    if (spec.clusterId === cluster.id) return this.write(tag);
    this.ws.update(
      o.id,
      (x) => ({ ...x, dependsOn: [...x.dependsOn.filter((d) => d !== spec.clusterId), cluster.id], spec: { ...(x.spec as object), clusterId: cluster.id } }) as unknown as CatalogObject,
      true,
    );
    if (o.kind === 'source') this.reensureTablesOf(o.id);
    return this.write(tag);
  }

  /**
   * `ALTER CLUSTER | SCHEMA a SWAP WITH b` (plan_alter_object_swap): three renames in one commit,
   * a to a temporary name, b to a's, a to b's, each with the catalog's rewrite of the definitions
   * that name a schema. The ambient and the system's schemas do not swap.
   */
  private alterSwap(s: S<'alter_swap'>, at: number): StatementPlan {
    const tag = `ALTER ${s.objectType.toUpperCase()}`;
    if (s.objectType === 'schema' && ((s.name.length === 1 && s.name[0] === TEMP_SCHEMA) || s.other === TEMP_SCHEMA)) throw mz.SwapAmbientSchema().at(at);
    if (s.objectType === 'schema' && s.name.length === 1 && SYSTEM_SCHEMAS.has(s.name[0]!)) throw mz.SwapAmbientSchema().at(at);
    const a = this.findForAlter(s.objectType, s.name, false, at, false)!;
    const otherName = [...s.name.slice(0, -1), s.other];
    const b = this.findForAlter(s.objectType, otherName, false, at, false)!;
    requireOwner(this.view(), a, at, this.actor);
    requireOwner(this.view(), b, at, this.actor);
    const [an, bn] = [a.name, b.name];
    if (a.kind === 'schema' && b.kind === 'schema') {
      const database = this.view().get(a.spec.databaseId)?.name ?? DEFAULT_DATABASE;
      const temp = `mz_schema_swap_${a.id}`;
      const step = (o: ObjectOf<'schema'>, to: string) => {
        this.renameSchemaReferences(this.ws.get(o.id) as ObjectOf<'schema'>, database, to, at);
        this.ws.update(o.id, (x) => ({ ...x, name: to }) as CatalogObject, false);
      };
      step(a, temp);
      step(b, an);
      step(a, bn);
      return this.write(tag);
    }
    this.ws.update(a.id, (x) => ({ ...x, name: bn }) as CatalogObject, false);
    this.ws.update(b.id, (x) => ({ ...x, name: an }) as CatalogObject, false);
    return this.write(tag);
  }

  /**
   * A new generation of the source or sink, nothing else: its effects re-ensure the ingestion or
   * export at that generation, which the data plane starts again. `failed` is sticky within a
   * generation, so this is the way out of it without a drop and recreate.
   */
  private alterRestart(s: S<'alter_restart'>, at: number): StatementPlan {
    const tag = `ALTER ${s.objectType.toUpperCase()}`;
    const o = this.findForAlter(s.objectType, s.name, s.ifExists, at);
    if (!o) return this.write(tag, [`${s.objectType} "${s.name.join('.')}" does not exist, skipping`]);
    if (o.kind !== 'source' && o.kind !== 'sink') {
      throw new NotSupportedError(`ALTER ${s.objectType.toUpperCase()} ... RESTART is not supported for a ${KIND_LABEL[o.kind]}`, { position: at });
    }
    this.ws.update(o.id, (x) => x, true);
    return this.write(tag);
  }

  /**
   * `ALTER SOURCE ... ADD SUBSOURCE` / `REFRESH REFERENCES` / `SET | RESET (TIMESTAMP INTERVAL)`,
   * with Materialize's messages. A new subsource is a new export of the source's ingestion: the
   * subsource's collection is ensured and the source is a new generation (its ingestion ensured
   * again with the new exports' TEXT / EXCLUDE COLUMNS). We keep no list of upstream references
   * (`mz_source_references`), so REFRESH REFERENCES has nothing to refresh and changes nothing.
   */
  private alterSource(s: S<'alter_source'>, at: number): StatementPlan {
    const tag = 'ALTER SOURCE';
    const o = this.findForAlter('source', s.name, s.ifExists, at);
    if (!o) return this.write(tag, [`source "${s.name.join('.')}" does not exist, skipping`]);
    const full = this.view().qualifiedName(o).join('.');
    if (o.kind !== 'source') throw new PlanError(`"${full}" is a ${KIND_LABEL[o.kind]} not a source`, { code: SQLSTATE.internalError, position: at });
    const source = o as ObjectOf<'source'>;
    const a = s.action;
    if (a.kind === 'refresh_references') return this.write(tag);
    if (a.kind === 'set_options' || a.kind === 'reset_options') {
      const names = a.kind === 'set_options' ? a.options.map((x) => x.name) : a.names;
      for (const only of ['RETAIN HISTORY', 'TIMESTAMP INTERVAL']) {
        if (names.includes(only) && names.length > 1) throw new PlanError(`${only} must be only option`, { code: SQLSTATE.internalError, position: at });
      }
      const given = a.kind === 'set_options' ? a.options[0] : undefined;
      let value: string | undefined;
      if (given) {
        const micros = given.value.kind === 'string' || given.value.kind === 'number' ? intervalMicros(given.value) : undefined;
        if (micros === undefined) throw new PlanError('TIMESTAMP INTERVAL requires an interval value', { code: SQLSTATE.internalError, position: given.position });
        const ms = Math.round(micros / 1000);
        if (ms !== TIMESTAMP_INTERVAL_MS) {
          throw new PlanError(`invalid timestamp interval of ${ms}ms, must be in the range [${TIMESTAMP_INTERVAL_MS}ms, ${TIMESTAMP_INTERVAL_MS}ms]`, { code: SQLSTATE.internalError, position: given.position });
        }
        value = optionString(given.value);
      }
      if (value === source.spec.options['TIMESTAMP INTERVAL']) return this.write(tag);
      this.ws.update(o.id, (x) => {
        const spec = (x as ObjectOf<'source'>).spec;
        const options = { ...spec.options };
        if (value === undefined) delete options['TIMESTAMP INTERVAL'];
        else options['TIMESTAMP INTERVAL'] = value;
        return { ...x, spec: { ...spec, options } } as CatalogObject;
      }, true);
      this.reensureTablesOf(o.id);
      return this.write(tag);
    }
    if (!sourceOf(source.spec.sourceType) || !('upstreamTables' in sourceOf(source.spec.sourceType)!.source)) {
      throw new PlanError(`source ${this.minimal(o)} does not support ALTER SOURCE.`, { code: SQLSTATE.internalError, position: at });
    }
    const existing = this.view().ofKind('subsource').filter((x) => x.spec.sourceId === o.id);
    const exported = new Set(existing.map((x) => x.spec.reference));
    const qualifier = s.name.slice(0, -1);
    for (const r of a.references) {
      const reference = r.reference.join('.');
      if (exported.has(reference)) {
        throw new PlanError(`another subsource of source ${this.minimal(o)} already refers to ${reference}`, { code: SQLSTATE.duplicateObject, position: at });
      }
      exported.add(reference);
      this.createSubsource(r.alias ?? [...qualifier, r.reference[r.reference.length - 1]!], o.id, reference, at, 'Name the subsource with AS.');
    }
    // The new exports' TEXT COLUMNS / EXCLUDE COLUMNS join the source's; the ingestion runs again with them.
    this.ws.update(o.id, (x) => {
      const spec = (x as ObjectOf<'source'>).spec;
      const options = { ...spec.options };
      for (const opt of a.options) {
        const v = optionString(opt.value) ?? '';
        options[opt.name] = options[opt.name] ? `${options[opt.name]}, ${v}` : v;
      }
      return { ...x, spec: { ...spec, options } } as CatalogObject;
    }, true);
    if (a.options.length) this.reensureTablesOf(o.id);
    return this.write(tag);
  }

  /**
   * `ALTER ... SET (RETAIN HISTORY FOR '<interval>')` / `RESET (RETAIN HISTORY)`: the object's
   * history window, which is its read policy's lag on the data plane, so the object's resources
   * are ensured again at a new generation with it.
   */
  private alterRetainHistory(s: S<'alter_retain_history'>, at: number): StatementPlan {
    const tag = `ALTER ${s.objectType.toUpperCase()}`;
    const o = this.findForAlter(s.objectType, s.name, s.ifExists, at);
    if (!o) return this.write(tag, [`${s.objectType} "${s.name.join('.')}" does not exist, skipping`]);
    const source = o.kind === 'source' ? sourceOf(o.spec.sourceType)?.source : undefined;
    if (o.kind === 'source' && source && 'retainHistory' in source && !source.retainHistory) {
      // Materialize's webhook definitions take no WITH options, so its ALTER cannot record a
      // window there (it fails with an internal error); one SHOW CREATE could not show is refused.
      throw new PlanError(`${o.spec.sourceType} source ${this.view().qualifiedName(o).join('.')} does not support RETAIN HISTORY`, {
        code: SQLSTATE.internalError,
        position: at,
        hint: 'A webhook source keeps the default history (1 s).',
      });
    }
    const window = retention(s.option ? [s.option] : [], at);
    this.ws.update(o.id, (x) => {
      const { retainHistoryMs: _old, ...spec } = x.spec as { retainHistoryMs?: number; createSql: string };
      return { ...x, spec: { ...spec, createSql: withRetainHistory(spec.createSql, s.option), ...window } } as CatalogObject;
    }, true);
    return this.write(tag);
  }

  /**
   * `ALTER TABLE ... ADD COLUMN`: Materialize's rules (nullable, no default; a table fed by a
   * source takes its columns from upstream). A catalog change only: the data-plane contract's
   * collection carries no relation description, so the collection is not ensured again (the
   * generation stays); views built on the table keep the columns they were planned with.
   */
  private alterTableAddColumn(s: S<'alter_table_add_column'>, at: number): StatementPlan {
    const o = this.findForAlter('table', s.name, s.ifExists, at);
    if (!o) return this.write('ALTER TABLE', [`table "${s.name.join('.')}" does not exist, skipping`]);
    if (o.kind !== 'table') throw wrongType(o, 'table', at);
    if (o.spec.fromSource) {
      throw new NotSupportedError(`adding columns to a table fed by a source is not supported: ${o.name} takes its columns from upstream`, { position: at });
    }
    if (o.spec.webhook) {
      throw new NotSupportedError(`adding columns to a table fed by a webhook is not supported: ${o.name} takes its columns from the webhook's requests`, { position: at });
    }
    if (o.spec.columns.some((c) => c.name === s.column)) {
      const message = `column "${s.column}" of relation "${o.name}" already exists`;
      if (s.ifColumnNotExists) return this.write('ALTER TABLE', [`${message}, skipping`]);
      throw new PlanError(message, { code: SQLSTATE.duplicateColumn, position: s.columnPosition });
    }
    validateName(s.column, s.columnPosition, 'column');
    const typeIds = resolveColumnType(this.view(), s.type, s.columnPosition, this.scope());
    const created = parse(o.spec.createSql)[0]?.statement;
    if (created?.kind !== 'create_table') throw new Error(`table ${o.id} has no CREATE TABLE definition`);
    const createSql = print({ ...created, columns: [...created.columns, { name: s.column, type: s.type, notNull: false }] });
    const column = { name: s.column, type: columnTypeText(s.type), notNull: false };
    this.ws.update(
      o.id,
      (x) => ({ ...x, dependsOn: [...new Set([...x.dependsOn, ...typeIds])], spec: { ...(x.spec as ObjectSpec['table']), createSql, columns: [...(x.spec as ObjectSpec['table']).columns, column] } }) as CatalogObject,
      false,
    );
    return this.write('ALTER TABLE');
  }

  /**
   * `ALTER SINK s SET FROM relation` (dbt's blue/green deploys): Materialize plans the sink's
   * definition again with the new relation (plan_alter_sink), so the same checks hold; the export
   * is ensured again at a new generation, reading the new relation.
   */
  private alterSinkFrom(s: S<'alter_sink_from'>, at: number): StatementPlan {
    const o = this.findForAlter('sink', s.name, s.ifExists, at);
    if (!o) return this.write('ALTER SINK', [`sink "${s.name.join('.')}" does not exist, skipping`]);
    const sink = o as ObjectOf<'sink'>;
    const created = parse(sink.spec.createSql)[0]?.statement;
    if (created?.kind !== 'create_sink') throw new PlanError(`sink ${sink.name} has no definition to alter`, { code: SQLSTATE.internalError, position: at });
    refuseSystemSinkInput(s.from, s.fromPosition);
    const found = findItem(this.view(), s.from, s.fromPosition, this.scope());
    if (!found) throw unknownItem(s.from, s.fromPosition);
    checkSinkInput(this.view(), found, s.fromPosition, this.scope());
    const statement = { ...created, from: s.from };
    checkSinkOptions(statement, at);
    if (found.kind === 'table' && !found.spec.fromSource && !found.spec.webhook) checkSinkColumns(statement, found.spec.columns, (type) => this.mapValueType(type, at), at);
    if (found.id === sink.spec.fromId) return this.write('ALTER SINK');
    this.ws.update(
      o.id,
      (x) => ({ ...x, dependsOn: [...x.dependsOn.filter((d) => d !== sink.spec.fromId), found.id], spec: { ...(x.spec as ObjectSpec['sink']), fromId: found.id, createSql: print(statement) } }) as CatalogObject,
      true,
    );
    return this.write('ALTER SINK');
  }

  // ---- COMMENT ON ------------------------------------------------------------------------------

  /**
   * A comment is catalog metadata only: the object's item changes (no new generation, no
   * effect), and `mz_internal.mz_comments` shows it. Materialize's checks and wording.
   */
  /**
   * `COMMENT ON <type> name IS '...' | NULL` (Materialize's plan_comment): at most 1 024 bytes; an
   * object of the type named (else `TABLE t is not a VIEW`, its InvalidObjectType); a column of
   * a relation whose columns the catalog knows (a table's, a view's or materialized view's whose
   * body it read, a record type's fields). A comment is the owner's to set.
   */
  private comment(s: S<'comment'>): StatementPlan {
    const at = s.namePosition;
    // Name resolution (the object, a column's relation and column) comes before plan_comment's checks.
    const tooLong = () => {
      if (s.comment !== null && Buffer.byteLength(s.comment) > MAX_COMMENT_BYTES) throw mz.CommentTooLong(Buffer.byteLength(s.comment), MAX_COMMENT_BYTES).at(at);
    };
    if (s.objectType === 'role' || s.objectType === 'network policy') {
      const o = s.objectType === 'role' ? this.access.commentableRole(s.name[0]!, at) : this.access.ownedNetworkPolicy(s.name[0]!, at);
      tooLong();
      this.ws.update(o.id, (x) => withComment(x, s.comment), false);
      return this.write('COMMENT');
    }
    const view = this.view();
    if (s.objectType === 'column') {
      const rel = findItem(view, s.name, at, this.scope());
      if (!rel) throw unknownItem(s.name, at);
      const full = view.qualifiedName(rel).join('.');
      const columns = knownColumns(rel);
      if (!columns) {
        if (rel.kind === 'source' || rel.kind === 'subsource' || rel.kind === 'view' || rel.kind === 'materialized_view') {
          throw new NotSupportedError(`COMMENT ON COLUMN is not supported for this ${KIND_LABEL[rel.kind]}: the catalog does not know its columns`, { position: at });
        }
        throw mz.ItemWithoutColumns(full, mzItemType(rel)).at(at);
      }
      const column = s.column!;
      if (!columns.includes(column)) throw mz.UnknownColumn(column, rel.name).at(at);
      tooLong();
      requireOwner(view, rel, at, this.actor);
      this.ws.update(rel.id, (x) => ({ ...x, columnComments: withEntry(x.columnComments, column, s.comment) }) as CatalogObject, false);
      return this.write('COMMENT');
    }
    if (s.objectType === 'schema' && s.name.length === 1 && s.name[0] === TEMP_SCHEMA) throw mz.CommentOnTemporarySchema().at(at);
    const o = this.findForDrop(s.objectType, s.name, at);
    if (!o) {
      switch (s.objectType) {
        case 'cluster':
          throw unknownCluster(s.name[0]!, at);
        case 'database':
          throw unknownDatabase(s.name[0]!, at);
        case 'schema':
          throw unknownSchema(s.name.join('.'), at);
        case 'cluster replica':
          if (!view.cluster(s.name[0]!)) throw unknownCluster(s.name[0]!, at);
          throw mz.UnknownClusterReplica(s.name.join('.')).at(at);
        case 'type':
          throw mz.UnknownType(s.name.join('.')).at(at);
        default:
          throw unknownItem(s.name, at);
      }
    }
    tooLong();
    if (!KINDS_OF_TYPE[s.objectType].includes(o.kind)) throw mz.InvalidObjectType(s.objectType.toUpperCase(), mzItemType(o).toUpperCase(), o.name).at(at);
    requireOwner(view, o, at, this.actor);
    this.ws.update(o.id, (x) => withComment(x, s.comment), false);
    return this.write('COMMENT');
  }

  // ---- SHOW CREATE and EXPLAIN EFFECTS ---------------------------------------------------------

  private showCreate(s: S<'show_create'>, at: number): StatementPlan {
    if (s.objectType === 'type') {
      const builtin = builtinTypeName(s.name);
      if (builtin) throw new PlanError(`cannot show create for system type ${builtin}`, { code: SQLSTATE.internalError, position: at });
      const t = findItem(this.view(), s.name, at, this.scope());
      if (!t || t.kind !== 'type') throw new PlanError(`type "${s.name.join('.')}" does not exist`, { code: SQLSTATE.undefinedObject, position: at });
    }
    if (s.objectType === 'view') {
      const found = findItem(this.view(), s.name, at, this.scope());
      if (found?.kind === 'materialized_view') throw mz.ShowCreateViewOnMaterializedView(this.minimal(found)).at(at);
    }
    const o = this.findForAlter(s.objectType, s.name, false, at, false)!;
    const view = this.view();
    let sql: string;
    if (o.kind === 'cluster') {
      sql = o.spec.managed
        ? `CREATE CLUSTER ${printName([o.name])} (SIZE = '${o.spec.size}', REPLICATION FACTOR = ${o.spec.replicationFactor ?? 1})`
        : `CREATE CLUSTER ${printName([o.name])} REPLICAS (${view
            .replicas(o.id)
            .map((r) => `${printName([r.name])} (SIZE = '${r.spec.size}')`)
            .join(', ')})`;
    } else if (o.kind === 'connection') {
      // The secrets and connections it names under the names they have now, as Materialize (whose
      // definitions name them by id) shows them.
      const created = parse(o.spec.createSql)[0]?.statement;
      sql = created?.kind === 'create_connection' ? print({ ...created, options: this.namedAsNow(created.options, o.spec.connector) }) : o.spec.createSql;
    } else if (isItemKind(o.kind)) {
      sql = (o.spec as { createSql: string }).createSql || `-- ${KIND_LABEL[o.kind]} created by its source`;
    } else {
      sql = `CREATE ${KIND_LABEL[o.kind].toUpperCase()} ${printName(view.qualifiedName(o))}`;
    }
    return { kind: 'rows', columns: ['name', 'create_sql'], rows: [[printName(view.qualifiedName(o)), sql]] };
  }

  /** A dry run: plans the inner statement on a copy and reports what would change; commits nothing. */
  private explainEffects(s: S<'explain_effects'>, at: number, parsed: ParsedStatement): StatementPlan {
    const before = this.ws.diff();
    const scratch = this.ws.fork();
    new Planner(scratch, this.ctx).planStatement(s.statement, at, parsed);
    const after = scratch.diff();
    const seen = new Set(before.ops.map((w) => JSON.stringify(w)));
    const seenEffects = new Set(before.effects.map((e) => JSON.stringify(e)));
    const rows: PlanValue[][] = [];
    const names = scratch.view();
    for (const w of after.ops) {
      if (seen.has(JSON.stringify(w))) continue;
      switch (w.op) {
        case 'create_object':
          rows.push(['catalog', 'create', KIND_LABEL[w.object.kind], explainName(names, w.object) ?? printName(names.qualifiedName(w.object)), `generation ${w.object.generation}`]);
          break;
        case 'update_object':
        case 'drop_object':
          rows.push(['catalog', w.op === 'drop_object' ? 'drop' : 'update', KIND_LABEL[w.after.kind], explainName(names, w.before) ?? w.before.name, `generation ${w.after.generation}`]);
          break;
        case 'adjust_dependents':
          rows.push(['catalog', 'dependents', KIND_LABEL[w.before.kind], printName(names.qualifiedName(w.before)), `${w.delta > 0 ? '+' : ''}${w.delta}`]);
          break;
        case 'claim_name':
        case 'release_name':
          break;
      }
    }
    for (const e of after.effects) {
      if (seenEffects.has(JSON.stringify(e))) continue;
      const cluster = e.kind === 'reconfiguration' ? (names.get(e.objectId) as ClusterObject | undefined) : undefined;
      const steps = cluster?.spec.reconfiguration ? `: ${describeReconfiguration(cluster.spec.reconfiguration, names.replicas(cluster.id))}` : '';
      rows.push(['effect', e.intent, `${e.controller}.${e.kind}`, e.objectName, `generation ${e.generation}${steps}`]);
    }
    return { kind: 'rows', columns: ['type', 'action', 'kind', 'object', 'detail'], rows };
  }
}

/** The objects a sink's Avro docs name. */
function docTargets(docs: { readonly key: readonly { objectId: string }[]; readonly value: readonly { objectId: string }[] } | undefined): string[] {
  return docs ? [...docs.key, ...docs.value].map((d) => d.objectId) : [];
}

/** Materialize's plan_sink refuses a system relation as a sink's input (bail_unsupported: 0A000). */
function refuseSystemSinkInput(name: ObjectName, position: number): void {
  if (isSystemRelation(name)) throw mz.Unsupported('creating a sink directly on a catalog object').at(position);
}

/** What a sink may export (Materialize's plan_sink): anything with storage of its own. */
const SINKABLE_KINDS: ReadonlySet<string> = new Set(['table', 'source', 'subsource', 'materialized_view']);

/** plan_sink: a sink exports a table, a source or a materialized view that is not a replacement. */
function checkSinkInput(view: CatalogSnapshot, found: CatalogObject, position: number, scope: NameScope): void {
  const name = minimalName(view, found, scope);
  if (!SINKABLE_KINDS.has(found.kind)) throw mz.InvalidSinkFrom(name, mzItemType(found)).at(position);
  if (found.kind === 'materialized_view' && found.spec.replacementFor) throw mz.InvalidSinkFrom(name, 'replacement materialized view').at(position);
}
const CONTAINER_KINDS: ReadonlySet<string> = new Set(['cluster', 'schema', 'database']);
/** Catalog entries that name an object without using it: dropped with it, never in its way. */
const PASSENGER_KINDS: ReadonlySet<string> = new Set(['role_membership', 'default_privilege']);

/**
 * Materialize's reading of PRIMARY KEY and UNIQUE: a key is a primary key or a unique constraint
 * over NOT NULL columns (or NULLS NOT DISTINCT); a unique constraint over a nullable column is no
 * key and is accepted. Keys are not enforced there, and need a flag a fresh environment keeps off
 * (unsafe_enable_table_keys), so a table with one is refused in its words.
 */
function checkTableKeys(s: S<'create_table'>, at: number): void {
  const notNull = new Map(s.columns.map((c) => [c.name, c.notNull || c.unique === 'primary key']));
  let keys = s.columns.some((c) => c.unique !== undefined);
  let primary = false;
  // As Materialize does, the first unique constraint over a nullable column ends the reading.
  constraints: for (const k of s.constraints ?? []) {
    if (primary && k.primary) throw new PlanError(`multiple primary keys for table ${s.name.join('.')} are not allowed`, { code: SQLSTATE.invalidTableDefinition, position: at });
    primary ||= k.primary;
    for (const column of k.columns) {
      if (!notNull.has(column)) throw new PlanError(`unknown column in constraint: ${column}`, { code: SQLSTATE.undefinedColumn, position: at });
      if (k.primary) notNull.set(column, true);
      else if (!k.nullsNotDistinct && !notNull.get(column)) break constraints;
    }
    keys = true;
  }
  if (keys) {
    throw new NotSupportedError('CREATE TABLE with a primary key or unique constraint is not supported', {
      position: at,
      detail: 'The requested feature (unsafe_enable_table_keys) is unsafe and is meant only for internal development and testing of Materialize.',
    });
  }
}

function stillDepended(type: string, name: string, dependents: readonly string[], at: number): PlanError {
  return new PlanError(`cannot drop ${type} ${name}: still depended upon by ${dependents.join(', ')}`, {
    code: SQLSTATE.dependentObjectsStillExist,
    position: at,
    hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
  });
}

/** What a source asks of its upstream, without the subsource names (those are the catalog's). */
function upstreamReferences(r: ExternalReferences): UpstreamReferences {
  switch (r.kind) {
    case 'all':
      return { kind: 'all' };
    case 'schemas':
      return { kind: 'schemas', schemas: r.schemas };
    case 'tables':
      return { kind: 'tables', tables: r.tables.map((t) => t.reference) };
  }
}

/** Materialize's wording: the kind of what holds the name, and its full name in double quotes. */
function alreadyExists(existing: CatalogObject, qualified: readonly string[], at: number): PlanError {
  return new PlanError(`${KIND_LABEL[existing.kind]} "${qualified.join('.')}" already exists`, { code: SQLSTATE.duplicateObject, position: at });
}

// ---- option helpers ----------------------------------------------------------------------------

/**
 * `RETAIN HISTORY [=] FOR '<interval>'` as the spec keeps it (absent: Materialize's default of
 * 1 s), with Materialize's minimum and messages.
 */
function retention(options: readonly SqlOption[], at: number): { retainHistoryMs?: number } {
  const o = options.find((x) => x.name === 'RETAIN HISTORY');
  if (!o) return {};
  const text = optionString(o.value);
  const ms = text === undefined ? undefined : durationMs(text);
  const position = o.position ?? at;
  if (ms === undefined) throw new PlanError(`invalid RETAIN HISTORY option value: invalid input syntax for type interval: "${text ?? ''}"`, { code: SQLSTATE.invalidParameterValue, position });
  const hint = 'Use ALTER ... RESET (RETAIN HISTORY) to set the retain history to its default and lowest value.';
  if (ms === 0) throw new PlanError('RETAIN HISTORY cannot be disabled or set to 0', { code: SQLSTATE.invalidParameterValue, position, hint });
  if (ms < DEFAULT_RETAIN_HISTORY_MS) throw new PlanError(`RETAIN HISTORY cannot be set lower than ${DEFAULT_RETAIN_HISTORY_MS}ms`, { code: SQLSTATE.invalidParameterValue, position, hint });
  return { retainHistoryMs: ms };
}

/**
 * A definition with its `RETAIN HISTORY` option replaced by `option` (removed without one), so that
 * SHOW CREATE shows the window in force, as Materialize rewrites an item's create_sql on ALTER ...
 * SET / RESET (RETAIN HISTORY). A definition with no WITH options (a subsource's, a webhook
 * source's) stays as it is.
 */
function withRetainHistory(createSql: string, option: SqlOption | undefined): string {
  const created = createSql ? parse(createSql)[0]?.statement : undefined;
  if (!created || !('withOptions' in created)) return createSql;
  const options = [...created.withOptions];
  let at = -1;
  options.forEach((x, i) => {
    if (x.name === 'RETAIN HISTORY') at = i;
  });
  if (option && at >= 0) options[at] = option;
  else if (option) options.push(option);
  else if (at >= 0) options.splice(at, 1);
  return print({ ...created, withOptions: options } as Statement);
}

/** Every kind of catalog item (resolving a name before its kind is checked). */
const ITEM_KINDS_ALL: readonly ItemKind[] = ['secret', 'connection', 'source', 'subsource', 'sink', 'table', 'view', 'materialized_view', 'index', 'type'];

/** An item's type as Materialize's messages name it (its CatalogItemType: a subsource is a source there). */
function mzItemType(o: CatalogObject): string {
  return o.kind === 'subsource' ? 'source' : KIND_LABEL[o.kind];
}

/** The output column names the catalog knows of a relation (a table's, a view's whose body it read). */
function relationColumns(o: CatalogObject): readonly string[] | undefined {
  if (o.kind === 'table') return o.spec.columns.length > 0 && !o.spec.columns.some((c) => c.type === 'unknown') ? o.spec.columns.map((c) => c.name) : undefined;
  if (o.kind === 'view' || o.kind === 'materialized_view') return o.spec.columns;
  return undefined;
}

/**
 * `ASSERT NOT NULL col` (plan_create_materialized_view): each names an output column, at most
 * once. Judged where the body's columns are known; an assertion that may name a column the
 * reader could not name is left to the data plane.
 */
function checkAssertNotNull(options: readonly SqlOption[], columns: readonly (string | undefined)[] | undefined, at: number): void {
  const positions: number[] = [];
  const complete = columns !== undefined && columns.every((c) => c !== undefined);
  for (const o of options) {
    if (o.name !== 'ASSERT NOT NULL') continue;
    const name = optionString(o.value) ?? '';
    const i = columns ? columns.indexOf(name) : -1;
    if (i < 0) {
      if (complete) throw mz.AssertNotNullColumnNotFound(name).at(o.position);
      continue;
    }
    positions.push(i);
  }
  positions.sort((a, b) => a - b);
  const dup = positions.find((p, k) => k > 0 && positions[k - 1] === p);
  if (dup !== undefined) throw mz.AssertNotNullDuplicate(columns![dup]!).at(at);
}

/** `WORKLOAD CLASS` is the system user's to set (plan_create_cluster_inner, plan_alter_cluster). */
function refuseWorkloadClass(o: SqlOption | undefined): void {
  if (o) throw mz.NonSystemUserOption('WORKLOAD CLASS').at(o.position);
}

/** `DISK`: every size we offer is a modern one, on which disk is always enabled. */
function refuseDisk(o: SqlOption | undefined): void {
  if (o) throw mz.DiskOnModernSize().at(o.position);
}

/** `INTROSPECTION DEBUGGING` needs introspection, which `INTROSPECTION INTERVAL = 0` turns off (plan_compute_replica_config). */
function checkIntrospection(opts: ReadonlyMap<string, SqlOption>): void {
  const debugging = opts.get('INTROSPECTION DEBUGGING');
  const interval = opts.get('INTROSPECTION INTERVAL');
  if (!debugging || !interval || !booleanValue(debugging)) return;
  const text = optionString(interval.value);
  if (text !== undefined && durationMs(text) === 0) throw mz.IntrospectionDebuggingWithoutInterval().at(debugging.position);
}

function booleanValue(o: SqlOption): boolean {
  const v = o.value;
  if (v.kind === 'none') return true;
  if (v.kind === 'boolean') return v.value;
  return ['true', 'on'].includes(optionString(v)?.toLowerCase() ?? '');
}

/** A replica's name: the catalog refuses the system's prefixes (`replica name "mz_r" is reserved`). */
function checkReplicaName(name: string, at: number): void {
  if (RESERVED_PREFIXES.some((p) => name.startsWith(p))) throw mz.ReservedReplicaName(name).at(at);
}

function sortedEntries(o: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `MANAGED`, `MANAGED = true | false | 'false'`. */
function managedValue(o: SqlOption): boolean {
  const v = o.value;
  if (v.kind === 'none') return true;
  if (v.kind === 'boolean') return v.value;
  const text = optionString(v)?.toLowerCase();
  if (text === 'true' || text === 'on') return true;
  if (text === 'false' || text === 'off') return false;
  throw new PlanError(`invalid MANAGED option value: expected a boolean`, { code: SQLSTATE.invalidParameterValue, position: o.position });
}

function optionMap(options: readonly SqlOption[]): Map<string, SqlOption> {
  return new Map(options.map((o) => [o.name, o]));
}

function parseSize(o: SqlOption | undefined, at: number): string {
  const value = o ? optionString(o.value) : undefined;
  const position = o?.position ?? at;
  if (value === undefined) throw mz.InvalidOptionValue('SIZE', 'cannot use value as string').at(position);
  if (!isReplicaSize(value)) throw mz.InvalidClusterReplicaSize(value, REPLICA_SIZES).at(position);
  return value;
}

function parseReplicationFactor(o: SqlOption | undefined, at: number): number {
  if (!o) return 1;
  const v: OptionValue = o.value;
  if (v.kind !== 'number' || !/^[0-9]+$/.test(v.value)) {
    throw new PlanError('invalid value for REPLICATION FACTOR: expected a non-negative integer', { code: SQLSTATE.invalidParameterValue, position: o.position ?? at });
  }
  const n = Number(v.value);
  if (n > MAX_REPLICATION_FACTOR) {
    throw new PlanError(`REPLICATION FACTOR ${n} exceeds the maximum of ${MAX_REPLICATION_FACTOR}`, { code: SQLSTATE.invalidParameterValue, position: o.position ?? at });
  }
  return n;
}

function otherOptions(options: readonly SqlOption[], skip: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of options) if (!skip.includes(o.name)) out[o.name] = optionString(o.value) ?? '';
  return out;
}

/** A column's type as the table's spec keeps it: `numeric(10,2)`, `text[]`. */
function columnTypeText(t: DataType): string {
  if (t.list) return `${columnTypeText(t.list)} list${'[]'.repeat(t.arrayDimensions)}`;
  if (t.map) return `map[${columnTypeText(t.map.key)}=>${columnTypeText(t.map.value)}]${'[]'.repeat(t.arrayDimensions)}`;
  return [t.name.join('.'), t.typmod.length ? `(${t.typmod.join(',')})` : '', '[]'.repeat(t.arrayDimensions)].join('');
}

/** Kept for callers that plan one statement at a time. */
export function planStatement(ws: Workspace, parsed: ParsedStatement, ctx: PlanContext): StatementPlan {
  return new Planner(ws, ctx).plan(parsed);
}

export type { ItemKind };

/** Materialize's `min_timestamp_interval` and `max_timestamp_interval` (both 1 s by default). */
const TIMESTAMP_INTERVAL_MS = 1000;

/** Materialize's limit on a comment's length, in bytes. */
const MAX_COMMENT_BYTES = 1024;

function withComment(o: CatalogObject, comment: string | null): CatalogObject {
  const { comment: _old, ...rest } = o;
  return (comment === null ? rest : { ...rest, comment }) as CatalogObject;
}

function withEntry(map: Readonly<Record<string, string>> | undefined, key: string, value: string | null): Readonly<Record<string, string>> | undefined {
  const next = { ...(map ?? {}) };
  if (value === null) delete next[key];
  else next[key] = value;
  return Object.keys(next).length ? next : undefined;
}
