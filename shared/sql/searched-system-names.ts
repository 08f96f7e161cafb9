/**
 * The relations of `mz_catalog` and `pg_catalog`, the system schemas Materialize's search path
 * tries before the user's for an unqualified name: a name here refers to a system relation, not to
 * a user's item. The names alone (a kilobyte), for the planner's cold path; the relations with their
 * kinds and columns are in ./materialize-relations.ts (loaded on the SELECT error path), and
 * test/sql/searched-system-names.test.ts checks that the two agree.
 */
export const SEARCHED_SYSTEM_NAMES: ReadonlySet<string> = new Set(
  [
    'mz_array_types mz_audit_events mz_aws_privatelink_connections mz_base_types',
    'mz_cluster_replica_frontiers mz_cluster_replica_sizes mz_cluster_replicas mz_clusters',
    'mz_columns mz_connections mz_databases mz_default_privileges mz_egress_ips mz_functions',
    'mz_iceberg_sinks mz_index_columns mz_indexes mz_kafka_connections mz_kafka_sinks',
    'mz_kafka_sources mz_list_types mz_map_types mz_materialized_views mz_objects mz_operators',
    'mz_pseudo_types mz_recent_storage_usage mz_relations mz_role_auth mz_role_members',
    'mz_role_parameters mz_roles mz_schemas mz_secrets mz_sinks mz_sources mz_ssh_tunnel_connections',
    'mz_storage_usage mz_system_privileges mz_tables mz_timezone_abbreviations mz_timezone_names',
    'mz_types mz_views pg_aggregate pg_am pg_attrdef pg_attribute pg_auth_members pg_authid pg_class',
    'pg_collation pg_constraint pg_database pg_depend pg_description pg_enum pg_event_trigger',
    'pg_extension pg_index pg_indexes pg_inherits pg_language pg_locks pg_matviews pg_namespace',
    'pg_operator pg_policy pg_proc pg_range pg_rewrite pg_roles pg_settings pg_shdescription',
    'pg_tables pg_tablespace pg_timezone_abbrevs pg_timezone_names pg_trigger pg_type pg_user',
    'pg_views',
  ].flatMap((line) => line.split(' ')),
);
