/**
 * Column types resolved as Materialize resolves them: its parser maps SQL's spellings (`int`,
 * `double precision`, `string`, ...) to the names of its built-in types, and a name that is
 * neither is looked up in the catalog, where we keep no types (CREATE TYPE is not supported), so
 * it does not exist (42704). Pure.
 */
import { PlanError, SQLSTATE } from '../errors';
import type { DataType } from '../sql/ast';

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

/** Throws Materialize's error when `type` names no type; `at` is where the error points. */
export function resolveColumnType(type: DataType, at: number): void {
  const name = type.name;
  const last = name[name.length - 1]!;
  const qualifierOk = name.length === 1 || (name.length === 2 && SYSTEM_TYPE_SCHEMAS.has(name[0]!));
  const base = name.length === 1 ? (ALIASES[last] ?? last) : last;
  const known = BUILTIN.has(base) || (base.startsWith('_') && BUILTIN.has(base.slice(1)));
  if (qualifierOk && known) return;
  throw new PlanError(`type "${name.join('.')}" does not exist`, { code: SQLSTATE.undefinedObject, position: at });
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
