/**
 * fast-check generators for the API fuzzers (test/fuzz/*.test.ts and `npm run fuzz`): SQL-ish
 * text that reaches past the parser into the planner, and HTTP request bodies and headers of
 * every shape a client (or an attacker) can send. Generators only: no I/O here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { KEYWORDS } from '../../shared/sql/keywords';
import { OPTION_LISTS, type OptionListSpec } from '../../shared/sql/options';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Objects the prelude creates in every fuzzed tenant, so generated statements resolve names. */
export const PRELUDE = [
  "CREATE CLUSTER quickstart (SIZE = '25cc')",
  "CREATE CLUSTER c2 REPLICAS (r1 (SIZE = '25cc'))",
  "CREATE SECRET s AS 'pw'",
  "CREATE CONNECTION k TO KAFKA (BROKER 'broker:9092')",
  "CREATE CONNECTION pg TO POSTGRES (HOST 'h', DATABASE 'd', USER 'u', PASSWORD SECRET s)",
  'CREATE TABLE t (a int, b text)',
  'CREATE VIEW v AS SELECT a FROM t',
  'CREATE MATERIALIZED VIEW mv AS SELECT * FROM v',
  'CREATE SOURCE counter FROM LOAD GENERATOR COUNTER',
  'CREATE INDEX t_idx ON t (a)',
  'CREATE DATABASE d2',
  'CREATE SCHEMA d2.s2',
  "CREATE SINK snk FROM t INTO KAFKA CONNECTION k (TOPIC 'out') FORMAT JSON ENVELOPE DEBEZIUM",
].join(';\n');

const NAME_POOL = ['t', 'v', 'mv', 'k', 'pg', 's', 'counter', 'snk', 't_idx', 'quickstart', 'c2', 'r1', 'd2', 's2', 'materialize', 'public', 'x', 'y', 'new_t', 'mz_x', 'mz_catalog', 'mz_sources'];

/** Characters that break keys, quoting, encodings or terminals. */
const WEIRD = ['#', '.', '%', '%2e', '%23', '"', "'", ' ', '\u0000', 'é', '€', '😀', '\u200b', '\u202e', '\ud800', '\udfff', '\\', '\n', '\r', '\t', '$', ';', '--', '/*', '*/', 'mz_', 'NAME#', 'T#', '\u2028', 'Ａ', 'ß', 'İ'];

const OPTION_NAMES = [...new Set(Object.values(OPTION_LISTS).flatMap((s: OptionListSpec) => [...s.names, ...(s.unsupported ?? []), ...Object.keys(s.aliases ?? {})]))];

const GRAMMAR_WORDS = [
  ...new Set([
    ...KEYWORDS,
    ...OPTION_NAMES.flatMap((n) => n.toLowerCase().split(' ')),
    ...[...readFileSync(join(HERE, '../../shared/sql/parser.ts'), 'utf8').matchAll(/'([a-z]+)'/g)].map((m) => m[1]!),
  ]),
].sort();

/** Golden-file inputs (read-only): valid statements of every kind to mutate. */
export const GOLDEN_INPUTS: readonly string[] = (() => {
  const dir = join(HERE, '../sql/golden');
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.txt'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
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
  } catch {
    return [];
  }
})();

// ---- identifiers and literals ------------------------------------------------------------------

const plainIdent = fc.stringMatching(/^[a-z_][a-z0-9_$]{0,10}$/);
const weirdText = fc.array(fc.oneof(fc.constantFrom(...WEIRD), fc.string({ unit: 'grapheme', maxLength: 4 }), plainIdent), { minLength: 1, maxLength: 5 }).map((a) => a.join(''));

/** A string of about `bytes` UTF-8 bytes built from one character (crosses the 255-byte limit with multi-byte ones). */
const nearLimit = fc.record({ ch: fc.constantFrom('a', 'é', '€', '😀'), bytes: fc.integer({ min: 250, max: 262 }) }).map(({ ch, bytes }) => {
  const w = Buffer.byteLength(ch, 'utf8');
  return ch.repeat(Math.floor(bytes / w)) + 'a'.repeat(bytes % w);
});

const quote = (v: string) => `"${v.replaceAll('"', '""')}"`;

/** An identifier as typed in SQL. */
export const identSql: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAME_POOL) },
  { weight: 3, arbitrary: plainIdent },
  { weight: 2, arbitrary: fc.constantFrom(...GRAMMAR_WORDS) },
  { weight: 3, arbitrary: weirdText.map(quote) },
  { weight: 1, arbitrary: nearLimit.map((s) => (/^[a-z]+$/.test(s) ? s : quote(s))) },
  { weight: 1, arbitrary: fc.constantFrom('""', '"a', 'a"', '"a""', 'mz_t', '"mz_t"', '"MZ_T"', '"a.b"', '"a#b"', '"a%b"', '"a%2eb"') },
);

/** A possibly qualified name. */
export const nameSql: fc.Arbitrary<string> = fc.array(identSql, { minLength: 1, maxLength: 4 }).chain((parts) =>
  fc.constantFrom('.', '.', '.', ' . ', '..').map((sep) => parts.join(sep)),
);

const stringBody = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), weirdText, fc.constantFrom('25cc', '50cc', '128C', '-1', '0cc', '', 'xl', '1h', 'true', 'broker:9092'));

/** A literal as typed in SQL. */
export const literalSql: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: stringBody.map((s) => `'${s.replaceAll("'", "''")}'`) },
  { weight: 1, arbitrary: stringBody.map((s) => `E'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`) },
  { weight: 1, arbitrary: stringBody.filter((s) => !s.includes('$')).map((s) => `$$${s}$$`) },
  { weight: 1, arbitrary: stringBody.filter((s) => !s.includes('$')).map((s) => `$tag$${s}$tag$`) },
  { weight: 3, arbitrary: fc.oneof(fc.nat().map(String), fc.integer().map(String), fc.constantFrom('-1', '0', '1000000', '1e999', '.5', '1.', '99999999999999999999999', '0x1F', '1_000', '-0')) },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'NULL', "'unterminated", "E'\\", '$$open', "''''", "'a''b'") },
);

const optionValueSql: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: literalSql },
  { weight: 2, arbitrary: nameSql },
  { weight: 1, arbitrary: nameSql.map((n) => `SECRET ${n}`) },
  { weight: 1, arbitrary: fc.array(literalSql, { maxLength: 3 }).map((a) => `(${a.join(', ')})`) },
  { weight: 1, arbitrary: fc.constant('') },
);

const optionNameSql = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...OPTION_NAMES) }, { weight: 1, arbitrary: plainIdent.map((s) => s.toUpperCase()) });

/** `(NAME [=] value, ...)`, sometimes with duplicates, unknown names, or broken punctuation. */
export const optionListSql: fc.Arbitrary<string> = fc
  .array(fc.tuple(optionNameSql, fc.constantFrom(' = ', ' ', '='), optionValueSql), { minLength: 1, maxLength: 4 })
  .chain((opts) =>
    fc.constantFrom(0, 0, 0, 1, 2).map((dup) => {
      const all = dup === 1 && opts.length ? [...opts, opts[0]!] : opts;
      const text = all.map(([n, eq, v]) => `${n}${v ? eq + v : ''}`).join(', ');
      return dup === 2 ? `(${text}` : `(${text})`;
    }),
  );

const sizeOpts = fc
  .tuple(
    fc.constantFrom("'25cc'", "'50cc'", "'128C'", '-1', "'-1'", "'0cc'", "'99999999999cc'", "''", "'25CC'", '25', "'xl'"),
    fc.option(fc.constantFrom('-1', '0', '1', '2', '32', '33', '1000000', "'2'", '1.5', '99999999999999999999')),
  )
  .map(([size, rf]) => `(SIZE = ${size}${rf === null ? '' : `, REPLICATION FACTOR = ${rf}`})`);

const objectType = fc.constantFrom('CLUSTER', 'CLUSTER REPLICA', 'DATABASE', 'SCHEMA', 'SECRET', 'CONNECTION', 'SOURCE', 'SINK', 'TABLE', 'VIEW', 'MATERIALIZED VIEW', 'INDEX');
const dataType = fc.constantFrom('int', 'text', 'bigint', 'numeric(10,2)', 'double precision', 'timestamp with time zone', 'int[]', 'varchar(3)', 'jsonb', 'frob', 'int(', '"text"');
const ws = fc.constantFrom(' ', ' ', ' ', '\n', '\t', '  ', ' /* c */ ', ' -- c\n');

const relation = fc.constantFrom('mz_clusters', 'mz_cluster_replicas', 'mz_sources', 'mz_sinks', 'mz_tables', 'mz_views', 'mz_objects', 'mz_connections', 'mz_internal.mz_source_statuses', 'mz_internal.mz_pending_effects', 'mz_internal.mz_cluster_replica_statuses', 'mz_catalog.mz_databases', 't', 'nope');
const column = fc.constantFrom('name', 'id', 'size', 'type', 'status', 'managed', 'replication_factor', 'cluster_id', 'nope', '*');
const exprSql: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(column, fc.constantFrom('=', '<>', '<', '>=', 'LIKE', 'ILIKE', 'NOT LIKE', 'IS', 'IS NOT'), fc.oneof(literalSql, column)).map((a) => a.join(' ')),
    fc.tuple(tie('e'), fc.constantFrom('AND', 'OR'), tie('e')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
    tie('e').map((a) => `NOT ${a}`),
    fc.tuple(column, fc.array(literalSql, { maxLength: 3 })).map(([c, l]) => `${c} IN (${l.join(', ')})`),
  ),
})).e;

const selectSql = fc
  .tuple(fc.array(column, { minLength: 1, maxLength: 3 }), relation, fc.option(exprSql), fc.option(column), fc.option(fc.oneof(fc.nat(), fc.constant(-1))))
  .map(([cols, rel, where, order, limit]) => `SELECT ${cols.join(', ')} FROM ${rel}${where ? ` WHERE ${where}` : ''}${order ? ` ORDER BY ${order} DESC` : ''}${limit !== null ? ` LIMIT ${limit}` : ''}`);

const viewBody = fc.oneof(
  selectSql,
  fc.tuple(nameSql, nameSql).map(([a, b]) => `SELECT * FROM ${a} JOIN ${b} ON true`),
  fc.tuple(identSql, nameSql).map(([cte, b]) => `WITH ${cte} AS (SELECT 1) SELECT * FROM ${cte}, ${b}`),
  nameSql.map((n) => `SELECT a, count(*) FROM ${n} GROUP BY a UNION SELECT 1, 2`),
  fc.constantFrom('SELECT 1', 'VALUES (1)', 'SELECT * FROM t, v', 'SELECT FROM', 'SELECT * FROM (SELECT * FROM t) AS x', 'SELECT * FROM t a JOIN v b ON a.a = b.a, mv'),
);

const ddl: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(identSql, fc.oneof(sizeOpts, optionListSql)).map(([n, o]) => `CREATE CLUSTER ${n} ${o}`),
  fc.tuple(identSql, fc.array(fc.tuple(identSql, sizeOpts), { maxLength: 3 })).map(([n, rs]) => `CREATE CLUSTER ${n} REPLICAS (${rs.map(([r, o]) => `${r} ${o}`).join(', ')})`),
  fc.tuple(identSql, identSql, fc.oneof(sizeOpts, optionListSql)).map(([c, r, o]) => `CREATE CLUSTER REPLICA ${c}.${r} ${o}`),
  fc.tuple(identSql, fc.oneof(sizeOpts, optionListSql)).map(([c, o]) => `ALTER CLUSTER ${c} SET ${o}`),
  fc.tuple(identSql, fc.constantFrom('SIZE', 'REPLICATION FACTOR', 'SIZE, REPLICATION FACTOR', 'NOPE')).map(([c, o]) => `ALTER CLUSTER ${c} RESET (${o})`),
  fc.tuple(fc.constantFrom('', 'IF NOT EXISTS '), identSql).map(([i, n]) => `CREATE DATABASE ${i}${n}`),
  fc.tuple(fc.constantFrom('', 'IF NOT EXISTS '), nameSql).map(([i, n]) => `CREATE SCHEMA ${i}${n}`),
  fc.tuple(nameSql, literalSql).map(([n, v]) => `CREATE SECRET ${n} AS ${v}`),
  fc.tuple(nameSql, literalSql).map(([n, v]) => `ALTER SECRET ${n} AS ${v}`),
  fc.tuple(nameSql, fc.constantFrom('KAFKA', 'POSTGRES', 'AWS', 'SSH TUNNEL', 'CONFLUENT SCHEMA REGISTRY', 'AWS PRIVATELINK', 'MYSQL', 'FROB'), optionListSql, fc.constantFrom('', ' WITH (VALIDATE = false)', ' WITH (VALIDATE)'))
    .map(([n, ty, o, w]) => `CREATE CONNECTION ${n} TO ${ty} ${o}${w}`),
  fc.tuple(nameSql, fc.option(identSql), fc.constantFrom('COUNTER', 'AUCTION', 'TPCH', 'MARKETING', 'CLOCK', 'DATUMS', 'KEY VALUE', 'NOPE'), fc.option(optionListSql), fc.constantFrom('', ' FOR ALL TABLES', ' FOR TABLES (accounts, bids AS mz_b)', ' FOR SCHEMAS (public)'))
    .map(([n, c, g, o, f]) => `CREATE SOURCE ${n}${c ? ` IN CLUSTER ${c}` : ''} FROM LOAD GENERATOR ${g}${o ? ` ${o}` : ''}${f}`),
  fc.tuple(nameSql, fc.option(identSql), fc.constantFrom('KAFKA', 'POSTGRES'), nameSql, fc.option(optionListSql), fc.constantFrom('', ' FORMAT JSON', ' FORMAT TEXT ENVELOPE UPSERT', ' KEY FORMAT TEXT VALUE FORMAT BYTES', ' FOR ALL TABLES', ' FORMAT AVRO USING CONFLUENT SCHEMA REGISTRY CONNECTION k'))
    .map(([n, c, ty, conn, o, rest]) => `CREATE SOURCE ${n}${c ? ` IN CLUSTER ${c}` : ''} FROM ${ty} CONNECTION ${conn}${o ? ` ${o}` : ''}${rest}`),
  fc.tuple(nameSql, fc.option(identSql), fc.constantFrom('JSON', 'TEXT', 'BYTES', 'CSV')).map(([n, c, f]) => `CREATE SOURCE ${n}${c ? ` IN CLUSTER ${c}` : ''} FROM WEBHOOK BODY FORMAT ${f}`),
  fc.tuple(nameSql, fc.option(identSql), nameSql, nameSql, fc.option(optionListSql)).map(
    ([n, c, from, conn, o]) => `CREATE SINK ${n}${c ? ` IN CLUSTER ${c}` : ''} FROM ${from} INTO KAFKA CONNECTION ${conn}${o ? ` ${o}` : ''} FORMAT JSON ENVELOPE DEBEZIUM`,
  ),
  fc.tuple(fc.constantFrom('', 'IF NOT EXISTS ', 'TEMPORARY '), nameSql, fc.array(fc.tuple(identSql, dataType, fc.constantFrom('', ' NOT NULL', ' DEFAULT 1', ' NULL NOT NULL', ' PRIMARY KEY')), { maxLength: 4 })).map(
    ([m, n, cols]) => `CREATE ${m === 'TEMPORARY ' ? 'TEMPORARY TABLE ' : `TABLE ${m}`}${n} (${cols.map(([c, ty, x]) => `${c} ${ty}${x}`).join(', ')})`,
  ),
  fc.tuple(fc.constantFrom('VIEW', 'OR REPLACE VIEW', 'MATERIALIZED VIEW', 'OR REPLACE MATERIALIZED VIEW', 'TEMPORARY VIEW'), nameSql, viewBody).map(([k, n, b]) => `CREATE ${k} ${n} AS ${b}`),
  fc.tuple(fc.option(identSql), nameSql, fc.array(fc.oneof(identSql, fc.constant('a + 1'), fc.constant('lower(b)')), { maxLength: 3 }), fc.option(identSql)).map(
    ([i, on, keys, c]) => `CREATE INDEX ${i ?? ''} ${c ? `IN CLUSTER ${c} ` : ''}ON ${on} (${keys.join(', ')})`,
  ),
  fc.tuple(nameSql, fc.option(identSql)).map(([on, c]) => `CREATE DEFAULT INDEX ${c ? `IN CLUSTER ${c} ` : ''}ON ${on}`),
  fc.tuple(objectType, fc.constantFrom('', 'IF EXISTS '), fc.array(nameSql, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' CASCADE', ' RESTRICT', ' CASCADE RESTRICT')).map(
    ([ty, ie, names, c]) => `DROP ${ty} ${ie}${names.join(', ')}${c}`,
  ),
  fc.tuple(objectType, fc.constantFrom('', 'IF EXISTS '), nameSql, identSql).map(([ty, ie, n, to]) => `ALTER ${ty} ${ie}${n} RENAME TO ${to}`),
  fc.tuple(objectType, nameSql, identSql).map(([ty, n, to]) => `ALTER ${ty} ${n} OWNER TO ${to}`),
  fc.tuple(objectType, nameSql, identSql).map(([ty, n, to]) => `ALTER ${ty} ${n} SWAP WITH ${to}`),
  fc.tuple(objectType, nameSql, identSql).map(([ty, n, c]) => `ALTER ${ty} ${n} SET CLUSTER ${c}`),
);

const readStmt: fc.Arbitrary<string> = fc.oneof(
  selectSql,
  fc.tuple(fc.constantFrom('CLUSTERS', 'CLUSTER REPLICAS', 'SOURCES', 'SINKS', 'TABLES', 'VIEWS', 'MATERIALIZED VIEWS', 'INDEXES', 'CONNECTIONS', 'SECRETS', 'DATABASES', 'SCHEMAS', 'OBJECTS', 'COLUMNS', 'FROB'), fc.option(fc.oneof(nameSql.map((n) => `FROM ${n}`), nameSql.map((n) => `IN CLUSTER ${n}`))), fc.option(fc.oneof(literalSql.map((l) => `LIKE ${l}`), exprSql.map((e) => `WHERE ${e}`))))
    .map(([what, from, filter]) => `SHOW ${what}${from ? ` ${from}` : ''}${filter ? ` ${filter}` : ''}`),
  fc.tuple(objectType, nameSql).map(([ty, n]) => `SHOW CREATE ${ty} ${n}`),
);

/** One statement from a template: DDL, reads, transaction control, EXPLAIN EFFECTS. */
export const statementSql: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: ddl },
  { weight: 3, arbitrary: readStmt },
  { weight: 2, arbitrary: ddl.map((d) => `EXPLAIN EFFECTS FOR ${d}`) },
  { weight: 1, arbitrary: fc.constantFrom('BEGIN', 'COMMIT', 'ROLLBACK', 'START TRANSACTION READ ONLY', 'COMMIT AND CHAIN', 'INSERT INTO t VALUES (1)', 'SET x = 1', 'EXPLAIN SELECT 1') },
);

// ---- whole texts -------------------------------------------------------------------------------

const tokenSql = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...GRAMMAR_WORDS) },
  { weight: 3, arbitrary: fc.constantFrom('(', ')', ',', ';', '.', '=', '[', ']', '*', '-', '+', '<>', '::', '->>', '@>', '$1', '$', ':', '"', "'", '/*', '*/', '--', '\\', '#', '%', '?', '{', '}', '`') },
  { weight: 3, arbitrary: identSql },
  { weight: 3, arbitrary: literalSql },
  { weight: 1, arbitrary: fc.constantFrom(...WEIRD) },
);

const tokenSoup = fc.array(fc.tuple(tokenSql, ws), { maxLength: 30 }).map((ts) => ts.map(([t, w]) => t + w).join(''));

const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('delete', 'insert', 'duplicate', 'truncate', 'upper', 'nul'),
  length: fc.integer({ min: 1, max: 16 }),
  token: tokenSql,
});

function mutate(text: string, ms: readonly { at: number; kind: string; length: number; token: string }[]): string {
  for (const m of ms) {
    const at = m.at % (text.length + 1);
    if (m.kind === 'delete') text = text.slice(0, at) + text.slice(at + m.length);
    else if (m.kind === 'insert') text = `${text.slice(0, at)} ${m.token} ${text.slice(at)}`;
    else if (m.kind === 'duplicate') text = text.slice(0, at) + text.slice(at, at + m.length) + text.slice(at);
    else if (m.kind === 'truncate') text = text.slice(0, at);
    else if (m.kind === 'upper') text = text.slice(0, at) + text.slice(at, at + m.length).toUpperCase() + text.slice(at + m.length);
    else text = `${text.slice(0, at)}\u0000${text.slice(at)}`;
  }
  return text;
}

const maybeMutated = (arb: fc.Arbitrary<string>) =>
  fc.tuple(arb, fc.array(mutation, { maxLength: 3 }), fc.nat(9)).map(([text, ms, p]) => (p < 6 ? text : mutate(text, ms)));

/** Several statements in one text, with the separators people (and tools) really write. */
const script = fc.tuple(fc.array(maybeMutated(statementSql), { minLength: 1, maxLength: 4 }), fc.constantFrom(';', '; ', ';\n', ' ; ', ';;'), fc.boolean()).map(
  ([stmts, sep, trailing]) => stmts.join(sep) + (trailing ? ';' : ''),
);

/** Long runs of one token after a prefix: stack depth, quadratic paths, identifier limits. */
const longRun = fc
  .record({
    prefix: fc.constantFrom('', 'CREATE CLUSTER c (SIZE = ', 'SELECT * FROM mz_clusters WHERE ', 'CREATE VIEW lv AS SELECT ', 'CREATE TABLE lt (', 'DROP TABLE ', 'SHOW CLUSTERS LIKE ', 'CREATE SECRET ls AS ', 'EXPLAIN EFFECTS FOR ', 'CREATE INDEX ON t ('),
    token: fc.constantFrom('(', ')', ';', 'a', 'é', '😀', 'CREATE ', "'", '"', '/*', '-- \n', ' ', ',', 'NOT ', 'EXPLAIN EFFECTS FOR ', 'a.', 'x, ', '((', '[', 'SHOW CLUSTERS;', 'BEGIN;', '\u0000'),
    count: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 20_000 })),
    suffix: fc.constantFrom('', ')', "'", ' FROM t', ';', ' -- é'),
  })
  .map(({ prefix, token, count, suffix }) => prefix + token.repeat(count) + suffix);

/** Statements carrying one large literal (tens to hundreds of KB): where item and transaction size limits bite. */
const hugeLiteral = fc
  .record({
    template: fc.constantFrom('CREATE SECRET hs AS $', 'CREATE CONNECTION hk TO KAFKA (BROKER $)', 'CREATE VIEW hv AS SELECT $ AS c', 'CREATE TABLE ht (a text DEFAULT $)', 'CREATE DATABASE hd; SELECT * FROM mz_clusters WHERE name = $', 'CREATE CLUSTER hc (SIZE = $)', 'COMMENT ON TABLE t IS $'),
    // Mostly small (cheap); one in four large enough to cross DynamoDB's 400 KB item limit.
    kb: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 64 }) }, { weight: 1, arbitrary: fc.integer({ min: 200, max: 700 }) }),
    ch: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('x', 'é') }, { weight: 1, arbitrary: fc.constant("'") }),
  })
  .map(({ template, kb, ch }) => template.replace('$', `'${ch.repeat(Math.floor((kb * 1024) / Buffer.byteLength(ch))).replaceAll("'", "''")}'`));

const golden = GOLDEN_INPUTS.length ? maybeMutated(fc.constantFrom(...GOLDEN_INPUTS)) : script;

/** SQL-ish text of every kind, weighted toward text that gets past the parser. */
export const sqlText: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: script },
  { weight: 3, arbitrary: golden },
  { weight: 2, arbitrary: tokenSoup },
  { weight: 1, arbitrary: longRun },
  { weight: 1, arbitrary: hugeLiteral },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }) },
);

// ---- request bodies and headers ----------------------------------------------------------------

const jsonValue: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });
const nonString = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.double());

/** A JSON value nested `depth` deep (text built directly: no recursion anywhere). */
const deepJson = fc.record({ depth: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1000, max: 100_000 })), kind: fc.constantFrom('array', 'object', 'query', 'queries', 'params', 'unclosed') }).map(({ depth, kind }) => {
  const arr = '['.repeat(depth) + ']'.repeat(depth);
  const obj = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  switch (kind) {
    case 'array':
      return arr;
    case 'object':
      return obj;
    case 'query':
      return `{"query":${arr}}`;
    case 'queries':
      return `{"queries":${arr}}`;
    case 'params':
      return `{"queries":[{"query":"SHOW CLUSTERS","params":${arr}}]}`;
    default:
      return '['.repeat(depth);
  }
});

const queryText = fc.oneof({ weight: 5, arbitrary: sqlText }, { weight: 1, arbitrary: fc.constantFrom('', ';', '-- c', 'SHOW CLUSTERS', "CREATE CLUSTER z (SIZE = '25cc')") });

/** A request body as a string: valid shapes, wrong types, extra fields, deep nesting, huge strings, garbage. */
export const requestBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: queryText.map((query) => JSON.stringify({ query })) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.record({ query: queryText, params: fc.option(fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null), fc.integer()), { maxLength: 2 }), { nil: undefined }) }, { requiredKeys: ['query'] }), { maxLength: 3 })
      .map((queries) => JSON.stringify({ queries })),
  },
  { weight: 2, arbitrary: fc.record({ query: nonString }).map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.record({ queries: fc.oneof(nonString, fc.array(nonString, { maxLength: 3 }), fc.array(fc.record({ query: nonString }), { maxLength: 2 })) }).map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom({ query: 'SHOW CLUSTERS' } as Record<string, unknown>, { queries: [{ query: 'SHOW CLUSTERS' }] }), fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), jsonValue, { minKeys: 1, maxKeys: 3 })).map(([b, extra]) => JSON.stringify({ ...extra, ...b })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('{"queries":[{"query":"SHOW CLUSTERS","extra":1}]}', '{"query":"SHOW CLUSTERS","query":"SHOW BOGUS"}', '{"query":"SHOW CLUSTERS",}', "{'query':'SHOW CLUSTERS'}", '{"query":"SHOW CLUSTERS"} trailing', '\ufeff{"query":"SHOW CLUSTERS"}', '{"query":"\\ud800"}', '{"query":"\\u0000"}', '{"query":NaN}', '/* c */{"query":"x"}'), fc.constant(0)).map(([s]) => s) },
  { weight: 2, arbitrary: deepJson },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(1024 * 1024 - 20, 1024 * 1024 + 1, 3 * 1024 * 1024), fc.constantFrom('a', 'é', ' ')).map(([n, ch]) => JSON.stringify({ query: `SELECT '${ch.repeat(Math.floor(n / Buffer.byteLength(ch)))}'` })) },
  { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '[]', '{}', '"query"', '0', 'true', '{', '}', '{"query"', '{"query":', '{"query":"') },
);

/** Content types, most of them not JSON, with odd spellings of the one that is. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 3, arbitrary: fc.constantFrom(undefined, 'application/json; charset=utf-8', 'APPLICATION/JSON', ' application/json ', 'application/json;charset=latin1', 'application/json-seq', 'application/jsonx', 'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '*/*', 'application/*', '', ';', 'json') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }) },
);

/** A header value fetch accepts (printable Latin-1, no CR/LF/NUL). */
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 40 });

/** Extra request headers, including malformed Idempotency-Keys. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'idempotency-key': fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'a b', 'k'.repeat(256), 'k'.repeat(255), 'é', 'a\tb'), headerValue),
      'content-encoding': fc.constantFrom('gzip', 'identity', 'br', 'bogus'),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', ''),
      'x-forwarded-for': headerValue,
      'x-fuzz': headerValue,
    },
    { requiredKeys: [] },
  )
  .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);

/** Raw bytes for the HTTP edge only: invalid UTF-8 among valid JSON. */
export const rawBytes: fc.Arbitrary<Buffer> = fc
  .tuple(fc.uint8Array({ maxLength: 24 }), fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]), fc.boolean())
  .map(([noise, bad, wrap]) => {
    const inner = Buffer.concat([Buffer.from(noise), Buffer.from(bad)]);
    return wrap ? Buffer.concat([Buffer.from('{"query": "SHOW CLUSTERS '), inner, Buffer.from('"}')]) : inner;
  });

/** One whole request: body (text or bytes), content type, extra headers. */
export interface FuzzRequest {
  readonly body: string | Buffer;
  readonly contentType: string | undefined;
  readonly headers: Record<string, string>;
}

export const httpRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.oneof({ weight: 12, arbitrary: requestBody }, { weight: 1, arbitrary: rawBytes }), contentType, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraHeaders }))
  .map(([body, ct, headers]) => ({ body, contentType: ct, headers }));
