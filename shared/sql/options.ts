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
  /** What "Expected ..." lists for an unknown name, as Materialize words it (default: one of the names). */
  readonly expected?: readonly string[];
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
  alterCluster: { what: 'ALTER CLUSTER', names: CLUSTER_NAMES },
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
  mysqlConnection: {
    what: 'MySQL connection',
    names: ['AWS CONNECTION', 'AWS PRIVATELINK', 'HOST', 'PASSWORD', 'PORT', 'SSH TUNNEL', ...SSL_NAMES, 'SSL MODE', 'USER'],
    aliases: { USERNAME: 'USER' },
  },
  sqlServerConnection: {
    what: 'SQL Server connection',
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
    names: ['AWS PRIVATELINK', 'PASSWORD', 'PORT', ...SSL_NAMES, 'SSH TUNNEL', 'URL', 'USER'],
    aliases: { USERNAME: 'USER' },
  },
  connectionWith: { what: 'CREATE CONNECTION', names: ['VALIDATE'] },
  kafkaSource: {
    what: 'Kafka source',
    names: ['GROUP ID PREFIX', 'START OFFSET', 'START TIMESTAMP', 'TOPIC', 'TOPIC METADATA REFRESH INTERVAL'],
  },
  postgresSource: { what: 'PostgreSQL source', names: ['PUBLICATION', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
  mysqlSource: { what: 'MySQL source', names: ['EXCLUDE COLUMNS', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
  sqlServerSource: { what: 'SQL Server source', names: ['EXCLUDE COLUMNS', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
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
  /** `ALTER SOURCE ... SET / RESET (...)`: an unknown name lists what Materialize's parser lists (its options' first words). */
  alterSourceSet: { what: 'ALTER SOURCE', names: ['RETAIN HISTORY', 'TIMESTAMP INTERVAL'], expected: ['TIMESTAMP', 'RETAIN'] },
  alterSourceAddSubsource: { what: 'ALTER SOURCE ... ADD SUBSOURCE', names: ['EXCLUDE COLUMNS', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
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
  sinkWith: {
    what: 'CREATE SINK',
    names: ['SNAPSHOT', 'VERSION'],
    unsupported: ['PARTITION STRATEGY', 'COMMIT INTERVAL'],
    expected: ['PARTITION', 'SNAPSHOT', 'VERSION', 'COMMIT'],
  },
  csrConfig: {
    what: 'schema registry',
    // `[KEY | VALUE] DOC ON` takes `TYPE t` or `COLUMN t.c` after it (the parser reads that part).
    names: ['AVRO KEY FULLNAME', 'AVRO VALUE FULLNAME', 'DOC ON', 'KEY COMPATIBILITY LEVEL', 'KEY DOC ON', 'NULL DEFAULTS', 'VALUE COMPATIBILITY LEVEL', 'VALUE DOC ON'],
  },
  // `PARTITION BY (col, ...)`: a storage layout hint Materialize keeps in the table's definition.
  tableWith: { what: 'CREATE TABLE', names: ['PARTITION BY', 'RETAIN HISTORY'] },
  tableFromSourceWith: { what: 'CREATE TABLE ... FROM SOURCE', names: ['EXCLUDE COLUMNS', 'PARTITION BY', 'RETAIN HISTORY', 'TEXT COLUMNS'] },
  indexWith: { what: 'CREATE INDEX', names: ['RETAIN HISTORY'] },
  materializedViewWith: {
    what: 'CREATE MATERIALIZED VIEW',
    names: ['ASSERT NOT NULL', 'REFRESH', 'RETAIN HISTORY'],
    unsupported: ['PARTITION BY'],
  },
} as const satisfies Record<string, OptionListSpec>;

export type OptionListName = keyof typeof OPTION_LISTS;

/**
 * Materialize's parser reads every connection option name after any connection type and its
 * planner then refuses the ones the type does not take ("KAFKA connections do not support ACCESS
 * KEY ID values"): the union of our per-type lists is what the parser reads.
 */
export const ANY_CONNECTION_OPTIONS: OptionListSpec = (() => {
  const lists = Object.entries(OPTION_LISTS)
    .filter(([k]) => k.endsWith('Connection'))
    .map(([, v]) => v as OptionListSpec);
  return {
    what: 'connection',
    names: [...new Set(lists.flatMap((l) => l.names))].sort(),
    aliases: Object.assign({}, ...lists.map((l) => l.aliases ?? {})) as Record<string, string>,
    // Materialize's first words of a connection option name, in its order.
    expected: ['ACCESS', 'ASSUME', 'AVAILABILITY', 'AWS', 'BROKER', 'BROKERS', 'CATALOG', 'CREDENTIAL', 'DATABASE', 'ENDPOINT', 'HOST', 'PASSWORD', 'PORT', 'PUBLIC', 'PROGRESS', 'REGION', 'ROLE', 'SASL', 'SCOPE', 'SECRET', 'SECURITY', 'SERVICE', 'SESSION', 'SSH', 'SSL', 'URL', 'USER', 'USERNAME', 'WAREHOUSE'],
  };
})();

/** Materialize's order of connection option names (its `ConnectionOptionName`), for its messages. */
const CONNECTION_OPTION_ORDER = [
  'ACCESS KEY ID', 'ASSUME ROLE ARN', 'ASSUME ROLE SESSION NAME', 'AVAILABILITY ZONES', 'AWS CONNECTION', 'AWS PRIVATELINK', 'BROKER', 'BROKERS',
  'CREDENTIAL', 'DATABASE', 'ENDPOINT', 'HOST', 'PASSWORD', 'PORT', 'PROGRESS TOPIC', 'PROGRESS TOPIC REPLICATION FACTOR', 'PUBLIC KEY 1',
  'PUBLIC KEY 2', 'REGION', 'SASL MECHANISMS', 'SASL PASSWORD', 'SASL USERNAME', 'SCOPE', 'SECRET ACCESS KEY', 'SECURITY PROTOCOL', 'SERVICE NAME',
  'SSH TUNNEL', 'SSL CERTIFICATE', 'SSL CERTIFICATE AUTHORITY', 'SSL KEY', 'SSL MODE', 'SESSION TOKEN', 'CATALOG TYPE', 'URL', 'USER', 'WAREHOUSE',
];

/** Each connection type's option list, by the type as the AST spells it. */
export const CONNECTION_OPTION_LISTS: Readonly<Record<string, OptionListSpec>> = {
  kafka: OPTION_LISTS.kafkaConnection,
  postgres: OPTION_LISTS.postgresConnection,
  mysql: OPTION_LISTS.mysqlConnection,
  'sql server': OPTION_LISTS.sqlServerConnection,
  aws: OPTION_LISTS.awsConnection,
  'aws privatelink': OPTION_LISTS.awsPrivatelinkConnection,
  'ssh tunnel': OPTION_LISTS.sshConnection,
  'confluent schema registry': OPTION_LISTS.csrConnection,
};

/**
 * The names in `given` that `spec` (one connection type's list) does not take, in Materialize's
 * order; empty when all are taken.
 */
export function foreignOptionNames(spec: OptionListSpec, given: readonly string[]): string[] {
  const taken = new Set(spec.names);
  const rank = (n: string) => {
    const i = CONNECTION_OPTION_ORDER.indexOf(n);
    return i < 0 ? CONNECTION_OPTION_ORDER.length : i;
  };
  return [...new Set(given.filter((n) => !taken.has(n)))].sort((a, b) => rank(a) - rank(b));
}

/**
 * Options whose value Materialize writes after a keyword (`RETAIN HISTORY FOR '1h'`, with or
 * without `=`); the keyword is not part of the value, and the printer writes it back.
 */
export const VALUE_PREFIX: Readonly<Record<string, string>> = { 'RETAIN HISTORY': 'FOR' };
