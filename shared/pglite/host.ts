/**
 * The SQL engine's adapter: one PGlite (PostgreSQL compiled to WebAssembly) holding a table per
 * system relation, filled from catalog snapshots on demand, answering queries in read-only
 * transactions as an unprivileged role. The only code that touches PGlite.
 *
 * Cold start: PGlite's `create()` on an empty folder runs initdb (2.3 s on a quiet machine here,
 * 5-18 s on the loaded 2-core one); ours opens a data folder prepared once with every table and
 * function already created (the template, kept under the OS temp folder or shipped beside a
 * bundle), which takes a fifth of that or less. The template is keyed by PGlite's version and the
 * schema's text, so a changed schema builds anew.
 *
 * The template is opened, not copied: its files are read into PGlite's in-memory file system as
 * the engine starts (only the engine's own database and the cluster-wide files: template0 and
 * template1 are never read), and whatever the engine writes stays in memory, private to this
 * process. Copying it to a folder of its own first (1 123 files, 40 MB) took 1.0-1.3 s of a cold
 * start at a load of 20 on 2 cores, left the folder behind when the process was killed, and cost
 * removing it on exit; reading the files takes ~0.2 s (`npm run bench -- --only pgwire`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { PGlite as PGliteType, PGliteOptions } from '@electric-sql/pglite';
import { fBind, fDescribe, fExecute, fParse, fQuery, fSync, messages, readCommandTag, readFields, readParameterDescription, readRowDescription, type ErrorFields, type FieldDesc } from '../wire/protocol';

/** The session a query runs in: who asks, in which database, with which settings. */
export interface EngineSession {
  readonly user: string;
  readonly database: string;
  /** Session settings the query may read (`current_setting`, TimeZone, DateStyle, ...), by lower-case name. */
  readonly settings: Readonly<Record<string, string>>;
}

/** A table to (re)fill before the query: its rows as a JSON array of objects keyed by column. */
export interface Load {
  /** The engine's qualified table name, quoted (`"mzpg"."pg_class"`). */
  readonly table: string;
  /** What the rows are of; the same key is not loaded twice. */
  readonly key: string;
  /** The rows, asked for only when the engine does not hold `key` already. */
  readonly json: () => string;
}

export interface RunRequest {
  /** The query as the engine runs it (rewritten: shared/system/query.ts). */
  readonly sql: string;
  readonly paramTypes: readonly number[];
  readonly params: readonly (Buffer | null)[];
  readonly paramFormats: readonly number[];
  readonly resultFormats: readonly number[];
  readonly session: EngineSession;
  readonly loads: readonly Load[];
  /** Describe only: the parameter types and the row description, nothing executed. */
  readonly describeOnly?: boolean;
  /** More rows than this is an error (54000), not a longer answer. */
  readonly maxRows: number;
}

export type RunResult =
  | {
      readonly ok: true;
      readonly paramTypes: readonly number[];
      /** Absent: the statement returns no rows. */
      readonly fields?: readonly FieldDesc[];
      /** The DataRow messages as PostgreSQL wrote them, back to back. */
      readonly rows: Buffer;
      readonly rowCount: number;
      readonly tag?: string;
      readonly notices: readonly ErrorFields[];
    }
  | { readonly ok: false; readonly error: ErrorFields; readonly notices: readonly ErrorFields[] };

export interface HostOptions {
  /** The schema (tables, functions, roles) every query runs against: shared/system/engine-schema.ts. */
  readonly schemaSql: string;
  /** A prepared data folder to open (a copy of it); absent: the one shipped beside the bundle ({@link shippedTemplate}), else the template under `cacheDir`, built when missing. */
  readonly templateDir?: string;
  /** @default `<os temp>/ddl-control-plane-pglite-<uid>` */
  readonly cacheDir?: string;
}

const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;
const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * V8's budget for tiering a WebAssembly function up to its optimizing compiler, set before PGlite's
 * module is instantiated (the budget is read then). At V8's default (1.8 M) PostgreSQL's own start
 * (zeroing its shared buffers, reading its catalogs) exhausts it for a few functions, whose
 * optimized compile then holds the engine's thread 70-120 ms right after the engine opened, in the
 * first query's way (measured on 2 cores: a 2 ms timer fired 100 ms late). At 500 M the start tiers
 * nothing up and a warm engine still does: a fill of 10 000 rows took 62 ms against 58, a join of
 * PostgreSQL's catalogs 3.5 ms against 3.3. Process-wide: it reaches libpg-query as well.
 */
const WASM_TIERING_BUDGET = 500_000_000;

async function pglite(): Promise<typeof import('@electric-sql/pglite')> {
  (await import('node:v8')).setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  return import('@electric-sql/pglite');
}

/** PGlite's version, part of the template's key (a new PGlite may not open an old data folder). */
function pgliteVersion(): string {
  try {
    const url = import.meta.resolve('@electric-sql/pglite');
    const pkg = new URL('../package.json', url);
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function defaultCacheDir(): string {
  let uid = 'user';
  try {
    uid = String(userInfo().uid);
  } catch {
    // no passwd entry (some containers): one folder for all
  }
  return join(tmpdir(), `ddl-control-plane-pglite-${uid}`);
}

/** The template's file naming its database's OID (the folder under base/ the engine runs in). */
const TEMPLATE_DATABASE = '.database-oid';

/** The template's file naming its stand-in types (engine OID → PostgreSQL's), as {@link standInTypes} finds them. */
const TEMPLATE_STAND_INS = '.stand-in-types.json';

/**
 * What a template holds beside PostgreSQL's files (its database's OID since layout 2, its stand-in
 * types since layout 3): part of its key.
 */
const TEMPLATE_LAYOUT = 'layout 3';

/**
 * The folder a bundle ships its template in, beside the output file (chunk) holding this module:
 * cdk/constructs/esbuild-bundle.mjs writes it there with {@link exportTemplate}.
 */
export const SHIPPED_TEMPLATE = 'pglite-template';

/** A shipped template's file naming the schema it was built for ({@link shippedKey}). */
const SHIPPED_KEY = '.schema-key';

/**
 * The key of a shipped template: its layout and schema. PGlite's version is not part of it (a
 * bundle cannot read PGlite's package.json; the template ships with the PGlite it was built by).
 */
function shippedKey(schemaSql: string): string {
  return createHash('sha256').update(TEMPLATE_LAYOUT).update('\0').update(schemaSql).digest('hex').slice(0, 16);
}

/**
 * The template this code was shipped with (a Lambda's or the pgwire image's bundle), when it is
 * there and was built for `schemaSql`: a deployed engine starts from it rather than running initdb
 * in a fresh /tmp. Under tsx (npm start, tests) there is none: the cache's template is used.
 */
export function shippedTemplate(schemaSql: string, dir = join(import.meta.dirname, SHIPPED_TEMPLATE)): string | undefined {
  try {
    return readFileSync(join(dir, SHIPPED_KEY), 'utf8').trim() === shippedKey(schemaSql) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Copies what an engine reads of `template` (as {@link templateReader} reads it: the cluster-wide
 * files and the engine's own database, with the template's notes) into `dest`, emptied first, and
 * marks it with its schema's key: the folder a bundle ships (26 MB of the template's 40).
 */
export function exportTemplate(template: string, dest: string, schemaSql: string): void {
  rmSync(dest, { recursive: true, force: true });
  const database = readFileSync(join(template, TEMPLATE_DATABASE), 'utf8').trim();
  const copy = (from: string, to: string, top: boolean) => {
    mkdirSync(to, { recursive: true });
    for (const e of readdirSync(from, { withFileTypes: true })) {
      if (top && e.name === '.complete') continue;
      const src = join(from, e.name);
      const dst = join(to, e.name);
      if (e.isDirectory()) {
        if (to === join(dest, 'base') && e.name !== database) mkdirSync(dst);
        else copy(src, dst, false);
      } else writeFileSync(dst, readFileSync(src));
    }
  };
  copy(template, dest, true);
  writeFileSync(join(dest, SHIPPED_KEY), `${shippedKey(schemaSql)}\n`);
}

/** The template's folder for this schema, built once (concurrent builders each build aside and the first rename wins). */
export async function ensureTemplate(schemaSql: string, cacheDir = defaultCacheDir()): Promise<string> {
  const key = createHash('sha256').update(pgliteVersion()).update('\0').update(TEMPLATE_LAYOUT).update('\0').update(schemaSql).digest('hex').slice(0, 16);
  const dir = join(cacheDir, `template-${key}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  mkdirSync(cacheDir, { recursive: true });
  const aside = `${dir}.build-${process.pid}-${Date.now()}`;
  const { PGlite } = await pglite();
  const db = await PGlite.create({ dataDir: aside, relaxedDurability: true });
  let databaseOid: number;
  let standIns: Map<number, number>;
  try {
    await db.exec(schemaSql);
    databaseOid = (await db.query<{ oid: number }>('SELECT oid::int4 AS oid FROM pg_database WHERE datname = current_database()')).rows[0]!.oid;
    standIns = await standInTypes(db);
    await db.exec('CHECKPOINT');
  } finally {
    await db.close();
  }
  // postmaster.pid is gone once closed; the engine that opens it starts clean. Its database's
  // folder (base/<oid>) is the only one a host reads. The stand-in types are found once here: a
  // three-way join of pg_type on a fresh engine is a tenth of its start.
  writeFileSync(join(aside, TEMPLATE_DATABASE), `${databaseOid}\n`);
  writeFileSync(join(aside, TEMPLATE_STAND_INS), `${JSON.stringify([...standIns])}\n`);
  writeFileSync(join(aside, '.complete'), `${new Date().toISOString()}\n`);
  try {
    renameSync(aside, dir);
  } catch {
    rmSync(aside, { recursive: true, force: true });
    if (!existsSync(join(dir, '.complete'))) throw new Error(`could not place the SQL engine's template at ${dir}`);
  }
  return dir;
}

/**
 * The template's files as PGlite's in-memory file system starts (its `preRun`): the cluster-wide
 * folders and the engine's own database; other databases' folders (template0, template1) stay
 * empty. A template without its database's OID (built by an older release) is read whole.
 */
export function templateReader(template: string): (fs: TemplateFs, pgdata: string) => void {
  const oidFile = join(template, TEMPLATE_DATABASE);
  const database = existsSync(oidFile) ? readFileSync(oidFile, 'utf8').trim() : undefined;
  return (fs, pgdata) => {
    const copy = (from: string, to: string, top: boolean) => {
      fs.mkdirTree(to);
      for (const e of readdirSync(from, { withFileTypes: true })) {
        if (top && e.name.startsWith('.')) continue;
        const src = join(from, e.name);
        const dst = `${to}/${e.name}`;
        if (e.isDirectory()) {
          if (database !== undefined && to === `${pgdata}/base` && e.name !== database) fs.mkdirTree(dst);
          else copy(src, dst, false);
        } else fs.writeFile(dst, readFileSync(src));
      }
    };
    copy(template, pgdata, true);
  };
}

/** As much of Emscripten's FS as reading the template takes. */
export interface TemplateFs {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
}

/**
 * PostgreSQL settings of the engine beyond PGlite's own. The template's postgresql.conf (initdb's)
 * has 128 MB of shared buffers, which PostgreSQL zeroes as it starts: 74 ms of a 400 ms cold open
 * (a CPU profile's `memset`). A page past 16 MB is read back from the in-memory file system, not
 * from a disk (warm reads at 10 000 objects: bench/results/latest.md row 9).
 */
const ENGINE_SETTINGS = ['shared_buffers=16MB'];

/** A refill empties a table of at most this many rows with DELETE, a larger one with TRUNCATE. */
const DELETE_UP_TO_ROWS = 1000;

/** One PGlite instance on the template, in memory. Calls are serialized: PGlite runs one at a time. */
export class PgliteHost {
  private readonly loaded = new Map<string, string>();
  /** Tables filled at least once, with the rows of their last fill: the others are as the template has them, empty. */
  private readonly filled = new Map<string, number>();
  private readonly roles = new Set<string>(['materialize']);
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: PGliteType,
    /** Engine type OID → PostgreSQL's, for the engine's stand-in types (`mzpg.regclass`, ...). */
    private readonly wireTypes: ReadonlyMap<number, number>,
  ) {}

  static async open(o: HostOptions): Promise<PgliteHost> {
    const template = o.templateDir ?? shippedTemplate(o.schemaSql) ?? (await ensureTemplate(o.schemaSql, o.cacheDir));
    const { PGlite, MemoryFS } = await pglite();
    const read = templateReader(template);
    /** PGlite's in-memory file system, holding the template's files before PostgreSQL starts. */
    class TemplateInMemory extends MemoryFS {
      override async init(pg: PGliteType, opts: Parameters<InstanceType<typeof MemoryFS>['init']>[1]) {
        const { emscriptenOpts } = await super.init(pg, opts);
        return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), (mod: { FS: TemplateFs }) => read(mod.FS, PGlite.paths.PGDATA)] } };
      }
    }
    const options: PGliteOptions = { fs: new TemplateInMemory(), relaxedDurability: true, startParams: [...PGlite.defaultStartParams, ...ENGINE_SETTINGS.flatMap((s) => ['-c', s])] };
    const db = await PGlite.create(options);
    const known = join(template, TEMPLATE_STAND_INS);
    const standIns = existsSync(known) ? new Map(JSON.parse(readFileSync(known, 'utf8')) as [number, number][]) : await standInTypes(db);
    return new PgliteHost(db, standIns);
  }

  async close(): Promise<void> {
    await this.db.close().catch(() => undefined);
  }

  /** What the engine holds: table → the key of the rows loaded into it. */
  holding(): [string, string][] {
    return [...this.loaded];
  }

  run(req: RunRequest): Promise<RunResult> {
    const next = this.queue.then(() => this.runNow(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(req: RunRequest): Promise<RunResult> {
    await this.fill(req.loads);
    await this.ensureRole(req.session.user);
    const s = req.session;
    const settings = Object.entries(s.settings)
      .map(([k, v]) => `set_config(${quoteLiteral(`mz.${k}`)}, ${quoteLiteral(v)}, true)`)
      .concat([`set_config('mz.database', ${quoteLiteral(s.database)}, true)`, `set_config('mz.user', ${quoteLiteral(s.user)}, true)`]);
    const pgSettings: string[] = [];
    for (const [k, pg] of [['timezone', 'TimeZone'], ['datestyle', 'DateStyle'], ['intervalstyle', 'IntervalStyle'], ['extra_float_digits', 'extra_float_digits']] as const) {
      const v = s.settings[k];
      if (v !== undefined) pgSettings.push(`set_config(${quoteLiteral(pg)}, ${quoteLiteral(v)}, true)`);
    }
    // Materialize's implicit schemas, mz_catalog first, then pg_catalog: its stand-ins (mzpg) shadow PostgreSQL's own.
    const preamble = `BEGIN READ ONLY; SET LOCAL ROLE ${quoteIdent(s.user)}; SET LOCAL search_path = mz_catalog, mzpg, pg_catalog; SELECT ${[...settings, ...pgSettings].join(', ')}`;
    const engineTypes = new Map([...this.wireTypes].map(([engine, pg]) => [pg, engine]));
    const parts: Buffer[] = [fQuery(preamble), fParse(req.sql, req.paramTypes.map((t) => engineTypes.get(t) ?? t))];
    if (req.describeOnly) parts.push(fDescribe('S'), fSync());
    else parts.push(fDescribe('S'), fBind(req.params, req.paramFormats, req.resultFormats), fDescribe('P'), fExecute(req.maxRows + 1), fSync());
    parts.push(fQuery('ROLLBACK'));
    const answer = Buffer.from(await this.db.execProtocolRaw(Buffer.concat(parts), { syncToFs: false }));
    return onTheWire(readAnswer(answer, req.maxRows), this.wireTypes);
  }

  /** Loads what the query reads and this instance does not hold yet, in one transaction. */
  private async fill(loads: readonly Load[]): Promise<void> {
    const todo = loads.filter((l) => this.loaded.get(l.table) !== l.key);
    if (todo.length === 0) return;
    for (const l of todo) this.loaded.delete(l.table);
    const counts = new Map<string, number>();
    await this.db.transaction(async (tx) => {
      for (const l of todo) {
        // A table the template left empty needs nothing removed (on a fresh engine, one statement
        // less per table to start up). A small one is emptied by DELETE: TRUNCATE gives the table a
        // new file and invalidates its cache entries, 6-15 ms a table against ~1 ms (a refill after
        // every DDL). The dead rows are pruned as pages are read; a large table is truncated.
        const before = this.filled.get(l.table);
        if (before !== undefined) await tx.query(before <= DELETE_UP_TO_ROWS ? `DELETE FROM ${l.table}` : `TRUNCATE ${l.table}`);
        const r = await tx.query(`INSERT INTO ${l.table} SELECT * FROM json_populate_recordset(NULL::${l.table}, $1::json)`, [l.json()]);
        counts.set(l.table, r.affectedRows ?? Number.MAX_SAFE_INTEGER);
      }
    });
    for (const l of todo) {
      this.loaded.set(l.table, l.key);
      this.filled.set(l.table, counts.get(l.table)!);
    }
  }

  private async ensureRole(user: string): Promise<void> {
    if (this.roles.has(user)) return;
    await this.db.exec(`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = ${quoteLiteral(user)}) THEN CREATE ROLE ${quoteIdent(user)} NOLOGIN IN ROLE mz_reader; END IF; END $$`);
    this.roles.add(user);
  }
}

/**
 * The engine's base types that stand in for pg_catalog's of the same name (`mzpg.regclass` for
 * `regclass`, and their arrays), by OID: a client is told PostgreSQL's type, as Materialize tells it.
 */
async function standInTypes(db: PGliteType): Promise<Map<number, number>> {
  const r = await db.query<{ engine: number; pg: number }>(
    `SELECT t.oid::int8 AS engine, p.oid::int8 AS pg
       FROM pg_catalog.pg_type t JOIN pg_catalog.pg_type p ON p.typname = t.typname AND p.typnamespace = 'pg_catalog'::regnamespace
       LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem
      WHERE t.typnamespace = 'mzpg'::regnamespace AND t.typtype = 'b' AND (t.typelem = 0 OR e.typtype = 'b')`,
  );
  return new Map(r.rows.map((x) => [Number(x.engine), Number(x.pg)]));
}

/** An answer with the stand-in types' OIDs replaced by PostgreSQL's. */
function onTheWire(r: RunResult, types: ReadonlyMap<number, number>): RunResult {
  if (!r.ok || types.size === 0) return r;
  const pg = (t: number) => types.get(t) ?? t;
  return { ...r, paramTypes: r.paramTypes.map(pg), ...(r.fields ? { fields: r.fields.map((f) => (types.has(f.typeOid) ? { ...f, typeOid: pg(f.typeOid) } : f)) } : {}) };
}

/**
 * Reads the answer to [preamble query, Parse, Describe, (Bind, Describe, Execute,) Sync, ROLLBACK]:
 * the first error is the result; notices are kept.
 */
export function readAnswer(answer: Buffer, maxRows: number): RunResult {
  const notices: ErrorFields[] = [];
  let paramTypes: number[] = [];
  let fields: FieldDesc[] | undefined;
  let tag: string | undefined;
  let error: ErrorFields | undefined;
  let rowsStart = -1;
  let rowsEnd = -1;
  let rowCount = 0;
  let suspended = false;
  // Three parts, each ended by a ReadyForQuery: the preamble, the query's extended messages, ROLLBACK.
  let part = 0;
  for (const m of messages(answer)) {
    if (m.type === 'Z') {
      part++;
      continue;
    }
    if (m.type === 'E') {
      error ??= readFields(m.body);
      continue;
    }
    if (part !== 1) continue;
    switch (m.type) {
      case 'N':
        notices.push(readFields(m.body));
        break;
      case 't':
        paramTypes = readParameterDescription(m.body);
        break;
      case 'T':
        fields = readRowDescription(m.body);
        break;
      case 'D':
        if (rowsStart < 0) rowsStart = m.start;
        rowsEnd = m.end;
        rowCount++;
        break;
      case 'C':
        tag = readCommandTag(m.body);
        break;
      case 's':
        suspended = true;
        break;
      default:
        break;
    }
  }
  if (error) return { ok: false, error, notices };
  if (suspended || rowCount > maxRows) {
    return { ok: false, error: { severity: 'ERROR', code: '54000', message: `result exceeds ${maxRows} rows, the most one answer can carry`, hint: 'Read fewer rows (WHERE, LIMIT).' }, notices };
  }
  return { ok: true, paramTypes, ...(fields ? { fields } : {}), rows: rowsStart < 0 ? Buffer.alloc(0) : answer.subarray(rowsStart, rowsEnd), rowCount, ...(tag ? { tag } : {}), notices };
}
