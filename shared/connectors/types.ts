/**
 * What one connector type is, in one place: a descriptor per type (one file each in this folder,
 * listed in index.ts) that the parser, the printer, the planner, the catalog model, the controller
 * contract, the probes, the health monitor and the local data plane read. The unions of names they
 * use are derived from the descriptors (index.ts), so a type is spelled once, and a descriptor that
 * leaves out a part its kind needs (a source's options, the probe it says it has) fails to compile.
 *
 * Pure and at the bottom of the layers (docs/architecture.md): the option checks read options in
 * the shape below, which the planner builds from the parser's options; they throw PlanErrors.
 */
import { PlanError, SQLSTATE } from '../errors';

/** The option names an option list accepts, with Materialize's spellings (the parser reads them). */
export interface OptionListSpec {
  /** For messages: `CREATE CLUSTER`, `Kafka connection`, ... */
  readonly what: string;
  /** Canonical names: upper case, words separated by one space. */
  readonly names: readonly string[];
  /** Materialize has these here; we do not (yet). */
  readonly unsupported?: readonly string[];
  /** Alternative spellings, mapped to the canonical name. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** What "Expected ..." lists for an unknown name, as Materialize words it (default: one of the names). */
  readonly expected?: readonly string[];
}

/**
 * One option as the checks read it: the parser's option (shared/sql/ast.ts SqlOption) with its value
 * as text, built by the planner (shared/planner/connection-options.ts `checkedOptions`).
 */
export interface CheckedOption {
  readonly name: string;
  /** Byte offset of the option in the request. */
  readonly position: number;
  /** The value's kind as the parser has it: `string`, `number`, `ident`, `boolean`, `list`, `broker`, `secret`, `none`, ... */
  readonly kind: string;
  /** The value as text, as the catalog keeps it (`optionString`). */
  readonly text: string | undefined;
  /** Every string literal the value holds: itself, a list's items, a broker's address. */
  readonly strings: readonly string[];
  /** The names of options given with the value (`AWS PRIVATELINK pl (PORT 1234)`: PORT). */
  readonly nested?: readonly string[];
}

/** What a source's option check needs of its statement besides the options. */
export interface SourceCheckContext {
  /** `FROM LOAD GENERATOR <generator>`: its name as the parser has it (`key value`). */
  readonly generator?: string;
  /** The statement has `INCLUDE ...`. */
  readonly includesMetadata: boolean;
  /** The statement has `FOR ALL TABLES`. */
  readonly forAllTables: boolean;
}

/** `CREATE CONNECTION ... TO <words> (...)`. */
export interface ConnectionPart {
  readonly options: OptionListSpec;
  /**
   * Whether CREATE / ALTER CONNECTION checks the upstream when WITH (VALIDATE) is not given
   * (Materialize's `validate_by_default`, src/storage-types/src/connections.rs).
   */
  readonly validateByDefault: boolean;
  /** Materialize's checks of the options that need no upstream, in its order and words; throws a PlanError. */
  readonly check?: (options: readonly CheckedOption[], at: number) => void;
  /** `ALTER CONNECTION ... ROTATE KEYS` applies (the connection holds a key pair). */
  readonly rotatesKeys?: boolean;
  /** A broker may be reached through a connection of this type (`'b:9092' USING <words> name`), with options after the name or not. */
  readonly tunnel?: { readonly options: boolean };
}

/** A column a load generator writes, its type as Materialize names it (`bigint`, `timestamp with time zone`). */
export interface GeneratedColumn {
  readonly name: string;
  readonly type: string;
  /** It may be null (most generated columns may not). */
  readonly nullable?: true;
}

/** One load generator: its SQL words, and what it writes. */
export interface GeneratorSpec {
  readonly words: readonly string[];
  /** The option names it takes (Materialize's permitted options per generator). */
  readonly options: readonly string[];
  /** Its upstream tables and their columns (a multi-output source: subsources or tables from it name one). */
  readonly tables?: Readonly<Record<string, readonly GeneratedColumn[]>>;
  /** The columns of its only output, when it has one known table. */
  readonly columns?: readonly GeneratedColumn[];
  /** Its records have keys: INCLUDE KEY and an ENVELOPE apply without a KEY FORMAT. */
  readonly keyed?: boolean;
}

interface SourceBase {
  /**
   * The source exports an upstream database's tables: `FOR TABLES (...)` names them, a table from it
   * needs a `REFERENCE`, `ALTER SOURCE ... ADD SUBSOURCE` applies; and the system relation that lists
   * them (`mz_postgres_source_tables`).
   */
  readonly upstreamTables?: { readonly relation: string };
}

/**
 * `CREATE SOURCE ... FROM <words> CONNECTION c (...)` (form `connection`: its connection is of the
 * same type), `FROM <words> <generator> (...)` (form `generator`), or a statement of its own
 * grammar (form `statement`: a webhook's `FROM WEBHOOK BODY FORMAT ...`, the AST's
 * `create_webhook_source`, for a source or a table).
 */
export type SourcePart =
  | (SourceBase & {
      readonly form: 'connection';
      readonly options: OptionListSpec;
      /** `FORMAT ...` applies, and INCLUDE and ENVELOPE (its records have keys). */
      readonly formats: boolean;
      readonly check?: (options: readonly CheckedOption[], context: SourceCheckContext, at: number) => void;
    })
  | (SourceBase & {
      readonly form: 'generator';
      readonly options: OptionListSpec;
      readonly generators: Readonly<Record<string, GeneratorSpec>>;
      readonly check?: (options: readonly CheckedOption[], context: SourceCheckContext, at: number) => void;
    })
  | (SourceBase & {
      readonly form: 'statement';
      /** It keeps no `WITH (RETAIN HISTORY ...)`: Materialize's webhook definitions take no WITH options. */
      readonly retainHistory: false;
    });

/** `CREATE SINK ... INTO <words> CONNECTION c (...)`. */
export interface SinkPart {
  readonly options: OptionListSpec;
}

export interface ConnectorDescriptor {
  /** The one spelling of the type: in the AST, the catalog, the controller contract, statuses and messages. */
  readonly name: string;
  /** Its SQL words, lower case, as the parser reads them (`['sql', 'server']`); printed upper case. */
  readonly words: readonly string[];
  /** The namespace its errors are reported under (`postgres: ...` in a status's details); default: its name. */
  readonly namespace?: string;
  readonly connection?: ConnectionPart;
  readonly source?: SourcePart;
  readonly sink?: SinkPart;
  /** A connector type of the controller contract (shared/dataplane/contract.ts): an ingestion or export runs it. */
  readonly dataPlane: boolean;
  /**
   * It has an upstream probe (a ConnectorProbe in shared/probes/, which shared/probes/real.ts must
   * list, or it fails to compile): `reprobed` says whether the reference data plane's health
   * monitor probes it again at run time; `namespaces`, other namespaces its probe reports under.
   */
  readonly probe?: { readonly reprobed: boolean; readonly namespaces?: readonly string[] };
}

/** Materialize answers its connection and source option checks as plan errors (SQLSTATE XX000); ours carry the option's position. */
export function optionError(message: string, position: number): PlanError {
  return new PlanError(message, { code: SQLSTATE.internalError, position });
}

/** The options by name (a name given twice is the parser's error, so the last one is the only one). */
export function byName(options: readonly CheckedOption[]): ReadonlyMap<string, CheckedOption> {
  return new Map(options.map((o) => [o.name, o]));
}

const MICROS: Readonly<Record<string, number>> = {
  us: 1, usec: 1, usecs: 1, microsecond: 1, microseconds: 1,
  ms: 1e3, msec: 1e3, msecs: 1e3, millisecond: 1e3, milliseconds: 1e3,
  s: 1e6, sec: 1e6, secs: 1e6, second: 1e6, seconds: 1e6,
  m: 60e6, min: 60e6, mins: 60e6, minute: 60e6, minutes: 60e6,
  h: 3600e6, hr: 3600e6, hrs: 3600e6, hour: 3600e6, hours: 3600e6,
  d: 86400e6, day: 86400e6, days: 86400e6,
};

/**
 * An interval option (`'1hr 1ms'`, `'-30s'`, `'0.01s'`, a bare number of seconds) in
 * microseconds; `undefined` when the text is not one we read (left to the data plane's parser).
 */
export function intervalMicrosOf(v: { readonly kind: string; readonly text: string | undefined }): number | undefined {
  if (v.kind === 'number') return Number(v.text) * 1e6;
  if (v.kind !== 'string') return undefined;
  const text = (v.text ?? '').trim().toLowerCase();
  if (text === '') return undefined;
  let total = 0;
  let rest = text;
  while (rest.length > 0) {
    const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([a-z]*)\s*/.exec(rest);
    if (!m) return undefined;
    const unit = m[2] === '' ? 's' : m[2]!;
    const scale = MICROS[unit];
    if (scale === undefined) return undefined;
    total += Number(m[1]) * scale;
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** Materialize's conversion of an interval option to a duration, in microseconds. */
export function duration(o: CheckedOption, prefix: string): number | undefined {
  const micros = intervalMicrosOf(o);
  if (micros === undefined) return undefined;
  if (micros < 0) throw optionError(`${prefix}cannot convert negative interval to duration`, o.position);
  return micros;
}

/** Materialize's `TOPIC METADATA REFRESH INTERVAL` bound (a Kafka source's and sink's). */
export function refreshInterval(o: CheckedOption | undefined): void {
  if (!o) return;
  const micros = duration(o, 'invalid TOPIC METADATA REFRESH INTERVAL: ');
  if (micros !== undefined && micros > 3600e6) throw optionError('TOPIC METADATA REFRESH INTERVAL cannot be greater than 1 hour', o.position);
}
