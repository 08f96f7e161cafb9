/**
 * Materialize's checks of a source's and a sink's options that need no upstream system (a source's
 * are its connector type's, shared/connectors: load generator options, Kafka start offsets and
 * refresh intervals; a sink's format, envelope and topic settings), in Materialize's order and with its words (src/sql/src/plan/statement/ddl.rs,
 * src/sql/src/pure.rs, src/sql/src/kafka_util.rs). Materialize answers them as plan errors
 * (XX000), its own "not yet supported" refusals (bail_unsupported!) too. Pure.
 */
import { PlanError, SQLSTATE } from '../errors';
import { intervalMicrosOf, refreshInterval, sourceOf } from '../connectors';
import type { Format, FormatSpecifier, IncludeMetadata, OptionValue, SourceEnvelope, SqlOption, Statement } from '../sql/ast';
import { checkedOption } from './connection-options';
import { optionString } from './options';
import { mz } from '../mz-errors';

type CreateSource = Extract<Statement, { kind: 'create_source' }>;
type CreateSink = Extract<Statement, { kind: 'create_sink' }>;

function planError(message: string, position: number): PlanError {
  return new PlanError(message, { code: SQLSTATE.internalError, position });
}

/**
 * An interval option (`'1hr 1ms'`, `'-30s'`, `'0.01s'`, a bare number of seconds) in
 * microseconds; `undefined` when the text is not one we read (left to the data plane's parser).
 */
export function intervalMicros(v: OptionValue): number | undefined {
  return intervalMicrosOf({ kind: v.kind, text: optionString(v) });
}

/** Throws Materialize's error for the first problem with a source's options, if any (its connector type's check, shared/connectors). */
export function checkSourceOptions(s: CreateSource, at: number): void {
  const c = s.connection;
  const source = sourceOf(c.kind)?.source;
  if (!source || !('check' in source)) return;
  const context = { ...('generator' in c ? { generator: c.generator } : {}), includesMetadata: s.includeMetadata.length > 0, forAllTables: s.references?.kind === 'all' };
  source.check(c.options.map(checkedOption), context, at);
}

/** librdkafka's `compression.type` values, as Materialize reads them. */
const COMPRESSION_TYPES = new Set(['none', 'gzip', 'snappy', 'lz4', 'zstd']);

/** Throws Materialize's error for the first problem with a sink's clauses and options, if any. */
export function checkSinkOptions(s: CreateSink, at: number): void {
  const options = s.connection.options;
  const byName = new Map(options.map((o) => [o.name, o]));
  if (byName.has('LEGACY IDS')) throw planError('LEGACY IDs option is not supported', byName.get('LEGACY IDS')!.position);
  const version = s.withOptions.find((o) => o.name === 'VERSION');
  if (version) throw planError('CREATE SINK...WITH (VERSION..) is not allowed', version.position);
  if (!s.envelope) throw planError('ENVELOPE clause is required', at);
  const compression = byName.get('COMPRESSION TYPE');
  if (compression) {
    const value = optionString(compression.value) ?? '';
    if (!COMPRESSION_TYPES.has(value.toLowerCase())) throw planError(`invalid COMPRESSION TYPE: ${value}`, compression.position);
  }
  const refresh = byName.get('TOPIC METADATA REFRESH INTERVAL');
  refreshInterval(refresh && checkedOption(refresh));
  for (const name of ['TOPIC PARTITION COUNT', 'TOPIC REPLICATION FACTOR']) {
    const o = byName.get(name);
    if (!o) continue;
    if (o.value.kind !== 'number') throw planError(`invalid ${name}: cannot use value as number`, o.position);
    if (Number(o.value.value) <= 0 || !Number.isInteger(Number(o.value.value))) throw planError(`${name} must be a positive integer`, o.position);
  }
  const key = s.connection.key?.columns ?? [];
  const duplicate = key.find((c, i) => key.indexOf(c) !== i);
  if (duplicate !== undefined) throw planError(`duplicate column referenced in KEY: ${duplicate}`, at);
  const format = s.format;
  if (!format) throw mz.Unsupported('sink without format').at(at);
  const formats = format.kind === 'bare' ? [format.format] : [format.key, format.value];
  if (formats.some((f) => f.kind === 'json' && f.array)) throw mz.Unsupported('JSON ARRAY format in sinks').at(at);
  if (format.kind === 'key_value' && (format.key.kind === 'bytes' || format.key.kind === 'text') && key.length > 1) {
    throw mz.Unsupported('BYTES or TEXT format with multiple columns').at(at);
  }
  for (const f of formats) if (f.kind === 'avro') avroNames(f.csrOptions, key.length > 0, at);
}

/** An Avro name part (the specification's `[A-Za-z_][A-Za-z0-9_]*`). */
const AVRO_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The generated schemas' names: given together, only with a KEY, and valid Avro full names. */
function avroNames(csrOptions: readonly SqlOption[], hasKey: boolean, at: number): void {
  const keyName = csrOptions.find((o) => o.name === 'AVRO KEY FULLNAME');
  const valueName = csrOptions.find((o) => o.name === 'AVRO VALUE FULLNAME');
  if (!hasKey && keyName) throw planError('Cannot specify AVRO KEY FULLNAME without a corresponding KEY field', keyName.position);
  if (hasKey && !keyName !== !valueName) {
    throw planError('Must specify both AVRO KEY FULLNAME and AVRO VALUE FULLNAME when specifying generated schema names', (keyName ?? valueName)!.position);
  }
  for (const o of [keyName, valueName]) {
    if (!o) continue;
    // A full name is a dotted namespace and a name; each part must be an Avro name.
    const bad = (optionString(o.value) ?? '').split('.').find((part) => !AVRO_NAME.test(part));
    if (bad !== undefined) throw planError(`Invalid name. Must start with [A-Za-z_] and subsequently only contain [A-Za-z0-9_]. Found: ${bad}`, o.position);
  }
}

/** The clauses of a source, or of a table fed by one, that say how its messages are decoded. */
export interface SourceEncoding {
  readonly format?: FormatSpecifier;
  readonly includeMetadata: readonly IncludeMetadata[];
  readonly envelope?: SourceEnvelope;
}

/** A format whose key schema only the schema registry knows (purification may add a key). */
function fromRegistry(f: Format): boolean {
  return (f.kind === 'avro' || f.kind === 'protobuf') && f.csrConnection !== undefined;
}

/**
 * Throws Materialize's error for the first problem with a source's FORMAT, INCLUDE KEY and
 * ENVELOPE that needs no upstream (its get_encoding, get_key_envelope and envelope planning, in
 * that order). `keyValueGenerator`: the KEY VALUE load generator, which has keys without a format.
 * A bare format read through a schema registry is left alone: the registry may hold a key schema.
 */
export function checkSourceEncoding(e: SourceEncoding, keyValueGenerator: boolean, at: number, renamed?: ColumnList): void {
  const format = e.format;
  if (!format) return;
  const formats = format.kind === 'bare' ? [format.format] : [format.key, format.value];
  if (formats.some((f) => f.kind === 'json' && f.array)) throw mz.Unsupported('JSON ARRAY format in sources').at(at);
  if (format.kind === 'bare' && fromRegistry(format.format)) return;
  const hasKey = format.kind === 'key_value';
  const envelope = e.envelope?.kind;
  if ((envelope === 'debezium' || envelope === 'upsert') && !hasKey) throw planError('ENVELOPE [DEBEZIUM] UPSERT requires that KEY FORMAT be specified', at);
  const includeKey = e.includeMetadata.find((m) => m.kind === 'key');
  if (includeKey && !hasKey && !keyValueGenerator) throw planError('INCLUDE KEY requires specifying KEY FORMAT .. VALUE FORMAT, got bare FORMAT', at);
  if (envelope === 'debezium' && includeKey) throw planError('Cannot use INCLUDE KEY with ENVELOPE DEBEZIUM: Debezium values include all keys.', at);
  const value = format.kind === 'bare' ? format.format : format.value;
  if (envelope === 'debezium' && value.kind !== 'avro') throw planError('ENVELOPE DEBEZIUM requires that VALUE FORMAT is set to AVRO', at);
  const decoded = outputColumnNames(format, e, includeKey);
  if (!decoded) return;
  const names = renamed ? renameColumns(decoded, renamed, at) : decoded;
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw mz.ColumnSpecifiedMoreThanOnce(duplicate).at(at);
}

/**
 * `CREATE SOURCE s (a, b)` / `CREATE TABLE t (a, b) FROM SOURCE`: names for the first columns of
 * what the source decodes, and the statement's label for them (`source table t`).
 */
export interface ColumnList {
  readonly label: string;
  readonly names: readonly string[];
}

/**
 * Materialize's maybe_rename_columns (src/sql/src/plan/plan_utils.rs): the list renames the
 * first columns, and may not be longer than the columns there are.
 */
export function renameColumns(columns: readonly string[], list: ColumnList, at: number): string[] {
  if (list.names.length > columns.length) throw mz.ColumnListTooLong(list.label, list.names.length, columns.length).at(at);
  return [...list.names, ...columns.slice(list.names.length)];
}

/** The columns a format decodes to, when the statement alone tells (undefined when only upstream does). */
function formatColumns(f: Format): string[] | undefined {
  switch (f.kind) {
    case 'json':
    case 'bytes':
      return ['data'];
    case 'text':
      return ['text'];
    case 'csv':
      return f.columns.kind === 'header' ? [...f.columns.names] : Array.from({ length: f.columns.count }, (_, i) => `column${i + 1}`);
    case 'avro': {
      if (f.csrConnection || f.schema === undefined) return undefined;
      try {
        const schema = JSON.parse(f.schema) as { type?: unknown; fields?: { name?: unknown }[] };
        if (schema.type !== 'record' || !Array.isArray(schema.fields) || schema.fields.some((x) => typeof x?.name !== 'string')) return undefined;
        return schema.fields.map((x) => x.name as string);
      } catch {
        return undefined;
      }
    }
    default:
      return undefined;
  }
}

/** Key, value, metadata and inline-error columns in Materialize's order, or undefined when upstream decides. */
function outputColumnNames(format: FormatSpecifier, e: SourceEncoding, includeKey: IncludeMetadata | undefined): string[] | undefined {
  const value = formatColumns(format.kind === 'bare' ? format.format : format.value);
  if (!value) return undefined;
  let key: string[] = [];
  if (format.kind === 'key_value' && (includeKey || e.envelope?.kind === 'upsert')) {
    if (includeKey && 'alias' in includeKey && includeKey.alias !== undefined) key = [includeKey.alias];
    else if (['json', 'bytes', 'text'].includes(format.key.kind)) key = ['key'];
    else {
      const composite = formatColumns(format.key);
      if (!composite) return undefined;
      key = composite;
    }
  }
  const metadata = e.includeMetadata.filter((m) => m.kind !== 'key').map((m) => m.alias ?? m.kind);
  const envelope = e.envelope;
  const errors = envelope?.kind === 'upsert' && envelope.valueDecodingErrors ? [envelope.valueDecodingErrors.alias ?? 'error'] : [];
  return [...key, ...value, ...metadata, ...errors];
}

/**
 * Materialize's checks of a sink's KEY and HEADERS against the columns of what it exports, for a
 * relation whose columns the catalog knows (a table): the key's columns must exist, and since a
 * table has no known unique key, ENVELOPE UPSERT needs `NOT ENFORCED`; the HEADERS column must
 * exist and be a map from text to text or to bytea (plan_sink, src/sql/src/plan/statement/ddl.rs).
 * `mapValue` gives the value type of a column's type when it is a map (a user-defined map type
 * resolved by the caller), undefined otherwise.
 */
export function checkSinkColumns(
  s: CreateSink,
  columns: readonly { readonly name: string; readonly type: string }[],
  mapValue: (type: string) => string | undefined,
  at: number,
): void {
  const names = columns.map((c) => c.name);
  const key = s.connection.key;
  if (key) {
    const missing = key.columns.find((c) => !names.includes(c));
    if (missing !== undefined) throw planError(`column referenced in KEY does not exist: ${missing}`, at);
    if (s.envelope === 'upsert' && !key.notEnforced) {
      throw new PlanError('upsert key could not be validated as unique', { code: SQLSTATE.internalError, position: at, hint: 'See: https://materialize.com/s/sink-key-selection' });
    }
  }
  const headers = s.connection.headers;
  if (headers !== undefined) {
    if (s.envelope === 'debezium') throw planError('HEADERS option is not supported with ENVELOPE DEBEZIUM', at);
    const column = columns.find((c) => c.name === headers);
    if (!column) throw planError(`HEADERS column (${headers}) is unknown`, at);
    const value = mapValue(column.type);
    if (value === undefined || !HEADER_VALUE_TYPES.has(value)) throw planError('HEADERS column must have type map[text => text] or map[text => bytea]', at);
  }
}

/** Materialize's `String` and `Bytes` scalar types, by the names a column's type may spell them. */
const HEADER_VALUE_TYPES = new Set(['text', 'pg_catalog.text', 'string', 'pg_catalog.string', 'bytea', 'pg_catalog.bytea']);

/**
 * The value type of a map type as a column's type text spells it (`map[text=>bytea]`), or
 * undefined when the text is not a map (an array of maps is not one).
 */
export function mapValueOfText(type: string): string | undefined {
  const m = /^map\[(.*)\]$/.exec(type.trim());
  if (!m) return undefined;
  // The key is always text: the value follows the first `=>` at the top level.
  const inner = m[1]!;
  let depth = 0;
  for (let i = 0; i < inner.length - 1; i++) {
    const ch = inner[i]!;
    if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (depth === 0 && ch === '=' && inner[i + 1] === '>') return inner.slice(i + 2).trim();
  }
  return undefined;
}
