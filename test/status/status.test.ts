/**
 * Connector lifecycle, driven by the reference data plane's reports through the status queue:
 * created → starting → running, stalled with the error, failed (sticky), paused without
 * replicas, dropped; history rows written once however often a report is delivered; dependents
 * show a failing upstream and reading them answers the upstream's error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import type { ConnectionProbeInput, Prober, ProbeResult } from '../../shared/probes/types';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

/** Upstream answers scripted per host (the real probes have their own tests against real servers). */
class HostProber implements Prober {
  readonly answers = new Map<string, ProbeResult>();
  private answer(conn: ConnectionProbeInput): ProbeResult {
    return this.answers.get(conn.options.HOST ?? conn.options.BROKER ?? '') ?? { ok: true, namespace: 'postgres' };
  }
  async probeConnection(conn: ConnectionProbeInput) {
    return this.answer(conn);
  }
  async probeSource(conn: ConnectionProbeInput) {
    return this.answer(conn);
  }
  async probeSink(conn: ConnectionProbeInput) {
    return this.answer(conn);
  }
}

const prober = new HostProber();
let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('status', { prober });
});
afterAll(async () => {
  await p.stop();
});

async function settled(tenant: string): Promise<void> {
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
}

async function status(sql: SqlClient, name: string): Promise<{ status: string; error: string | null; details: any }> {
  const r = await sql(`SELECT status, error, details FROM mz_internal.mz_source_statuses WHERE name = '${name}'`);
  const [row] = r.body.results[0].rows;
  return { status: row[0], error: row[1], details: row[2] ?? null };
}

async function history(sql: SqlClient, id: string): Promise<string[]> {
  const r = await sql(`SELECT status FROM mz_internal.mz_source_status_history WHERE source_id = '${id}' ORDER BY occurred_at`);
  return r.body.results[0].rows.map((x: any[]) => x[0]);
}

async function idOf(sql: SqlClient, name: string): Promise<string> {
  return (await sql(`SELECT id FROM mz_sources WHERE name = '${name}'`)).body.results[0].rows[0][0];
}

describe('connector statuses', () => {
  it('go created → starting → running, stall with the data plane’s error, and recover', async () => {
    const { sql, tenant } = await sqlClient(p);
    // Read in the request that creates it: with the workers running, a later read may already see it starting.
    const created = await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE counter IN CLUSTER c FROM LOAD GENERATOR COUNTER; SELECT status, error FROM mz_internal.mz_source_statuses WHERE name = 'counter'");
    expect(created.body.results[2].rows).toEqual([['created', null]]);
    await settled(tenant);
    await p.reportHealth();
    expect(await status(sql, 'counter')).toMatchObject({ status: 'running', error: null });
    const id = await idOf(sql, 'counter');

    await p.dataPlane.setHealth(tenant, 'ingestion', id, { healthy: false, error: 'load-generator: tick missed' });
    await p.reportHealth();
    expect(await status(sql, 'counter')).toMatchObject({ status: 'stalled', error: 'load-generator: tick missed' });
    await p.dataPlane.setHealth(tenant, 'ingestion', id, { healthy: true });
    await p.reportHealth();
    expect(await status(sql, 'counter')).toMatchObject({ status: 'running' });
    expect(await history(sql, id)).toEqual(['created', 'starting', 'running', 'stalled', 'running']);

    await sql('DROP SOURCE counter');
    expect(await history(sql, id)).toEqual(['created', 'starting', 'running', 'stalled', 'running', 'dropped']);
  });

  it('pause without replicas, and say why', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER z (SIZE = '25cc', REPLICATION FACTOR = 0); CREATE SOURCE idle IN CLUSTER z FROM LOAD GENERATOR COUNTER");
    await settled(tenant);
    await p.reportHealth();
    expect(await status(sql, 'idle')).toEqual({ status: 'paused', error: null, details: { hints: ['There is currently no replica running this source'] } });
    await sql("ALTER CLUSTER z SET (REPLICATION FACTOR = 1)");
    await settled(tenant);
    await p.reportHealth();
    expect((await status(sql, 'idle')).status).toBe('running');
  });

  it('stall on a transient upstream error and fail on a definite one (sticky); dependents show it and reading them errors', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql(
      [
        "CREATE CLUSTER c (SIZE = '25cc')",
        "CREATE SECRET pw AS 'pw'",
        "CREATE CONNECTION pg TO POSTGRES (HOST 'pg.status.test', USER 'u', PASSWORD SECRET pw, DATABASE 'd') WITH (VALIDATE = false)",
        "CREATE SOURCE shop IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR TABLES (public.orders AS orders)",
        'CREATE VIEW big_orders AS SELECT * FROM orders',
      ].join('; '),
    );
    await settled(tenant);
    await p.reportHealth();
    expect((await status(sql, 'shop')).status).toBe('running');

    prober.answers.set('pg.status.test', { ok: false, namespace: 'postgres', error: 'error connecting to server: Connection refused (os error 111)' });
    await p.reportHealth();
    expect(await status(sql, 'shop')).toMatchObject({ status: 'stalled', error: 'postgres: error connecting to server: Connection refused (os error 111)' });
    expect((await status(sql, 'orders')).status).toBe('stalled');
    const deps = await sql("SELECT name, status, upstream_name FROM mz_internal.mz_dependency_statuses WHERE name = 'big_orders'");
    expect(deps.body.results[0].rows).toEqual([['big_orders', 'stalled', 'shop']]);
    const read = await sql('SELECT * FROM big_orders');
    expect(read.body.results[0].error.message).toBe('cannot read big_orders: source shop is stalled: postgres: error connecting to server: Connection refused (os error 111)');

    prober.answers.set('pg.status.test', { ok: false, namespace: 'postgres', error: 'publication "mz" does not exist', fatal: true, hint: 'CREATE PUBLICATION mz FOR ALL TABLES' });
    await p.reportHealth();
    expect(await status(sql, 'shop')).toEqual({
      status: 'failed',
      error: 'postgres: publication "mz" does not exist',
      details: { hints: ['CREATE PUBLICATION mz FOR ALL TABLES'], namespaced: { postgres: 'publication "mz" does not exist' } },
    });
    // Failed stays failed until the user acts, even once the upstream is back.
    prober.answers.delete('pg.status.test');
    await p.reportHealth();
    expect((await status(sql, 'shop')).status).toBe('failed');
    expect((await sql('SELECT * FROM big_orders')).body.results[0].error).toMatchObject({ hint: 'CREATE PUBLICATION mz FOR ALL TABLES' });
  });

  it('reach running when the ingestion is applied, without a sweep or a health round', async () => {
    const { sql } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE a IN CLUSTER c FROM LOAD GENERATOR COUNTER; CREATE SOURCE b IN CLUSTER c FROM LOAD GENERATOR COUNTER");
    for (const name of ['a', 'b']) await eventually(async () => (await status(sql, name)).status === 'running', 15_000);
    await Promise.all([p.reportHealth(), p.reportHealth(), p.reportHealth()]);
    for (const name of ['a', 'b']) expect(await history(sql, await idOf(sql, name))).toEqual(['created', 'starting', 'running']);
  });

  it('a terminal data-plane error on the ingestion fails the source with the error', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc')");
    await settled(tenant);
    // The source's collection succeeds, the ingestion after it (same FIFO group) fails for good.
    p.faults.failAfter(1, 1, 'terminal', 'load-generator: generator COUNTER needs a larger replica');
    await sql('CREATE SOURCE ticks IN CLUSTER c FROM LOAD GENERATOR COUNTER');
    await settled(tenant);
    expect(await status(sql, 'ticks')).toMatchObject({ status: 'failed', error: 'load-generator: generator COUNTER needs a larger replica' });
    // It stays failed: the user has to act.
    await p.reportHealth();
    expect((await status(sql, 'ticks')).status).toBe('failed');
  });
});

describe('purification', () => {
  it('checks a new connection and source against the upstream before commit; a failure commits nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE SECRET pw AS 'pw'");
    await settled(tenant);
    const before = await tenantItems(p, tenant);

    prober.answers.set('down.purify.test', { ok: false, namespace: 'postgres', error: 'error connecting to server: Connection refused (os error 111)' });
    const down = await sql("CREATE CONNECTION pg TO POSTGRES (HOST 'down.purify.test', USER 'u', PASSWORD SECRET pw)");
    expect(down.status).toBe(400);
    expect(down.body.results.at(-1).error).toMatchObject({ code: '08001', message: 'postgres: error connecting to server: Connection refused (os error 111)' });
    expect(await tenantItems(p, tenant)).toEqual(before);

    // Skipping validation commits; the source's own check then refuses a missing publication.
    expect((await sql("CREATE CONNECTION pg TO POSTGRES (HOST 'nopub.purify.test', USER 'u', PASSWORD SECRET pw)")).status).toBe(200);
    prober.answers.set('nopub.purify.test', { ok: false, namespace: 'postgres', error: 'publication "mz" does not exist', fatal: true, hint: 'CREATE PUBLICATION mz FOR ALL TABLES' });
    const src = await sql("CREATE SOURCE s IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR ALL TABLES");
    expect(src.body.results.at(-1).error).toMatchObject({ code: '08000', message: 'postgres: publication "mz" does not exist', hint: 'CREATE PUBLICATION mz FOR ALL TABLES' });
    expect((await sql('SHOW SOURCES')).body.results[0].rows).toEqual([]);
    prober.answers.delete('nopub.purify.test');
    expect((await sql("CREATE SOURCE s IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR ALL TABLES")).status).toBe(200);
  });

  it("checks a source's and a sink's upstream even on a connection made WITH (VALIDATE = false), as Materialize's purification does", async () => {
    const { sql, tenant } = await sqlClient(p);
    prober.answers.set('unchecked.purify.test', { ok: false, namespace: 'postgres', error: 'error connecting to server: Connection refused (os error 111)' });
    prober.answers.set('unchecked-broker.purify.test:9092', { ok: false, namespace: 'kafka', error: 'Meta data fetch error: BrokerTransportFailure (Local: Broker transport failure)' });
    const setup = await sql(
      [
        "CREATE CLUSTER c (SIZE = '25cc')",
        "CREATE SECRET pw AS 'pw'",
        "CREATE TABLE t (a int)",
        // VALIDATE = false skips the connection's own check: these commit.
        "CREATE CONNECTION pg TO POSTGRES (HOST 'unchecked.purify.test', USER 'u', PASSWORD SECRET pw) WITH (VALIDATE = false)",
        "CREATE CONNECTION k TO KAFKA (BROKER 'unchecked-broker.purify.test:9092', SECURITY PROTOCOL PLAINTEXT) WITH (VALIDATE = false)",
      ].join('; '),
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    await settled(tenant);
    const before = await tenantItems(p, tenant);
    // A source reads its publication from the upstream whatever the connection said (pure.rs connects).
    const src = await sql("CREATE SOURCE s IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR ALL TABLES");
    expect(src.body.results.at(-1).error).toMatchObject({ code: '08001', message: 'postgres: error connecting to server: Connection refused (os error 111)' });
    // A Kafka sink connects to the brokers before it commits.
    const sink = await sql("CREATE SINK k_sink IN CLUSTER c FROM t INTO KAFKA CONNECTION k (TOPIC 'out') FORMAT JSON ENVELOPE DEBEZIUM");
    expect(sink.body.results.at(-1).error).toMatchObject({ code: '08001', message: expect.stringMatching(/^kafka: /) });
    expect(await tenantItems(p, tenant)).toEqual(before);
    prober.answers.delete('unchecked.purify.test');
    prober.answers.delete('unchecked-broker.purify.test:9092');
  });
});
