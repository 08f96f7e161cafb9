/**
 * The one SQL engine over the catalog, for both front doors: a query (any PostgreSQL SELECT) is
 * read by PostgreSQL's parser, its names resolved as Materialize resolves them, the system tables
 * it reads filled from the request's catalog view (cached per catalog version), and run by the
 * engine (PGlite, shared/pglite/) in a read-only transaction. Reads of user objects answer as they
 * always have: their rows are the data plane's.
 *
 * The engine starts on the first query, never before: a DDL request pays nothing for it.
 */
import { TEMP_SCHEMA, type CatalogSnapshot, type ItemObject } from '../catalog/model';
import { ControlPlaneError, PlanError, SQLSTATE } from '../errors';
import type { Session } from '../planner/session';
import { MZ_VERSION, MZ_VERSION_NUM } from '../planner/session';
import type { ErrorFields, FieldDesc } from '../wire/protocol';
import type { EngineSession, RunRequest, RunResult } from '../pglite/host';
import type { ObjectName } from '../sql/ast';
import type { SystemInputs } from '../system/catalog-relations';
import { SYSTEM_SCHEMAS } from '../system/oids';
import { analyzeQuery, charPositionToByte, type PgParser, type Resolved } from '../system/query';
import { engineTable, systemRelation, tablesRead, type SystemTable } from '../system/registry';
import type { Input } from '../system/typed';

/** The engine, in this process or behind a worker thread. */
export interface SqlEngineHost {
  run(req: RunRequest): Promise<RunResult>;
  close(): Promise<void>;
}

export interface CatalogQuery {
  readonly text: string;
  /** Byte offset of `text` in the request: positions in errors are the request's. */
  readonly position: number;
  readonly snapshot: CatalogSnapshot;
  readonly session: Session;
  readonly params?: readonly (Buffer | null)[];
  readonly paramTypes?: readonly number[];
  readonly paramFormats?: readonly number[];
  readonly resultFormats?: readonly number[];
  readonly describeOnly?: boolean;
  readonly maxRows?: number;
  /** Reads the statuses, effects and history the query's tables need. */
  readonly inputs: (needs: ReadonlySet<Input>) => Promise<SystemInputs>;
  /** A user object the query names: throws the answer for reading it. */
  readonly userRead: (item: ItemObject, name: ObjectName, position: number) => Promise<never>;
}

export interface CatalogAnswer {
  readonly paramTypes: readonly number[];
  readonly fields?: readonly FieldDesc[];
  /** DataRow messages, back to back, in the formats asked for. */
  readonly rows: Buffer;
  readonly rowCount: number;
  readonly tag: string;
  readonly notices: readonly ErrorFields[];
}

/** The most rows one query answers with (the HTTP answer's byte cap comes on top). */
export const MAX_QUERY_ROWS = 100_000;

/** Reads a system-schema name: Materialize's system schemas, `materialize.mz_catalog`, ... */
const SYSTEM_SCHEMA_NAMES: ReadonlySet<string> = new Set(SYSTEM_SCHEMAS.map((s) => s.name));

/** Keys for catalog views: one per snapshot object (a catalog version, or a request's own working copy). */
const snapshotKeys = new WeakMap<CatalogSnapshot, string>();
let nextKey = 0;
const keyOf = (s: CatalogSnapshot): string => {
  let k = snapshotKeys.get(s);
  if (!k) snapshotKeys.set(s, (k = `${s.tenant}#${++nextKey}`));
  return k;
};

/** The JSON of a table's rows for a snapshot, kept while the snapshot lives (two hosts, or a reload, reuse it). */
const rowsJson = new WeakMap<CatalogSnapshot, Map<string, string>>();

export interface CatalogSqlOptions {
  /** Starts the engine (once). */
  readonly host: () => Promise<SqlEngineHost>;
  /** Loads PostgreSQL's parser (once). */
  readonly parser: () => Promise<PgParser>;
  /** `mz_environment_id()`. */
  readonly environmentId?: string;
}

/**
 * When this process's first catalog query reached each step, as epoch milliseconds
 * (performance.timeOrigin + now): it began, had the parser, had read its inputs, had the engine,
 * had the engine's answer. What a cold start waits for (bench/phases/pgwire.ts reports it).
 */
export interface FirstQuerySteps {
  readonly start: number;
  readonly parser: number;
  readonly inputs: number;
  readonly engine: number;
  readonly answered: number;
}

let firstQuery: FirstQuerySteps | undefined;

/** The steps of this process's first catalog query that the engine answered, once there was one. */
export function firstQuerySteps(): FirstQuerySteps | undefined {
  return firstQuery;
}

export class CatalogSql {
  private hostPromise: Promise<SqlEngineHost> | undefined;
  private parserPromise: Promise<PgParser> | undefined;
  private volatile = 0;

  constructor(private readonly o: CatalogSqlOptions) {}

  /** Whether the engine has been started (the bench and tests ask). */
  get started(): boolean {
    return this.hostPromise !== undefined;
  }

  private host(): Promise<SqlEngineHost> {
    this.hostPromise ??= this.o.host().catch((e) => {
      this.hostPromise = undefined;
      throw e;
    });
    return this.hostPromise;
  }

  /**
   * Starts the engine and, unless `parser: false`, the parser without waiting for them (a request
   * about to query starts both before it reads the catalog; a server starting its engine early
   * leaves the parser to the first query, which waits for the engine longer than the parser takes
   * to load, so that the two do not compete for the cores while the server starts).
   */
  start(o: { readonly parser?: boolean } = {}): void {
    if (o.parser !== false) {
      this.parserPromise ??= this.o.parser();
      this.parserPromise.catch(() => undefined);
    }
    this.host().catch(() => undefined);
  }

  async close(): Promise<void> {
    const h = this.hostPromise;
    this.hostPromise = undefined;
    if (h) await (await h).close();
  }

  async query(q: CatalogQuery): Promise<CatalogAnswer> {
    const at = firstQuery ? undefined : () => performance.timeOrigin + performance.now();
    const steps: Partial<Record<keyof FirstQuerySteps, number>> = { start: at?.() };
    this.parserPromise ??= this.o.parser();
    // The engine starts (on a first query) while the query is read: reading needs only the parser.
    const hostReady = this.host();
    hostReady.catch(() => undefined);
    const [parser] = await Promise.all([this.parserPromise, loadMaterializeNames()]);
    steps.parser = at?.();
    let analyzed;
    try {
      analyzed = analyzeQuery(q.text, { parser, resolve: (name) => resolve(q.snapshot, q.session, name) });
    } catch (e) {
      throw shifted(e, q.position);
    }
    for (const u of analyzed.userReads) {
      const item = q.snapshot.get(u.id) as ItemObject;
      await q.userRead(item, u.name, q.position + u.position);
    }
    const tables = tablesRead(analyzed.relations, analyzed.functions);
    const needs = new Set(tables.flatMap((t) => t.needs));
    const inputs = needs.size || tables.length ? await q.inputs(needs) : undefined;
    const catalogKey = keyOf(q.snapshot);
    const loads = tables.map((t) => this.load(t, inputs!, catalogKey));
    steps.inputs = at?.();
    const host = await hostReady;
    steps.engine = at?.();
    const result = await host.run({
      sql: analyzed.sql,
      paramTypes: q.paramTypes ?? [],
      params: q.params ?? [],
      paramFormats: q.paramFormats ?? [],
      resultFormats: q.resultFormats ?? [],
      session: engineSession(q.snapshot, q.session, this.o.environmentId),
      loads,
      ...(q.describeOnly ? { describeOnly: true } : {}),
      maxRows: q.maxRows ?? MAX_QUERY_ROWS,
    });
    if (at) firstQuery = { ...(steps as FirstQuerySteps), answered: at() };
    if (!result.ok) {
      const pos = result.error.position;
      const at = pos !== undefined ? q.position + analyzed.originalOffset(charPositionToByte(analyzed.sql, pos)) : undefined;
      throw new PlanError(result.error.message, {
        code: result.error.code,
        ...(result.error.detail ? { detail: result.error.detail } : {}),
        ...(result.error.hint ? { hint: result.error.hint } : {}),
        ...(at !== undefined ? { position: at } : {}),
      });
    }
    return {
      paramTypes: result.paramTypes,
      // The engine's own table OIDs mean nothing to a client: Materialize sends none either.
      ...(result.fields ? { fields: result.fields.map((f) => ({ ...f, tableOid: 0, columnAttr: 0 })) } : {}),
      rows: result.rows,
      rowCount: result.rowCount,
      tag: result.tag ?? `SELECT ${result.rowCount}`,
      notices: result.notices,
    };
  }

  /** A table to fill: rows of the catalog alone are keyed by the catalog view; status rows always reload. */
  private load(t: SystemTable, inputs: SystemInputs, catalogKey: string) {
    const table = engineTable(t);
    const key = t.needs.length ? `volatile#${++this.volatile}` : catalogKey;
    const json = () => {
      if (t.needs.length) return JSON.stringify([...t.rows(inputs)]);
      let perSnapshot = rowsJson.get(inputs.snapshot);
      if (!perSnapshot) rowsJson.set(inputs.snapshot, (perSnapshot = new Map()));
      let j = perSnapshot.get(table);
      if (j === undefined) perSnapshot.set(table, (j = JSON.stringify([...t.rows(inputs)])));
      return j;
    };
    return { table, key, json };
  }
}

/** The session as the engine reads it: who, where, and the settings its functions answer with. */
function engineSession(snapshot: CatalogSnapshot, session: Session, environmentId = 'local-00000000-0000-0000-0000-000000000000-0'): EngineSession {
  const db = session.database;
  const dbObj = snapshot.database(db);
  const existing = session.searchPath.filter((s) => (dbObj && snapshot.schema(dbObj.id, s)) || SYSTEM_SCHEMA_NAMES.has(s));
  const implicit = [...['mz_catalog', 'pg_catalog'].filter((s) => !existing.includes(s)), ...existing];
  return {
    user: session.user,
    database: db,
    settings: {
      ...session.all(),
      current_schema: existing[0] ?? '',
      schemas: existing.join(','),
      schemas_implicit: implicit.join(','),
      mz_version: MZ_VERSION,
      mz_version_num: MZ_VERSION_NUM,
      environment_id: environmentId,
    },
  };
}

/** Resolves a relation name as Materialize does: the request's temporary items, then mz_catalog and pg_catalog, then search_path. */
export function resolve(snapshot: CatalogSnapshot, session: Session, name: ObjectName): Resolved {
  const system = (schema: string, rel: string): Resolved | undefined => {
    if (!SYSTEM_SCHEMA_NAMES.has(schema)) return undefined;
    const r = systemRelation(schema, rel);
    if (r) return { kind: 'system', relation: r };
    return { kind: 'refused', error: refusedOrUnknown([schema, rel]) };
  };
  if (name.length === 3) {
    const [db, schema, rel] = name as [string, string, string];
    if (!snapshot.database(db)) throw new PlanError(`unknown database '${db}'`, { code: SQLSTATE.undefinedObject });
    return system(schema, rel) ?? user(snapshot, db, schema, rel);
  }
  if (name.length === 2) {
    const [schema, rel] = name as [string, string];
    if (schema === TEMP_SCHEMA) return temp(snapshot, rel) ?? { kind: 'unknown' };
    return system(schema, rel) ?? user(snapshot, session.database, schema, rel);
  }
  const rel = name[0]!;
  const t = temp(snapshot, rel);
  if (t) return t;
  for (const schema of ['mz_catalog', 'pg_catalog']) {
    const r = systemRelation(schema, rel);
    if (r) return { kind: 'system', relation: r };
  }
  for (const schema of session.searchPath) {
    if (SYSTEM_SCHEMA_NAMES.has(schema)) {
      const r = systemRelation(schema, rel);
      if (r) return { kind: 'system', relation: r };
      continue;
    }
    const r = user(snapshot, session.database, schema, rel);
    if (r.kind === 'user') return r;
  }
  const refused = refusedOrUnknown(name);
  return refused.code === SQLSTATE.featureNotSupported ? { kind: 'refused', error: refused } : { kind: 'unknown' };
}

function temp(snapshot: CatalogSnapshot, rel: string): Resolved | undefined {
  const schema = snapshot.ofKind('schema').find((s) => s.name === TEMP_SCHEMA);
  const item = schema ? snapshot.item(schema.id, rel) : undefined;
  return item ? { kind: 'user', id: item.id } : undefined;
}

function user(snapshot: CatalogSnapshot, db: string, schemaName: string, rel: string): Resolved {
  const d = snapshot.database(db);
  const schema = d ? snapshot.schema(d.id, schemaName) : undefined;
  const item = schema ? snapshot.item(schema.id, rel) : undefined;
  return item ? { kind: 'user', id: item.id } : { kind: 'unknown' };
}

/** 0A000 for a relation Materialize has and we do not serve, else 42P01. */
function refusedOrUnknown(name: ObjectName): PlanError {
  // Loaded here only: Materialize's list of its relations is not part of a cold start.
  const theirs = materializeRelationSync(name);
  if (theirs) return new PlanError(`system ${theirs.kind} ${theirs.name} is not supported by this control plane`, { code: SQLSTATE.featureNotSupported });
  return new PlanError(`unknown catalog item '${name.join('.')}'`, { code: SQLSTATE.undefinedTable });
}

let materializeOnly: typeof import('../system/materialize-only') | undefined;
/** Set by `loadMaterializeNames` before a query runs (the table is loaded with the engine). */
function materializeRelationSync(name: ObjectName): { name: string; kind: string } | undefined {
  if (!materializeOnly) return undefined;
  const q = materializeOnly.materializeRelation(name);
  return q ? { name: q, kind: materializeOnly.materializeKind(q) ?? 'relation' } : undefined;
}

/** Loads Materialize's list of system relations, for 0A000 answers (once, with the engine). */
export async function loadMaterializeNames(): Promise<void> {
  materializeOnly ??= await import('../system/materialize-only');
}

/** An error of the query's own text, its position moved to the request's. */
function shifted(e: unknown, base: number): unknown {
  if (e instanceof ControlPlaneError && e.position !== undefined) e.position += base;
  else if (e instanceof ControlPlaneError) e.position = base;
  return e;
}

/**
 * The engine in this process: PGlite and PostgreSQL's parser, both loaded by the first query (or
 * by `start()`). `worker`: PGlite runs on a worker thread of its own (engine-worker.ts), for
 * servers of many connections; otherwise on the calling thread. `engine`: one already starting
 * (a server starts its worker before its own modules load).
 */
export function inProcessCatalogSql(
  o: { readonly environmentId?: string; readonly cacheDir?: string; readonly templateDir?: string; readonly worker?: boolean; readonly engine?: Promise<SqlEngineHost> } = {},
): CatalogSql {
  return new CatalogSql({
    ...(o.environmentId ? { environmentId: o.environmentId } : {}),
    host: async () => {
      if (o.engine) return o.engine;
      if (o.worker) return (await import('./engine-worker')).WorkerEngineHost.open({ ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}), ...(o.templateDir ? { templateDir: o.templateDir } : {}) });
      const [{ PgliteHost }, { engineSchemaSql }] = await Promise.all([import('../pglite/host'), import('../system/registry')]);
      return PgliteHost.open({ schemaSql: engineSchemaSql(), ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}), ...(o.templateDir ? { templateDir: o.templateDir } : {}) });
    },
    parser: async () => {
      const p = await (await import('../sql/pg-parser')).loadPgParser();
      if (!p) throw new PlanError("PostgreSQL's parser could not be loaded here", { code: SQLSTATE.internalError });
      return p;
    },
  });
}
