/**
 * Column types resolved as Materialize resolves them: its parser maps SQL's spellings (`int`,
 * `double precision`, `string`, ...) to the names of its built-in types, and a name that is
 * neither is looked up in the catalog, where we keep no types (CREATE TYPE is not supported), so
 * it does not exist (42704). Pure.
 */
import { PlanError, SQLSTATE } from '../errors';
import type { ColumnDef, DataType, SqlOption } from '../sql/ast';
import { byteOffset, lex } from '../sql/lexer';

/** Materialize's built-in type names (pg_catalog and mz_catalog), without the array forms `_x`. */
const BUILTIN = new Set([
  'bool', 'bytea', 'int8', 'int4', 'text', 'oid', 'float4', 'float8', 'date', 'time', 'timestamp', 'timestamptz', 'interval', 'name', 'numeric',
  'record', 'uuid', 'jsonb', 'char', 'varchar', 'int2', 'bpchar', 'regproc', 'regtype', 'regclass', 'int2vector', 'uint2', 'uint4', 'uint8',
  'mz_timestamp', 'int4range', 'int8range', 'daterange', 'numrange', 'tsrange', 'tstzrange', 'mz_aclitem', 'aclitem',
]);

/** SQL's spellings that Materialize's parser maps to a built-in name. */
const ALIASES: Readonly<Record<string, string>> = {
  string: 'text', bigint: 'int8', smallint: 'int2', int: 'int4', integer: 'int4', dec: 'numeric', decimal: 'numeric', double: 'float8',
  'double precision': 'float8', float: 'float8', real: 'float4', boolean: 'bool', bytes: 'bytea', json: 'jsonb', character: 'bpchar',
  'character varying': 'varchar', 'char varying': 'varchar', 'timestamp with time zone': 'timestamptz', 'timestamp without time zone': 'timestamp',
  'time without time zone': 'time',
};

const SYSTEM_TYPE_SCHEMAS = new Set(['pg_catalog', 'mz_catalog']);

/** The built-in name a type's spelling stands for (`int` → `int4`), qualifier dropped. */
function baseName(type: DataType): string {
  const last = type.name[type.name.length - 1]!;
  return type.name.length === 1 ? (ALIASES[last] ?? last) : last;
}

/** Throws Materialize's error when `type` names no type; `at` is where the error points. */
export function resolveColumnType(type: DataType, at: number): void {
  const name = type.name;
  const qualifierOk = name.length === 1 || (name.length === 2 && SYSTEM_TYPE_SCHEMAS.has(name[0]!));
  const base = baseName(type);
  const known = BUILTIN.has(base) || (base.startsWith('_') && BUILTIN.has(base.slice(1)));
  if (qualifierOk && known) return;
  throw new PlanError(`type "${name.join('.')}" does not exist`, { code: SQLSTATE.undefinedObject, position: at });
}

/**
 * Types whose storage encoding sorts like their values (Materialize's `preserves_order`): the only
 * ones a PARTITION BY may name. Floats, numeric, char/varchar, jsonb, arrays, ... do not.
 */
const ORDER_PRESERVING = new Set([
  'bool', 'int2', 'int4', 'int8', 'uint2', 'uint4', 'uint8', 'date', 'time', 'timestamp', 'timestamptz', 'interval', 'bytea', 'text', 'uuid',
  'mz_timestamp', 'mz_aclitem', 'aclitem',
]);

/**
 * Materialize's check of `WITH (PARTITION BY (...))`: the columns must be a prefix of the
 * relation's, each of a type whose encoding preserves order. Errors point at the option.
 */
export function checkPartitionBy(columns: readonly { readonly name: string; readonly type: DataType }[], options: readonly SqlOption[]): void {
  const option = options.find((o) => o.name === 'PARTITION BY');
  if (!option) return;
  const v = option.value;
  const names = (v.kind === 'list' ? v.items : [v]).flatMap((x) => (x.kind === 'ident' || x.kind === 'string' ? [x.value] : x.kind === 'object' ? [x.name.join('.')] : []));
  names.slice(0, columns.length).forEach((name, idx) => {
    const column = columns[idx]!;
    if (column.name !== name) {
      throw new PlanError(`PARTITION BY columns should be a prefix of the relation's columns (expected ${column.name} at index ${idx}, got ${name})`, {
        code: SQLSTATE.internalError,
        position: option.position,
      });
    }
    if (column.type.arrayDimensions > 0 || !ORDER_PRESERVING.has(baseName(column.type))) {
      throw new PlanError(`PARTITION BY column ${name} has unsupported type`, { code: SQLSTATE.internalError, position: option.position });
    }
  });
}

const LITERAL_WORDS = new Set(['true', 'false', 'null', 'default', 'current_timestamp', 'current_date', 'current_time', 'localtimestamp', 'localtime', 'current_user', 'current_role', 'session_user', 'user', 'current_schema', 'current_catalog']);

/** Types an integer has no assignment cast to, by the name Materialize's messages give them. */
const NO_CAST_FROM_INTEGER: Readonly<Record<string, string>> = {
  bool: 'boolean', date: 'date', time: 'time', timestamp: 'timestamp without time zone', timestamptz: 'timestamp with time zone',
  interval: 'interval', bytea: 'bytea', uuid: 'uuid', jsonb: 'jsonb',
};

/**
 * Materialize's checks of a column's DEFAULT that need no expression engine: it is planned with no
 * columns in scope (a name of the table's own columns does not exist there), and then cast by
 * assignment to the column's type (an integer does not become a date). Errors point at the
 * offending token.
 */
export function checkColumnDefault(column: ColumnDef, columnNames: ReadonlySet<string>): void {
  const d = column.default;
  if (!d) return;
  let tokens;
  try {
    tokens = lex(d.text);
  } catch {
    return; // the parser read the statement; a default it kept whole is the data plane's to read
  }
  tokens.forEach((t, i) => {
    if (t.kind !== 'word' && t.kind !== 'quoted') return;
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    const qualifiedOrCalled = (prev?.kind === 'op' && (prev.value === '.' || prev.value === '::')) || (next?.kind === 'op' && (next.value === '(' || next.value === '.'));
    // `date '2020-01-01'` is a typed literal; `true`, `null`, ... are literals, whatever the columns are called.
    const literal = next?.kind === 'string' || (t.kind === 'word' && LITERAL_WORDS.has(t.value)) || (prev?.kind === 'word' && prev.value === 'as');
    if (!qualifiedOrCalled && !literal && columnNames.has(t.value)) {
      throw new PlanError(`column "${t.value}" does not exist`, { code: SQLSTATE.undefinedColumn, position: d.position + byteOffset(d.text, t.start) });
    }
  });
  const only = tokens.filter((t) => t.kind !== 'eof');
  const target = column.type.arrayDimensions === 0 ? NO_CAST_FROM_INTEGER[baseName(column.type)] : undefined;
  if (target && only.length === 1 && only[0]!.kind === 'number' && /^\d+$/.test(only[0]!.value) && Number(only[0]!.value) <= 2 ** 31 - 1) {
    throw new PlanError(`DEFAULT expression does not support casting from integer to ${target}`, { code: SQLSTATE.internalError, position: d.position });
  }
}

/** How Materialize names its built-in types in `SHOW COLUMNS` (PostgreSQL's names; the rest as they are). */
const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  bool: 'boolean', int2: 'smallint', int4: 'integer', int8: 'bigint', float4: 'real', float8: 'double precision', varchar: 'character varying',
  bpchar: 'character', timestamp: 'timestamp without time zone', timestamptz: 'timestamp with time zone',
};

/**
 * A column's type as a table's spec keeps it (`int`, `numeric(10,2)[]`, `pg_catalog.int4`) in
 * Materialize's display form (`integer`, `numeric[]`, `integer`): no modifiers, as `mz_columns` shows.
 */
export function typeDisplayName(text: string): string {
  const arrays = /(\[\])*$/.exec(text)![0];
  const base = text.slice(0, text.length - arrays.length).replace(/\([^)]*\)/, '');
  const unqualified = base.replace(/^(?:pg_catalog|mz_catalog)\./, '');
  const builtin = ALIASES[unqualified] ?? unqualified;
  return `${DISPLAY_NAMES[builtin] ?? builtin}${arrays}`;
}
