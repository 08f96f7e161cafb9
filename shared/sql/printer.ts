/**
 * Prints an AST back to canonical SQL: parse(print(s)) gives s again (positions aside).
 * Keywords are upper case, identifiers are quoted when they are not plain lower-case words or
 * when they are keywords of our grammar, raw spans (view bodies, index keys) are written as typed.
 */
import { sqlWords, WEBHOOK } from '../connectors';
import type {
  ClusterAlterWait,
  ColumnDef,
  DataType,
  DocOnTarget,
  Expr,
  ExternalReferences,
  Format,
  FormatSpecifier,
  GrantIn,
  GrantTarget,
  IncludeMetadata,
  ObjectName,
  OptionValue,
  PrivilegeSpec,
  RefreshOptionValue,
  RoleAttribute,
  SchemaStrategy,
  SecretValue,
  SourceConnection,
  SourceEnvelope,
  SqlOption,
  Statement,
  WebhookCheck,
  WebhookCheckColumn,
  TableConstraint,
} from './ast';
import { KEYWORDS } from './keywords';
import { VALUE_PREFIX } from './options';

export interface PrintOptions {
  /** Print secret values as `'********'`, Materialize's redaction of a secret's create_sql (for the catalog, logs and statement history). */
  readonly redacted?: boolean;
}

const PLAIN_WORD = /^[a-z_][a-z0-9_$]*$/;

export function ident(name: string): string {
  if (PLAIN_WORD.test(name) && !KEYWORDS.has(name)) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

export function objectName(name: ObjectName): string {
  return name.map(ident).join('.');
}

const E_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\\': '\\\\', "'": "''" };

/** A string literal; one with line breaks or tabs is written as `E'...'` so it stays on one line. */
export function stringLiteral(s: string): string {
  if (/[\n\r\t\b\f]/.test(s)) return `E'${s.replace(/[\n\r\t\b\f\\']/g, (c) => E_ESCAPES[c]!)}'`;
  return `'${s.replace(/'/g, "''")}'`;
}

function optionValue(v: OptionValue): string {
  switch (v.kind) {
    case 'string':
      return stringLiteral(v.value);
    case 'number':
      return v.value;
    case 'boolean':
      return v.value ? 'true' : 'false';
    case 'ident':
      return ident(v.value);
    case 'secret':
      return `SECRET ${objectName(v.name)}`;
    case 'object':
      return objectName(v.name);
    case 'list':
      return `(${v.items.map(optionValue).join(', ')})`;
    case 'none':
      return '';
    case 'refresh':
      return refreshValue(v.refresh);
    case 'refresh_schedule':
      return `ON REFRESH${v.hydrationTimeEstimate !== undefined ? ` (HYDRATION TIME ESTIMATE = ${stringLiteral(v.hydrationTimeEstimate)})` : ''}`;
    case 'broker':
      return `${stringLiteral(v.address)} USING ${sqlWords(v.via.kind)} ${objectName(v.via.connection)}${v.via.options.length ? ` ${optionList(v.via.options)}` : ''}`;
    case 'privatelink':
      return `${objectName(v.connection)}${v.options.length ? ` ${optionList(v.options)}` : ''}`;
  }
}

function refreshValue(r: RefreshOptionValue): string {
  switch (r.kind) {
    case 'on_commit':
      return 'ON COMMIT';
    case 'at_creation':
      return 'AT CREATION';
    case 'at':
      return `AT ${r.time.text}`;
    case 'every':
      return `EVERY ${stringLiteral(r.interval)}${r.alignedTo ? ` ALIGNED TO ${r.alignedTo.text}` : ''}`;
  }
}

/** The object of a `DOC ON` option as written after it: `TYPE t`, `COLUMN t.c`. */
export function docOnText(t: DocOnTarget): string {
  return t.kind === 'type' ? `TYPE ${objectName(t.name)}` : `COLUMN ${objectName([...t.relation, t.column])}`;
}

function option(o: SqlOption): string {
  if (o.docOn) return `${o.name} ${docOnText(o.docOn)}${o.value.kind === 'none' ? '' : ` = ${optionValue(o.value)}`}`;
  if (o.value.kind === 'none') return o.name;
  const prefix = VALUE_PREFIX[o.name];
  return `${o.name} = ${prefix !== undefined ? `${prefix} ` : ''}${optionValue(o.value)}`;
}

export function optionList(options: readonly SqlOption[]): string {
  return `(${options.map(option).join(', ')})`;
}

/** Operands of comparisons are primaries: anything else is parenthesized to read back the same. */
function operand(e: Expr): string {
  return e.kind === 'column' || e.kind === 'literal' ? expr(e) : `(${expr(e)})`;
}

export function expr(e: Expr): string {
  switch (e.kind) {
    case 'column':
      return ident(e.name);
    case 'literal':
      if (e.value === null) return 'NULL';
      if (typeof e.value === 'string') return stringLiteral(e.value);
      if (typeof e.value === 'boolean') return e.value ? 'true' : 'false';
      return String(e.value);
    case 'binary':
      return `${operand(e.left)} ${e.op} ${operand(e.right)}`;
    case 'and':
    case 'or':
      return `(${expr(e.left)} ${e.kind.toUpperCase()} ${expr(e.right)})`;
    case 'not':
      return `NOT ${expr(e.expr)}`;
    case 'in':
      return `${operand(e.expr)}${e.negated ? ' NOT' : ''} IN (${e.list.map(operand).join(', ')})`;
    case 'like':
      return `${operand(e.expr)}${e.negated ? ' NOT' : ''} ${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${operand(e.pattern)}`;
    case 'is_null':
      return `${operand(e.expr)} IS ${e.negated ? 'NOT ' : ''}NULL`;
  }
}

/** Built-in type names of several words, printed as such (the parser reads them back as one name). */
const MULTIWORD_TYPES = new Set([
  'double precision',
  'character varying',
  'char varying',
  'bit varying',
  'timestamp with time zone',
  'timestamp without time zone',
  'time with time zone',
  'time without time zone',
]);

export function dataType(t: DataType): string {
  const typmod = t.typmod.length > 0 ? `(${t.typmod.join(',')})` : '';
  const arrays = '[]'.repeat(t.arrayDimensions);
  if (t.list) return `${dataType(t.list)} list${arrays}`;
  if (t.map) return `map[${dataType(t.map.key)} => ${dataType(t.map.value)}]${arrays}`;
  const only = t.name.length === 1 ? t.name[0]! : undefined;
  if (only !== undefined && MULTIWORD_TYPES.has(only)) {
    // `timestamp(3) with time zone`: the precision goes after the first word.
    const space = only.indexOf(' ');
    const first = only.slice(0, space);
    const rest = only.slice(space);
    return first === 'timestamp' || first === 'time' ? `${first}${typmod}${rest}${arrays}` : `${only}${typmod}${arrays}`;
  }
  // In type position any word is a type name, so plain words need no quotes even if keywords —
  // except `map` and `list`, which open Materialize's container type syntax (`int list`, `map[...]`).
  const container = only === 'map' || only === 'list';
  const name = container ? `"${only}"` : only !== undefined && PLAIN_WORD.test(only) ? only : objectName(t.name);
  return `${name}${typmod}${arrays}`;
}

function columnDef(c: ColumnDef): string {
  return `${ident(c.name)} ${dataType(c.type)}${c.notNull ? ' NOT NULL' : ''}${c.default ? ` DEFAULT ${c.default.text}` : ''}${c.unique ? ` ${c.unique.toUpperCase()}` : ''}`;
}

function tableConstraint(c: TableConstraint): string {
  const head = c.name !== undefined ? `CONSTRAINT ${ident(c.name)} ` : '';
  return `${head}${c.primary ? 'PRIMARY KEY' : `UNIQUE${c.nullsNotDistinct ? ' NULLS NOT DISTINCT' : ''}`} ${identList(c.columns)}`;
}

function identList(names: readonly string[]): string {
  return `(${names.map(ident).join(', ')})`;
}

function secretValue(v: SecretValue, opts: PrintOptions): string {
  if (opts.redacted) return "'********'";
  return v.kind === 'string' ? stringLiteral(v.value) : v.expr.text;
}

function strategy(s: SchemaStrategy): string {
  switch (s.kind) {
    case 'latest':
      return 'LATEST';
    case 'id':
      return `ID ${s.id}`;
    case 'inline':
      return `INLINE ${stringLiteral(s.schema)}`;
  }
}

function csr(connection: ObjectName, options: readonly SqlOption[]): string {
  return `USING CONFLUENT SCHEMA REGISTRY CONNECTION ${objectName(connection)}${options.length ? ` ${optionList(options)}` : ''}`;
}

export function format(f: Format): string {
  switch (f.kind) {
    case 'avro': {
      if (f.csrConnection === undefined) return `AVRO USING SCHEMA ${stringLiteral(f.schema ?? '')}`;
      const parts = [`AVRO ${csr(f.csrConnection, f.csrOptions)}`];
      if (f.keyStrategy) parts.push(`KEY STRATEGY ${strategy(f.keyStrategy)}`);
      if (f.valueStrategy) parts.push(`VALUE STRATEGY ${strategy(f.valueStrategy)}`);
      return parts.join(' ');
    }
    case 'protobuf':
      if (f.csrConnection === undefined) {
        return `PROTOBUF MESSAGE ${stringLiteral(f.messageName ?? '')} USING SCHEMA ${stringLiteral(f.schema ?? '')}`;
      }
      return `PROTOBUF ${csr(f.csrConnection, f.csrOptions)}`;
    case 'json':
      return f.array ? 'JSON ARRAY' : 'JSON';
    case 'text':
      return 'TEXT';
    case 'bytes':
      return 'BYTES';
    case 'csv': {
      const cols = f.columns.kind === 'count' ? `${f.columns.count} COLUMNS` : `HEADER${f.columns.names.length ? ` ${identList(f.columns.names)}` : ''}`;
      return `CSV WITH ${cols}${f.delimiter !== undefined ? ` DELIMITED BY ${stringLiteral(f.delimiter)}` : ''}`;
    }
    case 'regex':
      return `REGEX ${stringLiteral(f.pattern)}`;
  }
}

/**
 * A CREATE SOURCE's clauses after its FROM, as `print` writes them (FORMAT, INCLUDE, ENVELOPE,
 * references, EXPOSE PROGRESS, WITH options); '' when it has none of the clauses.
 */
export function sourceClauses(s: Extract<Statement, { kind: 'create_source' }>): string {
  const parts: string[] = [];
  if (s.format) parts.push(formatSpecifier(s.format));
  if (s.includeMetadata.length) parts.push(`INCLUDE ${s.includeMetadata.map(includeItem).join(', ')}`);
  if (s.envelope) parts.push(`ENVELOPE ${envelope(s.envelope)}`);
  if (s.references) parts.push(references(s.references));
  if (s.exposeProgress) parts.push(`EXPOSE PROGRESS AS ${objectName(s.exposeProgress)}`);
  return parts.length ? parts.join(' ') + withOptions(s.withOptions) : '';
}

function formatSpecifier(f: FormatSpecifier): string {
  return f.kind === 'bare' ? `FORMAT ${format(f.format)}` : `KEY FORMAT ${format(f.key)} VALUE FORMAT ${format(f.value)}`;
}

function includeItem(m: IncludeMetadata): string {
  if (m.kind === 'header') return `HEADER ${stringLiteral(m.key)} AS ${ident(m.alias)}${m.bytes ? ' BYTES' : ''}`;
  return `${m.kind.toUpperCase()}${m.alias !== undefined ? ` AS ${ident(m.alias)}` : ''}`;
}

function envelope(e: SourceEnvelope): string {
  switch (e.kind) {
    case 'none':
      return 'NONE';
    case 'debezium':
      return 'DEBEZIUM';
    case 'upsert': {
      const v = e.valueDecodingErrors;
      if (!v) return 'UPSERT';
      return `UPSERT (VALUE DECODING ERRORS = (INLINE${v.alias !== undefined ? ` AS ${ident(v.alias)}` : ''}))`;
    }
  }
}

function references(r: ExternalReferences): string {
  switch (r.kind) {
    case 'all':
      return 'FOR ALL TABLES';
    case 'tables':
      return `FOR TABLES (${r.tables.map((t) => `${objectName(t.reference)}${t.alias ? ` AS ${objectName(t.alias)}` : ''}`).join(', ')})`;
    case 'schemas':
      return `FOR SCHEMAS ${identList(r.schemas)}`;
  }
}

/** `<TYPE> CONNECTION c (...)` or `LOAD GENERATOR <GENERATOR> (...)`, in the connector type's words (shared/connectors). */
function sourceConnection(c: SourceConnection): string {
  const opts = c.options.length ? ` ${optionList(c.options)}` : '';
  return 'generator' in c ? `${sqlWords(c.kind)} ${c.generator.toUpperCase()}${opts}` : `${sqlWords(c.kind)} CONNECTION ${objectName(c.connection)}${opts}`;
}

const withOptions = (options: readonly SqlOption[]): string => (options.length ? ` WITH ${optionList(options)}` : '');
const ifNotExists = (b: boolean): string => (b ? 'IF NOT EXISTS ' : '');
const ifExists = (b: boolean): string => (b ? 'IF EXISTS ' : '');
const inCluster = (c: string | undefined): string => (c !== undefined ? ` IN CLUSTER ${ident(c)}` : '');

export function print(s: Statement, opts: PrintOptions = {}): string {
  switch (s.kind) {
    case 'query':
      return s.text;
    case 'set_variable':
      return `SET ${s.local ? 'LOCAL ' : ''}${ident(s.name)} = ${s.value === 'default' ? 'DEFAULT' : s.value.map(stringLiteral).join(', ')}`;
    case 'reset_variable':
      return s.name === 'all' ? 'RESET ALL' : `RESET ${ident(s.name)}`;
    case 'show_variable':
      return s.name === 'all' ? 'SHOW ALL' : `SHOW ${ident(s.name)}`;
    case 'create_cluster': {
      const parts = [`CREATE CLUSTER ${ident(s.name)}`];
      if (s.replicas) {
        const reps = s.replicas.map((r) => (r.options.length ? `${ident(r.name)} ${optionList(r.options)}` : ident(r.name)));
        parts.push(`REPLICAS (${reps.join(', ')})`);
      }
      if (s.options.length) parts.push(optionList(s.options));
      if (s.features) parts.push(`FEATURES ${optionList(s.features.options)}`);
      return parts.join(' ');
    }
    case 'create_cluster_replica':
      return `CREATE CLUSTER REPLICA ${ident(s.cluster)}.${ident(s.name)}${s.options.length ? ` ${optionList(s.options)}` : ''}`;
    case 'drop':
      return [
        `DROP ${s.objectType.toUpperCase()}`,
        s.ifExists ? 'IF EXISTS' : '',
        s.names.map(objectName).join(', '),
        s.cascade ? 'CASCADE' : s.restrict ? 'RESTRICT' : '',
      ]
        .filter(Boolean)
        .join(' ');
    case 'show': {
      const parts = [`SHOW ${s.what.toUpperCase()}`];
      if (s.from) parts.push(`FROM ${objectName(s.from)}`);
      if (s.on) parts.push(`ON ${objectName(s.on)}`);
      if (s.inCluster !== undefined) parts.push(`IN CLUSTER ${ident(s.inCluster)}`);
      if (s.filter) parts.push(s.filter.kind === 'like' ? `LIKE ${stringLiteral(s.filter.pattern)}` : `WHERE ${expr(s.filter.expr)}`);
      return parts.join(' ');
    }
    case 'select': {
      const parts = [`SELECT ${s.columns ? s.columns.map(ident).join(', ') : '*'} FROM ${s.fromShow ? `(${print(s.fromShow)})` : objectName(s.from)}`];
      if (s.where) parts.push(`WHERE ${expr(s.where)}`);
      if (s.orderBy.length) parts.push(`ORDER BY ${s.orderBy.map((o) => `${ident(o.column)}${o.desc ? ' DESC' : ''}`).join(', ')}`);
      if (s.limit !== undefined) parts.push(`LIMIT ${s.limit}`);
      if (s.offset !== undefined) parts.push(`OFFSET ${s.offset}`);
      return parts.join(' ');
    }
    case 'create_database':
      return `CREATE DATABASE ${ifNotExists(s.ifNotExists)}${ident(s.name)}`;
    case 'create_schema':
      return `CREATE SCHEMA ${ifNotExists(s.ifNotExists)}${objectName(s.name)}`;
    case 'create_secret':
      return `CREATE SECRET ${ifNotExists(s.ifNotExists)}${objectName(s.name)} AS ${secretValue(s.value, opts)}`;
    case 'alter_secret':
      return `ALTER SECRET ${ifExists(s.ifExists)}${objectName(s.name)} AS ${secretValue(s.value, opts)}`;
    case 'alter_connection': {
      const actions = s.actions.map((a) => (a.kind === 'rotate_keys' ? 'ROTATE KEYS' : a.kind === 'set' ? `SET ${optionList([a.option])}` : `${a.word} (${a.name})`));
      return `ALTER CONNECTION ${ifExists(s.ifExists)}${objectName(s.name)} ${actions.join(', ')}${withOptions(s.withOptions)}`;
    }
    case 'validate_connection':
      return `VALIDATE CONNECTION ${objectName(s.name)}`;
    case 'create_connection':
      return `CREATE CONNECTION ${ifNotExists(s.ifNotExists)}${objectName(s.name)} TO ${sqlWords(s.connectionType)} ${optionList(s.options)}${withOptions(s.withOptions)}`;
    case 'create_source': {
      const head = `CREATE SOURCE ${ifNotExists(s.ifNotExists)}${objectName(s.name)}${s.columns ? ` ${identList(s.columns)}` : ''}${inCluster(s.inCluster)} FROM ${sourceConnection(s.connection)}`;
      const tail = sourceClauses(s);
      return tail ? `${head} ${tail}` : head + withOptions(s.withOptions);
    }
    case 'create_webhook_source': {
      // A table takes no IN CLUSTER (Materialize's printer leaves it out too).
      const head = s.isTable ? `CREATE TABLE ${ifNotExists(s.ifNotExists)}${objectName(s.name)}` : `CREATE SOURCE ${ifNotExists(s.ifNotExists)}${objectName(s.name)}${inCluster(s.inCluster)}`;
      const parts = [`${head} FROM ${sqlWords(WEBHOOK)} BODY FORMAT ${format(s.bodyFormat)}`];
      for (const h of s.includeHeader) parts.push(`INCLUDE HEADER ${stringLiteral(h.header)} AS ${ident(h.alias)}${h.bytes ? ' BYTES' : ''}`);
      if (s.includeHeaders) {
        const filters = s.includeHeaders.filters.map((f) => `${f.block ? 'NOT ' : ''}${stringLiteral(f.header)}`);
        parts.push(`INCLUDE HEADERS${filters.length ? ` (${filters.join(', ')})` : ''}`);
      }
      if (s.check) parts.push(webhookCheck(s.check));
      return parts.join(' ');
    }
    case 'create_sink': {
      const c = s.connection;
      const head = `CREATE SINK ${ifNotExists(s.ifNotExists)}${s.name ? objectName(s.name) : ''}`.trimEnd();
      const parts = [`${head}${inCluster(s.inCluster)} FROM ${objectName(s.from)}`];
      parts.push(`INTO ${sqlWords(c.kind)} CONNECTION ${objectName(c.connection)}${c.options.length ? ` ${optionList(c.options)}` : ''}`);
      if (c.key) parts.push(`KEY ${identList(c.key.columns)}${c.key.notEnforced ? ' NOT ENFORCED' : ''}`);
      if (c.headers !== undefined) parts.push(`HEADERS ${ident(c.headers)}`);
      if (s.format) parts.push(formatSpecifier(s.format));
      if (s.envelope) parts.push(`ENVELOPE ${s.envelope.toUpperCase()}`);
      return parts.join(' ') + withOptions(s.withOptions);
    }
    case 'create_table':
      return `CREATE ${s.temporary ? 'TEMPORARY ' : ''}TABLE ${ifNotExists(s.ifNotExists)}${objectName(s.name)} (${[...s.columns.map(columnDef), ...(s.constraints ?? []).map(tableConstraint)].join(', ')})${withOptions(s.withOptions)}`;
    case 'create_table_from_source': {
      const parts = [`CREATE TABLE ${ifNotExists(s.ifNotExists)}${objectName(s.name)}${s.columns ? ` ${identList(s.columns)}` : ''} FROM SOURCE ${objectName(s.source)}`];
      if (s.reference) parts.push(`(REFERENCE = ${objectName(s.reference)})`);
      if (s.format) parts.push(formatSpecifier(s.format));
      if (s.includeMetadata.length) parts.push(`INCLUDE ${s.includeMetadata.map(includeItem).join(', ')}`);
      if (s.envelope) parts.push(`ENVELOPE ${envelope(s.envelope)}`);
      return parts.join(' ') + withOptions(s.withOptions);
    }
    case 'create_type': {
      const head = `CREATE TYPE ${objectName(s.name)} AS`;
      if (s.as.kind === 'record') return `${head} (${s.as.fields.map((f) => `${ident(f.name)} ${dataType(f.type)}`).join(', ')})`;
      return `${head} ${s.as.kind.toUpperCase()} (${s.as.options.map((o) => `${o.name} = ${dataType(o.type)}`).join(', ')})`;
    }
    case 'create_view':
      return `CREATE ${s.orReplace ? 'OR REPLACE ' : ''}${s.temporary ? 'TEMPORARY ' : ''}VIEW ${ifNotExists(s.ifNotExists)}${objectName(s.name)}${s.columns ? ` ${identList(s.columns)}` : ''} AS ${s.query}`;
    case 'create_materialized_view':
      return `CREATE ${s.orReplace ? 'OR REPLACE ' : ''}${s.replacementFor ? 'REPLACEMENT ' : ''}MATERIALIZED VIEW ${ifNotExists(s.ifNotExists)}${objectName(s.name)}${s.columns ? ` ${identList(s.columns)}` : ''}${s.replacementFor ? ` FOR ${objectName(s.replacementFor.name)}` : ''}${inCluster(s.inCluster)}${s.inReplica ? `${s.inCluster === undefined ? ' IN' : ''} REPLICA ${ident(s.inReplica.name)}` : ''}${withOptions(s.withOptions)} AS ${s.query}`;
    case 'create_index': {
      const parts = [`CREATE ${s.keyParts ? '' : 'DEFAULT '}INDEX`];
      if (s.ifNotExists) parts.push('IF NOT EXISTS');
      if (s.name !== undefined) parts.push(ident(s.name));
      if (s.inCluster !== undefined) parts.push(`IN CLUSTER ${ident(s.inCluster)}`);
      parts.push(`ON ${objectName(s.on)}`);
      if (s.keyParts) parts.push(`(${s.keyParts.map((k) => k.text).join(', ')})`);
      return parts.join(' ') + withOptions(s.withOptions);
    }
    case 'alter_rename':
      return `ALTER ${s.objectType.toUpperCase()} ${ifExists(s.ifExists)}${objectName(s.name)} RENAME TO ${ident(s.newName)}`;
    case 'alter_owner':
      return `ALTER ${s.objectType.toUpperCase()} ${ifExists(s.ifExists)}${objectName(s.name)} OWNER TO ${ident(s.owner)}`;
    case 'alter_set_cluster':
      return `ALTER ${s.objectType.toUpperCase()} ${ifExists(s.ifExists)}${objectName(s.name)} SET CLUSTER ${ident(s.cluster)}`;
    case 'alter_swap':
      return `ALTER ${s.objectType.toUpperCase()} ${objectName(s.name)} SWAP WITH ${ident(s.other)}`;
    case 'alter_retain_history': {
      const head = `ALTER ${s.objectType.toUpperCase()} ${ifExists(s.ifExists)}${objectName(s.name)}`;
      return s.option ? `${head} SET ${optionList([s.option])}` : `${head} RESET (RETAIN HISTORY)`;
    }
    case 'alter_table_add_column':
      return `ALTER TABLE ${ifExists(s.ifExists)}${objectName(s.name)} ADD COLUMN ${ifNotExists(s.ifColumnNotExists)}${ident(s.column)} ${dataType(s.type)}`;
    case 'alter_restart':
      return `ALTER ${s.objectType.toUpperCase()} ${ifExists(s.ifExists)}${objectName(s.name)} RESTART`;
    case 'alter_source': {
      const head = `ALTER SOURCE ${ifExists(s.ifExists)}${objectName(s.name)}`;
      const a = s.action;
      switch (a.kind) {
        case 'add_subsources':
          return `${head} ADD SUBSOURCE ${a.references.map((r) => `${objectName(r.reference)}${r.alias ? ` AS ${objectName(r.alias)}` : ''}`).join(', ')}${withOptions(a.options)}`;
        case 'refresh_references':
          return `${head} REFRESH REFERENCES`;
        case 'set_options':
          return `${head} SET ${optionList(a.options)}`;
        case 'reset_options':
          return `${head} RESET (${a.names.join(', ')})`;
      }
    }
    case 'alter_cluster': {
      const head = `ALTER CLUSTER ${ifExists(s.ifExists)}${ident(s.name)}`;
      if (s.action.kind === 'reset') return `${head} RESET (${s.action.names.join(', ')})`;
      const replicas = s.action.replicas
        ? `REPLICAS (${s.action.replicas.map((r) => (r.options.length ? `${ident(r.name)} ${optionList(r.options)}` : ident(r.name))).join(', ')})`
        : undefined;
      const set = s.action.options.length ? optionList(s.action.options) : '()';
      const options = replicas === undefined ? set : s.action.options.length ? `${set.slice(0, -1)}, ${replicas})` : `(${replicas})`;
      return `${head} SET ${options}${s.action.wait ? ` WITH (${clusterWait(s.action.wait)})` : ''}`;
    }
    case 'alter_apply_replacement':
      return `ALTER MATERIALIZED VIEW ${ifExists(s.ifExists)}${objectName(s.name)} APPLY REPLACEMENT ${objectName(s.replacement)}`;
    case 'show_create':
      return `SHOW CREATE ${s.objectType.toUpperCase()} ${objectName(s.name)}`;
    case 'comment':
      return `COMMENT ON ${s.objectType.toUpperCase()} ${s.objectType === 'role' ? roleIdent(s.name[0]!) : objectName(s.column === undefined ? s.name : [...s.name, s.column])} IS ${s.comment === null ? 'NULL' : stringLiteral(s.comment)}`;
    case 'create_role':
      return `CREATE ROLE ${roleIdent(s.name)}${roleAttributes(s.attributes, opts)}`;
    case 'alter_role': {
      const head = `ALTER ROLE ${roleIdent(s.name)}`;
      const a = s.action;
      if (a.kind === 'set') return `${head} SET ${ident(a.variable)} = ${a.value.text}`;
      if (a.kind === 'reset') return `${head} RESET ${ident(a.variable)}`;
      return `${head}${a.attributes.length ? ` WITH${roleAttributes(a.attributes, opts)}` : ''}`;
    }
    case 'drop_role':
      return `DROP ROLE ${ifExists(s.ifExists)}${s.names.map(roleIdent).join(', ')}`;
    case 'create_network_policy':
    case 'alter_network_policy': {
      const rules = s.rules ? `RULES = (${s.rules.map((r) => `${ident(r.name)} ${optionList(r.options)}`).join(', ')})` : '';
      return s.kind === 'create_network_policy' ? `CREATE NETWORK POLICY ${ident(s.name)} (${rules})` : `ALTER NETWORK POLICY ${ident(s.name)} SET (${rules})`;
    }
    case 'drop_network_policy':
      return `DROP NETWORK POLICY ${ifExists(s.ifExists)}${s.names.map(ident).join(', ')}`;
    case 'alter_sink_from':
      return `ALTER SINK ${ifExists(s.ifExists)}${objectName(s.name)} SET FROM ${objectName(s.from)}`;
    case 'alter_system_set':
      return `ALTER SYSTEM SET ${ident(s.name)} = ${s.value === 'default' ? 'DEFAULT' : s.value.map(stringLiteral).join(', ')}`;
    case 'alter_system_reset':
      return s.name === 'all' ? 'ALTER SYSTEM RESET ALL' : `ALTER SYSTEM RESET ${ident(s.name)}`;
    case 'grant_role':
    case 'revoke_role':
      return `${s.kind === 'grant_role' ? 'GRANT' : 'REVOKE'} ${s.roles.map(roleIdent).join(', ')} ${s.kind === 'grant_role' ? 'TO' : 'FROM'} ${s.members.map(roleIdent).join(', ')}`;
    case 'grant_privileges':
    case 'revoke_privileges': {
      const grant = s.kind === 'grant_privileges';
      return `${grant ? 'GRANT' : 'REVOKE'} ${privilegeSpec(s.privileges)} ON ${grantTarget(s.target)} ${grant ? 'TO' : 'FROM'} ${s.roles.map(roleIdent).join(', ')}`;
    }
    case 'alter_default_privileges': {
      const parts = [`ALTER DEFAULT PRIVILEGES FOR ${s.targetRoles ? `ROLE ${s.targetRoles.map(roleIdent).join(', ')}` : 'ALL ROLES'}`];
      if (s.in) parts.push(grantIn(s.in));
      parts.push(`${s.grant ? 'GRANT' : 'REVOKE'} ${privilegeSpec(s.privileges)} ON ${s.objectType.toUpperCase()}S ${s.grant ? 'TO' : 'FROM'} ${s.grantees.map(roleIdent).join(', ')}`);
      return parts.join(' ');
    }
    case 'drop_owned':
      return `DROP OWNED BY ${s.roles.map(roleIdent).join(', ')}${s.cascade === undefined ? '' : s.cascade ? ' CASCADE' : ' RESTRICT'}`;
    case 'reassign_owned':
      return `REASSIGN OWNED BY ${s.oldRoles.map(roleIdent).join(', ')} TO ${roleIdent(s.newRole)}`;
    case 'start_transaction':
      return `START TRANSACTION${s.modes.length ? ` ${s.modes.join(', ')}` : ''}`;
    case 'commit':
    case 'rollback':
      return `${s.kind.toUpperCase()}${s.chain ? ' AND CHAIN' : ''}`;
    case 'explain_effects':
      return `EXPLAIN EFFECTS FOR ${print(s.statement, opts)}`;
  }
}

/** `CHECK (WITH (...) expr)`, the `WITH` items in Materialize's order: headers, bodies, secrets. */
export function webhookCheck(c: WebhookCheck): string {
  const column = (word: string, x: WebhookCheckColumn) => `${word}${x.alias !== undefined ? ` AS ${ident(x.alias)}` : ''}${x.bytes ? ' BYTES' : ''}`;
  const o = c.options;
  const items = o ? [...o.headers.map((h) => column('HEADERS', h)), ...o.bodies.map((b) => column('BODY', b)), ...o.secrets.map((x) => column(`SECRET ${objectName(x.secret)}`, x))] : [];
  return `CHECK (${o ? `WITH (${items.join(', ')}) ` : ''}${c.expr.text})`;
}

/**
 * A role name: quoted also when it is a word that starts a privilege or role list (`GRANT "usage"
 * TO r` grants a role named usage), or a role attribute after the name.
 */
function roleIdent(name: string): string {
  return ROLE_LIST_WORDS.has(name) ? `"${name}"` : ident(name);
}
const ROLE_LIST_WORDS: ReadonlySet<string> = new Set([
  'insert', 'update', 'delete', 'usage', 'createrole', 'createdb', 'createcluster', 'createnetworkpolicy', 'group', 'grant', 'revoke', 'system',
  'superuser', 'nosuperuser', 'login', 'nologin', 'inherit', 'noinherit', 'nocreatecluster', 'nocreatedb', 'nocreaterole', 'password', 'reset', 'set',
]);

function roleAttributes(attributes: readonly RoleAttribute[], opts: PrintOptions): string {
  return attributes
    .map((a) => (a.kind === 'PASSWORD' ? ` PASSWORD ${a.password === null ? 'NULL' : opts.redacted ? "'********'" : stringLiteral(a.password)}` : ` ${a.kind}`))
    .join('');
}

function privilegeSpec(p: PrivilegeSpec): string {
  return p.kind === 'all' ? 'ALL PRIVILEGES' : p.privileges.join(', ');
}

function grantIn(i: GrantIn): string {
  return `IN ${i.kind.toUpperCase()} ${i.names.map(objectName).join(', ')}`;
}

function grantTarget(t: GrantTarget): string {
  switch (t.kind) {
    case 'system':
      return 'SYSTEM';
    case 'objects':
      return `${t.objectType.toUpperCase()} ${t.names.map(objectName).join(', ')}`;
    case 'all':
      return `ALL ${t.objectType.toUpperCase()}S${t.in ? ` ${grantIn(t.in)}` : ''}`;
  }
}

function clusterWait(w: ClusterAlterWait): string {
  if (w.kind === 'for') return `WAIT FOR ${stringLiteral(w.duration)}`;
  const parts = [...(w.timeout !== undefined ? [`TIMEOUT = ${stringLiteral(w.timeout)}`] : []), ...(w.onTimeout !== undefined ? [`ON TIMEOUT = ${stringLiteral(w.onTimeout)}`] : [])];
  return `WAIT UNTIL READY (${parts.join(', ')})`;
}
