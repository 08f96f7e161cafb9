/**
 * The option names each option list accepts, with Materialize's spellings. The parser rejects a
 * name outside its list (listing the valid ones) and a name given twice, before any planning.
 * Names Materialize has but we do not are answered 0A000 instead of "Expected one of ...".
 */

export interface OptionListSpec {
  /** For messages: `CREATE CLUSTER`, `Kafka connection`, ... */
  readonly what: string;
  /** Canonical names: upper case, words separated by one space. */
  readonly names: readonly string[];
  /** Materialize has these here; we do not (yet). */
  readonly unsupported?: readonly string[];
  /** Alternative spellings, mapped to the canonical name. */
  readonly aliases?: Readonly<Record<string, string>>;
}

const CLUSTER_NAMES = [
  'AVAILABILITY ZONES',
  'DISK',
  'INTROSPECTION DEBUGGING',
  'INTROSPECTION INTERVAL',
  'MANAGED',
  'REPLICAS',
  'REPLICATION FACTOR',
  'SCHEDULE',
  'SIZE',
  'WORKLOAD CLASS',
] as const;

const SSL_NAMES = ['SSL CERTIFICATE', 'SSL CERTIFICATE AUTHORITY', 'SSL KEY'] as const;

/**
 * Connection options whose value must be a `SECRET` reference, as Materialize reads them
 * (`with_options::Secret` in its connection option list): a literal there would put a credential
 * into the catalog, the transaction record, the stream and SHOW CREATE.
 */
export const SECRET_ONLY_OPTIONS: ReadonlySet<string> = new Set(['PASSWORD', 'SASL PASSWORD', 'SECRET ACCESS KEY', 'SSL KEY']);

export const OPTION_LISTS = {
  cluster: { what: 'CREATE CLUSTER', names: CLUSTER_NAMES },
  // Materialize reads `ALTER CLUSTER ... SET (REPLICAS (...))` / `RESET (REPLICAS)`; we do not.
  alterCluster: { what: 'ALTER CLUSTER', names: CLUSTER_NAMES.filter((n) => n !== 'REPLICAS'), unsupported: ['REPLICAS'] },
  replica: {
    what: 'cluster replica',
    names: [
      'AVAILABILITY ZONE',
      'BILLED AS',
      'COMPUTE ADDRESSES',
      'COMPUTECTL ADDRESSES',
      'DISK',
      'INTERNAL',
      'INTROSPECTION DEBUGGING',
      'INTROSPECTION INTERVAL',
      'SIZE',
      'STORAGE ADDRESSES',
      'STORAGECTL ADDRESSES',
      'WORKERS',
    ],
  },
  kafkaConnection: {
    what: 'Kafka connection',
    names: [
      'AWS CONNECTION',
      'AWS PRIVATELINK',
      'BROKER',
      'BROKERS',
      'PROGRESS TOPIC',
      'PROGRESS TOPIC REPLICATION FACTOR',
      'SASL MECHANISMS',
      'SASL PASSWORD',
      'SASL USERNAME',
      'SECURITY PROTOCOL',
      ...SSL_NAMES,
      'SSH TUNNEL',
    ],
  },
  postgresConnection: {
    what: 'PostgreSQL connection',
    names: ['AWS PRIVATELINK', 'DATABASE', 'HOST', 'PASSWORD', 'PORT', 'SSH TUNNEL', ...SSL_NAMES, 'SSL MODE', 'USER'],
    aliases: { USERNAME: 'USER' },
  },
  awsConnection: {
    what: 'AWS connection',
    names: ['ACCESS KEY ID', 'ASSUME ROLE ARN', 'ASSUME ROLE SESSION NAME', 'ENDPOINT', 'REGION', 'SECRET ACCESS KEY', 'SESSION TOKEN'],
  },
  awsPrivatelinkConnection: { what: 'AWS PrivateLink connection', names: ['AVAILABILITY ZONES', 'SERVICE NAME'] },
  sshConnection: { what: 'SSH tunnel connection', names: ['HOST', 'PORT', 'USER'], aliases: { USERNAME: 'USER' } },
  csrConnection: {
    what: 'Confluent Schema Registry connection',
    names: ['AWS PRIVATELINK', 'PASSWORD', ...SSL_NAMES, 'SSH TUNNEL', 'URL', 'USER'],
    aliases: { USERNAME: 'USER' },
  },
  connectionWith: { what: 'CREATE CONNECTION', names: ['VALIDATE'] },
  kafkaSource: {
    what: 'Kafka source',
    names: ['GROUP ID PREFIX', 'START OFFSET', 'START TIMESTAMP', 'TOPIC', 'TOPIC METADATA REFRESH INTERVAL'],
  },
  postgresSource: { what: 'PostgreSQL source', names: ['PUBLICATION', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
  loadGenerator: {
    what: 'load generator',
    names: [
      'AS OF',
      'BATCH SIZE',
      'KEYS',
      'MAX CARDINALITY',
      'PARTITIONS',
      'SCALE FACTOR',
      'SEED',
      'SNAPSHOT ROUNDS',
      'TICK INTERVAL',
      'TRANSACTIONAL SNAPSHOT',
      'UP TO',
      'VALUE SIZE',
    ],
  },
  sourceWith: { what: 'CREATE SOURCE', names: ['RETAIN HISTORY', 'TIMESTAMP INTERVAL'] },
  kafkaSink: {
    what: 'Kafka sink',
    names: [
      'COMPRESSION TYPE',
      'LEGACY IDS',
      'PROGRESS GROUP ID PREFIX',
      'TOPIC',
      'TOPIC METADATA REFRESH INTERVAL',
      'TOPIC PARTITION COUNT',
      'TOPIC REPLICATION FACTOR',
      'TRANSACTIONAL ID PREFIX',
    ],
    unsupported: ['PARTITION BY', 'TOPIC CONFIG'],
  },
  sinkWith: { what: 'CREATE SINK', names: ['SNAPSHOT', 'VERSION'], unsupported: ['PARTITION STRATEGY'] },
  csrConfig: {
    what: 'schema registry',
    names: ['AVRO KEY FULLNAME', 'AVRO VALUE FULLNAME', 'KEY COMPATIBILITY LEVEL', 'NULL DEFAULTS', 'VALUE COMPATIBILITY LEVEL'],
    unsupported: ['DOC ON', 'KEY DOC ON', 'VALUE DOC ON'],
  },
  // `PARTITION BY (col, ...)`: a storage layout hint Materialize keeps in the table's definition.
  tableWith: { what: 'CREATE TABLE', names: ['PARTITION BY', 'RETAIN HISTORY'] },
  indexWith: { what: 'CREATE INDEX', names: ['RETAIN HISTORY'] },
  materializedViewWith: {
    what: 'CREATE MATERIALIZED VIEW',
    names: ['ASSERT NOT NULL', 'RETAIN HISTORY'],
    unsupported: ['PARTITION BY', 'REFRESH'],
  },
} as const satisfies Record<string, OptionListSpec>;

export type OptionListName = keyof typeof OPTION_LISTS;

/**
 * Options whose value Materialize writes after a keyword (`RETAIN HISTORY FOR '1h'`, with or
 * without `=`); the keyword is not part of the value, and the printer writes it back.
 */
export const VALUE_PREFIX: Readonly<Record<string, string>> = { 'RETAIN HISTORY': 'FOR' };
