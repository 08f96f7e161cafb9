/**
 * Property tests for the SQL parser and printer (fast-check).
 *
 * 1. No input makes the parser throw anything but its own errors (SqlSyntaxError, NotSupportedError)
 *    with a byte position inside the input: random strings, token soups, and mutated golden inputs.
 * 2. Whatever parses prints back to text that parses to the same AST (positions aside).
 * 3. Random ASTs of many statement kinds print to text that parses back to the same AST.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotSupportedError, SqlSyntaxError } from '../../shared/errors';
import { MzError } from '../../shared/mz-errors';
import type {
  ColumnDef,
  DataType,
  DocOnTarget,
  Expr,
  Format,
  FormatSpecifier,
  IncludeMetadata,
  ObjectName,
  ObjectType,
  OptionValue,
  SourceEnvelope,
  SqlOption,
  Statement,
} from '../../shared/sql/ast';
import { stripPositions } from '../../shared/sql/compare';
import { KEYWORDS } from '../../shared/sql/keywords';
import { MAX_IDENTIFIER_BYTES } from '../../shared/sql/lexer';
import { CONNECTION_CONNECTORS, CONNECTION_SOURCE_CONNECTORS, KAFKA, LOAD_GENERATOR, type LoadGenerator } from '../../shared/connectors';
import { OPTION_LISTS, VALUE_PREFIX, type OptionListSpec } from '../../shared/sql/options';
import { parse } from '../../shared/sql/parser';
import { print } from '../../shared/sql/printer';

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'golden');

/**
 * Parses, allowing only the parser's errors: a syntax error, a feature we do not support, or one of
 * Materialize's own errors the parser gives where Materialize's planner would (`ALTER SINK SET`:
 * XX000 "not yet supported", test/sql/golden/sink.txt); checks the error position lies within the input.
 */
function parseOrError(text: string): Statement[] | undefined {
  try {
    return parse(text).map((p) => p.statement);
  } catch (e) {
    if (!(e instanceof SqlSyntaxError || e instanceof NotSupportedError || e instanceof MzError)) throw e;
    expect(Number.isInteger(e.position), `no position: ${e.message}`).toBe(true);
    expect(e.position!).toBeGreaterThanOrEqual(0);
    expect(e.position!).toBeLessThanOrEqual(Buffer.byteLength(text, 'utf8'));
    return undefined;
  }
}

function expectRoundTrip(s: Statement): void {
  const printed = print(s);
  let reparsed: Statement[];
  try {
    reparsed = parse(printed).map((p) => p.statement);
  } catch (e) {
    throw new Error(`printed SQL does not parse: ${printed}\n${(e as Error).message}`);
  }
  expect(reparsed.length, printed).toBe(1);
  expect(stripPositions(reparsed[0]), printed).toEqual(stripPositions(s));
}

/** Every keyword the grammar knows, from the option lists and the parser's source. */
const PARSER_WORDS = [
  ...new Set([
    ...KEYWORDS,
    ...Object.values(OPTION_LISTS).flatMap((spec: OptionListSpec) => [...spec.names, ...(spec.unsupported ?? [])].flatMap((n) => n.toLowerCase().split(' '))),
    ...[...readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../shared/sql/parser.ts'), 'utf8').matchAll(/'([a-z]+)'/g)].map((m) => m[1]!),
  ]),
].sort();

const goldenInputs: string[] = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.txt'))
  .flatMap((f) =>
    readFileSync(join(GOLDEN_DIR, f), 'utf8')
      .split(/\n====\n/)
      .map((chunk) =>
        chunk
          .split('\n----\n')[0]!
          .split('\n')
          .filter((l) => !l.startsWith('#'))
          .join('\n')
          .trim(),
      )
      .filter((s) => s.length > 0),
  );

describe('parser robustness', () => {
  it('random strings throw only parser errors', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const parsed = parseOrError(text);
        parsed?.forEach(expectRoundTrip);
      }),
      { numRuns: 1500 },
    );
  });

  it('token soups throw only parser errors, and what parses round-trips', () => {
    const token = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...PARSER_WORDS) },
      { weight: 3, arbitrary: fc.constantFrom('(', ')', ',', ';', '.', '=', '[', ']', '*', '-', '<>', '::', '->>', '@>', '$$x$$', '$1') },
      { weight: 2, arbitrary: fc.constantFrom("'s'", "'it''s'", "E'a\\nb'", '1', '42', '1.5', '1e999', '"Q"', '"a b"', 'x', 'y', 'c', '/* c */') },
    );
    const prefix = fc.constantFrom(
      '',
      'CREATE',
      'CREATE CLUSTER c',
      'CREATE CLUSTER c (',
      'CREATE CLUSTER c SIZE',
      'CREATE CLUSTER REPLICA c.r',
      'CREATE SOURCE s FROM',
      'CREATE SOURCE s FROM KAFKA CONNECTION k (TOPIC \'t\')',
      'CREATE SINK k FROM t INTO KAFKA CONNECTION c (TOPIC \'t\')',
      'CREATE CONNECTION c TO',
      'CREATE TABLE t (',
      'CREATE INDEX',
      'ALTER',
      'DROP',
      'SHOW',
      'SELECT * FROM t WHERE',
      'EXPLAIN EFFECTS FOR',
    );
    fc.assert(
      fc.property(prefix, fc.array(token, { maxLength: 24 }), (p, tokens) => {
        const parsed = parseOrError(`${p} ${tokens.join(' ')}`);
        parsed?.forEach(expectRoundTrip);
      }),
      { numRuns: 3000 },
    );
  });

  it('mutated golden inputs throw only parser errors, and what parses round-trips', () => {
    const mutation = fc.record({
      index: fc.nat(),
      at: fc.nat(),
      kind: fc.constantFrom('delete', 'insert', 'duplicate', 'truncate'),
      length: fc.integer({ min: 1, max: 12 }),
      word: fc.constantFrom(...PARSER_WORDS, '(', ')', ',', "'x'", '1', '"Y"', ';'),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        let text = goldenInputs[mutations[0]!.index % goldenInputs.length]!;
        for (const m of mutations) {
          const at = m.at % (text.length + 1);
          if (m.kind === 'delete') text = text.slice(0, at) + text.slice(at + m.length);
          else if (m.kind === 'insert') text = `${text.slice(0, at)} ${m.word} ${text.slice(at)}`;
          else if (m.kind === 'duplicate') text = text.slice(0, at) + text.slice(at, at + m.length) + text.slice(at);
          else text = text.slice(0, at);
        }
        const parsed = parseOrError(text);
        parsed?.forEach(expectRoundTrip);
      }),
      { numRuns: 2000 },
    );
  });

  it('caps nesting depth with a clear error instead of overflowing the stack', () => {
    for (const text of [
      `SHOW SOURCES WHERE ${'('.repeat(100_000)}a${')'.repeat(100_000)}`,
      `SHOW SOURCES WHERE ${'NOT '.repeat(100_000)}a`,
      `CREATE CLUSTER c (SIZE = ${'('.repeat(100_000)}`,
      `EXPLAIN EFFECTS FOR ${'EXPLAIN EFFECTS FOR '.repeat(10_000)}DROP CLUSTER c`,
    ]) {
      expect(parseOrError(text) === undefined, text.slice(0, 60)).toBe(true);
    }
    expect(() => parse(`SHOW SOURCES WHERE ${'('.repeat(200)}a${')'.repeat(200)}`)).toThrow(/nested expression limit of 128/);
    // The deep index key is a raw span (scanned iteratively): it parses.
    expect(parse(`CREATE INDEX i ON t (${'('.repeat(10_000)}a${')'.repeat(10_000)})`)).toHaveLength(1);
  });
});

// ---- random ASTs ---------------------------------------------------------------------------

const plainWord = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
const identifier: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 4, arbitrary: plainWord },
    { weight: 3, arbitrary: fc.constantFrom(...PARSER_WORDS) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom('My Table', 'a"b', "it's", 'ü', 'Sales', 'double precision', '1abc', 'x.y') },
  )
  // "." and ".." are not identifiers in Materialize (the lexer refuses them, quoted or not).
  .filter((s) => s.length > 0 && s !== '.' && s !== '..' && !s.includes('\u0000') && Buffer.byteLength(s, 'utf8') <= MAX_IDENTIFIER_BYTES);
const name = (min: number, max: number): fc.Arbitrary<ObjectName> => fc.array(identifier, { minLength: min, maxLength: max });
const str = fc.string({ unit: 'grapheme', maxLength: 16 }).filter((s) => !s.includes('\u0000'));

/** A value inside a list: anything but `none` (a bare name has no value, a list item always has one). */
const optionValue: fc.Arbitrary<OptionValue> = fc.letrec<{ value: OptionValue; item: OptionValue }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('item'), fc.constant({ kind: 'none' as const })),
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    str.map((value) => ({ kind: 'string' as const, value })),
    fc.oneof(fc.nat().map(String), fc.nat().map((n) => `-${n}`), fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}.${b}`)).map((value) => ({ kind: 'number' as const, value })),
    fc.boolean().map((value) => ({ kind: 'boolean' as const, value })),
    identifier.map((value) => ({ kind: 'ident' as const, value })),
    name(1, 3).map((n) => ({ kind: 'secret' as const, name: n })),
    name(2, 3).map((n) => ({ kind: 'object' as const, name: n })),
    fc.array(tie('item'), { maxLength: 3 }).map((items) => ({ kind: 'list' as const, items })),
  ),
})).value;

/** A cluster's `SCHEDULE = ON REFRESH [(HYDRATION TIME ESTIMATE = '...')]`. */
const refreshSchedule: fc.Arbitrary<OptionValue> = fc.option(str, { nil: undefined }).map((h) => (h === undefined ? { kind: 'refresh_schedule' } : { kind: 'refresh_schedule', hydrationTimeEstimate: h }));

/** A materialized view's `REFRESH ON COMMIT | AT CREATION | AT <expr> | EVERY '...' [ALIGNED TO <expr>]`. */
const refreshTime = fc.constantFrom('mz_now()', "'2023-12-11 11:00'", 'mz_now()::text::int8 + 3000', "greatest(mz_now(), '1')", '(mz_now())').map((text) => ({ text, position: 0 }));
const refreshOption: fc.Arbitrary<OptionValue> = fc
  .oneof(
    fc.constant({ kind: 'on_commit' as const }),
    fc.constant({ kind: 'at_creation' as const }),
    refreshTime.map((time) => ({ kind: 'at' as const, time })),
    fc.tuple(str, fc.option(refreshTime, { nil: undefined })).map(([interval, alignedTo]) => (alignedTo ? { kind: 'every' as const, interval, alignedTo } : { kind: 'every' as const, interval })),
  )
  .map((refresh) => ({ kind: 'refresh' as const, refresh }));

const docOnTarget: fc.Arbitrary<DocOnTarget> = fc.oneof(
  name(1, 3).map((n): DocOnTarget => ({ kind: 'type', name: n })),
  fc.tuple(name(1, 3), identifier).map(([relation, column]): DocOnTarget => ({ kind: 'column', relation, column })),
);

function options(spec: OptionListSpec, min = 0): fc.Arbitrary<SqlOption[]> {
  return fc
    .uniqueArray(fc.constantFrom(...spec.names.filter((n) => n !== 'REPLICAS')), { minLength: min, maxLength: 4 })
    .chain((names) =>
      fc.tuple(
        ...names.map((n) =>
          (VALUE_PREFIX[n] !== undefined
            ? optionValue.filter((v) => v.kind !== 'none')
            : n === 'SCHEDULE'
              ? fc.oneof(optionValue, refreshSchedule)
              : n === 'REFRESH' && spec === OPTION_LISTS.materializedViewWith
                ? refreshOption
                : optionValue
          ).chain((value) =>
            // `[KEY | VALUE] DOC ON TYPE t | COLUMN t.c`: the object is part of the name.
            n.endsWith('DOC ON') ? docOnTarget.map((docOn): SqlOption => ({ name: n, value, position: 0, docOn })) : fc.constant<SqlOption>({ name: n, value, position: 0 }),
          ),
        ),
      ),
    )
    .map((opts) => [...opts]);
}

const literal = fc.oneof(
  str,
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((v) => !Object.is(v, -0)),
  fc.boolean(),
  fc.constant(null),
);
const expr: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true, maxDepth: 6 },
    identifier.map((n): Expr => ({ kind: 'column', name: n, position: 0 })),
    literal.map((value): Expr => ({ kind: 'literal', value })),
    fc.record({ op: fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const), left: tie('e'), right: tie('e') }).map((r): Expr => ({ kind: 'binary', ...r })),
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('e'), right: tie('e') }),
    tie('e').map((e): Expr => ({ kind: 'not', expr: e })),
    fc.record({ expr: tie('e'), list: fc.array(tie('e'), { minLength: 1, maxLength: 3 }), negated: fc.boolean() }).map((r): Expr => ({ kind: 'in', ...r })),
    fc.record({ expr: tie('e'), pattern: tie('e'), negated: fc.boolean(), caseInsensitive: fc.boolean() }).map((r): Expr => ({ kind: 'like', ...r })),
    fc.record({ expr: tie('e'), negated: fc.boolean() }).map((r): Expr => ({ kind: 'is_null', ...r })),
  ),
})).e;

const OBJECT_TYPES: readonly ObjectType[] = ['cluster', 'cluster replica', 'database', 'schema', 'secret', 'connection', 'source', 'sink', 'table', 'view', 'materialized view', 'index'];
const typedName = (t: ObjectType): fc.Arbitrary<ObjectName> =>
  t === 'cluster' || t === 'database' ? name(1, 1) : t === 'cluster replica' ? name(2, 2) : t === 'schema' ? name(1, 2) : name(1, 3);
const objectTypeAndName = fc.constantFrom(...OBJECT_TYPES).chain((objectType) => typedName(objectType).map((n) => ({ objectType, name: n })));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Drops keys whose value is undefined (the parser never sets them). */
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const dataType: fc.Arbitrary<DataType> = fc.record({
  name: fc.oneof(fc.constantFrom('int', 'text', 'numeric', 'double precision', 'timestamp with time zone', 'time', 'bit varying').map((n) => [n]), name(1, 2)),
  typmod: fc.array(fc.nat({ max: 1000 }), { maxLength: 2 }),
  arrayDimensions: fc.nat({ max: 2 }),
});
const rawDefault = fc.constantFrom("'x'", '1', 'now()', '(1 + 2) * 3', 'NULL', "upper('a, b')").map((text) => ({ text, position: 0 }));
const columnDef: fc.Arbitrary<ColumnDef> = fc
  .record({ name: identifier, type: dataType, notNull: fc.boolean(), default: maybe(rawDefault) })
  .map((c) => defined(c));

const csrFormat = fc.record({ csrConnection: name(1, 3), csrOptions: options(OPTION_LISTS.csrConfig) });
const format: fc.Arbitrary<Format> = fc.oneof(
  csrFormat.map((f): Format => ({ kind: 'avro', ...f })),
  fc.record({ schema: str }).map((f): Format => ({ kind: 'avro', csrOptions: [], ...f })),
  csrFormat.map((f): Format => ({ kind: 'protobuf', ...f })),
  fc.record({ messageName: str, schema: str }).map((f): Format => ({ kind: 'protobuf', csrOptions: [], ...f })),
  fc.boolean().map((array): Format => ({ kind: 'json', array })),
  fc.constant<Format>({ kind: 'text' }),
  fc.constant<Format>({ kind: 'bytes' }),
  fc.record({ count: fc.nat() }).map((c): Format => ({ kind: 'csv', columns: { kind: 'count', ...c } })),
  fc.record({ names: fc.array(identifier, { minLength: 1, maxLength: 3 }), delimiter: str }).map((c): Format => ({ kind: 'csv', columns: { kind: 'header', names: c.names }, delimiter: c.delimiter })),
  str.map((pattern): Format => ({ kind: 'regex', pattern })),
);
const formatSpecifier: fc.Arbitrary<FormatSpecifier> = fc.oneof(
  format.map((f): FormatSpecifier => ({ kind: 'bare', format: f })),
  fc.tuple(format, format).map(([key, value]): FormatSpecifier => ({ kind: 'key_value', key, value })),
);
const include: fc.Arbitrary<IncludeMetadata> = fc.oneof(
  fc.record({ kind: fc.constantFrom('key' as const, 'timestamp' as const, 'partition' as const, 'offset' as const, 'headers' as const), alias: maybe(identifier) }).map((m) => defined(m)),
  fc.record({ key: str, alias: identifier, bytes: fc.boolean() }).map((m): IncludeMetadata => ({ kind: 'header', ...m })),
);
const envelope: fc.Arbitrary<SourceEnvelope> = fc.oneof(
  fc.constant<SourceEnvelope>({ kind: 'none' }),
  fc.constant<SourceEnvelope>({ kind: 'debezium' }),
  maybe(maybe(identifier).map((alias) => defined({ inline: true as const, alias }))).map((v) => defined({ kind: 'upsert' as const, valueDecodingErrors: v })),
);
const QUERIES = ['SELECT 1', 'SELECT a, b FROM t WHERE a->>\'x\' = \'y\'', "WITH w AS (SELECT * FROM t) SELECT * FROM w", '(SELECT 1)', 'VALUES (1), (2)'];

const CHECK_EXPRESSIONS = ["headers->'sig' = s", "constant_time_eq(decode(headers->'x', 'hex'), hmac(body, s, 'sha256'))", "(body)::text IS NOT NULL AND length(body) BETWEEN 1 AND 10", "CASE WHEN body LIKE 'a%' THEN true ELSE false END"];
const checkColumn = fc.record({ alias: maybe(identifier), bytes: fc.boolean() }).map((c) => defined(c));
const webhookCheck = fc
  .record({
    options: maybe(fc.record({ headers: fc.array(checkColumn, { maxLength: 2 }), bodies: fc.array(checkColumn, { maxLength: 2 }), secrets: fc.array(fc.tuple(name(1, 3), checkColumn).map(([secret, c]) => ({ secret, position: 0, ...c })), { maxLength: 2 }) }).filter((o) => o.headers.length + o.bodies.length + o.secrets.length > 0)),
    expr: fc.constantFrom(...CHECK_EXPRESSIONS).map((text) => ({ text, position: 0 })),
  })
  .map((c) => defined(c));

const statement: fc.Arbitrary<Statement> = fc.oneof(
  fc
    .record({
      name: name(1, 3),
      ifNotExists: fc.boolean(),
      inCluster: maybe(identifier),
      bodyFormat: fc.constantFrom<Format>({ kind: 'json', array: false }, { kind: 'json', array: true }, { kind: 'text' }, { kind: 'bytes' }),
      includeHeader: fc.array(fc.record({ header: str, alias: identifier, bytes: fc.boolean() }), { maxLength: 2 }),
      check: maybe(webhookCheck),
    })
    .map((s) => defined({ kind: 'create_webhook_source' as const, ...s })),
  fc
    .record({ name: identifier, replicas: maybe(fc.array(fc.record({ name: identifier, options: options(OPTION_LISTS.replica) }), { maxLength: 3 })), options: options(OPTION_LISTS.cluster) })
    .map((s) => defined({ kind: 'create_cluster' as const, ...s })),
  fc.record({ cluster: identifier, name: identifier, options: options(OPTION_LISTS.replica) }).map((s): Statement => ({ kind: 'create_cluster_replica', ...s })),
  fc
    .tuple(objectTypeAndName, fc.array(fc.nat(), { maxLength: 2 }), fc.boolean(), fc.constantFrom('cascade', 'restrict', 'none'))
    .chain(([{ objectType, name: first }, more, ifExists, behavior]) =>
      fc.tuple(...more.map(() => typedName(objectType))).map((rest): Statement => ({
        kind: 'drop',
        objectType,
        ifExists,
        names: [first, ...rest],
        cascade: behavior === 'cascade',
        restrict: behavior === 'restrict',
      })),
    ),
  fc
    .record({
      what: fc.constantFrom('sources', 'sinks', 'clusters', 'cluster replicas', 'connections', 'secrets', 'tables', 'views', 'materialized views', 'indexes', 'objects', 'databases', 'schemas'),
      from: maybe(name(1, 2)),
      inCluster: maybe(identifier),
      filter: maybe(fc.oneof(str.map((pattern) => ({ kind: 'like' as const, pattern })), expr.map((e) => ({ kind: 'where' as const, expr: e })))),
      on: maybe(name(1, 3)),
    })
    // Materialize refuses an index listing with both FROM and ON (parse_show).
    .map((s) => defined({ kind: 'show' as const, ...s, on: s.what === 'indexes' && !s.from ? s.on : undefined })),
  fc
    .record({ name: fc.constantFrom('cluster', 'search_path', 'application_name', 'datestyle', 'mz.custom'), local: fc.boolean(), value: fc.oneof(fc.constant('default' as const), fc.array(str, { minLength: 1, maxLength: 3 })) })
    .map((s): Statement => ({ kind: 'set_variable', ...s })),
  fc.constantFrom('all', 'cluster', 'timezone').map((name): Statement => ({ kind: 'reset_variable', name })),
  fc.constantFrom('all', 'cluster', 'server_version').map((name): Statement => ({ kind: 'show_variable', name })),
  fc.record({ name: identifier, ifNotExists: fc.boolean() }).map((s): Statement => ({ kind: 'create_database', ...s })),
  fc.record({ name: name(1, 2), ifNotExists: fc.boolean() }).map((s): Statement => ({ kind: 'create_schema', ...s })),
  fc.record({ name: name(1, 3), ifNotExists: fc.boolean(), value: str.map((value) => ({ kind: 'string' as const, value })) }).map((s): Statement => ({ kind: 'create_secret', ...s })),
  fc
    .constantFrom(...CONNECTION_CONNECTORS)
    .chain((c) =>
      fc.record({ name: name(1, 3), ifNotExists: fc.boolean(), options: options(c.connection.options, 1), withOptions: options(OPTION_LISTS.connectionWith) }).map(
        (s): Statement => ({ kind: 'create_connection', connectionType: c.name, ...s }),
      ),
    ),
  fc
    .record({
      name: name(1, 3),
      ifNotExists: fc.boolean(),
      inCluster: maybe(identifier),
      columns: maybe(fc.array(identifier, { minLength: 1, maxLength: 3 })),
      connection: fc.oneof(
        ...CONNECTION_SOURCE_CONNECTORS.map((t) => fc.record({ connection: name(1, 3), options: options(t.source.options) }).map((c) => ({ kind: t.name, ...c }))),
        fc
          .record({ generator: fc.constantFrom(...(Object.keys(LOAD_GENERATOR.source.generators) as LoadGenerator[])), options: options(LOAD_GENERATOR.source.options) })
          .map((c) => ({ kind: LOAD_GENERATOR.name, ...c })),
      ),
      format: maybe(formatSpecifier),
      includeMetadata: fc.array(include, { maxLength: 3 }),
      envelope: maybe(envelope),
      references: maybe(
        fc.oneof(
          fc.constant({ kind: 'all' as const }),
          fc.array(fc.record({ reference: name(1, 3), alias: maybe(name(1, 3)) }).map((t) => defined(t)), { minLength: 1, maxLength: 3 }).map((tables) => ({ kind: 'tables' as const, tables })),
          fc.array(identifier, { minLength: 1, maxLength: 3 }).map((schemas) => ({ kind: 'schemas' as const, schemas })),
        ),
      ),
      exposeProgress: maybe(name(1, 3)),
      withOptions: options(OPTION_LISTS.sourceWith),
    })
    .map((s) => defined({ kind: 'create_source' as const, ...s })),
  fc
    .record({
      name: name(1, 3),
      ifNotExists: fc.boolean(),
      inCluster: maybe(identifier),
      from: name(1, 3),
      connection: fc
        .record({
          connection: name(1, 3),
          options: options(KAFKA.sink.options),
          key: maybe(fc.record({ columns: fc.array(identifier, { minLength: 1, maxLength: 3 }), notEnforced: fc.boolean() })),
          headers: maybe(identifier),
        })
        .map((c) => defined({ kind: 'kafka' as const, ...c })),
      format: maybe(formatSpecifier.filter((f) => (f.kind === 'bare' ? [f.format] : [f.key, f.value]).every((x) => x.kind !== 'csv' && x.kind !== 'regex'))),
      envelope: maybe(fc.constantFrom('debezium' as const, 'upsert' as const)),
      withOptions: options(OPTION_LISTS.sinkWith),
    })
    .map((s) => defined({ kind: 'create_sink' as const, ...s })),
  fc
    .record({ name: name(1, 3), ifNotExists: fc.boolean(), temporary: fc.boolean(), columns: fc.array(columnDef, { maxLength: 4 }), withOptions: options(OPTION_LISTS.tableWith) })
    .map((s): Statement => ({ kind: 'create_table', ...s })),
  fc
    .record({ name: name(1, 3), ifNotExists: fc.boolean(), temporary: fc.boolean(), columns: maybe(fc.array(identifier, { minLength: 1, maxLength: 3 })), query: fc.constantFrom(...QUERIES) })
    .map((s) => defined({ kind: 'create_view' as const, orReplace: false, queryPosition: 0, ...s })),
  fc
    .record({
      name: name(1, 3),
      orReplace: fc.boolean(),
      columns: maybe(fc.array(identifier, { minLength: 1, maxLength: 3 })),
      inCluster: maybe(identifier),
      withOptions: options(OPTION_LISTS.materializedViewWith),
      query: fc.constantFrom(...QUERIES),
    })
    .map((s) => defined({ kind: 'create_materialized_view' as const, ifNotExists: false, queryPosition: 0, ...s })),
  fc
    .record({
      name: maybe(identifier),
      ifNotExists: fc.boolean(),
      inCluster: maybe(identifier),
      on: name(1, 3),
      keyParts: maybe(fc.array(fc.constantFrom('a', 'lower(b)', '(c + 1)', 'f(x, y)').map((text) => ({ text, position: 0 })), { minLength: 1, maxLength: 3 })),
      withOptions: options(OPTION_LISTS.indexWith),
    })
    .map((s) => defined({ kind: 'create_index' as const, ...s })),
  fc
    .tuple(objectTypeAndName, fc.boolean(), identifier, fc.constantFrom('alter_rename', 'alter_owner', 'alter_set_cluster', 'alter_swap'))
    // Materialize's grammar: a database's or type's owner is all that alters; only clusters and schemas swap.
    .filter(([{ objectType }, , , kind]) =>
      kind === 'alter_owner' || (objectType !== 'database' && objectType !== 'type' && (kind !== 'alter_swap' || objectType === 'cluster' || objectType === 'schema')),
    )
    .map(([{ objectType, name: n }, ifExists, other, kind]): Statement => {
      switch (kind) {
        case 'alter_rename':
          return { kind, objectType, ifExists, name: n, newName: other };
        case 'alter_owner':
          return { kind, objectType, ifExists, name: n, owner: other };
        case 'alter_set_cluster':
          return { kind, objectType, ifExists, name: n, cluster: other };
        default:
          return { kind: 'alter_swap', objectType, name: n, other };
      }
    }),
  fc
    .record({
      name: identifier,
      ifExists: fc.boolean(),
      action: fc.oneof(
        options(OPTION_LISTS.alterCluster, 1).map((o) => ({ kind: 'set' as const, options: o })),
        fc.uniqueArray(fc.constantFrom(...OPTION_LISTS.alterCluster.names), { minLength: 1, maxLength: 3 }).map((names) => ({ kind: 'reset' as const, names })),
      ),
    })
    .map((s): Statement => ({ kind: 'alter_cluster', ...s })),
  objectTypeAndName.map((s): Statement => ({ kind: 'show_create', ...s })),
  fc.constantFrom<Statement>(
    { kind: 'start_transaction', modes: [] },
    { kind: 'start_transaction', modes: ['ISOLATION LEVEL SERIALIZABLE', 'READ ONLY'] },
    { kind: 'commit', chain: false },
    { kind: 'rollback', chain: true },
  ),
);

describe('random ASTs round-trip through print and parse', () => {
  it('every generated statement prints to SQL that parses back to it', () => {
    fc.assert(fc.property(statement, expectRoundTrip), { numRuns: 2500 });
  });

  it('EXPLAIN EFFECTS FOR wraps generated DDL statements', () => {
    const ddl = statement.filter((s) => !['select', 'show', 'show_create', 'start_transaction', 'commit', 'rollback', 'set_variable', 'reset_variable', 'show_variable'].includes(s.kind));
    fc.assert(
      fc.property(ddl, (s) => expectRoundTrip({ kind: 'explain_effects', statement: s })),
      { numRuns: 300 },
    );
  });
});
