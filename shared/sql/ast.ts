/**
 * The statement AST: what the user typed, normalized (identifiers lowercased unless quoted),
 * with no catalog knowledge. The planner resolves names; the printer gives canonical SQL back.
 */

import type { ConnectionSourceType, ConnectionType, GeneratorSourceType, LoadGenerator, SinkType, TunnelType } from '../connectors';

export type { ConnectionType, LoadGenerator } from '../connectors';

/** A possibly qualified name: `db.schema.name`, `schema.name`, `name`, or `cluster.replica`. */
export type ObjectName = readonly string[];

export type OptionValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'ident'; readonly value: string }
  | { readonly kind: 'secret'; readonly name: ObjectName }
  | { readonly kind: 'object'; readonly name: ObjectName }
  | { readonly kind: 'list'; readonly items: readonly OptionValue[] }
  | { readonly kind: 'none' }
  /**
   * A cluster's `SCHEDULE = ON REFRESH [(HYDRATION TIME ESTIMATE = '<interval>')]` (`SCHEDULE = MANUAL`
   * is the ident `manual`): the cluster runs only while a REFRESH materialized view needs it.
   */
  | { readonly kind: 'refresh_schedule'; readonly hydrationTimeEstimate?: string }
  /** A materialized view's `REFRESH [=] ON COMMIT | AT CREATION | AT <expr> | EVERY '<interval>' [ALIGNED TO <expr>]`. */
  | { readonly kind: 'refresh'; readonly refresh: RefreshOptionValue }
  /** A Kafka broker reached through a tunnel: `'b1:9092' USING SSH TUNNEL t` / `USING AWS PRIVATELINK pl (AVAILABILITY ZONE 'z', PORT 9093)`. */
  | { readonly kind: 'broker'; readonly address: string; readonly via: Tunnel }
  /** A connection-level `AWS PRIVATELINK pl (PORT 9093)`: the PrivateLink connection with options. */
  | { readonly kind: 'privatelink'; readonly connection: ObjectName; readonly options: readonly SqlOption[] };

/**
 * How a broker is reached: through a connection of a tunnel type (shared/connectors: an SSH tunnel,
 * or an AWS PrivateLink connection with its options, `AVAILABILITY ZONE` and `PORT`).
 */
export interface Tunnel {
  readonly kind: TunnelType;
  readonly connection: ObjectName;
  /** Options after the connection's name (a type whose tunnel takes them); none otherwise. */
  readonly options: readonly SqlOption[];
}

/** One `REFRESH` option of a materialized view; the expressions are kept as typed (the planner evaluates them). */
export type RefreshOptionValue =
  | { readonly kind: 'on_commit' }
  | { readonly kind: 'at_creation' }
  | { readonly kind: 'at'; readonly time: RawExpr }
  | { readonly kind: 'every'; readonly interval: string; readonly alignedTo?: RawExpr };

export interface SqlOption {
  /** Canonical upper-case name, words separated by one space: `REPLICATION FACTOR`. */
  readonly name: string;
  readonly value: OptionValue;
  /** Byte offset of the option name, for errors that point at it. */
  readonly position: number;
  /** What a schema registry's `[KEY | VALUE] DOC ON TYPE t | COLUMN t.c` option documents (name `DOC ON`, `KEY DOC ON`, `VALUE DOC ON`). */
  readonly docOn?: DocOnTarget;
}

/** The object of an Avro `DOC ON` option: a type or relation (`TYPE t`), or one of its columns (`COLUMN t.c`). */
export type DocOnTarget =
  | { readonly kind: 'type'; readonly name: ObjectName }
  | { readonly kind: 'column'; readonly relation: ObjectName; readonly column: string };

export interface ReplicaDefinition {
  readonly name: string;
  readonly options: readonly SqlOption[];
}

/** Object types that DROP / SHOW know. */
export type ObjectType =
  | 'cluster'
  | 'cluster replica'
  | 'database'
  | 'schema'
  | 'secret'
  | 'connection'
  | 'source'
  | 'sink'
  | 'table'
  | 'view'
  | 'materialized view'
  | 'index'
  | 'type';

export type Expr =
  | { readonly kind: 'column'; readonly name: string; readonly position: number }
  | { readonly kind: 'literal'; readonly value: string | number | boolean | null }
  | { readonly kind: 'binary'; readonly op: '=' | '<>' | '<' | '<=' | '>' | '>='; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'and' | 'or'; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'not'; readonly expr: Expr }
  | { readonly kind: 'in'; readonly expr: Expr; readonly list: readonly Expr[]; readonly negated: boolean }
  | { readonly kind: 'like'; readonly expr: Expr; readonly pattern: Expr; readonly negated: boolean; readonly caseInsensitive: boolean }
  | { readonly kind: 'is_null'; readonly expr: Expr; readonly negated: boolean };

export interface OrderBy {
  readonly column: string;
  readonly desc: boolean;
}

export type ShowFilter = { readonly kind: 'like'; readonly pattern: string } | { readonly kind: 'where'; readonly expr: Expr };

/**
 * A piece of SQL kept as typed (a view's query, an index key expression, a column default): the
 * parser only finds where it ends; whoever needs its meaning parses it (see `view-deps.ts`).
 */
export interface RawExpr {
  readonly text: string;
  /** Byte offset of `text` in the request. */
  readonly position: number;
}

/** A column type: `text`, `numeric(10,2)`, `varchar(20)`, `text[]`, `timestamp with time zone`. */
export interface DataType {
  /** Lowercased unless quoted; built-in multi-word names are one part (`double precision`). */
  readonly name: ObjectName;
  /** Type modifiers: `(10,2)` gives `[10, 2]`. */
  readonly typmod: readonly number[];
  /** `text[]` is 1, `int[][]` is 2 (sizes written inside the brackets are ignored, as in PostgreSQL). */
  readonly arrayDimensions: number;
  /**
   * Materialize's anonymous container types: `int list` has `name` `['list']` and `list` the
   * element type; `map[text => int]` has `name` `['map']` and `map` its key and value types.
   */
  readonly list?: DataType;
  readonly map?: { readonly key: DataType; readonly value: DataType };
}

/**
 * What `CREATE TYPE name AS ...` defines: `LIST (ELEMENT TYPE = t)`, `MAP (KEY TYPE = k, VALUE TYPE = v)`
 * (options as typed, in order; the planner checks which are there) or a record `(a int, b text)`.
 */
export type CreateTypeAs =
  | { readonly kind: 'list'; readonly options: readonly TypeOption[] }
  | { readonly kind: 'map'; readonly options: readonly TypeOption[] }
  | { readonly kind: 'record'; readonly fields: readonly { readonly name: string; readonly type: DataType }[] };

export interface TypeOption {
  /** `ELEMENT TYPE`, `KEY TYPE` or `VALUE TYPE`. */
  readonly name: string;
  readonly type: DataType;
  /** Byte offset of the option's type, for errors that point at it. */
  readonly position: number;
}

export interface ColumnDef {
  readonly name: string;
  readonly type: DataType;
  readonly notNull: boolean;
  readonly default?: RawExpr;
  /** A column's own `PRIMARY KEY` or `UNIQUE`. */
  readonly unique?: 'primary key' | 'unique';
}

/** A table's `[CONSTRAINT name] PRIMARY KEY (cols)` or `UNIQUE [NULLS [NOT] DISTINCT] (cols)`. */
export interface TableConstraint {
  readonly name?: string;
  readonly primary: boolean;
  readonly nullsNotDistinct: boolean;
  readonly columns: readonly string[];
}

/** `KEY STRATEGY ...` / `VALUE STRATEGY ...` of an Avro format read through a schema registry. */
export type SchemaStrategy =
  | { readonly kind: 'latest' }
  | { readonly kind: 'id'; readonly id: number }
  | { readonly kind: 'inline'; readonly schema: string };

export type Format =
  | {
      readonly kind: 'avro';
      /** `USING CONFLUENT SCHEMA REGISTRY CONNECTION <csrConnection> [(csrOptions)]`. */
      readonly csrConnection?: ObjectName;
      readonly csrOptions: readonly SqlOption[];
      readonly keyStrategy?: SchemaStrategy;
      readonly valueStrategy?: SchemaStrategy;
      /** `USING SCHEMA '<schema>'` (inline schema instead of a registry). */
      readonly schema?: string;
    }
  | {
      readonly kind: 'protobuf';
      readonly csrConnection?: ObjectName;
      readonly csrOptions: readonly SqlOption[];
      /** `MESSAGE '<messageName>' USING SCHEMA '<schema>'`. */
      readonly messageName?: string;
      readonly schema?: string;
    }
  | { readonly kind: 'json'; readonly array: boolean }
  | { readonly kind: 'text' }
  | { readonly kind: 'bytes' }
  | {
      readonly kind: 'csv';
      /** `WITH n COLUMNS` or `WITH HEADER [(names)]`. */
      readonly columns: { readonly kind: 'count'; readonly count: number } | { readonly kind: 'header'; readonly names: readonly string[] };
      readonly delimiter?: string;
    }
  | { readonly kind: 'regex'; readonly pattern: string };

export type FormatSpecifier =
  | { readonly kind: 'bare'; readonly format: Format }
  | { readonly kind: 'key_value'; readonly key: Format; readonly value: Format };

/** One item of a Kafka source's `INCLUDE ...`. */
export type IncludeMetadata =
  | { readonly kind: 'key' | 'timestamp' | 'partition' | 'offset' | 'headers'; readonly alias?: string }
  | { readonly kind: 'header'; readonly key: string; readonly alias: string; readonly bytes: boolean };

export type SourceEnvelope =
  | { readonly kind: 'none' }
  | { readonly kind: 'debezium' }
  | {
      readonly kind: 'upsert';
      /** `UPSERT (VALUE DECODING ERRORS = INLINE [AS alias])`. */
      readonly valueDecodingErrors?: { readonly inline: true; readonly alias?: string };
    };

/** `FOR ALL TABLES` / `FOR TABLES (t [AS n], ...)` / `FOR SCHEMAS (s, ...)`. */
export type ExternalReferences =
  | { readonly kind: 'all' }
  | { readonly kind: 'tables'; readonly tables: readonly { readonly reference: ObjectName; readonly alias?: ObjectName }[] }
  | { readonly kind: 'schemas'; readonly schemas: readonly string[] };

/** `FROM <type> CONNECTION c (...)` or `FROM LOAD GENERATOR <generator> (...)`: the kind is the connector type (shared/connectors). */
export type SourceConnection =
  | { readonly kind: ConnectionSourceType; readonly connection: ObjectName; readonly options: readonly SqlOption[] }
  | { readonly kind: GeneratorSourceType; readonly generator: LoadGenerator; readonly options: readonly SqlOption[] };

export interface SinkConnection {
  readonly kind: SinkType;
  readonly connection: ObjectName;
  readonly options: readonly SqlOption[];
  /** `KEY (columns) [NOT ENFORCED]`. */
  readonly key?: { readonly columns: readonly string[]; readonly notEnforced: boolean };
  /** `HEADERS column`. */
  readonly headers?: string;
}

/**
 * `WITH (WAIT FOR '<duration>')` or `WITH (WAIT UNTIL READY (TIMEOUT [=] '<duration>', ON TIMEOUT [=] 'COMMIT' | 'ROLLBACK'))`
 * of `ALTER CLUSTER ... SET`: a graceful reconfiguration. Values as typed; the planner checks them.
 */
export type ClusterAlterWait =
  | { readonly kind: 'for'; readonly duration: string; readonly position: number }
  | { readonly kind: 'until_ready'; readonly timeout?: string; readonly onTimeout?: string; readonly position: number };

export type AlterClusterAction =
  | { readonly kind: 'set'; readonly options: readonly SqlOption[]; readonly replicas?: readonly ReplicaDefinition[]; readonly wait?: ClusterAlterWait }
  | { readonly kind: 'reset'; readonly names: readonly string[] };

export type AlterSourceAction =
  | {
      readonly kind: 'add_subsources';
      readonly references: readonly { readonly reference: ObjectName; readonly alias?: ObjectName }[];
      readonly options: readonly SqlOption[];
    }
  | { readonly kind: 'refresh_references' }
  | { readonly kind: 'set_options'; readonly options: readonly SqlOption[] }
  | { readonly kind: 'reset_options'; readonly names: readonly string[] };

/** One action of `ALTER CONNECTION`: `SET (option = value)`, `DROP (option)` / `RESET (option)`, `ROTATE KEYS`. */
export type AlterConnectionAction =
  | { readonly kind: 'set'; readonly option: SqlOption }
  | { readonly kind: 'drop'; readonly name: string; readonly word: 'DROP' | 'RESET'; readonly position: number }
  | { readonly kind: 'rotate_keys'; readonly position: number };

/** One column a webhook `CHECK`'s `WITH (...)` brings into scope: `HEADERS [AS a] [BYTES]`, `BODY ...`, `SECRET s ...`. */
export interface WebhookCheckColumn {
  readonly alias?: string;
  readonly bytes: boolean;
}

/**
 * A webhook source's `CHECK ( [WITH (...)] <expression> )`. The `WITH` items are grouped as
 * Materialize keeps (and prints) them: headers, bodies, secrets, each in the order typed.
 */
export interface WebhookCheck {
  readonly options?: {
    readonly headers: readonly WebhookCheckColumn[];
    readonly bodies: readonly WebhookCheckColumn[];
    readonly secrets: readonly (WebhookCheckColumn & { readonly secret: ObjectName; readonly position: number })[];
  };
  /** The boolean expression, as typed; the planner reads it (shared/sql/scalar.ts). */
  readonly expr: RawExpr;
}

/**
 * A role attribute of `CREATE ROLE` / `ALTER ROLE` as typed (Materialize's grammar): the planner
 * decides which it takes. `PASSWORD` carries its value, `null` for `PASSWORD NULL`.
 */
export type RoleAttribute =
  | {
      readonly kind:
        | 'SUPERUSER'
        | 'NOSUPERUSER'
        | 'LOGIN'
        | 'NOLOGIN'
        | 'INHERIT'
        | 'NOINHERIT'
        | 'CREATECLUSTER'
        | 'NOCREATECLUSTER'
        | 'CREATEDB'
        | 'NOCREATEDB'
        | 'CREATEROLE'
        | 'NOCREATEROLE';
    }
  | { readonly kind: 'PASSWORD'; readonly password: string | null };

/** A network policy's rule as typed: its name and options (`ACTION`, `DIRECTION`, `ADDRESS`), checked by the planner. */
export interface NetworkPolicyRuleDef {
  readonly name: string;
  readonly options: readonly SqlOption[];
}

/** `ALTER ROLE r [WITH] attributes | SET name {TO | =} value | RESET name`. */
export type AlterRoleAction =
  | { readonly kind: 'attributes'; readonly attributes: readonly RoleAttribute[] }
  | { readonly kind: 'set'; readonly variable: string; readonly value: RawExpr }
  | { readonly kind: 'reset'; readonly variable: string };

/** A privilege of `GRANT` / `REVOKE` / `ALTER DEFAULT PRIVILEGES`, as Materialize spells it. */
export type Privilege = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE' | 'USAGE' | 'CREATE' | 'CREATEROLE' | 'CREATEDB' | 'CREATECLUSTER' | 'CREATENETWORKPOLICY';

/** `ALL [PRIVILEGES]` or a list. */
export type PrivilegeSpec = { readonly kind: 'all' } | { readonly kind: 'list'; readonly privileges: readonly Privilege[] };

/** Object types privileges are granted on (`ON TABLE t`, `ON ALL TYPES`): relations are all `table`. */
export type GrantObjectType = 'table' | 'type' | 'cluster' | 'secret' | 'connection' | 'database' | 'schema';

/** `ON SYSTEM`, `ON <type> name, ...`, or `ON ALL <type>S [IN DATABASE d, ... | IN SCHEMA s, ...]`. */
export type GrantTarget =
  | { readonly kind: 'system' }
  | { readonly kind: 'objects'; readonly objectType: GrantObjectType; readonly names: readonly ObjectName[] }
  | { readonly kind: 'all'; readonly objectType: GrantObjectType; readonly in?: GrantIn };

/** `IN DATABASE d, ...` / `IN SCHEMA s, ...` of `ON ALL ...` and of `ALTER DEFAULT PRIVILEGES`. */
export type GrantIn = { readonly kind: 'database'; readonly names: readonly ObjectName[] } | { readonly kind: 'schema'; readonly names: readonly ObjectName[] };

export type SecretValue = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'raw'; readonly expr: RawExpr };

export type Statement =
  | {
      readonly kind: 'create_cluster';
      readonly name: string;
      /** Present for an unmanaged cluster (`REPLICAS (...)`), absent for a managed one. */
      readonly replicas?: readonly ReplicaDefinition[];
      readonly options: readonly SqlOption[];
      /** `FEATURES (...)`: optimizer overrides (the system user's to give). */
      readonly features?: { readonly position: number; readonly options: readonly SqlOption[] };
    }
  | {
      readonly kind: 'create_cluster_replica';
      readonly cluster: string;
      readonly name: string;
      readonly options: readonly SqlOption[];
    }
  | {
      readonly kind: 'drop';
      readonly objectType: ObjectType;
      readonly ifExists: boolean;
      readonly names: readonly ObjectName[];
      /** What the user typed; the plan resolves what it means. */
      readonly cascade: boolean;
      /** `RESTRICT` written out (the default either way). */
      readonly restrict: boolean;
    }
  | {
      readonly kind: 'show';
      /** `clusters`, `cluster replicas`, ... (the plural the user typed, lowercased). */
      readonly what: string;
      /** `SHOW INDEXES ON <obj>`, `SHOW SUBSOURCES ON <source>`. */
      readonly on?: ObjectName;
      /** The schema of `SHOW <plural> FROM`; the relation of `SHOW COLUMNS FROM`. */
      readonly from?: ObjectName;
      /** Byte offset of `from` (`SHOW COLUMNS`), for errors that point at it. */
      readonly fromPosition?: number;
      readonly inCluster?: string;
      readonly filter?: ShowFilter;
    }
  | {
      readonly kind: 'select';
      /** `undefined` for `*`. */
      readonly columns?: readonly string[];
      /** The relation read; empty when `fromShow` is the relation. */
      readonly from: ObjectName;
      readonly fromPosition: number;
      /** `SELECT ... FROM (SHOW ...)`: the SHOW's output is the relation read, as in Materialize. */
      readonly fromShow?: ShowStatement;
      readonly where?: Expr;
      readonly orderBy: readonly OrderBy[];
      readonly limit?: number;
      readonly offset?: number;
    }
  | { readonly kind: 'create_database'; readonly name: string; readonly ifNotExists: boolean }
  | {
      readonly kind: 'create_schema';
      /** `schema` or `database.schema`. */
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
    }
  | { readonly kind: 'create_secret'; readonly name: ObjectName; readonly ifNotExists: boolean; readonly value: SecretValue }
  | { readonly kind: 'alter_secret'; readonly name: ObjectName; readonly ifExists: boolean; readonly value: SecretValue }
  | {
      readonly kind: 'create_connection';
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly connectionType: ConnectionType;
      readonly options: readonly SqlOption[];
      /** `WITH (VALIDATE = false)`. */
      readonly withOptions: readonly SqlOption[];
    }
  | {
      readonly kind: 'create_source';
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly inCluster?: string;
      /** `CREATE SOURCE s (a, b) ...`: column names overriding the decoded ones. */
      readonly columns?: readonly string[];
      readonly connection: SourceConnection;
      readonly format?: FormatSpecifier;
      readonly includeMetadata: readonly IncludeMetadata[];
      readonly envelope?: SourceEnvelope;
      readonly references?: ExternalReferences;
      /** `EXPOSE PROGRESS AS <name>`. */
      readonly exposeProgress?: ObjectName;
      readonly withOptions: readonly SqlOption[];
    }
  | {
      readonly kind: 'create_webhook_source';
      /**
       * `CREATE TABLE ... FROM WEBHOOK` (Materialize's newer form): the webhook feeds a table,
       * which takes no `IN CLUSTER` (it runs on the session's cluster).
       */
      readonly isTable?: boolean;
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly inCluster?: string;
      /** JSON, JSON ARRAY, TEXT or BYTES. */
      readonly bodyFormat: Format;
      /** `INCLUDE HEADER '<header>' AS <alias> [BYTES]`, in order. */
      readonly includeHeader: readonly { readonly header: string; readonly alias: string; readonly bytes: boolean }[];
      /** `INCLUDE HEADERS [([NOT] 'name', ...)]`; `filters` is empty when no list was written. */
      readonly includeHeaders?: { readonly filters: readonly { readonly block: boolean; readonly header: string }[] };
      readonly check?: WebhookCheck;
    }
  | {
      readonly kind: 'create_sink';
      /** Absent when the statement leaves it out (the planner refuses it, as Materialize's does). */
      readonly name?: ObjectName;
      readonly ifNotExists: boolean;
      readonly inCluster?: string;
      readonly from: ObjectName;
      readonly connection: SinkConnection;
      readonly format?: FormatSpecifier;
      readonly envelope?: 'debezium' | 'upsert';
      readonly withOptions: readonly SqlOption[];
    }
  | {
      readonly kind: 'create_table';
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly temporary: boolean;
      readonly columns: readonly ColumnDef[];
      /** Table constraints, after the columns (Materialize's order when it prints them). */
      readonly constraints?: readonly TableConstraint[];
      readonly withOptions: readonly SqlOption[];
    }
  /**
   * `CREATE TABLE t [(a, b)] FROM SOURCE s [(REFERENCE [=] upstream)] [FORMAT ...] [INCLUDE ...]
   * [ENVELOPE ...] [WITH (...)]`: a read-only table the source's ingestion writes (Materialize's
   * current source model). Column names only; the types come from upstream.
   */
  | {
      readonly kind: 'create_table_from_source';
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly columns?: readonly string[];
      readonly source: ObjectName;
      readonly reference?: ObjectName;
      readonly format?: FormatSpecifier;
      readonly includeMetadata: readonly IncludeMetadata[];
      readonly envelope?: SourceEnvelope;
      readonly withOptions: readonly SqlOption[];
    }
  | { readonly kind: 'create_type'; readonly name: ObjectName; readonly as: CreateTypeAs }
  | {
      readonly kind: 'create_view';
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly orReplace: boolean;
      readonly temporary: boolean;
      readonly columns?: readonly string[];
      /** The query after `AS`, as typed (not parsed here). */
      readonly query: string;
      /** Byte offset of `query` in the request. */
      readonly queryPosition: number;
    }
  | {
      readonly kind: 'create_materialized_view';
      readonly name: ObjectName;
      readonly ifNotExists: boolean;
      readonly orReplace: boolean;
      readonly columns?: readonly string[];
      /** `CREATE REPLACEMENT MATERIALIZED VIEW name FOR target`: the materialized view it is to replace. */
      readonly replacementFor?: { readonly name: ObjectName; readonly position: number };
      readonly inCluster?: string;
      /** `IN CLUSTER c REPLICA r` / `IN REPLICA r`: a replica-targeted materialized view. */
      readonly inReplica?: { readonly name: string; readonly position: number };
      readonly withOptions: readonly SqlOption[];
      readonly query: string;
      readonly queryPosition: number;
    }
  | {
      readonly kind: 'create_index';
      /** Absent when the user named none (the planner derives one). */
      readonly name?: string;
      readonly ifNotExists: boolean;
      readonly inCluster?: string;
      readonly on: ObjectName;
      /** The key expressions as typed; absent for `CREATE DEFAULT INDEX` (key inferred from the object). */
      readonly keyParts?: readonly RawExpr[];
      readonly withOptions: readonly SqlOption[];
    }
  | { readonly kind: 'alter_rename'; readonly objectType: ObjectType; readonly ifExists: boolean; readonly name: ObjectName; readonly newName: string }
  | { readonly kind: 'alter_owner'; readonly objectType: ObjectType; readonly ifExists: boolean; readonly name: ObjectName; readonly owner: string }
  | { readonly kind: 'alter_set_cluster'; readonly objectType: ObjectType; readonly ifExists: boolean; readonly name: ObjectName; readonly cluster: string }
  | { readonly kind: 'alter_swap'; readonly objectType: ObjectType; readonly name: ObjectName; readonly other: string }
  /** `ALTER TABLE | SOURCE | INDEX | MATERIALIZED VIEW ... SET (RETAIN HISTORY [=] FOR '<interval>')`; no option: `RESET (RETAIN HISTORY)`. */
  | { readonly kind: 'alter_retain_history'; readonly objectType: ObjectType; readonly ifExists: boolean; readonly name: ObjectName; readonly option?: SqlOption }
  /**
   * `ALTER SOURCE s ADD SUBSOURCE|TABLE upstream [AS name], ... [WITH (TEXT COLUMNS (...), EXCLUDE COLUMNS (...))]`,
   * `ALTER SOURCE s REFRESH REFERENCES`, `ALTER SOURCE s SET (TIMESTAMP INTERVAL ...)` / `RESET (TIMESTAMP INTERVAL)`
   * (`SET / RESET (RETAIN HISTORY)` alone is `alter_retain_history`).
   */
  | { readonly kind: 'alter_source'; readonly ifExists: boolean; readonly name: ObjectName; readonly action: AlterSourceAction }
  /**
   * `ALTER TABLE [IF EXISTS] t ADD COLUMN [IF NOT EXISTS] c type`: Materialize adds nullable
   * columns only, without a default, so the grammar takes a name and a type and nothing more.
   */
  | {
      readonly kind: 'alter_table_add_column';
      readonly ifExists: boolean;
      readonly name: ObjectName;
      readonly ifColumnNotExists: boolean;
      readonly column: string;
      readonly type: DataType;
      /** Byte offset of the column's name, for errors that point at it. */
      readonly columnPosition: number;
    }
  /**
   * `ALTER CONNECTION [IF EXISTS] c SET (o = v), DROP (o), RESET (o), ... [WITH (VALIDATE [= b])]`
   * and `ALTER CONNECTION c ROTATE KEYS`: Materialize's grammar (one option per action).
   */
  | {
      readonly kind: 'alter_connection';
      readonly ifExists: boolean;
      readonly name: ObjectName;
      readonly actions: readonly AlterConnectionAction[];
      readonly withOptions: readonly SqlOption[];
    }
  /** `VALIDATE CONNECTION c`: runs the connection's upstream check now and answers OK or the upstream's error. */
  | { readonly kind: 'validate_connection'; readonly name: ObjectName }
  /**
   * Any other query (SELECT, WITH, VALUES, TABLE, a parenthesized query): its text as typed,
   * answered by the SQL engine over the system catalog (shared/api/catalog-sql.ts).
   */
  | { readonly kind: 'query'; readonly text: string; readonly position: number }
  /** `SET [SESSION | LOCAL] name { TO | = } value, ...` (`SET TIME ZONE x`, `SET NAMES x`): a session variable. */
  | { readonly kind: 'set_variable'; readonly name: string; readonly local: boolean; readonly value: readonly string[] | 'default' }
  /** `RESET name` / `RESET ALL`. */
  | { readonly kind: 'reset_variable'; readonly name: string }
  /** `SHOW name` / `SHOW ALL` / `SHOW TRANSACTION ISOLATION LEVEL`: a session variable. */
  | { readonly kind: 'show_variable'; readonly name: string }
  /** Our extension: a new generation of a source or sink, so the data plane starts it again (the way out of `failed`). */
  | { readonly kind: 'alter_restart'; readonly objectType: 'source' | 'sink'; readonly ifExists: boolean; readonly name: ObjectName }
  | { readonly kind: 'alter_cluster'; readonly name: string; readonly ifExists: boolean; readonly action: AlterClusterAction }
  /** `ALTER MATERIALIZED VIEW [IF EXISTS] mv APPLY REPLACEMENT r`. */
  | { readonly kind: 'alter_apply_replacement'; readonly name: ObjectName; readonly ifExists: boolean; readonly replacement: ObjectName; readonly replacementPosition: number }
  | { readonly kind: 'show_create'; readonly objectType: ObjectType; readonly name: ObjectName }
  /**
   * `COMMENT ON <type> <name> IS '...' | NULL`. For `COLUMN`, `name` is the relation's name and
   * `column` the column's; `comment` null removes the comment.
   */
  | {
      readonly kind: 'comment';
      readonly objectType: ObjectType | 'column' | 'role' | 'network policy';
      readonly name: ObjectName;
      readonly column?: string;
      readonly comment: string | null;
      /** Byte offset of the name, for errors that point at it. */
      readonly namePosition: number;
    }
  /** `CREATE ROLE name [WITH] attributes`. */
  | { readonly kind: 'create_role'; readonly name: string; readonly attributes: readonly RoleAttribute[] }
  | { readonly kind: 'alter_role'; readonly name: string; readonly action: AlterRoleAction }
  /** `CREATE NETWORK POLICY name (RULES (rule (ACTION = ..., DIRECTION = ..., ADDRESS = ...), ...))`; `ALTER NETWORK POLICY name SET (RULES (...))`. */
  | { readonly kind: 'create_network_policy' | 'alter_network_policy'; readonly name: string; readonly rules?: readonly NetworkPolicyRuleDef[] }
  /** `DROP NETWORK POLICY [IF EXISTS] name, ...`. */
  | { readonly kind: 'drop_network_policy'; readonly ifExists: boolean; readonly names: readonly string[] }
  /** `ALTER SINK [IF EXISTS] s SET FROM relation`: the sink exports another relation (dbt's blue/green deploys). */
  | { readonly kind: 'alter_sink_from'; readonly ifExists: boolean; readonly name: ObjectName; readonly from: ObjectName; readonly fromPosition: number }
  /** `ALTER SYSTEM SET name {TO | =} value, ... | DEFAULT`; `ALTER SYSTEM RESET name | ALL` (name `all`). */
  | { readonly kind: 'alter_system_set'; readonly name: string; readonly value: readonly string[] | 'default' }
  | { readonly kind: 'alter_system_reset'; readonly name: string }
  /** `DROP ROLE [IF EXISTS] name, ...` (roles take no CASCADE). */
  | { readonly kind: 'drop_role'; readonly ifExists: boolean; readonly names: readonly string[] }
  /** `GRANT role, ... TO member, ...` / `REVOKE role, ... FROM member, ...` (`GROUP` before a member is noise). */
  | { readonly kind: 'grant_role' | 'revoke_role'; readonly roles: readonly string[]; readonly members: readonly string[] }
  /** `GRANT privileges ON target TO role, ...` / `REVOKE privileges ON target FROM role, ...`. */
  | { readonly kind: 'grant_privileges' | 'revoke_privileges'; readonly privileges: PrivilegeSpec; readonly target: GrantTarget; readonly roles: readonly string[] }
  /**
   * `ALTER DEFAULT PRIVILEGES FOR {ROLE r, ... | ALL ROLES} [IN DATABASE ... | IN SCHEMA ...]
   * {GRANT privileges ON <type>S TO g, ... | REVOKE privileges ON <type>S FROM g, ...}`;
   * `targetRoles` is absent for `ALL ROLES`.
   */
  | {
      readonly kind: 'alter_default_privileges';
      readonly targetRoles?: readonly string[];
      readonly in?: GrantIn;
      readonly grant: boolean;
      readonly privileges: PrivilegeSpec;
      readonly objectType: GrantObjectType;
      readonly grantees: readonly string[];
    }
  /** `DROP OWNED BY role, ... [CASCADE | RESTRICT]`. */
  | { readonly kind: 'drop_owned'; readonly roles: readonly string[]; readonly cascade?: boolean }
  /** `REASSIGN OWNED BY role, ... TO role`. */
  | { readonly kind: 'reassign_owned'; readonly oldRoles: readonly string[]; readonly newRole: string }
  | {
      readonly kind: 'start_transaction';
      /** Canonical upper-case modes: `ISOLATION LEVEL SERIALIZABLE`, `READ ONLY`, `READ WRITE`. */
      readonly modes: readonly string[];
    }
  | { readonly kind: 'commit'; readonly chain: boolean }
  | { readonly kind: 'rollback'; readonly chain: boolean }
  | {
      readonly kind: 'explain_effects';
      /** The DDL statement whose catalog change and effects are explained (never run). */
      readonly statement: Statement;
    };

export type StatementKind = Statement['kind'];

/** `SHOW <plural> ...` and `SHOW COLUMNS ...` (not `SHOW CREATE`). */
export type ShowStatement = Extract<Statement, { kind: 'show' }>;

/** A statement with its place in the request text (byte offsets, end exclusive). */
export interface ParsedStatement {
  readonly statement: Statement;
  readonly start: number;
  readonly end: number;
  /** The statement's own text, as typed. */
  readonly text: string;
}
