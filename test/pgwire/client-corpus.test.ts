/**
 * The SQL Materialize's clients send — the Terraform provider, dbt-materialize (with the dbt-postgres
 * macros it inherits) and psql — collected from their public source into client-corpus.sql, replayed
 * over the Postgres wire protocol the way each client sends it: every catalog read answers with the
 * column names the client reads (and every system relation it names has Materialize's columns),
 * every DDL with the command tags Materialize answers. What we do not serve is in
 * EXPECTED_REFUSALS, each with its reason and the SQLSTATE it gets; a refused statement that starts
 * to succeed fails the test too, so the list stays exact.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { MATERIALIZE_SYSTEM_RELATIONS } from '../../shared/sql/materialize-relations';
import { SYSTEM_RELATIONS } from '../../shared/system/registry';
import { sqlClient, testPipeline } from '../helpers/pipeline';

const run = promisify(execFile);

/** One statement of the corpus, as client-corpus.sql's header line describes it. */
interface Entry {
  readonly id: string;
  readonly client: string;
  readonly file: string;
  readonly fn: string;
  readonly kind: 'ddl' | 'read';
  /** ddl: the command tags; read: the column names (or `schema.relation.*`). */
  readonly expected: readonly string[];
  /** `error <SQLSTATE>`: Materialize itself answers with this error. */
  readonly expectedError?: string;
  readonly params: readonly string[];
  readonly sql: string;
}

const HEADER = /^-- ([a-z][\w.]*) \| ([\w-]+) \| (\S+) \| (.+?) \| (ddl|read): (.*?)(?: \| params: (.*))?$/;

function parseCorpus(text: string): Entry[] {
  const entries: Entry[] = [];
  let current: { head: RegExpExecArray; body: string[] } | undefined;
  const flush = () => {
    if (!current) return;
    const [, id, client, file, fn, kind, expected, params] = current.head;
    const sql = current.body.join('\n').trim();
    if (!sql) throw new Error(`${id}: no statement`);
    const error = /^error ([0-9A-Z]{5})$/.exec(expected!)?.[1];
    entries.push({
      id: id!,
      client: client!,
      file: file!,
      fn: fn!,
      kind: kind as Entry['kind'],
      expected: error ? [] : expected!.split(', ').map((s) => s.trim()),
      ...(error ? { expectedError: error } : {}),
      params: params ? params.split(', ') : [],
      sql,
    });
  };
  for (const line of text.split('\n')) {
    const head = HEADER.exec(line);
    if (!head && /^-- [a-z][\w.]* \| /.test(line)) throw new Error(`client-corpus.sql: a header that does not read: ${line}`);
    if (head) {
      flush();
      current = { head, body: [] };
    } else if (current && !line.startsWith('-- ')) current.body.push(line);
  }
  flush();
  return entries;
}

const CORPUS = parseCorpus(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'client-corpus.sql'), 'utf8'));

/** What we do not serve, by corpus id: the SQLSTATE it gets and why. */
const EXPECTED_REFUSALS: Readonly<Record<string, { readonly code: string; readonly reason: string }>> = {
  'tf.role.create_login': {
    code: '0A000',
    reason: 'roles that log in with a password: logins here are app passwords made for a role (ddlctl password create --role); Materialize refuses LOGIN PASSWORD too unless password authentication is on',
  },
  'tf.system.parameter': {
    code: '42501',
    reason: "ALTER SYSTEM of a system parameter (max_tables), not of a session variable's default: mz_system's alone in Materialize (is_user_allowed_to_alter_system: 'permission denied to alter system' for any other superuser), and no app password acts as mz_system",
  },
  'tf.system.parameter_reset': { code: '42501', reason: 'as tf.system.parameter' },
  'tf.read.connection.ssh': {
    code: '0A000',
    reason: 'mz_ssh_tunnel_connections gives the public keys of the key pair Materialize makes for each SSH tunnel; none is made here (it is the data plane secret store\'s to make), so there is no true answer',
  },
  'tf.read.connection.privatelink': { code: '0A000', reason: 'mz_aws_privatelink_connections gives the AWS principal the data plane connects as, which the control plane does not know' },
  'tf.read.source_reference': {
    code: '0A000',
    reason: "mz_source_references lists every table an upstream offers, read from it at purification and REFRESH REFERENCES; the catalog keeps only those a source exports",
  },
  'dbt.deploy.is_cluster_ready': {
    code: '0A000',
    reason: 'it reads hydration, lag and replica history (mz_hydration_statuses, mz_wallclock_global_lag, mz_cluster_replica_status_history, mz_now()): the data plane introspects those, the catalog does not have them',
  },
};

let p: Pipeline;
let tenant: string;
let password: string;

beforeAll(async () => {
  // As `npm start` serves them: the SQL engine started with the server, on its own thread.
  p = await testPipeline('pgwire-corpus', { workers: false, pgPort: 0, pgEngineAtStart: true });
  ({ tenant, password } = await sqlClient(p));
  // What the statements name and no client in the corpus creates: a fresh Materialize's default
  // cluster, dbt's production cluster and the Kafka connection its sink model names, and the
  // objects psql is pointed at.
  const c = await connect();
  try {
    for (const stmt of [
      "CREATE CLUSTER quickstart (SIZE = '25cc')",
      "CREATE CLUSTER dbt_prod (SIZE = '25cc')",
      "CREATE CONNECTION materialize.public.dbt_kafka TO KAFKA (BROKER 'localhost:9092', SECURITY PROTOCOL = 'PLAINTEXT')",
      'CREATE TABLE psql_t (a int, b text NOT NULL)',
      'CREATE VIEW psql_v AS SELECT a FROM psql_t',
      'CREATE MATERIALIZED VIEW psql_mv AS SELECT a, count(*) AS n FROM psql_t GROUP BY a',
      'CREATE INDEX psql_t_idx ON psql_t (a)',
    ]) {
      await c.query(stmt);
    }
  } finally {
    await c.end();
  }
});
afterAll(async () => {
  await p?.stop();
});

/** How each client connects: dbt-materialize sets its session options at startup (connections.py). */
const OPTIONS: Readonly<Record<string, string>> = {
  'dbt-materialize': '--auto_route_catalog_queries=on --welcome_message=off --current_object_missing_warnings=off',
};

async function connect(client = ''): Promise<pg.Client & { tags: string[] }> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: p.pgPort!,
    user: 'materialize',
    database: 'materialize',
    password,
    options: `--tenant=${tenant} ${OPTIONS[client] ?? '--welcome_message=off'}`,
  }) as pg.Client & { tags: string[] };
  c.tags = [];
  await c.connect();
  (c as unknown as { connection: NodeJS.EventEmitter }).connection.on('commandComplete', (m: { text: string }) => c.tags.push(m.text));
  return c;
}

/** The id or OID a placeholder stands for, read back as the client reads it. */
async function resolvePlaceholders(c: pg.Client, sql: string): Promise<string> {
  const lookups: Record<string, (parts: string[]) => [string, string[]]> = {
    cluster: ([n]) => ['SELECT id FROM mz_clusters WHERE name = $1', [n!]],
    replica: ([cl, r]) => ['SELECT r.id FROM mz_cluster_replicas r JOIN mz_clusters c ON c.id = r.cluster_id WHERE c.name = $1 AND r.name = $2', [cl!, r!]],
    database: ([n]) => ['SELECT id FROM mz_databases WHERE name = $1', [n!]],
    schema: ([d, s]) => ['SELECT s.id FROM mz_schemas s JOIN mz_databases d ON d.id = s.database_id WHERE d.name = $1 AND s.name = $2', [d!, s!]],
    role: ([n]) => ['SELECT id FROM mz_roles WHERE name = $1', [n!]],
    item: ([d, s, n]) => [
      'SELECT o.id FROM mz_objects o JOIN mz_schemas s ON s.id = o.schema_id JOIN mz_databases d ON d.id = s.database_id WHERE d.name = $1 AND s.name = $2 AND o.name = $3',
      [d!, s!, n!],
    ],
  };
  let out = sql;
  for (const m of sql.matchAll(/\{\{(id:(\w+)|oid):([\w.]+)\}\}/g)) {
    const parts = m[3]!.split('.');
    const [q, values] = m[2] ? lookups[m[2]]!(parts) : ['SELECT c.oid::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2', parts.slice(1)];
    const r = await c.query(q, values);
    if (r.rows.length !== 1) throw new Error(`${m[0]} names nothing (the statement that creates it did not run)`);
    out = out.replace(m[0], String(Object.values(r.rows[0])[0]));
  }
  return out.replaceAll('{{pid}}', String((c as unknown as { processID: number }).processID));
}

/** Materialize's columns of a system relation (builtin.rs), by `schema.name`. */
const materializeColumns = (q: string): string[] => (MATERIALIZE_SYSTEM_RELATIONS[q] ?? '').split(' ').slice(1);

const expectedColumns = (e: Entry): string[] => e.expected.flatMap((c) => (c.endsWith('.*') ? materializeColumns(c.slice(0, -2)) : [c]));

interface Outcome {
  readonly id: string;
  readonly problem: string;
}

/**
 * Replays one client's statements in order on one connection, as the client sends them: the
 * provider through pgx's prepared statements (extended protocol), dbt (psycopg2) and psql as
 * simple queries. Returns what went otherwise than expected.
 */
async function replay(client: string, entries: readonly Entry[]): Promise<{ problems: Outcome[]; served: number; refused: number }> {
  const c = await connect(client);
  const problems: Outcome[] = [];
  let served = 0;
  let refused = 0;
  try {
    for (const [k, e] of entries.entries()) {
      const refusal = EXPECTED_REFUSALS[e.id];
      let sql: string;
      try {
        sql = await resolvePlaceholders(c, e.sql);
      } catch (err) {
        problems.push({ id: e.id, problem: (err as Error).message });
        continue;
      }
      c.tags = [];
      const params = await Promise.all(e.params.map((x) => resolvePlaceholders(c, x)));
      const extended = client === 'terraform';
      let result: pg.QueryResult | undefined;
      let error: (Error & { code?: string }) | undefined;
      try {
        result = extended ? await c.query({ name: `tf_${k}`, text: sql, values: params }) : await c.query(sql);
      } catch (err) {
        error = err as Error & { code?: string };
        // A block that failed stays open until the client rolls it back (psycopg2 and pgx do).
        await c.query('ROLLBACK').catch(() => undefined);
      }
      if (refusal) {
        if (!error) problems.push({ id: e.id, problem: `listed as refused (${refusal.reason}) but it succeeded: take it off EXPECTED_REFUSALS` });
        else if (error.code !== refusal.code) problems.push({ id: e.id, problem: `refused with ${error.code} ${error.message}, not ${refusal.code} (${refusal.reason})` });
        else refused++;
        continue;
      }
      if (e.expectedError) {
        if (error?.code !== e.expectedError) problems.push({ id: e.id, problem: `Materialize answers ${e.expectedError}; got ${error ? `${error.code} ${error.message}` : 'success'}` });
        else served++;
        continue;
      }
      if (error) {
        problems.push({ id: e.id, problem: `${error.code} ${error.message}` });
        continue;
      }
      if (e.kind === 'ddl') {
        if (JSON.stringify(c.tags) !== JSON.stringify(e.expected)) problems.push({ id: e.id, problem: `answered ${JSON.stringify(c.tags)}, Materialize answers ${JSON.stringify(e.expected)}` });
        else served++;
      } else {
        const names = (Array.isArray(result) ? result.at(-1) : result)!.fields.map((f: pg.FieldDef) => f.name);
        const want = expectedColumns(e);
        if (JSON.stringify(names) !== JSON.stringify(want)) problems.push({ id: e.id, problem: `columns ${JSON.stringify(names)}, the client reads ${JSON.stringify(want)}` });
        else served++;
      }
    }
  } finally {
    await c.end();
  }
  return { problems, served, refused };
}

const byClient = (...clients: string[]) => CORPUS.filter((e) => clients.includes(e.client));

describe('the corpus', () => {
  it('holds each client with its source, and names only statements it has in EXPECTED_REFUSALS', () => {
    const ids = new Set(CORPUS.map((e) => e.id));
    expect(ids.size).toBe(CORPUS.length);
    expect(Object.keys(EXPECTED_REFUSALS).filter((id) => !ids.has(id))).toEqual([]);
    for (const client of ['terraform', 'dbt-materialize', 'dbt-postgres', 'psql']) expect(byClient(client).length, client).toBeGreaterThan(5);
    for (const e of CORPUS) expect(e.file, e.id).toMatch(/\.(go|sql|py|c)$/);
  });

  it("answers Materialize's columns for every system relation the clients read", async () => {
    const text = CORPUS.map((e) => e.sql).join('\n');
    const named = SYSTEM_RELATIONS.filter((r) => materializeColumns(`${r.schema}.${r.name}`).length && new RegExp(`\\b${r.name}\\b`).test(text));
    expect(named.length).toBeGreaterThan(30);
    const c = await connect();
    try {
      const wrong: string[] = [];
      for (const r of named) {
        const got = (await c.query(`SELECT * FROM ${r.schema}.${r.name} LIMIT 0`)).fields.map((f) => f.name);
        const want = materializeColumns(`${r.schema}.${r.name}`);
        if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${r.schema}.${r.name}: ${got.join(' ')} (Materialize: ${want.join(' ')})`);
      }
      expect(wrong).toEqual([]);
    } finally {
      await c.end();
    }
  });
});

describe('replayed over pgwire', () => {
  it('the Terraform provider: its DDL as Materialize answers it, its reads with the columns it scans', async () => {
    const { problems, served, refused } = await replay('terraform', byClient('terraform'));
    expect(problems, JSON.stringify(problems, null, 1)).toEqual([]);
    expect(served + refused).toBe(byClient('terraform').length);
  });

  it('dbt-materialize (and the dbt-postgres macros it inherits), connected with its session options', async () => {
    const entries = byClient('dbt-materialize', 'dbt-postgres');
    const { problems, served, refused } = await replay('dbt-materialize', CORPUS.filter((e) => entries.includes(e)));
    expect(problems, JSON.stringify(problems, null, 1)).toEqual([]);
    expect(served + refused).toBe(entries.length);
  });

  it("psql's describe queries, replayed", async () => {
    const { problems, served, refused } = await replay('psql', byClient('psql'));
    expect(problems, JSON.stringify(problems, null, 1)).toEqual([]);
    expect(served + refused).toBe(byClient('psql').length);
  });

  it('psql itself: each meta-command sends the corpus queries and prints its table, or fails where Materialize fails too', async () => {
    const { stdout: version } = await run('psql', ['--version']);
    // The corpus holds what psql 15 sends (its queries depend on psql's version).
    expect(version).toMatch(/\(PostgreSQL\) 15\./);
    const commands = [...new Set(byClient('psql').map((e) => /\((\\[^)]+)\)$/.exec(e.fn)![1]!))];
    const c = await connect();
    const oid = await resolvePlaceholders(c, '{{oid:materialize.public.psql_t}}');
    await c.end();
    const problems: string[] = [];
    for (const cmd of commands) {
      const entries = byClient('psql').filter((e) => e.fn.endsWith(`(${cmd})`));
      // psql stops at the first query that fails: refused here, or failing in Materialize too.
      const fails = entries.some((e) => EXPECTED_REFUSALS[e.id] || e.expectedError);
      const child = await run('psql', ['-X', '-E', '-v', 'ON_ERROR_STOP=1', `host=127.0.0.1 port=${p.pgPort} user=materialize dbname=materialize options='--tenant=${tenant} --welcome_message=off'`, '-c', cmd], {
        env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '20' },
      }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      const sent = [...child.stdout.matchAll(/\*{9} QUERY \*{10}\n([\s\S]*?)\n\*{26}/g)].map((m) => m[1]!.split(/\s+/).join(' ').trim());
      const want = entries.map((e) => e.sql.replace('{{oid:materialize.public.psql_t}}', oid));
      if (JSON.stringify(sent) !== JSON.stringify(want)) problems.push(`${cmd}: psql sent ${JSON.stringify(sent)}`);
      if (fails ? child.code === 0 : child.code !== 0) problems.push(`${cmd}: exit ${child.code} ${child.stderr.trim()}`);
    }
    expect(problems).toEqual([]);
  });
});
