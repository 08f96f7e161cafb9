/**
 * Column types resolved as Materialize resolves them: its parser maps SQL's spellings (`int`,
 * `double precision`, `string`, ...) to the names of its built-in types, and a name that is
 * neither is looked up in the catalog among the user-defined types (`CREATE TYPE`); else it does
 * not exist (42704). `int list` and `map[text => int]` are Materialize's anonymous containers. Pure.
 */
import type { CatalogSnapshot, ObjectOf } from '../catalog/model';
import { DEFAULT_SCOPE, findItem, type NameScope } from './names';
import { PlanError, SQLSTATE } from '../errors';
import { mz } from '../mz-errors';
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

/** Materialize's pseudo types: they stand for any type in function signatures and name no column's type. */
const PSEUDO = new Set([
  'list', 'map', 'any', 'anyelement', 'anyarray', 'anynonarray', 'anyrange', 'anylist', 'anymap', 'anycompatible', 'anycompatiblearray',
  'anycompatiblenonarray', 'anycompatiblelist', 'anycompatiblemap', 'anycompatiblerange',
]);
/** Built-in types that live in mz_catalog rather than pg_catalog. */
const MZ_CATALOG_TYPES = new Set(['uint2', 'uint4', 'uint8', 'mz_timestamp', 'mz_aclitem']);

/** What a named type resolves to: a built-in (by its canonical name) or a user-defined type. */
export type NamedType = { readonly builtin: string } | { readonly user: ObjectOf<'type'> };

/** The built-in type a name stands for (`int4`, `pg_catalog.text`), qualified by its schema (`pg_catalog.int4`), if it names one. */
export function builtinTypeName(name: readonly string[]): string | undefined {
  const base = baseName({ name, typmod: [], arrayDimensions: 0 });
  const qualifierOk = name.length === 1 || (name.length === 2 && SYSTEM_TYPE_SCHEMAS.has(name[0]!));
  if (!qualifierOk || !(BUILTIN.has(base) || (base.startsWith('_') && BUILTIN.has(base.slice(1))))) return undefined;
  return `${MZ_CATALOG_TYPES.has(base) ? 'mz_catalog' : 'pg_catalog'}.${base}`;
}

/** A type as Materialize's parser leaves it, for "does not exist" messages (`int4 list[]`, `bigint_list[]`). */
function astName(type: DataType): string {
  const arrays = '[]'.repeat(type.arrayDimensions);
  if (type.list) return `${astName(type.list)} list${arrays}`;
  if (type.map) return `map[${astName(type.map.key)}=>${astName(type.map.value)}]${arrays}`;
  return `${type.name.length === 1 ? baseName(type) : type.name.join('.')}${arrays}`;
}

/** The named (not anonymous) type `type` stands for, arrays aside; throws 42704 when there is none. */
function resolveNamed(view: CatalogSnapshot, type: DataType, at: number, scope: NameScope): NamedType {
  const name = type.name;
  const base = baseName(type);
  const qualifierOk = name.length === 1 || (name.length === 2 && SYSTEM_TYPE_SCHEMAS.has(name[0]!));
  if (qualifierOk && (BUILTIN.has(base) || (base.startsWith('_') && BUILTIN.has(base.slice(1))))) return { builtin: base };
  if (qualifierOk && PSEUDO.has(base)) {
    throw new PlanError(`cannot reference pseudo type ${base.endsWith('list') || base.endsWith('map') ? 'mz_catalog' : 'pg_catalog'}.${base}`, {
      code: SQLSTATE.internalError,
      position: at,
    });
  }
  // The search path after the system schemas: the session's (its database's schemas).
  let item;
  try {
    item = name.length <= 3 ? findItem(view, name, at, scope) : undefined;
  } catch {
    item = undefined;
  }
  if (item?.kind === 'type') return { user: item };
  throw new PlanError(`type "${name.join('.')}" does not exist`, { code: SQLSTATE.undefinedObject, position: at });
}

/** How Materialize names a type in its messages (`pg_catalog.int4 list`, `materialize.public.t`). */
function fullName(view: CatalogSnapshot, type: DataType, scope: NameScope, named?: NamedType): string {
  const arrays = '[]'.repeat(type.arrayDimensions);
  if (type.list) return `${fullName(view, type.list, scope)} list${arrays}`;
  if (type.map) return `map[${fullName(view, type.map.key, scope)}=>${fullName(view, type.map.value, scope)}]${arrays}`;
  let n: NamedType;
  try {
    n = named ?? resolveNamed(view, type, 0, scope);
  } catch {
    return `${type.name.join('.')}${arrays}`;
  }
  if ('user' in n) return `${view.qualifiedName(n.user).join('.')}${arrays}`;
  return `${MZ_CATALOG_TYPES.has(n.builtin) ? 'mz_catalog' : 'pg_catalog'}.${n.builtin}${arrays}`;
}

/** A type as Materialize's messages show it to a user (`integer`, `text`, `materialize.public.t`). */
function humanName(view: CatalogSnapshot, type: DataType, scope: NameScope): string {
  if (type.list || type.map || type.arrayDimensions > 0) return fullName(view, type, scope);
  const n = resolveNamed(view, type, 0, scope);
  return 'user' in n ? view.qualifiedName(n.user).join('.') : (DISPLAY_NAMES[n.builtin] ?? n.builtin);
}

/**
 * Resolves a column's type (`int`, `text[]`, `int list`, `map[text => int]`, a user-defined type)
 * with Materialize's errors; returns the ids of the user-defined types it names (the column's
 * relation depends on them). `at` is where errors point.
 */
export function resolveColumnType(view: CatalogSnapshot, type: DataType, at: number, scope: NameScope = DEFAULT_SCOPE): string[] {
  const ids = resolveElementType(view, type, at, scope);
  // Materialize has arrays of built-in types only (`_int4`): not of lists, maps or user-defined types.
  if (type.arrayDimensions > 0 && (type.list || type.map || ids.length > 0)) {
    throw new PlanError(`type "${astName(type)}" does not exist`, { code: SQLSTATE.undefinedObject, position: at });
  }
  return ids;
}

function resolveElementType(view: CatalogSnapshot, type: DataType, at: number, scope: NameScope): string[] {
  if (type.list) {
    const element = type.list;
    const ids = resolveColumnType(view, element, at, scope);
    const named = element.list || element.map || element.arrayDimensions > 0 ? undefined : resolveNamed(view, element, at, scope);
    if (named && 'builtin' in named && (named.builtin === 'char' || named.builtin === 'bpchar')) throw mz.Unsupported('char list').at(at);
    return ids;
  }
  if (type.map) {
    const key = type.map.key;
    const keyIds = resolveColumnType(view, key, at, scope);
    const keyNamed = key.list || key.map || key.arrayDimensions > 0 ? undefined : resolveNamed(view, key, at, scope);
    if (!keyNamed || !('builtin' in keyNamed) || keyNamed.builtin !== 'text') {
      throw new PlanError(`map key type must be text, got ${humanName(view, key, scope)}`, { code: SQLSTATE.internalError, position: at });
    }
    return [...keyIds, ...resolveColumnType(view, type.map.value, at, scope)];
  }
  const n = resolveNamed(view, type, at, scope);
  return 'user' in n ? [n.user.id] : [];
}

/**
 * The user-defined types a piece of SQL kept as typed (a view's body, an index key, a column
 * default) casts to — `CAST(x AS t)` and `x::t` — so that what uses a type depends on it, as in
 * Materialize. Names that are no user-defined type (built-ins, unknown names) are skipped: the
 * data plane reads the body. Pure: a token walk, no SQL parser.
 */
export function typesNamedIn(view: CatalogSnapshot, text: string, scope: NameScope = DEFAULT_SCOPE): string[] {
  let tokens;
  try {
    tokens = lex(text);
  } catch {
    return [];
  }
  const ids: string[] = [];
  const parens: boolean[] = []; // true: the parenthesis of a CAST(
  const nameAt = (i: number) => {
    const name: string[] = [];
    while ((tokens[i]?.kind === 'word' || tokens[i]?.kind === 'quoted') && (name.length === 0 || tokens[i - 1]?.value === '.')) {
      name.push(tokens[i]!.value);
      i += tokens[i + 1]?.kind === 'op' && tokens[i + 1]!.value === '.' ? 2 : 1;
    }
    if (name.length === 0 || name.length > 3) return;
    try {
      const n = resolveNamed(view, { name, typmod: [], arrayDimensions: 0 }, 0, scope);
      if ('user' in n) ids.push(n.user.id);
    } catch {
      // Not a type we keep.
    }
  };
  tokens.forEach((t, i) => {
    if (t.kind === 'op' && t.value === '(') parens.push(tokens[i - 1]?.kind === 'word' && tokens[i - 1]!.value === 'cast');
    else if (t.kind === 'op' && t.value === ')') parens.pop();
    else if (t.kind === 'op' && t.value === '::') nameAt(i + 1);
    else if (t.kind === 'word' && t.value === 'as' && parens[parens.length - 1] === true) nameAt(i + 1);
  });
  return [...new Set(ids)];
}

/**
 * An option or field type of `CREATE TYPE` (Materialize's validate_data_type): it must be a named
 * type, not an anonymous list, map or array, and not `char`. Returns the user-defined type it names, if any.
 * `asType` is `LIST `, `MAP ` or `` (a record), `key` the option or field name.
 */
export function resolveTypeComponent(view: CatalogSnapshot, type: DataType, asType: string, key: string, at: number, scope: NameScope = DEFAULT_SCOPE): string | undefined {
  if (type.list || type.map || type.arrayDimensions > 0) {
    // The element must exist before its anonymity is the problem.
    resolveColumnType(view, type, at, scope);
    throw new PlanError(
      `CREATE TYPE ... AS ${asType}option ${key} can only use named data types, but found unnamed data type ${fullName(view, type, scope)}. Use CREATE TYPE to create a named type first`,
      { code: SQLSTATE.internalError, position: at },
    );
  }
  const n = resolveNamed(view, type, at, scope);
  if ('builtin' in n && (n.builtin === 'char' || n.builtin === 'bpchar')) throw mz.Unsupported('embedding char type in a list or map').at(at);
  return 'user' in n ? n.user.id : undefined;
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

/**
 * The same check when only the columns' names are known (a materialized view's output, whose
 * types the query planner on the data plane knows): the prefix rule alone.
 */
export function checkPartitionByNames(columns: readonly string[], options: readonly SqlOption[]): void {
  checkPartitionBy(
    columns.map((name) => ({ name, type: { name: ['text'], typmod: [], arrayDimensions: 0 } })),
    options,
  );
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
  if (base.endsWith(' list')) return `${typeDisplayName(base.slice(0, -' list'.length))} list${arrays}`;
  const unqualified = base.replace(/^(?:pg_catalog|mz_catalog)\./, '');
  const builtin = ALIASES[unqualified] ?? unqualified;
  return `${DISPLAY_NAMES[builtin] ?? builtin}${arrays}`;
}
