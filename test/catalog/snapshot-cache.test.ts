/**
 * The per-process catalog snapshot cache: two API instances (two warm Lambdas) share one tenant.
 * Whatever one changes, the other must answer as if it had read the table — its stale snapshot may
 * cost it a replan, never a wrong answer: no "does not exist, skipping" for an object that exists,
 * no 42P01 for a table created elsewhere, no listing that misses it. And a warm instance that is
 * alone commits a DDL statement in exactly one DynamoDB call.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { tenantItems } from '../helpers/catalog';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('snapcache', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });

/** One API instance with its own store (and cache), counting the DynamoDB calls it makes. */
function instance() {
  const calls: string[] = [];
  const doc = {
    send: (cmd: { constructor: { name: string } }) => {
      calls.push(cmd.constructor.name);
      return p.clients.doc.send(cmd as never);
    },
  } as unknown as DynamoDBDocumentClient;
  const store = new CatalogStore(doc, p.config.catalogTable);
  const api = new SqlApi({ store, logger, secrets: p.secrets });
  const run = async (query: string) => {
    const r = await api.handle(tenant, 'tester', JSON.stringify({ query }), 'application/json');
    return { status: r.status, results: (r.body as { results: any[] }).results };
  };
  return { run, calls, store };
}

let tenant: string;
async function newTenant(): Promise<void> {
  tenant = `cache${Math.random().toString(36).slice(2, 8)}`;
  await p.passwords.create(tenant);
}

const tableNames = async (run: ReturnType<typeof instance>['run']) => ((await run('SHOW TABLES')).results[0].rows as string[][]).map((r) => r[0]).sort();

describe('two instances, each with its cached snapshot', () => {
  it('answers from what the other committed, never from its stale snapshot', async () => {
    await newTenant();
    const a = instance();
    const b = instance();
    expect((await a.run('CREATE TABLE a (x int)')).status).toBe(200); // a's cache is warm
    expect((await b.run('CREATE TABLE t (x int)')).status).toBe(200);

    // IF EXISTS on an object only the other instance has seen: it exists, so it is dropped.
    const drop = await a.run('DROP TABLE IF EXISTS t');
    expect(drop).toEqual({ status: 200, results: [{ ok: 'DROP TABLE', notices: [] }] });
    expect(await tableNames(b.run)).toEqual(['a']);

    // A listing and a plain DROP see a table created elsewhere.
    expect((await b.run('CREATE TABLE u (x int)')).status).toBe(200);
    expect(await tableNames(a.run)).toEqual(['a', 'u']);
    expect((await b.run('CREATE TABLE u2 (x int)')).status).toBe(200);
    expect(await a.run('DROP TABLE u2')).toEqual({ status: 200, results: [{ ok: 'DROP TABLE', notices: [] }] });

    // IF NOT EXISTS skips what the other created, and the rest of the request commits.
    expect((await b.run('CREATE TABLE w (x int)')).status).toBe(200);
    const both = await a.run('CREATE TABLE IF NOT EXISTS w (x int); CREATE TABLE z (x int)');
    expect(both.status).toBe(200);
    expect(both.results[0].notices.map((n: { message: string }) => n.message).join()).toMatch(/already exists/);
    expect(await tableNames(b.run)).toEqual(['a', 'u', 'w', 'z']);

    // The other instance dropped what this one's snapshot still has: an error, nothing committed.
    expect((await b.run('DROP TABLE a')).status).toBe(200);
    const before = await tenantItems(p, tenant);
    const view = await a.run('CREATE VIEW va AS SELECT * FROM a');
    expect(view.status).toBe(400);
    expect(view.results[0].error.code).toBe('42P01');
    expect(await tenantItems(p, tenant)).toEqual(before);
  });

  it('sees a large (staged) change made by the other instance', async () => {
    await newTenant();
    const a = instance();
    const b = instance();
    expect((await a.run('CREATE TABLE first (x int)')).status).toBe(200);
    const many = Array.from({ length: 60 }, (_, i) => `CREATE TABLE s${i} (x int)`).join('; ');
    expect((await b.run(many)).status).toBe(200); // > 100 items: a staged commit
    expect((await a.run('CREATE TABLE after_staged (x int)')).status).toBe(200);
    const names = await tableNames(b.run);
    expect(names).toHaveLength(62);
    expect(names).toContain('after_staged');
    expect(names).toContain('s59');
  });
});

describe('the loser of a race', () => {
  it('catches up from the change log its refused commit brought back: the refused commit and the commit, nothing read', async () => {
    await newTenant();
    const a = instance();
    const b = instance();
    expect((await a.run('CREATE TABLE warm_a (x int)')).status).toBe(200);
    expect((await b.run('CREATE TABLE warm_b (x int)')).status).toBe(200);
    expect((await a.run('CREATE TABLE warm_a2 (x int)')).status).toBe(200);
    expect((await b.run('CREATE TABLE other (x int); ALTER TABLE warm_a RENAME TO renamed_a')).status).toBe(200);
    a.calls.length = 0;
    const replayed = a.store.logCatchUps;
    expect((await a.run('CREATE TABLE mine (x int)')).status).toBe(200);
    expect(a.calls).toEqual([TransactWriteCommand.name, TransactWriteCommand.name]);
    expect(a.store.logCatchUps).toBe(replayed + 1);
    // What the replay built is what the table holds: the other instance and a fresh read agree.
    expect(await tableNames(a.run)).toEqual(['mine', 'other', 'renamed_a', 'warm_a2', 'warm_b']);
    expect(await tableNames(b.run)).toEqual(['mine', 'other', 'renamed_a', 'warm_a2', 'warm_b']);
    expect((await a.run("SELECT name FROM mz_tables WHERE name = 'renamed_a'")).results[0].rows).toEqual([['renamed_a']]);
  });

  it('reads the objects of the commits its log no longer holds inline, and the transaction records past its oldest entry', async () => {
    await newTenant();
    const a = instance();
    const b = instance();
    expect((await a.run('CREATE TABLE warm_a (x int)')).status).toBe(200);
    // A view body too long to ride inline: its entry is by id, so it is read again.
    const body = `SELECT ${Array.from({ length: 40 }, (_, i) => `x AS column_number_${i}`).join(', ')} FROM warm_a`;
    expect((await b.run(`CREATE VIEW wide AS ${body}`)).status).toBe(200);
    a.calls.length = 0;
    expect((await a.run('CREATE TABLE t1 (x int)')).status).toBe(200);
    expect(a.calls).toEqual([TransactWriteCommand.name, 'BatchGetCommand', TransactWriteCommand.name]);
    // Many commits since: past the log, the transaction records say what changed.
    for (let i = 0; i < 12; i++) expect((await b.run(`CREATE TABLE many${i} (x int)`)).status).toBe(200);
    a.calls.length = 0;
    expect((await a.run('CREATE TABLE t2 (x int)')).status).toBe(200);
    expect(a.calls).toEqual([TransactWriteCommand.name, 'QueryCommand', 'BatchGetCommand', TransactWriteCommand.name]);
    expect(await tableNames(a.run)).toEqual(await tableNames(b.run));
    expect(await tableNames(a.run)).toHaveLength(15);
  });
});

describe('a warm instance alone', () => {
  it('commits each DDL statement in one DynamoDB call, and reads once to confirm a read', async () => {
    await newTenant();
    const a = instance();
    expect((await a.run('CREATE TABLE warmup (x int)')).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      a.calls.length = 0;
      expect((await a.run(`CREATE TABLE w${i} (x int)`)).status).toBe(200);
      expect(a.calls).toEqual([TransactWriteCommand.name]);
    }
    a.calls.length = 0;
    expect(await tableNames(a.run)).toHaveLength(6);
    // One small read confirms the cached snapshot; no full catalog read.
    expect(a.calls).toEqual(['BatchGetCommand']);
  });
});
