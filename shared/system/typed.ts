/**
 * System relations defined by column name and type: a relation's rows are objects whose keys are
 * its columns, so a column added to a definition without a value in its rows fails to compile
 * (rows used to be positional arrays beside a column list that nothing checked). Pure.
 *
 * The SQL engine (shared/system/engine.ts) creates one table per definition from `columns` and
 * fills it from `rows`; the column order is the key order of `columns`.
 */

/** The PostgreSQL types of system-relation columns, as the SQL engine creates them. */
export const PG_TYPES = {
  text: { oid: 25, len: -1 },
  /** PostgreSQL's one-byte `"char"` (pg_class.relkind, pg_type.typtype, ...). */
  char: { oid: 18, len: 1 },
  name: { oid: 19, len: 64 },
  int2: { oid: 21, len: 2 },
  int4: { oid: 23, len: 4 },
  int8: { oid: 20, len: 8 },
  float4: { oid: 700, len: 4 },
  float8: { oid: 701, len: 8 },
  numeric: { oid: 1700, len: -1 },
  oid: { oid: 26, len: 4 },
  bool: { oid: 16, len: 1 },
  timestamptz: { oid: 1184, len: 8 },
  interval: { oid: 1186, len: 16 },
  jsonb: { oid: 3802, len: -1 },
  uuid: { oid: 2950, len: 16 },
  bytea: { oid: 17, len: -1 },
  'int8[]': { oid: 1016, len: -1 },
  'text[]': { oid: 1009, len: -1 },
  'oid[]': { oid: 1028, len: -1 },
  'int2[]': { oid: 1005, len: -1 },
  'char[]': { oid: 1002, len: -1 },
  'name[]': { oid: 1003, len: -1 },
} as const;
export type PgType = keyof typeof PG_TYPES;

/** The JavaScript value a column of each type holds in a row (always nullable). */
export type ValueOf<T extends PgType> = T extends 'text' | 'char' | 'name' | 'timestamptz' | 'interval' | 'numeric' | 'uuid' | 'bytea'
  ? string
  : T extends 'int2' | 'int4' | 'int8' | 'float4' | 'float8' | 'oid'
    ? number
    : T extends 'bool'
      ? boolean
      : T extends 'jsonb'
        ? unknown
        : T extends 'text[]' | 'char[]' | 'name[]'
          ? readonly (string | null)[]
          : T extends 'oid[]' | 'int2[]' | 'int8[]'
            ? readonly number[]
            : never;

export type Columns = Readonly<Record<string, PgType>>;
export type RowOf<C extends Columns> = { readonly [K in keyof C]: ValueOf<C[K]> | null };

/** What a relation reads besides the catalog snapshot; the caller loads no more than the query needs. */
export type Input = 'replicaStatuses' | 'effects' | 'connectorStatuses' | 'history';

/** The schemas system relations live in, Materialize's names. */
export type SystemSchema = 'mz_catalog' | 'mz_internal' | 'pg_catalog' | 'information_schema';

export interface TypedRelation<C extends Columns, I> {
  readonly schema: SystemSchema;
  readonly name: string;
  readonly columns: C;
  /** Which inputs the rows read (statuses, effects, history); none: the snapshot alone. */
  readonly needs: readonly Input[];
  /** Other relations this one's rows are derived from in SQL (none here: every relation is rows). */
  rows(inputs: I): Iterable<RowOf<C>>;
}

/** A relation with its column types erased, as a registry holds it. */
export interface AnyRelation<I> {
  readonly kind?: 'table';
  readonly schema: SystemSchema;
  readonly name: string;
  readonly columns: Columns;
  readonly needs: readonly Input[];
  rows(inputs: I): Iterable<Readonly<Record<string, unknown>>>;
}

/** Defines a relation; `columns` is written `as const`-free thanks to the const type parameter. */
export function relation<I>() {
  return <const C extends Columns>(def: TypedRelation<C, I>): AnyRelation<I> => def as unknown as AnyRelation<I>;
}

/**
 * A relation the engine computes in SQL from others (Materialize defines pg_catalog this way:
 * `pg_class` is `pg_class_all_databases` of the session's database). `sql` is engine SQL: it names
 * engine tables (`mz_internal.x`, `mzpg.x`, `mzis.x`) and may call the engine's functions.
 */
export interface SqlView {
  readonly kind: 'view';
  readonly schema: SystemSchema;
  readonly name: string;
  /** The SELECT that defines it; its output columns are Materialize's for the relation. */
  readonly sql: string;
  /** The relations (`schema.name`, Materialize's names) it reads, so they are loaded first. */
  readonly reads: readonly string[];
}

/**
 * A function the engine answers with a stand-in of its own (PostgreSQL's would describe the engine:
 * `current_database()`, `pg_get_userbyid`, `version()`), in the engine schema for pg_catalog.
 */
export interface StandInFunction {
  readonly name: string;
  /** The relations its body reads (`schema.name`), loaded before a query that calls it. */
  readonly reads: readonly string[];
  /** `CREATE FUNCTION` statements (one per overload), engine SQL. */
  readonly sql: string;
}

/** `schema.name`, the key of a relation in a registry. */
export const qualified = (r: { readonly schema: string; readonly name: string }): string => `${r.schema}.${r.name}`;

/** Positional rows in column order (for the SHOW evaluator and tests that read rows as arrays). */
export function positional<I>(r: AnyRelation<I>, inputs: I): unknown[][] {
  const names = Object.keys(r.columns);
  return [...r.rows(inputs)].map((row) => names.map((n) => row[n] ?? null));
}
