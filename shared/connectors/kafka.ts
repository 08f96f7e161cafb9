/**
 * Kafka: connections (brokers, TLS and SASL), sources reading a topic, sinks writing one. Its probe
 * is shared/probes/kafka.ts. The checks are Materialize's (src/sql/src/plan/statement/ddl/
 * connection.rs, src/sql/src/kafka_util.rs), in its order and words.
 */
import { SSL_NAMES } from './common';
import { byName, optionError, refreshInterval, type CheckedOption, type ConnectorDescriptor, type SourceCheckContext } from './types';

const SASL_OPTIONS = ['AWS CONNECTION', 'SASL MECHANISMS', 'SASL USERNAME', 'SASL PASSWORD'];
/** The TLS and SASL options: each must be used by the chosen security protocol. */
const SECURITY_OPTIONS = ['SSL KEY', 'SSL CERTIFICATE', 'SSL CERTIFICATE AUTHORITY', ...SASL_OPTIONS];
const PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

function checkConnection(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  security(given, at);
  brokers(given, at);
  const rf = given.get('PROGRESS TOPIC REPLICATION FACTOR');
  if (rf && Number(rf.text) <= 0) throw optionError('invalid CONNECTION: PROGRESS TOPIC REPLICATION FACTOR must be greater than 0', rf.position);
}

function security(given: ReadonlyMap<string, CheckedOption>, at: number): void {
  const named = given.get('SECURITY PROTOCOL');
  const protocol = named ? (named.text ?? '').toUpperCase() : SASL_OPTIONS.some((n) => given.has(n)) ? 'SASL_SSL' : 'SSL';
  if (!PROTOCOLS.includes(protocol)) throw optionError(`unknown security protocol: ${protocol}`, named?.position ?? at);
  const outstanding = new Set(SECURITY_OPTIONS.filter((n) => given.has(n)));
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    outstanding.delete('SSL CERTIFICATE');
    if (given.has('SSL CERTIFICATE')) {
      outstanding.delete('SSL KEY');
      if (!given.has('SSL KEY')) throw optionError('SSL KEY must be specified with SSL CERTIFICATE', given.get('SSL CERTIFICATE')!.position);
    }
    outstanding.delete('SSL CERTIFICATE AUTHORITY');
  }
  if ((protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') && !given.has('AWS CONNECTION')) {
    for (const n of SASL_OPTIONS) outstanding.delete(n);
    for (const n of ['SASL MECHANISMS', 'SASL USERNAME', 'SASL PASSWORD']) {
      if (!given.has(n)) throw optionError(`${n} must be specified`, at);
    }
  } else if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    outstanding.delete('AWS CONNECTION');
  }
  // Materialize reports the first in its option order.
  const first = SECURITY_OPTIONS.find((n) => outstanding.has(n));
  if (first) throw optionError(`option ${first} not supported with this configuration`, given.get(first)!.position);
}

function brokers(given: ReadonlyMap<string, CheckedOption>, at: number): void {
  const ways = ['BROKER', 'BROKERS', 'AWS PRIVATELINK'].filter((n) => given.has(n));
  if (ways.length === 0) throw optionError('invalid CONNECTION: must set one of BROKER, BROKERS, or AWS PRIVATELINK', at);
  if (ways.length > 1) throw optionError('invalid CONNECTION: can only set one of BROKER, BROKERS, or AWS PRIVATELINK', given.get(ways[1]!)!.position);
  for (const n of ['BROKER', 'BROKERS']) {
    const o = given.get(n);
    if (o && o.strings.some((a) => a.includes(','))) {
      throw optionError(
        "invalid CONNECTION: cannot specify multiple Kafka broker addresses in one string.\n\n\nInstead, specify BROKERS using multiple strings, e.g. BROKERS ('kafka:9092', 'kafka:9093')",
        o.position,
      );
    }
  }
}

function checkSource(options: readonly CheckedOption[], context: SourceCheckContext, at: number): void {
  const given = byName(options);
  const startTimestamp = given.get('START TIMESTAMP');
  if (startTimestamp && startTimestamp.kind !== 'number') throw optionError('invalid START TIMESTAMP: cannot use value as number', startTimestamp.position);
  if (startTimestamp && given.has('START OFFSET')) throw optionError('cannot specify START TIMESTAMP and START OFFSET at same time', given.get('START OFFSET')!.position);
  if (context.forAllTables) throw optionError('FOR ALL TABLES is only valid for multi-output sources', at);
  refreshInterval(given.get('TOPIC METADATA REFRESH INTERVAL'));
}

export const KAFKA = {
  name: 'kafka',
  words: ['kafka'],
  connection: {
    options: {
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
    validateByDefault: true,
    check: checkConnection,
  },
  source: {
    form: 'connection',
    options: {
      what: 'Kafka source',
      names: ['GROUP ID PREFIX', 'START OFFSET', 'START TIMESTAMP', 'TOPIC', 'TOPIC METADATA REFRESH INTERVAL'],
    },
    formats: true,
    check: checkSource,
  },
  sink: {
    options: {
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
  },
  dataPlane: true,
  probe: { reprobed: true },
} as const satisfies ConnectorDescriptor;
