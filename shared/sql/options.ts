/**
 * The option names each option list accepts, with Materialize's spellings. The parser rejects a
 * name outside its list (listing the valid ones) and a name given twice, before any planning.
 * Names Materialize has but we do not are answered 0A000 instead of "Expected one of ...".
 */

import { CONNECTION_CONNECTORS, type OptionListSpec } from '../connectors';

export type { OptionListSpec } from '../connectors';

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
  connectionWith: { what: 'CREATE CONNECTION', names: ['VALIDATE'] },
  sourceWith: { what: 'CREATE SOURCE', names: ['RETAIN HISTORY', 'TIMESTAMP INTERVAL'] },
  /** `ALTER SOURCE ... SET / RESET (...)`: an unknown name lists what Materialize's parser lists (its options' first words). */
  alterSourceSet: { what: 'ALTER SOURCE', names: ['RETAIN HISTORY', 'TIMESTAMP INTERVAL'], expected: ['TIMESTAMP', 'RETAIN'] },
  alterSourceAddSubsource: { what: 'ALTER SOURCE ... ADD SUBSOURCE', names: ['EXCLUDE COLUMNS', 'TEXT COLUMNS'], unsupported: ['DETAILS'] },
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
    names: ['ASSERT NOT NULL', 'PARTITION BY', 'REFRESH', 'RETAIN HISTORY'],
  },
} as const satisfies Record<string, OptionListSpec>;

export type OptionListName = keyof typeof OPTION_LISTS;

/**
 * Materialize's parser reads every connection option name after any connection type and its
 * planner then refuses the ones the type does not take ("KAFKA connections do not support ACCESS
 * KEY ID values"): the union of the connector types' lists (shared/connectors) is what the parser reads.
 */
export const ANY_CONNECTION_OPTIONS: OptionListSpec = (() => {
  const lists: readonly OptionListSpec[] = CONNECTION_CONNECTORS.map((c) => c.connection.options);
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
