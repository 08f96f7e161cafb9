/**
 * `CREATE TABLE ... FROM WEBHOOK` (Materialize's newer form of a webhook source, issue 29): a table
 * fed by a webhook, served end to end through the local pipeline — the catalog (a table, in
 * SHOW TABLES, mz_tables, mz_objects, with the webhook's columns), its effects (a collection and
 * the webhook's ingestion on the data plane, on the session's cluster), SHOW CREATE, the webhook
 * URL in mz_webhook_sources, its CHECK's secrets as dependencies, and DROP TABLE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { eventually, ok, rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('webhook-table');
});
afterAll(async () => {
  await p?.stop();
});

describe('CREATE TABLE ... FROM WEBHOOK', () => {
  it('creates a table fed by a webhook: catalog, data plane, SHOW CREATE, system tables, and DROP TABLE', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CLUSTER quickstart (SIZE = '25cc'); CREATE SECRET hook_key AS 'k'");
    const created = await sql(
      "CREATE TABLE hooks FROM WEBHOOK BODY FORMAT JSON INCLUDE HEADER 'x-event' AS event INCLUDE HEADERS CHECK (WITH (HEADERS, SECRET hook_key AS key) constant_time_eq(headers->'x-signature', key))",
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.results).toEqual([{ ok: 'CREATE TABLE', notices: [] }]);
    expect(await rows(sql, 'SHOW CREATE TABLE hooks')).toEqual([
      [
        'materialize.public.hooks',
        "CREATE TABLE hooks FROM WEBHOOK BODY FORMAT JSON INCLUDE HEADER 'x-event' AS event INCLUDE HEADERS CHECK (WITH (HEADERS, SECRET hook_key AS key) constant_time_eq(headers->'x-signature', key))",
      ],
    ]);
    expect(await rows(sql, 'SHOW TABLES')).toEqual([['hooks', '']]);
    expect(await rows(sql, 'SHOW SOURCES')).toEqual([]);
    expect(await rows(sql, "SELECT type FROM mz_objects WHERE name = 'hooks'")).toEqual([['table']]);
    expect(await rows(sql, 'SHOW COLUMNS FROM hooks')).toEqual([
      ['body', false, 'jsonb', ''],
      ['headers', false, 'map[text=>text]', ''],
      ['event', true, 'text', ''],
    ]);
    const [[id]] = (await rows(sql, "SELECT id FROM mz_tables WHERE name = 'hooks'")) as [[string]];
    expect(await rows(sql, 'SELECT id, name, url FROM mz_internal.mz_webhook_sources')).toEqual([[id, 'hooks', '/api/webhook/materialize/public/hooks']]);
    // The webhook's collection and ingestion, on the session's cluster, with the CHECK's secret.
    const ingestion = await eventually(async () => (await p.dataPlane.observe(tenant)).find((r) => r.kind === 'ingestion' && r.owner?.objectName === 'hooks'), 20_000);
    expect(ingestion.spec).toMatchObject({ connector: { type: 'webhook', options: { 'BODY FORMAT': 'JSON' } } });
    expect(Object.keys((ingestion.spec as { connector: { secretRefs: object } }).connector.secretRefs)).toEqual(['CHECK SECRET key']);
    expect(await eventually(async () => (await p.dataPlane.observe(tenant)).find((r) => r.kind === 'collection' && r.owner?.objectName === 'hooks'), 20_000)).toBeTruthy();
    // The secret is a dependency; IN CLUSTER is not part of the table form (Materialize's grammar).
    expect((await sql('DROP SECRET hook_key')).body.results[0].error.code).toBe('2BP01');
    expect((await sql('CREATE TABLE t2 IN CLUSTER quickstart FROM WEBHOOK BODY FORMAT TEXT')).body.results[0].error.code).toBe('42601');
    expect((await sql('CREATE TABLE hooks FROM WEBHOOK BODY FORMAT TEXT')).body.results[0].error).toMatchObject({ code: '42P07', message: 'table "materialize.public.hooks" already exists' });
    expect((await sql('ALTER TABLE hooks ADD COLUMN x int')).body.results[0].error.code).toBe('0A000');
    await ok(sql, 'DROP TABLE hooks');
    await eventually(async () => !(await p.dataPlane.observe(tenant)).some((r) => r.owner?.objectName === 'hooks'), 20_000);
  });
});
