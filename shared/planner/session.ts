/**
 * Session variables, as Materialize has them (its src/sql/src/session/vars/definitions.rs): their
 * names, defaults, which are read-only or fixed, which values they take, and the errors a bad
 * `SET` gets. A pgwire connection keeps one session for its life; an HTTP request is a session of
 * its own (it starts from the defaults). `SET LOCAL` lasts until the end of the transaction, and
 * a rolled back transaction takes its `SET`s back, as in PostgreSQL. Pure.
 */
import type { CatalogObject } from '../catalog/model';
import { PlanError, SQLSTATE } from '../errors';
import type { NameScope } from './names';

/** The PostgreSQL version Materialize reports itself as, for drivers' version checks. */
export const SERVER_VERSION = '9.5.0';
export const SERVER_VERSION_NUM = '90500';
/** The Materialize release whose SQL this control plane speaks (mz_version()). */
export const MZ_VERSION = 'v26.17.0';
export const MZ_VERSION_NUM = '261700';

interface VarDef {
  /** As Materialize spells it (SHOW's column name, ParameterStatus). */
  readonly name: string;
  readonly default: string;
  readonly description: string;
  /** Cannot be SET at all. */
  readonly readOnly?: boolean;
  /** May be SET only to its one value (PostgreSQL tools set them). */
  readonly fixed?: boolean;
  /** Normalizes a value or throws the variable's error; absent: any string. */
  readonly check?: (value: readonly string[], name: string) => string;
  /** Sent to pgwire clients at startup and when it changes (ParameterStatus). */
  readonly reported?: boolean;
}

const invalid = (name: string, values: readonly string[]): PlanError =>
  new PlanError(`invalid value for parameter "${name}": ${values.map((v) => `"${v}"`).join(',')}`, { code: SQLSTATE.invalidParameterValue });

const oneOf = (...allowed: string[]) => (v: readonly string[], name: string): string => {
  const value = v.join(', ');
  const hit = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
  if (!hit) throw invalid(name, v);
  return hit;
};

const integer = (v: readonly string[], name: string): string => {
  if (v.length !== 1 || !/^[-+]?\d+$/.test(v[0]!)) throw new PlanError(`parameter "${name}" requires a "integer" value`, { code: SQLSTATE.invalidParameterValue });
  return String(Number(v[0]));
};

const bool = (v: readonly string[], name: string): string => {
  const x = v.join('').toLowerCase();
  if (['on', 'true', 't', 'yes', '1'].includes(x)) return 'on';
  if (['off', 'false', 'f', 'no', '0'].includes(x)) return 'off';
  throw new PlanError(`parameter "${name}" requires a "boolean" value`, { code: SQLSTATE.invalidParameterValue });
};

const duration = (v: readonly string[], name: string): string => {
  const x = v.join('').trim();
  const m = /^(\d+)\s*(ms|s|min|h|d)?$/.exec(x);
  if (!m) throw new PlanError(`parameter "${name}" requires a "duration" value`, { code: SQLSTATE.invalidParameterValue });
  const ms = Number(m[1]) * ({ ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 } as const)[(m[2] ?? 'ms') as 'ms'];
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
};

/** Materialize accepts UTC only (and its spellings as an offset). */
const timeZone = (v: readonly string[], name: string): string => {
  const x = v.join('').trim();
  if (/^(utc|gmt|z|zulu|etc\/utc|\+?0+(:0+)?|[+-]00:00|universal)$/i.test(x)) return 'UTC';
  throw invalid(name, v);
};

const dateStyle = (v: readonly string[], name: string): string => {
  const parts = v.flatMap((x) => x.split(',')).map((x) => x.trim().toUpperCase()).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => p !== 'ISO' && p !== 'MDY')) throw invalid(name, v);
  return 'ISO, MDY';
};

const encoding = (v: readonly string[], name: string): string => {
  if (!/^utf-?8$/i.test(v.join('').trim())) throw invalid(name, v);
  return 'UTF8';
};

const searchPath = (v: readonly string[]): string => v.map((s) => s.trim()).join(', ');

const VARS: readonly VarDef[] = [
  { name: 'application_name', default: '', description: 'Sets the application name to be reported in statistics and logs (PostgreSQL).', reported: true },
  { name: 'client_encoding', default: 'UTF8', description: "Sets the client's character set encoding (PostgreSQL).", check: encoding, reported: true },
  { name: 'client_min_messages', default: 'notice', description: 'Sets the message levels that are sent to the client (PostgreSQL).', check: oneOf('debug5', 'debug4', 'debug3', 'debug2', 'debug1', 'log', 'notice', 'warning', 'error') },
  { name: 'cluster', default: 'quickstart', description: 'Sets the current cluster (Materialize).' },
  { name: 'cluster_replica', default: '', description: 'Sets a target cluster replica for SELECT queries (Materialize).' },
  { name: 'database', default: 'materialize', description: 'Sets the current database (CockroachDB).' },
  { name: 'DateStyle', default: 'ISO, MDY', description: 'Sets the display format for date and time values (PostgreSQL).', check: dateStyle, reported: true },
  { name: 'default_cluster_replication_factor', default: '1', description: 'Default cluster replication factor (Materialize).', check: integer },
  { name: 'extra_float_digits', default: '3', description: 'Adjusts the number of digits displayed for floating-point values (PostgreSQL).', check: integer },
  { name: 'idle_in_transaction_session_timeout', default: '120 s', description: 'Sets the maximum allowed duration that a session can sit idle in a transaction before being terminated (PostgreSQL).', check: duration },
  { name: 'integer_datetimes', default: 'on', description: 'Reports whether the server uses 64-bit-integer dates and times (PostgreSQL).', fixed: true, reported: true },
  { name: 'IntervalStyle', default: 'postgres', description: 'Sets the display format for interval values (PostgreSQL).', check: oneOf('postgres'), reported: true },
  { name: 'is_superuser', default: 'off', description: 'Reports whether the current session is a superuser (PostgreSQL).', readOnly: true, reported: true },
  { name: 'max_identifier_length', default: '255', description: 'The maximum length of object identifiers in bytes (PostgreSQL).', readOnly: true },
  { name: 'max_query_result_size', default: '1GB', description: "The maximum size in bytes for a single query's result (Materialize)." },
  { name: 'mz_version', default: MZ_VERSION, description: 'Shows the Materialize server version (Materialize).', readOnly: true, reported: true },
  { name: 'search_path', default: 'public', description: 'Sets the schema search order for names that are not schema-qualified (PostgreSQL).', check: searchPath },
  { name: 'server_version', default: SERVER_VERSION, description: 'Shows the PostgreSQL compatible server version (PostgreSQL).', readOnly: true, reported: true },
  { name: 'server_version_num', default: SERVER_VERSION_NUM, description: 'Shows the PostgreSQL compatible server version as an integer (PostgreSQL).', readOnly: true },
  { name: 'sql_safe_updates', default: 'off', description: 'Prohibits SQL statements that may be overly destructive (CockroachDB).', check: bool },
  { name: 'standard_conforming_strings', default: 'on', description: "Causes '...' strings to treat backslashes literally (PostgreSQL).", fixed: true, reported: true },
  { name: 'statement_timeout', default: '60 s', description: 'Sets the maximum allowed duration of INSERT...SELECT, UPDATE, and DELETE operations (PostgreSQL).', check: duration },
  { name: 'TimeZone', default: 'UTC', description: 'Sets the time zone for displaying and interpreting time stamps (PostgreSQL).', check: timeZone, reported: true },
  { name: 'transaction_isolation', default: 'strict serializable', description: "Sets the current transaction's isolation level (PostgreSQL).", check: oneOf('serializable', 'strict serializable') },
  { name: 'welcome_message', default: 'on', description: 'Whether to send a notice with a welcome message after a successful connection (Materialize).', check: bool },
];

const BY_NAME: ReadonlyMap<string, VarDef> = new Map(VARS.map((v) => [v.name.toLowerCase(), v]));

/** `SET schema` and `SET names` are aliases, as in PostgreSQL. */
const ALIASES: Readonly<Record<string, string>> = { schema: 'search_path', names: 'client_encoding', 'time zone': 'timezone' };

function lookup(name: string): VarDef {
  const key = ALIASES[name.toLowerCase()] ?? name.toLowerCase();
  const v = BY_NAME.get(key);
  if (!v) throw new PlanError(`unrecognized configuration parameter "${name}"`, { code: SQLSTATE.undefinedObject });
  return v;
}

/**
 * A value for `name` as SET would take it (the variable's canonical name and normalized value), or
 * Materialize's error: unknown (42704), read-only (55P02), invalid (22023). For ALTER ROLE ... SET
 * and ALTER SYSTEM SET, which keep a default for later sessions.
 */
export function normalizeSetting(name: string, value: readonly string[]): { readonly name: string; readonly value: string } {
  const d = lookup(name);
  if (d.readOnly) throw new PlanError(`parameter "${d.name}" cannot be changed`, { code: SQLSTATE.cantChangeRuntimeParam });
  if (d.fixed) {
    const v = value.join(', ');
    if (v.toLowerCase() !== d.default.toLowerCase() && !(d.default === 'on' && ['true', 'on', '1'].includes(v.toLowerCase()))) throw new PlanError(`parameter "${d.name}" can only be set to "${d.default}"`, { code: SQLSTATE.invalidParameterValue });
    return { name: d.name, value: d.default };
  }
  return { name: d.name, value: d.check ? d.check(value, d.name) : value.join(', ') };
}

/** Whether `name` is a session variable a session may SET (so its system default is a superuser's to change). */
export function isSettable(name: string): boolean {
  const key = ALIASES[name.toLowerCase()] ?? name.toLowerCase();
  const d = BY_NAME.get(key);
  return d !== undefined && !d.readOnly;
}

/** The canonical name of a session variable (`timezone` → `TimeZone`), or Materialize's 42704. */
export function variableName(name: string): string {
  return lookup(name).name;
}

/** A variable's value changed: pgwire tells the client (ParameterStatus) when it is a reported one. */
export type VariableChange = { readonly name: string; readonly value: string };

export class Session {
  private readonly values = new Map<string, string>();
  /**
   * The defaults this session starts from, under what it SETs: the system's (ALTER SYSTEM SET),
   * then its role's (ALTER ROLE ... SET), read from the catalog by its first statement. RESET goes
   * back to them, as in PostgreSQL.
   */
  private readonly base = new Map<string, string>();
  /** Whether `base` was read from the catalog yet (a pgwire session reads it once). */
  defaultsLoaded = false;
  /** Values to restore at the end of the transaction (`SET LOCAL`), and at a ROLLBACK (every SET). */
  private txnSaved: Map<string, string> | undefined;
  private localSaved: Map<string, string> | undefined;
  private readonly changes: VariableChange[] = [];
  /**
   * The session's temporary items (`CREATE TEMPORARY VIEW`, the `mz_temp` schema and indexes on
   * them), as its last statement left them: a pgwire connection's statements see the ones its
   * earlier statements made, as Materialize's session does. Never committed.
   */
  temporaries: readonly CatalogObject[] = [];

  /** `overrides`: startup parameters of a pgwire connection (`options`, `application_name`, ...). */
  constructor(readonly user = 'materialize', overrides: Readonly<Record<string, string>> = {}) {
    for (const [k, v] of Object.entries(overrides)) {
      const d = BY_NAME.get(k.toLowerCase());
      if (d && !d.readOnly) this.values.set(d.name, d.check ? d.check([v], d.name) : v);
    }
  }

  /** A copy to plan on: a pgwire transaction is planned again at each statement and adopted at its end. */
  clone(): Session {
    const c = new Session(this.user);
    for (const [k, v] of this.values) c.values.set(k, v);
    for (const [k, v] of this.base) c.base.set(k, v);
    c.defaultsLoaded = this.defaultsLoaded;
    c.txnSaved = this.txnSaved && new Map(this.txnSaved);
    c.localSaved = this.localSaved && new Map(this.localSaved);
    c.superuser = this.superuser;
    c.temporaries = this.temporaries;
    return c;
  }

  /** Takes a copy's values (and its reported changes) as this session's. */
  adopt(c: Session): void {
    const before = new Map(this.reported().map((r) => [r.name, r.value]));
    this.values.clear();
    for (const [k, v] of c.values) this.values.set(k, v);
    this.base.clear();
    for (const [k, v] of c.base) this.base.set(k, v);
    this.defaultsLoaded = c.defaultsLoaded;
    this.txnSaved = c.txnSaved && new Map(c.txnSaved);
    this.localSaved = c.localSaved && new Map(c.localSaved);
    this.temporaries = c.temporaries;
    for (const r of this.reported()) if (before.get(r.name) !== r.value) this.changes.push(r);
  }

  /** Whether a transaction block is open (BEGIN without its COMMIT or ROLLBACK yet). */
  get inTransaction(): boolean {
    return this.txnSaved !== undefined;
  }

  get(name: string): string {
    const d = lookup(name);
    if (d.name === 'is_superuser') return this.superuser ? 'on' : 'off';
    return this.values.get(d.name) ?? this.base.get(d.name) ?? d.default;
  }

  /** Starts from these defaults (canonical names, normalized values), later ones winning: the system's, then the role's. */
  loadDefaults(...layers: readonly Readonly<Record<string, string>>[]): void {
    this.base.clear();
    for (const layer of layers) {
      for (const [k, v] of Object.entries(layer)) {
        const d = BY_NAME.get(k.toLowerCase());
        if (d && !d.readOnly) this.base.set(d.name, v);
      }
    }
    this.defaultsLoaded = true;
  }

  /** Whether the session's role is a superuser (shown by is_superuser). */
  superuser = false;

  get database(): string {
    return this.get('database');
  }

  /** The schemas of search_path, as written. */
  get searchPath(): string[] {
    return this.get('search_path').split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1')).filter(Boolean);
  }

  /** `SET name = value` (or DEFAULT); `local`: until the end of the transaction. Throws Materialize's errors. */
  set(name: string, value: readonly string[] | 'default', local = false): void {
    const d = lookup(name);
    if (d.readOnly) throw new PlanError(`parameter "${d.name}" cannot be changed`, { code: SQLSTATE.cantChangeRuntimeParam });
    const next = value === 'default' ? undefined : normalizeSetting(d.name, value).value;
    const before = this.get(d.name);
    const saved = local && this.localSaved ? this.localSaved : this.txnSaved;
    // (`next` undefined: back to the session's default.)
    if (saved && !saved.has(d.name)) saved.set(d.name, this.values.get(d.name) ?? '\u0000');
    if (local && this.localSaved && this.txnSaved && !this.txnSaved.has(d.name)) this.txnSaved.set(d.name, this.values.get(d.name) ?? '\u0000');
    if (next === undefined) this.values.delete(d.name);
    else this.values.set(d.name, next);
    if (d.reported && this.get(d.name) !== before) this.changes.push({ name: d.name, value: this.get(d.name) });
  }

  reset(name: string): void {
    if (name === 'all') {
      for (const d of VARS) if (!d.readOnly && this.values.has(d.name)) this.set(d.name, 'default');
      return;
    }
    this.set(name, 'default');
  }

  /** SHOW name: the column name and the value. */
  show(name: string): { column: string; value: string } {
    const d = lookup(name);
    return { column: d.name.toLowerCase() === 'timezone' ? 'TimeZone' : d.name, value: this.get(d.name) };
  }

  /** SHOW ALL: every variable, its value and description. */
  showAll(): [string, string, string][] {
    return VARS.map((d) => [d.name, this.get(d.name), d.description]);
  }

  /** The values to report at startup (ParameterStatus), by name. */
  reported(): VariableChange[] {
    return VARS.filter((d) => d.reported).map((d) => ({ name: d.name, value: this.get(d.name) }));
  }

  /** Reported values changed since the last call. */
  drainChanges(): VariableChange[] {
    return this.changes.splice(0);
  }

  /** Every value, by lower-case name, for the SQL engine's `current_setting`. */
  all(): Record<string, string> {
    return Object.fromEntries(VARS.map((d) => [d.name.toLowerCase(), this.get(d.name)]));
  }

  begin(): void {
    this.txnSaved ??= new Map();
    this.localSaved ??= new Map();
  }

  /** COMMIT keeps SETs but not SET LOCALs; ROLLBACK takes both back. */
  end(committed: boolean): void {
    const restore = (m: Map<string, string> | undefined) => {
      for (const [k, v] of m ?? []) {
        const before = this.get(k);
        if (v === '\u0000') this.values.delete(k);
        else this.values.set(k, v);
        const d = BY_NAME.get(k.toLowerCase());
        if (d?.reported && this.get(k) !== before) this.changes.push({ name: d.name, value: this.get(k) });
      }
    };
    restore(committed ? this.localSaved : this.txnSaved);
    this.txnSaved = undefined;
    this.localSaved = undefined;
  }
}

/** Where the session resolves names that do not say their database or schema (its `database` and `search_path`). */
export function sessionScope(session: Session): NameScope {
  return { database: session.database, searchPath: session.searchPath };
}
