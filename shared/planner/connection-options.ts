/**
 * Materialize's checks of a connection's options that need no upstream system: which options go
 * together, which are required, and the shape of their values (Kafka's security settings and
 * brokers, the schema registry's URL and TLS identity, an SSH tunnel's host and user). Run before
 * the connection is planned, in Materialize's order and with its words (src/sql/src/plan/statement/
 * ddl/connection.rs). Pure.
 */
import { PlanError, SQLSTATE } from '../errors';
import type { OptionValue, SqlOption } from '../sql/ast';
import { CONNECTION_OPTION_LISTS, foreignOptionNames } from '../sql/options';
import { optionString } from './options';

const SASL_OPTIONS = ['AWS CONNECTION', 'SASL MECHANISMS', 'SASL USERNAME', 'SASL PASSWORD'];
/** The TLS and SASL options: each must be used by the chosen security protocol. */
const SECURITY_OPTIONS = ['SSL KEY', 'SSL CERTIFICATE', 'SSL CERTIFICATE AUTHORITY', ...SASL_OPTIONS];
const PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
/** Materialize's SSL MODE values (its connection planning). */
const MYSQL_SSL_MODES = ['disabled', 'required', 'verify_ca', 'verify_identity'];
const SQL_SERVER_SSL_MODES = ['disabled', 'required', 'verify', 'verify_ca'];

/** Materialize answers these as plan errors (SQLSTATE XX000); ours carry the option's position. */
function invalid(message: string, position: number): PlanError {
  return new PlanError(message, { code: SQLSTATE.internalError, position });
}

/**
 * The parser reads any connection type's option names; Materialize's planner then refuses the
 * ones this type does not take, all of them in one message (XX000), after names are resolved.
 */
export function checkOptionsTaken(connectionType: string, options: readonly SqlOption[]): void {
  const spec = CONNECTION_OPTION_LISTS[connectionType];
  if (!spec) return;
  const foreign = foreignOptionNames(spec, options.map((o) => o.name));
  if (foreign.length === 0) return;
  const first = options.find((o) => o.name === foreign[0])!;
  throw invalid(`${connectionType.toUpperCase()} connections do not support ${foreign.join(', ')} values`, first.position);
}

/** Throws Materialize's error for the first problem with a connection's options, if any. */
export function validateConnectionOptions(type: string, options: readonly SqlOption[], at: number): void {
  const byName = new Map(options.map((o) => [o.name, o]));
  const where = (name: string) => byName.get(name)?.position ?? at;
  switch (type) {
    case 'kafka':
      kafkaSecurity(byName, at);
      kafkaBrokers(byName, at);
      {
        const rf = byName.get('PROGRESS TOPIC REPLICATION FACTOR');
        if (rf && Number(optionString(rf.value)) <= 0) throw invalid('invalid CONNECTION: PROGRESS TOPIC REPLICATION FACTOR must be greater than 0', rf.position);
      }
      return;
    case 'confluent-schema-registry': {
      const url = byName.get('URL');
      if (!url) throw invalid('invalid CONNECTION: must specify URL', at);
      const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(optionString(url.value) ?? '')?.[1] ?? '/';
      if (path !== '/' && path !== '') throw invalid('invalid CONNECTION: URL must have an empty path', url.position);
      if (byName.has('SSL KEY') !== byName.has('SSL CERTIFICATE')) {
        throw invalid('invalid CONNECTION: reading from SSL-auth Confluent Schema Registry requires both SSL KEY and SSL CERTIFICATE', where(byName.has('SSL KEY') ? 'SSL KEY' : 'SSL CERTIFICATE'));
      }
      return;
    }
    case 'mysql':
    case 'sql-server': {
      if (!byName.has('HOST')) throw invalid('HOST option is required', at);
      if (!byName.has('USER')) throw invalid('USER option is required', at);
      const mode = byName.get('SSL MODE');
      const modes = type === 'mysql' ? MYSQL_SSL_MODES : SQL_SERVER_SSL_MODES;
      const value = mode ? (optionString(mode.value) ?? '').toLowerCase() : undefined;
      if (mode && !modes.includes(value!)) throw invalid(`invalid CONNECTION: unknown SSL MODE '${optionString(mode.value)}'`, mode.position);
      if (byName.has('SSL KEY') !== byName.has('SSL CERTIFICATE')) {
        throw invalid('invalid CONNECTION: both SSL KEY and SSL CERTIFICATE are required', where(byName.has('SSL KEY') ? 'SSL KEY' : 'SSL CERTIFICATE'));
      }
      if (byName.has('AWS CONNECTION') && byName.has('PASSWORD')) {
        throw invalid('invalid CONNECTION: AWS IAM authentication is not supported with password', where('AWS CONNECTION'));
      }
      return;
    }
    case 'ssh':
      if (!byName.has('HOST')) throw invalid('HOST option is required', at);
      if (!byName.has('USER')) throw invalid('USER option is required', at);
      return;
    default:
      return;
  }
}

function kafkaSecurity(byName: ReadonlyMap<string, SqlOption>, at: number): void {
  const given = byName.get('SECURITY PROTOCOL');
  const protocol = given ? (optionString(given.value) ?? '').toUpperCase() : SASL_OPTIONS.some((n) => byName.has(n)) ? 'SASL_SSL' : 'SSL';
  if (!PROTOCOLS.includes(protocol)) throw invalid(`unknown security protocol: ${protocol}`, given?.position ?? at);
  const outstanding = new Set(SECURITY_OPTIONS.filter((n) => byName.has(n)));
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    outstanding.delete('SSL CERTIFICATE');
    if (byName.has('SSL CERTIFICATE')) {
      outstanding.delete('SSL KEY');
      if (!byName.has('SSL KEY')) throw invalid('SSL KEY must be specified with SSL CERTIFICATE', byName.get('SSL CERTIFICATE')!.position);
    }
    outstanding.delete('SSL CERTIFICATE AUTHORITY');
  }
  if ((protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') && !byName.has('AWS CONNECTION')) {
    for (const n of SASL_OPTIONS) outstanding.delete(n);
    for (const n of ['SASL MECHANISMS', 'SASL USERNAME', 'SASL PASSWORD']) {
      if (!byName.has(n)) throw invalid(`${n} must be specified`, at);
    }
  } else if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    outstanding.delete('AWS CONNECTION');
  }
  // Materialize reports the first in its option order.
  const first = SECURITY_OPTIONS.find((n) => outstanding.has(n));
  if (first) throw invalid(`option ${first} not supported with this configuration`, byName.get(first)!.position);
}

function kafkaBrokers(byName: ReadonlyMap<string, SqlOption>, at: number): void {
  const ways = ['BROKER', 'BROKERS', 'AWS PRIVATELINK'].filter((n) => byName.has(n));
  if (ways.length === 0) throw invalid('invalid CONNECTION: must set one of BROKER, BROKERS, or AWS PRIVATELINK', at);
  if (ways.length > 1) throw invalid('invalid CONNECTION: can only set one of BROKER, BROKERS, or AWS PRIVATELINK', byName.get(ways[1]!)!.position);
  const addresses = (v: OptionValue): string[] => (v.kind === 'list' ? v.items.flatMap(addresses) : v.kind === 'string' ? [v.value] : v.kind === 'broker' ? [v.address] : []);
  for (const n of ['BROKER', 'BROKERS']) {
    const o = byName.get(n);
    if (o && addresses(o.value).some((a) => a.includes(','))) {
      throw invalid(
        "invalid CONNECTION: cannot specify multiple Kafka broker addresses in one string.\n\n\nInstead, specify BROKERS using multiple strings, e.g. BROKERS ('kafka:9092', 'kafka:9093')",
        o.position,
      );
    }
  }
}
