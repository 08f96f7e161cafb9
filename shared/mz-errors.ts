/**
 * Materialize's errors, by kind: one entry per variant of its error enums that we raise, with the
 * text its `Display` writes and the detail and hint its `detail()` / `hint()` give, so that a
 * statement fails here with the words it fails with there. Read from Materialize's source at the
 * commit the conformance cases come from (892cf62):
 *
 * - `CatalogError` (src/sql/src/catalog.rs) and the catalog's `ErrorKind` (src/catalog/src/memory/error.rs);
 * - `PlanError` (src/sql/src/plan/error.rs), and the messages its planner raises unstructured with
 *   `sql_bail!` (src/sql/src/plan/statement/ddl.rs and friends), named here after the rule they state;
 * - `AdapterError` (src/adapter/src/error.rs), with the ones its sequencer raises with `coord_bail!`
 *   (src/adapter/src/coord/sequencer/);
 * - `UnauthorizedError` (src/sql/src/rbac.rs) and `VarError` (src/sql/src/session/vars/errors.rs).
 *
 * Codes: Materialize answers most of these with XX000 (its `AdapterError::code`: every
 * `PlanError` and catalog error but a handful). The SQLSTATEs our contract fixes (docs/sql-reference.md,
 * "Errors": 42704 / 42P01 for what does not exist, 42P07 and friends for what does, 2BP01, 42809,
 * 42501, 22023 for invalid option values, 0A000 for what is not supported) are given where those
 * meanings apply; everything else keeps Materialize's code.
 *
 * Errors of our own (a limit of the secret store, a statement outside the control plane) are not
 * here: they are not Materialize's words.
 *
 *   throw mz.UnknownCluster('c').at(position)
 */
import { PlanError, SQLSTATE, type ErrorFields } from './errors';

interface Shape {
  readonly message: string;
  readonly code?: string;
  readonly detail?: string;
  readonly hint?: string;
}

/** Rust's `str::quoted()` (mz_ore): double quotes around, inner double quotes escaped with a backslash. */
export function quoted(s: string): string {
  return `"${s.replace(/"/g, '\\"')}"`;
}

/** Materialize's `ObjectType` / `CatalogItemType` as its messages spell them (`materialized view`, `cluster replica`). */
export type MzObjectType =
  | 'table' | 'view' | 'materialized view' | 'source' | 'sink' | 'index' | 'type' | 'role' | 'cluster' | 'cluster replica' | 'secret'
  | 'connection' | 'database' | 'schema' | 'function' | 'continual task' | 'network policy' | 'subsource';

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const RETAIN_HISTORY_HINT = 'Use ALTER ... RESET (RETAIN HISTORY) to set the retain history to its default and lowest value.';

const KINDS = {
  // ---- CatalogError (src/sql/src/catalog.rs) ---------------------------------------------------
  UnknownDatabase: (name: string): Shape => ({ message: `unknown database '${name}'`, code: SQLSTATE.undefinedObject }),
  DatabaseAlreadyExists: (name: string): Shape => ({ message: `database '${name}' already exists`, code: SQLSTATE.duplicateDatabase }),
  UnknownSchema: (name: string): Shape => ({ message: `unknown schema '${name}'`, code: SQLSTATE.undefinedObject }),
  SchemaAlreadyExists: (name: string): Shape => ({ message: `schema '${name}' already exists`, code: SQLSTATE.duplicateSchema }),
  UnknownRole: (name: string): Shape => ({ message: `unknown role '${name}'`, code: SQLSTATE.undefinedObject }),
  RoleAlreadyExists: (name: string): Shape => ({ message: `role '${name}' already exists`, code: SQLSTATE.duplicateRole }),
  UnknownCluster: (name: string): Shape => ({ message: `unknown cluster '${name}'`, code: SQLSTATE.undefinedObject }),
  ClusterAlreadyExists: (name: string): Shape => ({ message: `cluster '${name}' already exists`, code: SQLSTATE.duplicateObject }),
  UnknownClusterReplica: (name: string): Shape => ({ message: `unknown cluster replica '${name}'`, code: SQLSTATE.undefinedObject }),
  DuplicateReplica: (replica: string, cluster: string): Shape => ({ message: `cannot create multiple replicas named '${replica}' on cluster '${cluster}'`, code: SQLSTATE.duplicateObject }),
  UnknownItem: (name: string): Shape => ({ message: `unknown catalog item '${name}'`, code: SQLSTATE.undefinedTable }),
  CatalogItemAlreadyExists: (name: string): Shape => ({ message: `catalog item '${name}' already exists`, code: SQLSTATE.duplicateObject }),
  UnknownType: (name: string): Shape => ({ message: `type "${name}" does not exist`, code: SQLSTATE.undefinedObject }),
  UnknownNetworkPolicy: (name: string): Shape => ({ message: `unknown network policy '${name}'`, code: SQLSTATE.undefinedObject }),
  UnexpectedType: (name: string, actual: string, expected: string): Shape => ({ message: `"${name}" is a ${actual} not a ${expected}`, code: SQLSTATE.wrongObjectType }),

  // ---- the catalog's ErrorKind (src/catalog/src/memory/error.rs) --------------------------------
  ReservedSchemaName: (name: string): Shape => ({
    message: `unacceptable schema name '${name}'`,
    code: SQLSTATE.reservedName,
    detail: 'The prefixes "mz_" and "pg_" are reserved for system schemas.',
  }),
  ReservedRoleName: (name: string): Shape => ({
    message: `role name ${quoted(name)} is reserved`,
    code: SQLSTATE.reservedName,
    detail: 'The role "public" and the prefixes "mz_" and "pg_" are reserved for system roles.',
  }),
  ReservedSystemRoleName: (name: string): Shape => ({
    message: `role name ${quoted(name)} is reserved`,
    code: SQLSTATE.reservedName,
    detail: 'The role prefixes "mz_" and "pg_" are reserved for system roles.',
  }),
  UngrantableRoleName: (name: string): Shape => ({ message: `role name ${quoted(name)} cannot be granted`, code: SQLSTATE.invalidGrantOperation }),
  ReservedClusterName: (name: string): Shape => ({
    message: `cluster name ${quoted(name)} is reserved`,
    code: SQLSTATE.reservedName,
    detail: 'The prefixes "mz_" and "pg_" are reserved for system clusters.',
  }),
  ReservedReplicaName: (name: string): Shape => ({ message: `replica name ${quoted(name)} is reserved`, code: SQLSTATE.reservedName }),
  ReadOnlyCluster: (name: string): Shape => ({ message: `system cluster '${name}' cannot be modified`, code: SQLSTATE.insufficientPrivilege }),
  ReadOnlySystemSchema: (name: string): Shape => ({ message: `system schema '${name}' cannot be modified`, code: SQLSTATE.insufficientPrivilege }),
  ReadOnlyItem: (name: string): Shape => ({ message: `system item '${name}' cannot be modified`, code: SQLSTATE.insufficientPrivilege }),
  InvalidTemporaryDependency: (name: string): Shape => ({ message: `non-temporary items cannot depend on temporary item '${name}'` }),
  InvalidTemporarySchema: (): Shape => ({ message: 'cannot create temporary item in non-temporary schema' }),
  UnstableDependency: (objectType: string, unstable: readonly string[]): Shape => ({
    message: `cannot create ${objectType} with unstable dependencies`,
    detail: `The object depends on the following unstable objects:\n    ${unstable.join('\n    ')}`,
  }),
  /** `AmbiguousRename`: a rename that would make a dependent's definition ambiguous. */
  AmbiguousRename: (depender: string, dependee: string, message: string): Shape => ({
    message: depender === dependee ? `renaming conflict: in ${dependee}, ${message}` : `renaming conflict: in ${depender}, which uses ${dependee}, ${message}`,
  }),
  TypeRename: (name: string): Shape => ({ message: `cannot rename type: ${name}` }),
  AmbientSchemaRename: (name: string): Shape => ({ message: `cannot rename schemas in the ambient database: ${quoted(name)}` }),
  CircularRoleMembership: (role: string, member: string): Shape => ({ message: `role "${role}" is a member of role "${member}"`, code: SQLSTATE.invalidGrantOperation }),
  /** The durable catalog's DurableCatalogError::UniquenessViolation: a cluster or replica renamed to a taken name. */
  UniquenessViolation: (): Shape => ({ message: 'uniqueness violation', code: SQLSTATE.duplicateObject }),
  /** The catalog's `ManagedCluster`: a replica of a managed cluster changed by itself. */
  CatalogManagedCluster: (name: string): Shape => ({ message: `cluster '${name}' is managed and cannot be directly modified`, code: SQLSTATE.featureNotSupported }),
  InvalidClusterReplicaSize: (size: string, expected: readonly string[]): Shape => ({
    message: `unknown cluster replica size ${size}`,
    code: SQLSTATE.invalidParameterValue,
    hint: `Valid cluster replica sizes are: ${expected.join(', ')}`,
  }),

  // ---- PlanError (src/sql/src/plan/error.rs) ---------------------------------------------------
  /** Materialize's own refusal (bail_unsupported!): XX000 there, unlike our 0A000 for what Materialize has and we do not. */
  Unsupported: (feature: string): Shape => ({ message: `${feature} not yet supported` }),
  NeverSupported: (feature: string): Shape => ({ message: `${feature} is not supported` }),
  UnknownColumn: (column: string, table?: string): Shape => ({ message: `column ${quoted(table === undefined ? column : `${table}.${column}`)} does not exist`, code: SQLSTATE.undefinedColumn }),
  ItemWithoutColumns: (name: string, itemType: string): Shape => ({ message: `${itemType} ${quoted(name)} does not have columns` }),
  AmbiguousColumn: (column: string): Shape => ({ message: `column reference ${quoted(column)} is ambiguous`, code: SQLSTATE.ambiguousColumn }),
  ColumnAlreadyExists: (column: string, object: string): Shape => ({ message: `column ${quoted(column)} of relation ${quoted(object)} already exists`, code: SQLSTATE.duplicateColumn }),
  /** `column "a" specified more than once` (plan_view, plan_create_table, ...). */
  ColumnSpecifiedMoreThanOnce: (column: string): Shape => ({ message: `column ${quoted(column)} specified more than once`, code: SQLSTATE.duplicateColumn }),
  InvalidSchemaName: (): Shape => ({
    message: 'no valid schema selected',
    code: SQLSTATE.invalidSchemaName,
    hint: 'Use SET schema = name to select a schema.  Use SHOW SCHEMAS to list available schemas.  Use SHOW search_path to show the schema names that we looked for, but none of them existed.',
  }),
  ItemAlreadyExists: (name: string, itemType: string): Shape => ({ message: `${itemType} ${quoted(name)} already exists`, code: SQLSTATE.duplicateObject }),
  /** PlanError::ManagedCluster: a replica of a managed cluster named by itself. */
  ManagedCluster: (cluster: string): Shape => ({ message: `cannot modify managed cluster ${cluster}`, code: SQLSTATE.featureNotSupported }),
  MangedReplicaName: (name: string): Shape => ({ message: `${name} is reserved for replicas of managed clusters`, code: SQLSTATE.featureNotSupported }),
  DependentObjectsStillExist: (objectType: string, objectName: string, dependents: readonly (readonly [string, string])[]): Shape => ({
    message: `cannot drop ${objectType} ${quoted(objectName)}${dependents.length === 0 ? ' because other objects depend on it' : `: still depended upon by ${dependents.map(([t, n]) => `${t} ${quoted(n)}`).join(', ')}`}`,
    code: SQLSTATE.dependentObjectsStillExist,
    hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
  }),
  DropViewOnMaterializedView: (name: string): Shape => ({ message: `${name} is not a view`, code: SQLSTATE.wrongObjectType, hint: 'Use DROP MATERIALIZED VIEW to remove a materialized view.' }),
  AlterViewOnMaterializedView: (name: string): Shape => ({ message: `${name} is not a view`, code: SQLSTATE.wrongObjectType, hint: 'Use ALTER MATERIALIZED VIEW to rename a materialized view.' }),
  ShowCreateViewOnMaterializedView: (name: string): Shape => ({ message: `${name} is not a view`, code: SQLSTATE.wrongObjectType, hint: 'Use SHOW CREATE MATERIALIZED VIEW to show a materialized view.' }),
  /** `MismatchedObjectType`: `t is a table not a view` (an index: `an index`). */
  MismatchedObjectType: (name: string, isType: string, expectedType: string): Shape => ({
    message: `${name} is ${article(isType)} ${isType} not ${article(expectedType)} ${expectedType}`,
    code: SQLSTATE.wrongObjectType,
  }),
  /** `InvalidObjectType`: COMMENT ON of the wrong kind (`table t is not a view`). */
  InvalidObjectType: (expectedType: string, actualType: string, objectName: string): Shape => ({ message: `${actualType} ${objectName} is not a ${expectedType}`, code: SQLSTATE.wrongObjectType }),
  InvalidSecret: (name: string): Shape => ({ message: `${name} is not a secret`, code: SQLSTATE.wrongObjectType }),
  InvalidSinkFrom: (name: string, itemType: string): Shape => ({ message: `${itemType} ${name} cannot be exported as a sink`, code: SQLSTATE.wrongObjectType }),
  InvalidDependency: (name: string, itemType: string): Shape => ({ message: `${itemType} ${name} cannot be depended upon`, code: SQLSTATE.wrongObjectType }),
  InvalidReplacement: (itemType: string, itemName: string, replacementType: string, replacementName: string): Shape => ({
    message: `cannot replace ${itemType} ${itemName} with ${replacementType} ${replacementName}`,
  }),
  CommentTooLong: (length: number, maxSize: number): Shape => ({ message: `provided comment was ${length} bytes long, max size is ${maxSize} bytes`, code: SQLSTATE.invalidParameterValue }),
  InvalidTimestampInterval: (minMs: number, maxMs: number, requestedMs: number): Shape => ({ message: `invalid timestamp interval of ${requestedMs}ms, must be in the range [${minMs}ms, ${maxMs}ms]` }),
  RetainHistoryLow: (limitMs: number): Shape => ({ message: `RETAIN HISTORY cannot be set lower than ${limitMs}ms`, code: SQLSTATE.invalidParameterValue, hint: RETAIN_HISTORY_HINT }),
  RetainHistoryRequired: (): Shape => ({ message: 'RETAIN HISTORY cannot be disabled or set to 0', code: SQLSTATE.invalidParameterValue, hint: RETAIN_HISTORY_HINT }),
  UntilReadyTimeoutRequired: (): Shape => ({ message: 'TIMEOUT=<duration> option is required for ALTER CLUSTER ... WITH (WAIT UNTIL READY ( ... ))', code: SQLSTATE.invalidParameterValue }),
  NetworkPolicyInUse: (): Shape => ({ message: 'network policy is currently in use', hint: "Use ALTER SYSTEM SET 'network_policy' to change the default network policy." }),
  CreateReplicaFailStorageObjects: (current: number, internal: number, target: number): Shape => ({
    message: 'cannot create more than one replica of a cluster containing sources or sinks',
    detail: `Currently have ${plural(current, 'replica')}${internal > 0 ? ` (${internal} internal)` : ''}; command would result in ${target}`,
  }),
  MissingName: (itemType: string): Shape => ({ message: `unspecified name for ${itemType}` }),
  InvalidRefreshAt: (): Shape => ({
    message: 'REFRESH AT argument must be an expression that can be simplified and/or cast to a constant whose type is mz_timestamp',
    hint: 'Calling `mz_now()` is allowed.',
  }),
  InvalidRefreshEveryAlignedTo: (): Shape => ({
    message: 'REFRESH EVERY ... ALIGNED TO argument must be an expression that can be simplified and/or cast to a constant whose type is mz_timestamp',
    hint: 'Calling `mz_now()` is allowed.',
  }),
  /** `InvalidOptionValue`: `invalid RETAIN HISTORY option value: ...`. */
  InvalidOptionValue: (option: string, err: string): Shape => ({ message: `invalid ${option} option value: ${err}`, code: SQLSTATE.invalidParameterValue }),
  UpsertSinkWithInvalidKey: (): Shape => ({ message: 'upsert key could not be validated as unique', hint: 'See: https://materialize.com/s/sink-key-selection' }),
  UseTablesForSources: (command: string): Shape => ({ message: `${command} not supported; use CREATE TABLE .. FROM SOURCE instead`, code: SQLSTATE.featureNotSupported }),
  /** `sql_bail!("{} specified more than once")` of an option list (generate_extracted_config!). */
  OptionSpecifiedMoreThanOnce: (option: string): Shape => ({ message: `${option} specified more than once` }),
  /** generate_extracted_config!'s `{} option is required` (CREATE TYPE's KEY TYPE, ...). */
  OptionRequired: (option: string): Shape => ({ message: `${option} option is required` }),
  /** ParameterNotAllowed: views and materialized views cannot have `$1` parameters. */
  ParameterNotAllowed: (objectType: string): Shape => ({ message: `${objectType} cannot have parameters`, code: SQLSTATE.undefinedParameter }),
  ShowCommandInView: (): Shape => ({ message: 'SHOW commands are not allowed in views' }),
  InvalidGroupSizeHints: (): Shape => ({
    message: 'EXPECTED GROUP SIZE cannot be provided simultaneously with any of AGGREGATE INPUT GROUP SIZE, DISTINCT ON INPUT GROUP SIZE, or LIMIT INPUT GROUP SIZE',
  }),

  // ---- planner rules raised unstructured (sql_bail!), named by what they refuse ---------------
  /** plan_create_cluster / plan_alter_cluster: an option a non-system user may not give. */
  NonSystemUserOption: (option: string): Shape => ({ message: `${option} not supported for non-system users` }),
  /** plan_create_cluster / plan_alter_cluster (SET): an option an unmanaged cluster does not take. */
  UnmanagedClusterOption: (option: string): Shape => ({ message: `${option} not supported for unmanaged clusters` }),
  /** plan_create_cluster / plan_alter_cluster: `REPLICAS` given to a managed cluster. */
  ManagedClusterReplicas: (): Shape => ({ message: 'REPLICAS not supported for managed clusters' }),
  ManagedClusterSizeRequired: (): Shape => ({ message: 'SIZE must be specified for managed clusters' }),
  UnmanagedClusterReplicasRequired: (): Shape => ({ message: 'REPLICAS must be specified for unmanaged clusters' }),
  UnmanagedClusterSchedule: (): Shape => ({ message: 'cluster schedules other than MANUAL are not supported for unmanaged clusters' }),
  UnmanagedClusterAlterWith: (): Shape => ({ message: 'ALTER... WITH not supported for unmanaged clusters' }),
  ScheduleWithReplicationFactor: (): Shape => ({ message: 'REPLICATION FACTOR cannot be given together with any SCHEDULE other than MANUAL' }),
  ReplicationFactorOfScheduled: (): Shape => ({ message: 'REPLICATION FACTOR cannot be set if the cluster SCHEDULE is anything other than MANUAL' }),
  UnmanagedSwitchSchedule: (): Shape => ({
    message: "when switching a cluster to unmanaged, if the managed cluster's SCHEDULE is anything other than MANUAL, you have to explicitly set the SCHEDULE to MANUAL",
  }),
  DiskOnModernSize: (): Shape => ({ message: 'DISK option not supported for modern cluster sizes because disk is always enabled' }),
  /** plan_replica_config: a replica without a size. */
  ReplicaSizeRequired: (): Shape => ({ message: 'SIZE option must be specified' }),
  /** plan_compute_replica_config. */
  IntrospectionDebuggingWithoutInterval: (): Shape => ({ message: 'INTROSPECTION DEBUGGING cannot be specified without INTROSPECTION INTERVAL' }),
  /** plan_create_schema. */
  SchemaNameTooLong: (name: string): Shape => ({ message: `schema name ${name} has more than two components`, code: SQLSTATE.syntaxError }),
  InvalidDatabase: (name: string): Shape => ({ message: `invalid database ${name}`, code: SQLSTATE.undefinedObject }),
  /** resolve_cluster_replica: `CLUSTER c has no CLUSTER REPLICA named "r"`. */
  NoClusterReplicaNamed: (cluster: string, replica: string): Shape => ({ message: `CLUSTER ${cluster} has no CLUSTER REPLICA named ${quoted(replica)}`, code: SQLSTATE.undefinedObject }),
  /** plan_create_materialized_view / plan_view: a CREATE OR REPLACE whose new body reads the old one. */
  ReplaceDependedUpon: (itemType: string, name: string): Shape => ({ message: `cannot replace ${itemType} ${name}: depended upon by new ${name} definition`, code: SQLSTATE.invalidParameterValue }),
  AssertNotNullColumnNotFound: (column: string): Shape => ({ message: `column ${quoted(column)} in ASSERT NOT NULL option not found`, code: SQLSTATE.undefinedColumn }),
  AssertNotNullDuplicate: (column: string): Shape => ({ message: `duplicate column ${quoted(column)} in non-null assertions` }),
  RefreshOnCommitTwice: (): Shape => ({ message: 'REFRESH ON COMMIT cannot be specified multiple times' }),
  RefreshOnCommitWithOthers: (): Shape => ({ message: 'REFRESH ON COMMIT is not compatible with any of the other REFRESH options' }),
  ReplaceSystemItem: (name: string): Shape => ({ message: `cannot replace ${name} because it is required by the database system` }),
  ReplacementCycle: (name: string): Shape => ({ message: `replacement would cause ${name} to depend on itself` }),
  ReplacementExists: (name: string, replacement: string): Shape => ({ message: `cannot replace ${name} because it already has a replacement: ${replacement}` }),
  /** plan_alter_object_swap: swapping a kind other than a schema or a cluster. */
  RenameSystemSchema: (name: string): Shape => ({ message: `renaming the ${name} schema is not supported`, code: SQLSTATE.featureNotSupported }),
  SwapAmbientSchema: (): Shape => ({ message: 'cannot swap schemas that are in the ambient database' }),
  CommentOnTemporarySchema: (): Shape => ({ message: 'cannot comment on schema mz_temp because it is a temporary schema' }),
  CommentOnAnonymousType: (): Shape => ({ message: 'cannot comment on anonymous list or map type' }),
  CommentOnTypeWithModifiers: (): Shape => ({ message: 'cannot comment on type with modifiers' }),
  /** plan_drop_objects: a system object (`cannot drop schema mz_catalog because it is required by the database system`). */
  DropSystemObject: (objectType: string, name: string): Shape => ({ message: `cannot drop ${objectType} ${name} because it is required by the database system`, code: SQLSTATE.insufficientPrivilege }),
  /** plan_drop_database / plan_drop_schema: RESTRICT with contents. */
  DatabaseNotEmpty: (name: string): Shape => ({ message: `database '${name}' cannot be dropped with RESTRICT while it contains schemas`, code: SQLSTATE.dependentObjectsStillExist }),
  SchemaNotEmpty: (fullName: string): Shape => ({
    message: `schema '${fullName}' cannot be dropped without CASCADE while it contains objects`,
    code: SQLSTATE.dependentObjectsStillExist,
  }),
  /** sequence_drop_objects: a managed cluster's replicas are the system's. */
  DropReplicaOfManagedCluster: (): Shape => ({ message: 'cannot drop replica of managed cluster', code: SQLSTATE.featureNotSupported }),
  DropTemporarySchema: (): Shape => ({ message: 'cannot drop schema mz_temp because it is a temporary schema', code: SQLSTATE.insufficientPrivilege }),
  RetainHistoryMustBeOnly: (option: string): Shape => ({ message: `${option} must be only option` }),
  /** plan_create_source / plan_create_table_from_source: INCLUDE of metadata with an envelope other than these, checked before the envelope is planned. */
  IncludeMetadataRequiresEnvelope: (): Shape => ({ message: 'INCLUDE <metadata> requires ENVELOPE (NONE|UPSERT|DEBEZIUM)' }),
  AlterSourceUnsupported: (name: string): Shape => ({ message: `source ${name} does not support ALTER SOURCE.` }),
  WildcardOverSystemObjects: (): Shape => ({ message: 'cannot use wildcard expansions or NATURAL JOINs in a view that depends on system objects', code: SQLSTATE.invalidTableDefinition }),
  /** maybe_rename_columns: a column list longer than the query's output. */
  ColumnListTooLong: (label: string, given: number, actual: number): Shape => ({
    message: `${label} definition names ${plural(given, 'column')}, but ${label} has ${plural(actual, 'column')}`,
    code: SQLSTATE.invalidTableDefinition,
  }),
  /** plan_create_index: what an index may be built on. */
  IndexOnNonRelation: (fullName: string, itemType: string): Shape => ({ message: `index cannot be created on ${fullName} because it is a ${itemType}`, code: SQLSTATE.wrongObjectType }),
  /** plan_create_table: `CREATE TABLE t (a int, PRIMARY KEY (a), PRIMARY KEY (a))`. */
  MultiplePrimaryKeys: (table: string): Shape => ({ message: `multiple primary keys for table ${table} are not allowed`, code: SQLSTATE.invalidTableDefinition }),
  UnknownConstraintColumn: (column: string): Shape => ({ message: `unknown column in constraint: ${column}`, code: SQLSTATE.undefinedColumn }),
  /** The transaction verbs: Materialize has no CHAIN. */
  ChainNotSupported: (): Shape => ({ message: 'CHAIN not yet supported', code: SQLSTATE.featureNotSupported }),
  /** `SHOW SUBSOURCES FROM s ON x`. */
  ShowSubsourcesFromAndOn: (): Shape => ({ message: 'Cannot specify both FROM and ON' }),
  CannotShowOn: (what: string, name: string, itemType: string): Shape => ({ message: `cannot show ${what} on ${name} because it is a ${itemType}` }),

  // ---- AdapterError (src/adapter/src/error.rs) and the sequencer's coord_bail! ----------------
  AlterClusterWhilePendingReplicas: (): Shape => ({ message: 'cannot alter clusters with pending updates', code: SQLSTATE.objectInUse }),
  /** `InvalidAlter`: `invalid ALTER CONNECTION: ...`. */
  InvalidAlter: (objectType: string, err: string): Shape => ({ message: `invalid ALTER ${objectType}: ${err}`, code: SQLSTATE.featureNotSupported }),
  /** `InvalidLogDependency`: materialized views and indexes may not read the replicas' logs. */
  InvalidLogDependency: (objectType: string, logs: readonly string[]): Shape => ({
    message: `${objectType} objects cannot depend on log sources`,
    code: SQLSTATE.featureNotSupported,
    detail: `The object depends on the following log sources:\n    ${logs.join('\n    ')}`,
  }),
  /** `DependentObject`: a role that still owns or is granted something. */
  DependentObject: (roles: readonly string[]): Shape => ({
    message: `${roles.length === 1 ? 'role' : 'roles'} "${roles.join(', ')}" cannot be dropped because some objects depend on it`,
    code: SQLSTATE.dependentObjectsStillExist,
  }),
  ReplaceMaterializedViewSealed: (name: string): Shape => ({ message: `materialized view ${name} is sealed and thus cannot be replaced`, code: '55000' }),
  ReplacementSchemaMismatch: (detail: string): Shape => ({ message: 'replacement schema differs from target schema', code: SQLSTATE.featureNotSupported, detail }),
  /** sequence_alter_cluster: RESET (SIZE) of a managed cluster. */
  SizeHasNoDefault: (): Shape => ({ message: 'SIZE has no default value' }),
  /** sequence_alter_cluster: an option of a managed cluster changed on an unmanaged one (its typo included). */
  CannotChangeOfUnmanaged: (option: 'SIZE' | 'AVAILABILITY ZONES' | 'INTROSPECTION DEBUGGING' | 'INTROSPECTION INTERVAL' | 'REPLICATION FACTOR'): Shape => ({
    message: `Cannot change ${option === 'INTROSPECTION DEBUGGING' ? 'INTROSPECTION DEGUBBING' : option} of unmanaged clusters`,
  }),
  CannotChangeReplicasOfManaged: (): Shape => ({ message: 'Cannot change REPLICAS of managed clusters' }),
  /** sequence_alter_cluster_unmanaged_to_unmanaged: REPLICAS with a change that is not a no-op. */
  CannotAlterReplicasOfUnmanaged: (): Shape => ({ message: 'Cannot alter replicas in unmanaged cluster' }),
  /** The sequencer's create-replica checks: `INTERNAL` and `BILLED AS` are internal users'. */
  InternalReplicaOption: (): Shape => ({ message: 'cannot specify INTERNAL or BILLED AS as non-internal user' }),
  /** sequence_alter_cluster_unmanaged_to_managed: what an unmanaged cluster's replicas must be to become managed. */
  NonUniqueReplicaSizes: (sizes: readonly string[]): Shape => ({ message: `Cannot convert unmanaged cluster to managed, non-unique replica sizes: ${sizes.join(', ')}`, code: SQLSTATE.invalidParameterValue }),
  InvalidReplicaNames: (names: readonly string[]): Shape => ({ message: `Cannot convert unmanaged cluster to managed, invalid replica names: ${names.join(', ')}`, code: SQLSTATE.invalidParameterValue }),
  MissingSizeForEmptyCluster: (): Shape => ({ message: 'Missing SIZE for empty cluster', code: SQLSTATE.invalidParameterValue }),
  ReplicaSizeMismatch: (size: string, expected: string): Shape => ({ message: `Cluster replicas of size ${size} do not match expected SIZE ${expected}`, code: SQLSTATE.invalidParameterValue }),
  ReplicationFactorMismatch: (factor: number, replicas: number): Shape => ({ message: `REPLICATION FACTOR ${factor} does not match number of replicas (${replicas})`, code: SQLSTATE.invalidParameterValue }),

  // ---- UnauthorizedError (src/sql/src/rbac.rs) -------------------------------------------------
  Ownership: (objects: readonly (readonly [string, string])[]): Shape => ({ message: `must be owner of ${objects.map(([t, n]) => `${t} ${n}`).join(', ')}`, code: SQLSTATE.insufficientPrivilege }),
  RoleMembership: (roles: readonly string[]): Shape => ({ message: `must be a member of ${roles.map(quoted).join(', ')}`, code: SQLSTATE.insufficientPrivilege }),
  Privilege: (objectDescription: string, role: string, privileges: string): Shape => ({
    message: `permission denied for ${objectDescription}`,
    code: SQLSTATE.insufficientPrivilege,
    detail: `The '${role}' role needs ${privileges} privileges on ${objectDescription}`,
  }),
  Superuser: (action: string): Shape => ({ message: `permission denied to ${action}`, code: SQLSTATE.insufficientPrivilege, detail: `You must be a superuser to ${action}` }),

  // ---- VarError (src/sql/src/session/vars/errors.rs) -------------------------------------------
  ConstrainedParameter: (name: string, values: readonly string[], valid?: readonly string[]): Shape => ({
    message: `invalid value for parameter ${quoted(name)}: ${values.map(quoted).join(',')}`,
    code: SQLSTATE.invalidParameterValue,
    ...(valid ? { hint: `Available values: ${valid.join(', ')}.` } : {}),
  }),
  FixedValueParameter: (name: string, value: string): Shape => ({ message: `parameter ${quoted(name)} can only be set to ${quoted(value)}`, code: SQLSTATE.invalidParameterValue }),
  InvalidParameterType: (name: string, type: string): Shape => ({ message: `parameter ${quoted(name)} requires a ${quoted(type)} value`, code: SQLSTATE.invalidParameterValue }),
  InvalidParameterValue: (name: string, values: readonly string[], reason: string): Shape => ({
    message: `parameter ${quoted(name)} cannot have value ${values.map(quoted).join(',')}: ${reason}`,
    code: SQLSTATE.invalidParameterValue,
  }),
  ReadOnlyParameter: (name: string): Shape => ({ message: `parameter ${quoted(name)} cannot be changed`, code: SQLSTATE.cantChangeRuntimeParam }),
  UnknownParameter: (name: string): Shape => ({ message: `unrecognized configuration parameter ${quoted(name)}`, code: SQLSTATE.undefinedObject }),
  /** `RequiresFeatureFlag` of a flag that is off in a fresh environment (`... is not available`). */
  RequiresFeatureFlag: (feature: string, flag: string): Shape => ({
    message: `${feature} is not available`,
    detail: `The requested feature (${flag}) is in private preview.`,
    hint: 'Contact support to discuss enabling the feature in your Materialize region.',
  }),
} satisfies Record<string, (...args: never[]) => Shape>;

export type MzErrorKind = keyof typeof KINDS;

/** A Materialize error kind raised by the planner: a `PlanError` that knows which kind it is. */
export class MzError extends PlanError {
  constructor(
    readonly kind: MzErrorKind,
    shape: Shape,
  ) {
    super(shape.message, { code: shape.code ?? SQLSTATE.internalError, ...(shape.detail ? { detail: shape.detail } : {}), ...(shape.hint ? { hint: shape.hint } : {}) });
    this.name = 'MzError';
  }

  /** Where in the request it happened (a byte offset), when Materialize gives a position. */
  at(position: number | undefined): this {
    if (position !== undefined) this.position = position;
    return this;
  }

  /** The same error with a detail or hint of ours beside Materialize's words (never in place of them). */
  with(fields: Pick<ErrorFields, 'detail' | 'hint'>): MzError {
    const e = new MzError(this.kind, {
      message: this.message,
      code: this.code,
      ...(this.detail ?? fields.detail ? { detail: this.detail ?? fields.detail } : {}),
      ...(this.hint ?? fields.hint ? { hint: this.hint ?? fields.hint } : {}),
    });
    return e.at(this.position);
  }
}

type Factories = { readonly [K in MzErrorKind]: (...args: Parameters<(typeof KINDS)[K]>) => MzError };

/** The error of each kind: `mz.UnknownCluster('c')`, then `.at(position)`. */
export const mz: Factories = Object.fromEntries(
  Object.entries(KINDS).map(([kind, shape]) => [kind, (...args: never[]) => new MzError(kind as MzErrorKind, (shape as (...a: never[]) => Shape)(...args))]),
) as unknown as Factories;
