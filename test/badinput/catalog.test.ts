/**
 * The bad-input catalog (DESIGN.md invariant 8): every malformed request gets a 4xx whose JSON
 * body has an error with a SQLSTATE `code` and a `message` that points at the problem (and a
 * byte `position` into the SQL where one applies), no 5xx anywhere, and nothing reaches the
 * catalog: the tenant's items are exactly what they were before the request.
 *
 * One case per test: the request, an optional setup committed first, and the expected status,
 * code, message (and detail) patterns and position.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline } from '../helpers/pipeline';
import { budget } from '../helpers/budget';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('badinput', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

/** Byte offset of the `nth` occurrence of `needle` in `sql` (what `position` counts). */
function at(sql: string, needle: string, nth = 0): number {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = sql.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`${JSON.stringify(needle)} not in ${sql.slice(0, 80)}`);
  }
  return Buffer.byteLength(sql.slice(0, i), 'utf8');
}

interface Answer {
  readonly status: number;
  readonly body: any;
}

/** The error of a 4xx, in either shape the API answers with (`{error}` at the HTTP edge, `{results: [..., {error}]}` from the handler). */
function errorOf(body: any): { code: string; message: string; position?: number; detail?: string; hint?: string } {
  const e = body?.error ?? body?.results?.[body.results.length - 1]?.error;
  expect(e, `no error object in ${JSON.stringify(body).slice(0, 300)}`).toBeTypeOf('object');
  return e;
}

/** Sends a body exactly as given (bytes, any content type, any headers). */
async function postRaw(password: string | null, body: string | Buffer, contentType: string | null, headers: Record<string, string> = {}): Promise<Answer> {
  const h: Record<string, string> = { ...headers };
  if (password !== null) h.authorization = `Bearer ${password}`;
  if (contentType !== null) h['content-type'] = contentType;
  const res = await fetch(`${p.url}/api/sql`, { method: 'POST', headers: h, body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`HTTP ${res.status} answered a body that is not JSON: ${text.slice(0, 200)}`);
  }
  // JSON.parse takes a lone surrogate (`"\ud800"`); strict parsers (jq) do not, so no answer may hold one.
  expect(loneSurrogates(parsed), `HTTP ${res.status} answered a lone surrogate: ${text.slice(0, 200)}`).toEqual([]);
  return { status: res.status, body: parsed };
}

/** The strings and keys of a JSON value that are not well-formed UTF-16 (a lone surrogate). */
function loneSurrogates(v: unknown): string[] {
  // Code units, not code points (no `u` flag): a high surrogate not followed by a low one, or a low one not after a high one.
  if (typeof v === 'string') return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(v) ? [JSON.stringify(v)] : [];
  if (Array.isArray(v)) return v.flatMap(loneSurrogates);
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [...loneSurrogates(k), ...loneSurrogates(x)]);
  return [];
}

interface BadCase {
  readonly name: string;
  /** SQL committed before the request (must succeed). */
  readonly setup?: string;
  /** The SQL of a simple-mode request ({"query": sql})... */
  readonly sql?: string;
  /** ...or the raw body. */
  readonly body?: string | Buffer;
  /** Default application/json; null sends none. */
  readonly contentType?: string | null;
  readonly headers?: Record<string, string>;
  /** Send no app password. */
  readonly anonymous?: boolean;
  readonly status: number;
  readonly code: string;
  readonly message: RegExp;
  readonly detail?: RegExp;
  /** Byte offset the error must carry; null: it must carry none; absent: not checked. */
  readonly position?: number | null;
  /** The answer must come within this many ms (work bounded by the input's size). */
  readonly maxMs?: number;
}

const K = 1024;
const MIB = 1024 * 1024;
const CLUSTER = "CREATE CLUSTER c (SIZE = '25cc')";
const deepArrays = '['.repeat(100_000) + ']'.repeat(100_000);

const longAscii = `CREATE CLUSTER ${'a'.repeat(256)} (SIZE = '25cc')`;
const longE = `CREATE CLUSTER "${'é'.repeat(128)}" (SIZE = '25cc')`;
const longEuro = `CREATE TABLE "${'€'.repeat(85)}a" (a int)`;
const longEmoji = `DROP TABLE ok, "${'😀'.repeat(64)}"`;
const nulIdent = `CREATE CLUSTER "a\u0000b" (SIZE = '25cc')`;
const nulString = "CREATE SECRET s AS 'pass\u0000word'";
const surrogateIdent = 'CREATE SCHEMA "\ud800x"';
const surrogateString = "CREATE SECRET s AS 'pass\udc00word'";
const unknownOpt = "CREATE CLUSTER c (SIZE = '25cc', COLOR = 'blue')";
const dupOpt = "CREATE CLUSTER c (SIZE = '25cc', SIZE = '50cc')";
const negSize = 'CREATE CLUSTER c (SIZE = -1)';
const absurdSize = "CREATE CLUSTER c (SIZE = '99999999999cc')";
const rfNeg = "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = -1)";
const rfHuge = "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 1000000)";
const rfFrac = "CREATE CLUSTER c (SIZE = '25cc', REPLICATION FACTOR = 1.5)";
const sizeUnmanaged = "CREATE CLUSTER c (SIZE = '25cc', REPLICAS (r1 (SIZE = '25cc')))";
const unterminated = "CREATE SECRET s AS 'abc";
const fourParts = 'CREATE TABLE a.b.c.d (x int)';
const deepWhere = `SELECT * FROM mz_clusters WHERE ${'('.repeat(100_000)}a${')'.repeat(100_000)}`;
const param = "CREATE CLUSTER $1 (SIZE = '25cc')";
const twice = `${CLUSTER}; ${CLUSTER}`;
const explainBad = "EXPLAIN EFFECTS FOR CREATE CLUSTER c (SIZE = 'huge')";
const explainSelect = 'EXPLAIN EFFECTS FOR SELECT 1';
const explainDrop = 'EXPLAIN EFFECTS FOR DROP TABLE nope';
const notKafka = "CREATE SOURCE s IN CLUSTER c FROM KAFKA CONNECTION pg (TOPIC 't')";
const secretExpr = "CREATE SECRET s AS decode('aa', 'hex')";
/** Unbalanced parentheses in a view body (see the "bounded work" cases). */
const viewParens = `CREATE VIEW v AS SELECT ${'('.repeat(12)})`;
/** Many statements and one non-ASCII character (a byte offset computed per statement from the start). */
const manyStatementsNonAscii = `${'BEGIN;'.repeat(60_000)} -- é`;

const cases: BadCase[] = [
  // ---- the HTTP request itself ----------------------------------------------------------------
  { name: 'malformed JSON (truncated)', body: '{"query": ', status: 400, code: '08P01', message: /not valid JSON/, position: null },
  { name: 'JSON with trailing garbage', body: '{"query": "SHOW CLUSTERS"} x', status: 400, code: '08P01', message: /not valid JSON.*position 27/, position: null },
  { name: 'wrong content type (text/plain)', body: '{"query": "SHOW CLUSTERS"}', contentType: 'text/plain', status: 415, code: '08P01', message: /content type "text\/plain".*application\/json/, position: null },
  { name: 'wrong content type (multipart/form-data)', body: '{"query": "SHOW CLUSTERS"}', contentType: 'multipart/form-data; boundary=x', status: 415, code: '08P01', message: /multipart\/form-data/, position: null },
  { name: 'body over the 1 MiB limit', sql: `SELECT '${'x'.repeat(MIB)}'`, status: 413, code: '54000', message: /exceeds 1048576 bytes/, position: null },
  { name: 'JSON nested 100 000 arrays deep (the server survives)', body: deepArrays, status: 400, code: '08P01', message: /must be \{"query"/, position: null },
  { name: 'JSON nested 100 000 objects deep', body: '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000), status: 400, code: '08P01', message: /must be \{"query"/, position: null },
  { name: '"query" holding 100 000 nested arrays', body: `{"query":${deepArrays}}`, status: 400, code: '08P01', message: /must be \{"query"/, detail: /query/, position: null },
  {
    name: 'invalid UTF-8 bytes in the body',
    body: Buffer.concat([Buffer.from('{"query": "CREATE CLUSTER c'), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from(` (SIZE = '25cc')"}`)]),
    status: 400,
    code: '22021',
    message: /not valid UTF-8/,
    position: null,
  },
  { name: 'no app password', sql: CLUSTER, anonymous: true, status: 401, code: '28P01', message: /app password/, position: null },
  { name: 'missing "query" ({})', body: '{}', status: 400, code: '08P01', message: /must be \{"query": "<sql>"\}/, detail: /^query: missing$/, position: null },
  { name: '"query" is null', body: '{"query": null}', status: 400, code: '08P01', message: /must be \{"query"/, detail: /^query: expected string, got null$/, position: null },
  { name: '"query" is a number', body: '{"query": 5}', status: 400, code: '08P01', message: /must be \{"query"/, detail: /^query: expected string, got number$/, position: null },
  { name: '"queries" is not an array (an object)', body: '{"queries": {"query": "SHOW CLUSTERS"}}', status: 400, code: '08P01', message: /must be/, detail: /^queries: expected array, got object$/, position: null },
  { name: '"queries" is not an array (a string)', body: '{"queries": "SHOW CLUSTERS"}', status: 400, code: '08P01', message: /must be/, detail: /^queries: expected array, got string$/, position: null },
  { name: 'a query in "queries" that is not an object', body: '{"queries": [5]}', status: 400, code: '08P01', message: /must be/, detail: /^queries\.0: expected object, got number$/, position: null },
  // The detail names what came, not `undefined`.
  { name: 'a body that is a JSON array', body: '[]', status: 400, code: '08P01', message: /must be \{"query"/, detail: /^\(root\): expected object, got array$/, position: null },
  { name: 'a body that is a JSON string', body: '"CREATE SCHEMA s"', status: 400, code: '08P01', message: /must be \{"query"/, detail: /^\(root\): expected object, got string$/, position: null },
  { name: 'a body that is JSON null', body: 'null', status: 400, code: '08P01', message: /must be \{"query"/, detail: /^\(root\): expected object, got null$/, position: null },
  { name: 'a body that is a JSON number', body: '5', status: 400, code: '08P01', message: /must be \{"query"/, detail: /^\(root\): expected object, got number$/, position: null },
  // JSON.parse keeps the last of two equal keys: which statement ran would depend on the parser reading it.
  { name: 'the key "query" twice', body: '{"query": "SHOW CLUSTERS", "query": "CREATE SCHEMA s"}', status: 400, code: '08P01', message: /request body has the key "query" more than once \(in \(root\)\)/, position: null },
  { name: 'the key "query" twice, once written with an escape', body: '{"query": "SHOW CLUSTERS", "\\u0071uery": "CREATE SCHEMA s"}', status: 400, code: '08P01', message: /key "query" more than once/, position: null },
  { name: 'the key "query" twice inside "queries"', body: '{"queries": [{"query": "SHOW CLUSTERS"}, {"query": "SHOW CLUSTERS", "query": "CREATE SCHEMA s"}]}', status: 400, code: '08P01', message: /key "query" more than once \(in queries\.1\)/, position: null },
  { name: 'the key "queries" twice', body: '{"queries": [], "queries": [{"query": "CREATE SCHEMA s"}]}', status: 400, code: '08P01', message: /key "queries" more than once/, position: null },
  { name: 'extra unknown JSON field next to "query"', body: '{"query": "SHOW CLUSTERS", "timeout": 5}', status: 400, code: '08P01', message: /must be/, detail: /timeout/, position: null },
  { name: 'extra unknown JSON field inside "queries"', body: '{"queries": [{"query": "SHOW CLUSTERS", "portal": "p"}]}', status: 400, code: '08P01', message: /must be/, detail: /portal/, position: null },
  { name: 'a parameter of the wrong type', body: '{"queries": [{"query": "SHOW CLUSTERS", "params": [1]}]}', status: 400, code: '08P01', message: /must be/, detail: /params/, position: null },
  { name: 'Idempotency-Key with a space', sql: CLUSTER, headers: { 'idempotency-key': 'a b' }, status: 400, code: '22023', message: /Idempotency-Key must be 1 to 255 printable ASCII/, position: null },
  { name: 'Idempotency-Key of 256 characters', sql: CLUSTER, headers: { 'idempotency-key': 'k'.repeat(256) }, status: 400, code: '22023', message: /Idempotency-Key must be 1 to 255/, position: null },
  { name: 'Idempotency-Key empty', sql: CLUSTER, headers: { 'idempotency-key': '' }, status: 400, code: '22023', message: /Idempotency-Key/, position: null },

  // ---- extended mode and statement counts -----------------------------------------------------
  { name: 'extended mode: two statements in one query', body: JSON.stringify({ queries: [{ query: `${CLUSTER}; SHOW CLUSTERS` }] }), status: 400, code: '42601', message: /exactly one statement, found 2/, position: null },
  { name: 'extended mode: an empty query', body: JSON.stringify({ queries: [{ query: '' }] }), status: 400, code: '42601', message: /exactly one statement, found 0/, position: null },
  { name: 'extended mode: parameters', body: JSON.stringify({ queries: [{ query: CLUSTER, params: ['x'] }] }), status: 400, code: '0A000', message: /parameters are not supported/, position: null },
  { name: 'a parameter placeholder in the SQL', sql: param, status: 400, code: '42601', message: /Expected identifier, found parameter "\$1"/, position: at(param, '$1') },
  { name: '10 000 statements in one request', sql: 'SHOW CLUSTERS;'.repeat(10_000), status: 400, code: '54023', message: /more than 1000 statements; at most 1000/, position: 'SHOW CLUSTERS;'.length * 1000 },
  { name: '1001 statements in one request', sql: 'SHOW CLUSTERS;'.repeat(1001), status: 400, code: '54023', message: /more than 1000 statements; at most 1000/, position: 'SHOW CLUSTERS;'.length * 1000 },

  // ---- lexical problems -----------------------------------------------------------------------
  { name: 'NUL inside a quoted identifier', sql: nulIdent, status: 400, code: '22021', message: /NUL/, position: at(nulIdent, '\u0000') },
  { name: 'NUL inside a string literal', sql: nulString, status: 400, code: '22021', message: /NUL/, position: at(nulString, '\u0000') },
  // `\ud800` in JSON parses into a string no UTF-8 can carry: kept, it makes every catalog answer unreadable to strict JSON parsers.
  { name: 'a lone high surrogate inside a quoted identifier', sql: surrogateIdent, status: 400, code: '22021', message: /lone UTF-16 surrogate \\ud800 in query/, position: at(surrogateIdent, '\ud800') },
  { name: 'a lone low surrogate inside a string literal', sql: surrogateString, status: 400, code: '22021', message: /lone UTF-16 surrogate \\udc00 in query/, position: at(surrogateString, '\udc00') },
  { name: 'a lone surrogate in extended mode', body: JSON.stringify({ queries: [{ query: 'SHOW CLUSTERS' }, { query: 'CREATE SCHEMA "\udfff"' }] }), status: 400, code: '22021', message: /lone UTF-16 surrogate \\udfff in queries\.1\.query/, position: null },
  { name: 'a lone surrogate in an unknown JSON key (not echoed back)', body: '{"query": "SHOW CLUSTERS", "\\ud800": 1}', status: 400, code: '22021', message: /lone UTF-16 surrogate \\ud800 in a key/, position: null },
  { name: 'identifier of 256 ASCII bytes', sql: longAscii, status: 400, code: '42622', message: /identifier length exceeds 255 bytes/, position: at(longAscii, 'aaa') },
  { name: 'identifier of 128 × "é" (256 bytes, 128 characters)', sql: longE, status: 400, code: '42622', message: /identifier length exceeds 255 bytes/, detail: /is 256 bytes long/, position: at(longE, '"') },
  { name: 'identifier of 85 × "€" + "a" (256 bytes)', sql: longEuro, status: 400, code: '42622', message: /identifier length exceeds 255 bytes/, detail: /is 256 bytes long/, position: at(longEuro, '"') },
  { name: 'identifier of 64 × 😀 (256 bytes), position counted in bytes', setup: 'CREATE TABLE ok (a int)', sql: longEmoji, status: 400, code: '42622', message: /identifier length exceeds 255 bytes/, detail: /is 256 bytes long/, position: at(longEmoji, '"') },
  { name: 'unterminated string literal', sql: unterminated, status: 400, code: '42601', message: /Unterminated string literal/, position: at(unterminated, "'") },
  { name: 'a name with four parts', sql: fourParts, status: 400, code: '42601', message: /at most three parts/, position: at(fourParts, 'd (') },
  { name: 'WHERE nested 100 000 parentheses deep', sql: deepWhere, status: 400, code: '54001', message: /nested expression limit of 128/ },
  { name: 'an unknown statement after a valid one (nothing committed)', sql: `${CLUSTER}; FROBNICATE`, status: 400, code: '42601', message: /^Expected a keyword at the beginning of a statement, found identifier "frobnicate"$/, position: at(`${CLUSTER}; FROBNICATE`, 'FROB') },

  // ---- options and sizes ----------------------------------------------------------------------
  { name: 'unknown option', sql: unknownOpt, status: 400, code: '42601', message: /Expected one of .*SIZE.*, found identifier "color"/, position: at(unknownOpt, 'COLOR') },
  { name: 'duplicated option', sql: dupOpt, status: 400, code: '42601', message: /SIZE specified more than once/, position: at(dupOpt, 'SIZE', 1) },
  { name: 'negative size', sql: negSize, status: 400, code: '22023', message: /unknown cluster replica size -1/, position: at(negSize, 'SIZE') },
  { name: 'absurd size', sql: absurdSize, status: 400, code: '22023', message: /unknown cluster replica size 99999999999cc/, position: at(absurdSize, 'SIZE') },
  { name: 'REPLICATION FACTOR = -1', sql: rfNeg, status: 400, code: '22023', message: /REPLICATION FACTOR: expected a non-negative integer/, position: at(rfNeg, 'REPLICATION') },
  { name: 'REPLICATION FACTOR = 1000000', sql: rfHuge, status: 400, code: '22023', message: /REPLICATION FACTOR 1000000 exceeds the maximum of 32/, position: at(rfHuge, 'REPLICATION') },
  { name: 'REPLICATION FACTOR = 1.5', sql: rfFrac, status: 400, code: '22023', message: /REPLICATION FACTOR: expected a non-negative integer/, position: at(rfFrac, 'REPLICATION') },
  { name: 'SIZE on an unmanaged cluster', sql: sizeUnmanaged, status: 400, code: 'XX000', message: /SIZE not supported for unmanaged clusters/, position: at(sizeUnmanaged, 'SIZE') },
  { name: 'a replica name given twice', sql: "CREATE CLUSTER c REPLICAS (r1 (SIZE = '25cc'), r1 (SIZE = '25cc'))", status: 400, code: '42P07', message: /cannot create multiple replicas named 'r1' on cluster 'c'/, position: 0 },
  { name: 'a replica in a managed cluster', setup: CLUSTER, sql: "CREATE CLUSTER REPLICA c.r9 (SIZE = '25cc')", status: 400, code: '0A000', message: /managed cluster/, position: 0 },

  // ---- reserved names: the kinds Materialize reserves the system's prefixes for (items it does not) --
  { name: 'reserved name: cluster', sql: "CREATE CLUSTER mz_c (SIZE = '25cc')", status: 400, code: '42939', message: /cluster name "mz_c" is reserved/, position: 0 },
  { name: 'reserved name: cluster replica (in REPLICAS)', sql: "CREATE CLUSTER uc REPLICAS (mz_r (SIZE = '25cc'))", status: 400, code: '42939', message: /replica name "mz_r" is reserved/, position: 0 },
  { name: 'reserved name: cluster replica (CREATE CLUSTER REPLICA)', setup: 'CREATE CLUSTER uc REPLICAS ()', sql: "CREATE CLUSTER REPLICA uc.mz_r (SIZE = '25cc')", status: 400, code: '42939', message: /replica name "mz_r" is reserved/, position: 0 },
  { name: 'reserved name: schema', sql: 'CREATE SCHEMA mz_s', status: 400, code: '42939', message: /unacceptable schema name 'mz_s'/, position: 0 },
  { name: 'reserved name: schema in another database', setup: 'CREATE DATABASE d', sql: 'CREATE SCHEMA d.mz_s', status: 400, code: '42939', message: /unacceptable schema name 'mz_s'/, position: 0 },
  { name: 'reserved name: cluster by RENAME', setup: "CREATE CLUSTER uc REPLICAS ()", sql: 'ALTER CLUSTER uc RENAME TO pg_c', status: 400, code: '42939', message: /cluster name "pg_c" is reserved/, position: 0 },
  { name: 'a NUL character in a name (\\u0000 as a key-breaking character)', sql: 'CREATE TABLE "x\u0000y" (a int)', status: 400, code: '22021', message: /NUL/, position: at('CREATE TABLE "x\u0000y" (a int)', '\u0000') },

  // ---- names that do not resolve --------------------------------------------------------------
  { name: 'DROP of a system cluster', sql: 'DROP CLUSTER mz_system', status: 400, code: '42501', message: /must be owner of CLUSTER mz_system/, position: 0 },
  { name: 'DROP of a system table', sql: 'DROP TABLE mz_catalog.mz_sources', status: 400, code: '42501', message: /cannot drop table mz_catalog\.mz_sources because it is required by the database system/, position: 0 },
  { name: 'DROP of a system schema', sql: 'DROP SCHEMA mz_internal', status: 400, code: '42501', message: /cannot drop schema mz_internal because it is required by the database system/, position: 0 },
  { name: 'CREATE in a database that does not exist', sql: 'CREATE TABLE nodb.public.t (a int)', status: 400, code: '42704', message: /unknown database 'nodb'/, position: 0 },
  { name: 'CREATE in a schema that does not exist', sql: 'CREATE TABLE nosch.t (a int)', status: 400, code: '42704', message: /unknown schema 'nosch'/, position: 0 },
  { name: 'CREATE SCHEMA in a database that does not exist', sql: 'CREATE SCHEMA nodb.s', status: 400, code: '42704', message: /invalid database nodb/, position: 0 },
  { name: 'a view over a relation that does not exist', sql: 'CREATE VIEW v AS SELECT * FROM nope', status: 400, code: '42P01', message: /unknown catalog item 'nope'/, position: at('CREATE VIEW v AS SELECT * FROM nope', 'SELECT') },
  {
    name: 'a SOURCE naming a Postgres connection in FROM KAFKA CONNECTION',
    setup: `${CLUSTER}; CREATE CONNECTION pg TO POSTGRES (HOST 'h', DATABASE 'd', USER 'u')`,
    sql: notKafka,
    status: 400,
    code: '42809',
    message: /pg is not a KAFKA CONNECTION/,
    position: 0,
  },
  { name: 'DROP ... RESTRICT with a dependent view', setup: 'CREATE TABLE t (a int); CREATE VIEW v AS SELECT a FROM t', sql: 'DROP TABLE t', status: 400, code: '2BP01', message: /cannot drop table "t": still depended upon by view "v"/, position: 0 },
  { name: 'the same name twice in one request (nothing committed)', sql: twice, status: 400, code: '42P07', message: /cluster 'c' already exists/, detail: /one transaction/, position: at(twice, 'CREATE', 1) },
  { name: 'a column given twice', sql: 'CREATE TABLE t (a int, a text)', status: 400, code: '42701', message: /column "a" specified more than once/, position: 0 },

  // ---- EXPLAIN EFFECTS and unsupported statements ---------------------------------------------
  { name: 'EXPLAIN EFFECTS of a statement with a bad option', sql: explainBad, status: 400, code: '22023', message: /unknown cluster replica size huge/, position: at(explainBad, 'SIZE') },
  { name: 'EXPLAIN EFFECTS of a DROP of nothing', sql: explainDrop, status: 400, code: '42P01', message: /unknown catalog item 'nope'/, position: 0 },
  { name: 'EXPLAIN EFFECTS of a SELECT', sql: explainSelect, status: 400, code: '42601', message: /Expected a DDL statement .* found SELECT/, position: at(explainSelect, 'SELECT') },
  { name: 'INSERT (not served here)', sql: 'INSERT INTO t VALUES (1)', status: 400, code: '0A000', message: /INSERT is outside the control plane/, position: 0 },
  { name: 'a temporary table (no session over HTTP)', sql: 'CREATE TEMPORARY TABLE t (a int)', status: 400, code: '0A000', message: /temporary tables/, position: 0 },
  { name: 'a secret value that is not text (binary bytes)', sql: secretExpr, status: 400, code: '0A000', message: /binary secret values are not supported/, position: at(secretExpr, 'decode') },

  // ---- limits of what one catalog item can hold -----------------------------------------------
  // DynamoDB refuses items over 400 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items);
  // a statement whose text lands in one item must be refused before the commit, not fail it.
  { name: 'a connection option of 450 KB', sql: `CREATE CONNECTION k TO KAFKA (BROKER '${'x'.repeat(450 * K)}')`, status: 400, code: '54000', message: /too (large|long)|exceeds/i },
  { name: 'a secret value of 300 KB', sql: `CREATE SECRET s AS '${'x'.repeat(300 * K)}'`, status: 400, code: '54000', message: /too (large|long)|exceeds/i },
  { name: 'a view body of 250 KB', sql: `CREATE VIEW v AS SELECT '${'x'.repeat(250 * K)}' AS c`, status: 400, code: '54000', message: /too (large|long)|exceeds/i },
  // (A 450 KB statement in a request that commits is fine: the transaction record keeps 4 KB of each statement's text; see round-trip tests.)

  // ---- bounded work ---------------------------------------------------------------------------
  // The view body goes to the dependency analysis (node-sql-parser): its time doubles with each
  // unmatched "(" (12: ~2 s; 16: ~40 s and 2 GB; 20: the process dies), so nesting past 8 levels
  // is refused before the library sees it, at the ninth "(".
  { name: 'a view body with 12 unmatched parentheses is refused quickly', sql: viewParens, status: 400, code: '54001', message: /nests parentheses more than 8 levels deep/, position: 'CREATE VIEW v AS SELECT '.length + 8, maxMs: 1_000 },
  // Without the "é" this answers in ~0.1 s; with it, in seconds (a full 1 MiB body: ~35 s, past API Gateway's 29 s).
  { name: '60 000 statements and one non-ASCII character are refused quickly', sql: manyStatementsNonAscii, status: 400, code: '54023', message: /more than 1000 statements; at most 1000/, maxMs: 1_500 },
];

describe('bad input: a 4xx with a SQLSTATE, a message that points at the problem, nothing committed', () => {
  it.each(cases)('$name', async (c) => {
    const { sql, tenant, password } = await sqlClient(p);
    if (c.setup) {
      const s = await sql(c.setup);
      expect(s.status, JSON.stringify(s.body).slice(0, 300)).toBe(200);
    }
    const before = await tenantItems(p, tenant);
    const started = Date.now();
    const r = await postRaw(c.anonymous ? null : password, c.body ?? JSON.stringify({ query: c.sql }), c.contentType === undefined ? 'application/json' : c.contentType, c.headers);
    const elapsed = Date.now() - started;
    expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(c.status);
    const e = errorOf(r.body);
    expect(e.code).toBe(c.code);
    expect(e.message).toBeTypeOf('string');
    expect(e.message).toMatch(c.message);
    if (c.detail) expect(e.detail ?? '').toMatch(c.detail);
    if (c.position === null) expect(e.position).toBeUndefined();
    else if (c.position !== undefined) expect(e.position).toBe(c.position);
    if (c.maxMs !== undefined) expect(elapsed, `answered after ${elapsed} ms`).toBeLessThan(budget(c.maxMs));
    // Statements before the failing one are reported ok, and still nothing is committed.
    for (const earlier of (r.body.results ?? []).slice(0, -1)) expect(earlier.ok ?? earlier.tag).toBeDefined();
    expect(await tenantItems(p, tenant)).toEqual(before);
  });
});

describe('keys that only look repeated', () => {
  it('takes "query" once in each object of "queries", and key-like text inside strings', async () => {
    const { password } = await sqlClient(p);
    const r = await postRaw(password, '{"queries": [{"query": "SELECT \'{\\"query\\": 1, \\"query\\": 2}\' AS a"}, {"query": "SHOW CLUSTERS"}]}', 'application/json');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results).toHaveLength(2);
  });
});

describe('escaped text that is valid Unicode', () => {
  it('takes a surrogate pair written as JSON escapes as the one character it is', async () => {
    const { sql, password } = await sqlClient(p);
    const r = await postRaw(password, '{"query": "CREATE SCHEMA \\"\\ud83d\\ude00\\""}', 'application/json');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await sql("SELECT name FROM mz_schemas WHERE name = '😀'")).body.results[0].rows).toEqual([['😀']]);
  });
});

describe('isolation between tenants', () => {
  it('tenant B cannot see, reference, alter or drop tenant A’s objects, and commits nothing trying', async () => {
    const a = await sqlClient(p);
    const b = await sqlClient(p);
    const setup = await a.sql("CREATE CLUSTER ac (SIZE = '25cc'); CREATE TABLE t (a int); CREATE CONNECTION k TO KAFKA (BROKER 'b:9092'); CREATE SECRET s AS 'x'");
    expect(setup.status).toBe(200);
    const aBefore = await tenantItems(p, a.tenant);
    const attempts: [string, string, RegExp, number][] = [
      ['CREATE VIEW v AS SELECT * FROM t', '42P01', /unknown catalog item 't'/, Buffer.byteLength('CREATE VIEW v AS ')],
      ['CREATE VIEW v AS SELECT * FROM materialize.public.t', '42P01', /unknown catalog item 'materialize\.public\.t'/, Buffer.byteLength('CREATE VIEW v AS ')],
      ['DROP TABLE t', '42P01', /unknown catalog item 't'/, 0],
      ['ALTER TABLE t RENAME TO u', '42P01', /unknown catalog item 't'/, 0],
      ['SHOW CREATE TABLE t', '42P01', /unknown catalog item 't'/, 0],
      ['CREATE INDEX i IN CLUSTER ac ON t (a)', '42P01', /unknown catalog item 't'/, 0],
      ["CREATE CLUSTER REPLICA ac.r2 (SIZE = '25cc')", '42704', /unknown cluster 'ac'/, 0],
      ['DROP CLUSTER ac', '42704', /unknown cluster 'ac'/, 0],
      ["CREATE SOURCE src IN CLUSTER ac FROM KAFKA CONNECTION k (TOPIC 't')", '42704', /unknown cluster 'ac'/, 0],
      ["CREATE CONNECTION k2 TO KAFKA (BROKER 'b:9092', SASL PASSWORD = SECRET s)", '42P01', /unknown catalog item 's'/, Buffer.byteLength("CREATE CONNECTION k2 TO KAFKA (BROKER 'b:9092', ")],
    ];
    for (const [stmt, code, message, position] of attempts) {
      const r = await b.sql(stmt);
      expect(r.status, stmt).toBe(400);
      const e = errorOf(r.body);
      expect(e.code, stmt).toBe(code);
      expect(e.message, stmt).toMatch(message);
      expect(e.position, stmt).toBe(position);
    }
    // B's catalog shows none of A's objects.
    const shown = await b.sql('SHOW CLUSTERS; SHOW TABLES; SHOW CONNECTIONS; SHOW SECRETS');
    expect(shown.status).toBe(200);
    expect(shown.body.results.map((x: { rows: unknown[] }) => x.rows)).toEqual([[], [], [], []]);
    expect(await tenantItems(p, b.tenant)).toEqual([]);
    expect(await tenantItems(p, a.tenant)).toEqual(aBefore);
  });
});

describe('the HTTP edge', () => {
  it('answers a body over API Gateway’s 10 MiB with 413, every time, and keeps serving', async () => {
    const { password, tenant } = await sqlClient(p);
    const big = JSON.stringify({ query: 'x'.repeat(11 * MIB) });
    // Each attempt races the upload against the answer: repeat it to see a connection reset.
    for (let i = 0; i < 4; i++) {
      let r: Answer;
      try {
        r = await postRaw(password, big, 'application/json');
      } catch (err) {
        throw new Error(`attempt ${i + 1}: no 413 but ${(err as Error).message} (${String((err as { cause?: { code?: string } }).cause?.code)})`);
      }
      expect(r.status).toBe(413);
      const e = errorOf(r.body);
      expect(e.code).toBe('54000');
      expect(e.message).toMatch(/exceeds 10485760 bytes/);
      const next = await postRaw(password, JSON.stringify({ query: 'SHOW CLUSTERS' }), 'application/json');
      expect(next.status).toBe(200);
    }
    expect(await tenantItems(p, tenant)).toEqual([]);
  });

  it('answers headers over Node’s 16 KiB with 431 in our JSON error shape, a request it cannot read with 400, and keeps serving', async () => {
    const { password } = await sqlClient(p);
    const big = await rawHttp(`POST /api/sql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${password}\r\nX-Big: ${'a'.repeat(20 * K)}\r\nContent-Length: 2\r\n\r\n{}`);
    expect(big.head).toMatch(/^HTTP\/1\.1 431 /);
    expect(big.head).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(JSON.parse(big.body)).toEqual({ error: { message: 'request headers exceed 16384 bytes', code: '54000' } });
    const garbled = await rawHttp('NOT HTTP AT ALL\r\n\r\n');
    expect(garbled.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbled.body)).toEqual({ error: { message: 'malformed HTTP request', code: '08P01' } });
    expect((await postRaw(password, JSON.stringify({ query: 'SHOW CLUSTERS' }), 'application/json')).status).toBe(200);
  });
});

/** Sends bytes as they are and reads the answer until the server closes the connection. */
async function rawHttp(request: string): Promise<{ head: string; body: string }> {
  const { port } = new URL(p.url!);
  const socket = connect(Number(port), '127.0.0.1');
  let got = '';
  socket.on('data', (d: Buffer) => (got += d.toString('utf8')));
  socket.on('error', () => undefined);
  socket.write(request);
  await new Promise<void>((r) => socket.on('close', () => r()));
  const split = got.indexOf('\r\n\r\n');
  return { head: got.slice(0, split), body: got.slice(split + 4) };
}
