/**
 * RETAIN HISTORY through the local pipeline, for each kind that takes it: a table's, a source's
 * and a materialized view's is their collection's read policy on the data plane, an index's its
 * dataflow's (the arrangement's). It is set at CREATE and moved by ALTER ... SET / RESET, each a
 * new generation of the object's resources: a source's ingestion runs again, and a materialized
 * view's dataflow is ensured again with its collection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import type { ObservedResource } from '../../shared/dataplane/contract';
import { FaultInjector } from '../../shared/dataplane/faults';
import { settledDataPlane } from '../helpers/catalog';
import { eventually, ok, rows, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

let running: Pipeline | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(): Promise<{ p: Pipeline; sql: SqlClient; tenant: string }> {
  const p = (running = await testPipeline('retain', { faults: new FaultInjector() }));
  return { p, ...(await sqlClient(p)) };
}

/** Once every effect settled: the resources `name` owns, as `kind@generation` with the read policy's lag where there is one. */
async function owned(p: Pipeline, tenant: string, name: string): Promise<string[]> {
  const lag = (r: ObservedResource) => (r.readPolicy?.kind === 'lag' ? ` lag ${r.readPolicy.lagMs}` : '');
  return (await settledDataPlane(p, tenant))
    .filter((r) => r.owner?.objectName === name)
    .map((r) => `${r.kind}@${r.generation}${lag(r)}`)
    .sort();
}

/** The object's row in mz_internal.mz_history_retention_strategies (value is jsonb, a bare number: a string in HTTP answers, as Materialize's). */
async function strategy(sql: SqlClient, relation: string, name: string): Promise<unknown[]> {
  const [id] = (await rows(sql, `SELECT id FROM ${relation} WHERE name = '${name}'`))[0]!;
  return (await rows(sql, `SELECT strategy, value FROM mz_internal.mz_history_retention_strategies WHERE id = '${id}'`))[0]!;
}

describe('RETAIN HISTORY', () => {
  it("a table's is its collection's read policy, set at CREATE and moved by ALTER ... SET / RESET", async () => {
    const { p, sql, tenant } = await start();
    await ok(sql, "CREATE TABLE t (a int) WITH (RETAIN HISTORY FOR '2s')");
    expect(await owned(p, tenant, 't')).toEqual(['collection@1 lag 2000']);
    await ok(sql, "ALTER TABLE t SET (RETAIN HISTORY = FOR '1h')");
    expect(await owned(p, tenant, 't')).toEqual(['collection@2 lag 3600000']);
    expect(await strategy(sql, 'mz_tables', 't')).toEqual(['FOR', '3600000']);
    const low = await sql("ALTER TABLE t SET (RETAIN HISTORY FOR '10ms')");
    expect(low.body.results[0].error).toMatchObject({ code: '22023', message: 'RETAIN HISTORY cannot be set lower than 1000ms' });
    await ok(sql, 'ALTER TABLE t RESET (RETAIN HISTORY)');
    expect(await owned(p, tenant, 't')).toEqual(['collection@3 lag 1000']);
  });

  it("a source's is its collection's read policy; each ALTER ensures its ingestion again, which starts again", async () => {
    const { p, sql, tenant } = await start();
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE s IN CLUSTER c FROM LOAD GENERATOR COUNTER WITH (RETAIN HISTORY FOR '2s')");
    expect(await owned(p, tenant, 's')).toEqual(['collection@1 lag 2000', 'ingestion@1']);
    const [id] = (await rows(sql, "SELECT id FROM mz_sources WHERE name = 's'"))[0]!;
    const history = async () => (await rows(sql, `SELECT status FROM mz_internal.mz_source_status_history WHERE source_id = '${id}' ORDER BY occurred_at`)).flat();
    const isRunning = async () => (await rows(sql, "SELECT status FROM mz_internal.mz_source_statuses WHERE name = 's'"))[0]?.[0] === 'running';
    await eventually(isRunning, 15_000);
    const before = (await history()).length;

    await ok(sql, "ALTER SOURCE s SET (RETAIN HISTORY = FOR '1h')");
    expect(await owned(p, tenant, 's')).toEqual(['collection@2 lag 3600000', 'ingestion@2']);
    expect(await strategy(sql, 'mz_sources', 's')).toEqual(['FOR', '3600000']);
    // The ingestion's new generation goes through starting again, then runs.
    await eventually(async () => (await isRunning()) && (await history()).length >= before + 2, 15_000);
    expect((await history()).slice(before)).toEqual(['starting', 'running']);

    await ok(sql, 'ALTER SOURCE s RESET (RETAIN HISTORY)');
    expect(await owned(p, tenant, 's')).toEqual(['collection@3 lag 1000', 'ingestion@3']);
    expect(await strategy(sql, 'mz_sources', 's')).toEqual(['FOR', '1000']);
  });

  it("a subsource's is its own collection's read policy; the source's ingestion keeps its generation", async () => {
    const { p, sql, tenant } = await start();
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE a IN CLUSTER c FROM LOAD GENERATOR AUCTION FOR ALL TABLES");
    expect(await owned(p, tenant, 'bids')).toEqual(['collection@1 lag 1000']);
    await ok(sql, "ALTER SOURCE bids SET (RETAIN HISTORY = FOR '1h')");
    expect(await owned(p, tenant, 'bids')).toEqual(['collection@2 lag 3600000']);
    expect(await owned(p, tenant, 'a')).toEqual(['collection@1 lag 1000', 'ingestion@1']);
    expect(await strategy(sql, 'mz_sources', 'bids')).toEqual(['FOR', '3600000']);
  });

  it("an index's is its dataflow's read policy (the arrangement's); the indexed table's collection keeps its own", async () => {
    const { p, sql, tenant } = await start();
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE TABLE t (a int); CREATE INDEX i IN CLUSTER c ON t (a) WITH (RETAIN HISTORY FOR '1h')");
    expect(await owned(p, tenant, 'i')).toEqual(['dataflow@1 lag 3600000']);
    await ok(sql, "ALTER INDEX i SET (RETAIN HISTORY FOR '2h')");
    expect(await owned(p, tenant, 'i')).toEqual(['dataflow@2 lag 7200000']);
    expect(await owned(p, tenant, 't')).toEqual(['collection@1 lag 1000']);
    expect(await strategy(sql, 'mz_indexes', 'i')).toEqual(['FOR', '7200000']);
    await ok(sql, 'ALTER INDEX i RESET (RETAIN HISTORY)');
    expect(await owned(p, tenant, 'i')).toEqual(['dataflow@3 lag 1000']);
  });

  it("a materialized view's is its collection's read policy; its dataflow is ensured again at each new generation", async () => {
    const { p, sql, tenant } = await start();
    await ok(sql, "CREATE CLUSTER c (SIZE = '25cc'); CREATE MATERIALIZED VIEW mv IN CLUSTER c WITH (RETAIN HISTORY FOR '1h') AS SELECT 1");
    expect(await owned(p, tenant, 'mv')).toEqual(['collection@1 lag 3600000', 'dataflow@1']);
    await ok(sql, "ALTER MATERIALIZED VIEW mv SET (RETAIN HISTORY = FOR '30m')");
    expect(await owned(p, tenant, 'mv')).toEqual(['collection@2 lag 1800000', 'dataflow@2']);
    expect(await strategy(sql, 'mz_materialized_views', 'mv')).toEqual(['FOR', '1800000']);
    await ok(sql, 'ALTER MATERIALIZED VIEW mv RESET (RETAIN HISTORY)');
    expect(await owned(p, tenant, 'mv')).toEqual(['collection@3 lag 1000', 'dataflow@3']);
  });
});
