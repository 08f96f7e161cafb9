/**
 * Every system relation the SQL engine serves, by Materialize's qualified name, and where it
 * lives in the engine: mz_catalog and mz_internal under their own names, pg_catalog and
 * information_schema under stand-in schemas (`mzpg`, `mzis`) beside PostgreSQL's own, which
 * describe the engine and not the catalog. Also the engine's schema itself (its DDL). Pure.
 */
import { CATALOG_RELATIONS, type SystemInputs } from './catalog-relations';
import { MATERIALIZE_COLUMNS } from './materialize-columns';
import { ENGINE_HELPERS_SQL, FUNCTION_STAND_INS } from './functions';
import { PG_RELATIONS, PG_VIEWS, setServedRelations, STAND_INS as PG_STAND_INS } from './pg-relations';
import { qualified, type AnyRelation, type Columns, type SqlView, type StandInFunction, type SystemSchema } from './typed';

export type SystemTable = AnyRelation<SystemInputs>;
/** A relation a query may name: a table filled from the catalog, or a view over such tables. */
export type SystemRelation = SystemTable | SqlView;

/** The engine's schema for each system schema. */
export const ENGINE_SCHEMA: Readonly<Record<SystemSchema, string>> = {
  mz_catalog: 'mz_catalog',
  mz_internal: 'mz_internal',
  pg_catalog: 'mzpg',
  information_schema: 'mzis',
};

export const SYSTEM_TABLES: readonly SystemTable[] = [...CATALOG_RELATIONS, ...PG_RELATIONS];
export const SYSTEM_VIEWS: readonly SqlView[] = PG_VIEWS;
export const SYSTEM_RELATIONS: readonly SystemRelation[] = [...SYSTEM_TABLES, ...SYSTEM_VIEWS];
/** The functions the engine answers itself: pg_catalog's stand-ins, then Materialize's functions over the catalog (./functions.ts). */
export const STAND_INS: readonly StandInFunction[] = [...PG_STAND_INS, ...FUNCTION_STAND_INS];

const BY_NAME: ReadonlyMap<string, SystemRelation> = new Map(SYSTEM_RELATIONS.map((r) => [qualified(r), r]));
const STAND_IN_BY_NAME: ReadonlyMap<string, StandInFunction> = new Map(STAND_INS.map((f) => [f.name, f]));

setServedRelations(
  SYSTEM_RELATIONS.map((r) => ({
    schema: r.schema,
    name: r.name,
    view: r.kind === 'view',
    columns: r.kind === 'view' ? (MATERIALIZE_COLUMNS as Readonly<Record<string, Columns>>)[qualified(r)] : r.columns,
  })),
);

/** A relation by `schema.name`. */
export const systemRelation = (schema: string, name: string): SystemRelation | undefined => BY_NAME.get(`${schema}.${name}`);

/** The stand-in function of this name, if the engine has one. */
export const standIn = (name: string): StandInFunction | undefined => STAND_IN_BY_NAME.get(name);

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The relation's table (or view) in the engine, quoted. */
export const engineTable = (r: { readonly schema: SystemSchema; readonly name: string }): string => `${quoteIdent(ENGINE_SCHEMA[r.schema])}.${quoteIdent(r.name)}`;

/** The tables a query reads, given the relations and stand-in functions it names (views read tables). */
export function tablesRead(relations: readonly SystemRelation[], functions: readonly string[]): SystemTable[] {
  const out = new Map<string, SystemTable>();
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const r = BY_NAME.get(name);
    if (!r) return;
    if (r.kind === 'view') for (const x of r.reads) visit(x);
    else out.set(name, r);
  };
  for (const r of relations) visit(qualified(r));
  const fnQueue = [...functions];
  const fnSeen = new Set<string>();
  while (fnQueue.length) {
    const f = standIn(fnQueue.pop()!);
    if (!f || fnSeen.has(f.name)) continue;
    fnSeen.add(f.name);
    for (const x of f.reads) visit(x);
  }
  // Views and functions call stand-ins too (pg_tables → pg_get_userbyid): their reads are listed with them.
  return [...out.values()];
}

/** PostgreSQL's type for a column type of ours. */
const sqlType = (t: string): string => (t === 'char' ? '"char"' : t === 'char[]' ? '"char"[]' : t);

/**
 * The engine's schema: a role queries run as (no privilege beyond reading these schemas), the
 * schemas, a table per system table, the stand-in functions and the views. Its text keys the
 * engine's prepared data folder (shared/pglite/host.ts), so any change here builds a new one.
 */
export function engineSchemaSql(): string {
  const out: string[] = [
    'SET check_function_bodies = off',
    'CREATE ROLE mz_reader NOLOGIN',
    'CREATE ROLE materialize NOLOGIN IN ROLE mz_reader',
    'REVOKE ALL ON SCHEMA public FROM PUBLIC',
    ...Object.values(ENGINE_SCHEMA).map((s) => `CREATE SCHEMA ${quoteIdent(s)}`),
  ];
  for (const t of SYSTEM_TABLES) {
    const cols = Object.entries(t.columns).map(([c, ty]) => `${quoteIdent(c)} ${sqlType(ty)}`);
    out.push(`CREATE TABLE ${engineTable(t)} (${cols.join(', ')})`);
  }
  // Function bodies name views and views call functions: bodies are checked when first run instead.
  out.push(ENGINE_HELPERS_SQL);
  for (const f of STAND_INS) out.push(f.sql.trim().replace(/;$/, ''));
  // A view that names another view comes after it.
  const viewNames = new Set(SYSTEM_VIEWS.map((v) => qualified(v)));
  const placed = new Set<string>();
  const place = (v: SqlView) => {
    if (placed.has(qualified(v))) return;
    placed.add(qualified(v));
    for (const r of v.reads) if (viewNames.has(r)) place(BY_NAME.get(r) as SqlView);
    out.push(`CREATE VIEW ${engineTable(v)} AS ${v.sql}`);
  };
  for (const v of SYSTEM_VIEWS) place(v);
  const schemas = Object.values(ENGINE_SCHEMA).map(quoteIdent).join(', ');
  out.push(`GRANT USAGE ON SCHEMA ${schemas} TO mz_reader`);
  out.push(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schemas} TO mz_reader`);
  out.push(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schemas} TO mz_reader`);
  return `${out.join(';\n')};\n`;
}
