// The SQL engine on a worker thread (shared/api/engine-worker.ts) answers as the engine on the
// calling thread does, is sent each table's rows only when it does not hold them, and fails
// cleanly once closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerEngineHost } from '../../shared/api/engine-worker';
import { PgliteHost, type Load, type RunRequest } from '../../shared/pglite/host';
import { engineSchemaSql, engineTable, systemRelation } from '../../shared/system/registry';

const clusters = engineTable(systemRelation('mz_catalog', 'mz_clusters')!);

let worker: WorkerEngineHost;
let inThread: PgliteHost;
beforeAll(async () => {
  [worker, inThread] = await Promise.all([WorkerEngineHost.open(), PgliteHost.open({ schemaSql: engineSchemaSql() })]);
}, 240_000);
afterAll(async () => {
  await Promise.all([worker?.close(), inThread?.close()]);
});

const session = { user: 'materialize', database: 'materialize', settings: {} };
const request = (sql: string, loads: Load[], params: (Buffer | null)[] = []): RunRequest => ({
  sql,
  paramTypes: params.map(() => 25),
  params,
  paramFormats: [],
  resultFormats: [],
  session,
  loads,
  maxRows: 100,
});

/** A load of `names` as clusters, counting how often its rows are asked for. */
function clusterLoad(key: string, names: string[]): Load & { asked: number } {
  const l = {
    table: clusters,
    key,
    asked: 0,
    json: () => {
      l.asked++;
      return JSON.stringify(names.map((name, k) => ({ id: `u${k + 1}`, name })));
    },
  };
  return l;
}

describe('the SQL engine on a worker thread', () => {
  it('answers a query with parameters exactly as the engine on the calling thread', async () => {
    const sql = `SELECT name, length(name) AS n FROM ${clusters} WHERE name <> $1 ORDER BY name`;
    const [a, b] = await Promise.all([
      worker.run(request(sql, [clusterLoad('v1', ['alpha', 'beta', 'gamma'])], [Buffer.from('beta')])),
      inThread.run(request(sql, [clusterLoad('v1', ['alpha', 'beta', 'gamma'])], [Buffer.from('beta')])),
    ]);
    expect(a.ok).toBe(true);
    expect(a).toEqual(b);
    if (!a.ok) return;
    expect(Buffer.isBuffer(a.rows)).toBe(true);
    expect(a.rowCount).toBe(2);
    expect(a.rows.toString('latin1')).toContain('alpha');
    expect(a.rows.toString('latin1')).not.toContain('beta');
  });

  it("is sent a table's rows only when it does not hold that table's key, and reloads on a new key", async () => {
    const first = clusterLoad('w1', ['one', 'two']);
    const r1 = await worker.run(request(`SELECT count(*) FROM ${clusters}`, [first]));
    const again = clusterLoad('w1', ['ignored']);
    const r2 = await worker.run(request(`SELECT count(*) FROM ${clusters}`, [again]));
    const next = clusterLoad('w2', ['one', 'two', 'three']);
    const r3 = await worker.run(request(`SELECT count(*) FROM ${clusters}`, [next]));
    expect([first.asked, again.asked, next.asked]).toEqual([1, 0, 1]);
    const count = (r: typeof r1) => (r.ok ? r.rows.subarray(11).toString('latin1') : r.error.message);
    expect([count(r1), count(r2), count(r3)]).toEqual(['2', '2', '3']);
  });

  it("answers PostgreSQL's error as a result, with its SQLSTATE and position, and goes on serving", async () => {
    const r = await worker.run(request(`SELECT nosuchcolumn FROM ${clusters}`, []));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('42703');
      expect(r.error.position).toBeDefined();
    }
    const ok = await worker.run(request('SELECT 1', []));
    expect(ok.ok).toBe(true);
  });

  it('serves runs sent together one at a time, each with its own answer', async () => {
    const rs = await Promise.all(Array.from({ length: 8 }, (_, k) => worker.run(request(`SELECT ${k} + 0`, []))));
    expect(rs.map((r) => (r.ok ? r.rows.subarray(11).toString('latin1') : r.error.message))).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
  });

  it('starts a new worker after one dies, and sends it every table again', async () => {
    const w = await WorkerEngineHost.open();
    try {
      const before = clusterLoad('k1', ['a', 'b']);
      expect((await w.run(request(`SELECT count(*) FROM ${clusters}`, [before]))).ok).toBe(true);
      await w.kill();
      const after = clusterLoad('k1', ['a', 'b']);
      const r = await w.run(request(`SELECT count(*) FROM ${clusters}`, [after]));
      expect(r.ok && r.rows.subarray(11).toString('latin1')).toBe('2');
      expect([before.asked, after.asked, w.restarts]).toEqual([1, 1, 1]);
    } finally {
      await w.close();
    }
  }, 240_000);

  it('refuses runs once closed, with an error that says so', async () => {
    const w = await WorkerEngineHost.open();
    await w.close();
    await expect(w.run(request('SELECT 1', []))).rejects.toThrow(/worker exited/);
  }, 240_000);
});
