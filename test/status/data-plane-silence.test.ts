/**
 * The whole data plane going silent, against DynamoDB Local: one sweep after the deadline marks
 * the data plane silent with one write, and every tenant's status tables show each watched
 * connector stalled at once — even when the sweeper dies before it marks a single connector. One
 * Data Plane Status Changed event says so for the deployment; the connectors' own marks follow,
 * flagged; the first report ends it all, with one event again. Time is moved by the sweeps' and
 * the reads' clocks, not by waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { StatusStore } from '../../shared/catalog/status-store';
import { DETAIL_TYPES } from '../../shared/events/model';
import { DATA_PLANE_SILENCE_MS } from '../../shared/status/data-plane';
import { dataPlaneSilenceHint } from '../../shared/status/transition';
import { eventually, ok, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';
import { statusIngestHandler } from '../../shared/lambda/status-ingest';
import { makeLogger } from '../../shared/lambda/logger';
import { lambdaContext } from '../../local/lambda-context';
import { sqsEvent } from '../helpers/events';

let p: Pipeline;
let store: StatusStore;
beforeAll(async () => {
  p = await testPipeline('dpsilence', { fullPass: false });
  store = new StatusStore(p.clients.doc, p.config.catalogTable);
});
afterAll(async () => {
  await p.stop();
});

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });

/** The status tables as a request at `at` reads them. */
async function statusesAt(tenant: string, at: Date): Promise<string[][]> {
  const clock = () => at;
  const api = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable, { clock }), logger, clock });
  const r = await api.handle(tenant, 'tester', JSON.stringify({ query: 'SELECT name, status, error, details FROM mz_internal.mz_source_statuses ORDER BY name' }), 'application/json');
  return (r.body as any).results[0].rows as string[][];
}

async function connectors(sql: SqlClient, tenant: string, n: number): Promise<string[]> {
  await ok(sql, `CREATE CLUSTER c (SIZE = '25cc'); ${Array.from({ length: n }, (_, i) => `CREATE SOURCE s${i} IN CLUSTER c FROM LOAD GENERATOR COUNTER`).join('; ')}`);
  const ids = ((await ok(sql, 'SELECT id FROM mz_sources ORDER BY name'))[0].rows as string[][]).map((r) => r[0]!);
  await eventually(async () => (await Promise.all(ids.map((id) => store.get(tenant, id)))).every((s) => s?.status === 'running'), 60_000);
  return ids;
}

const dataPlaneEvents = (tenant: string) => p.events.read(tenant, 0, 1000).filter((e) => e.detailType === DETAIL_TYPES.dataPlaneStatusChanged);

describe('a silent data plane', () => {
  it('is not said of a data plane with nothing to report: no connector overdue, no mark, however old its last report', async () => {
    // A report (about nothing the catalog has) stamps the liveness item; no connector exists yet.
    const report = { tenant: 'nobody', objectId: 'u-none', kind: 'ingestion', generation: 1, sequence: 1, reason: 'heartbeat', status: 'running', error: null, hints: [], namespaced: {}, observedAt: new Date().toISOString() };
    await statusIngestHandler(p.config, p.clients, makeLogger('status-ingest-test'))(sqsEvent([JSON.stringify(report)]), lambdaContext('status-ingest'));
    const stamped = (await store.dataPlaneLiveness({ consistent: true }))!;
    expect(stamped.lastReportAt).toBeDefined();
    const far = new Date(Date.parse(stamped.lastReportAt!) + 100 * DATA_PLANE_SILENCE_MS);
    expect((await p.sweeper.sweep(far)).dataPlane).toEqual({ marked: false });
    expect(await store.dataPlaneLiveness({ consistent: true })).toEqual(stamped);
  });

  it('is shown on every connector of every tenant one sweep after the deadline, with one write, and ends with its first report', async () => {
    // Prepare: two tenants, their connectors running on the data plane's reports.
    const a = await sqlClient(p);
    const b = await sqlClient(p);
    const idsA = await connectors(a.sql, a.tenant, 3);
    const idsB = await connectors(b.sql, b.tenant, 2);
    const stamped = (await store.dataPlaneLiveness({ consistent: true }))!;
    expect(stamped.lastReportAt).toBeDefined();
    // From now on the data plane says nothing (no health rounds run in this pipeline).
    const deadlines = await Promise.all([...idsA.map((id) => store.get(a.tenant, id)), ...idsB.map((id) => store.get(b.tenant, id))]);
    const silentAt = new Date(Math.max(Date.parse(stamped.lastReportAt!) + DATA_PLANE_SILENCE_MS, ...deadlines.map((s) => Date.parse(s!.reportDueAt!))) + 1_000);

    // Act: the sweep after the deadline dies before it marks any connector.
    // (Every worker of the pass dies at its first connector, as the whole process would.)
    const overdue = idsA.length + idsB.length;
    p.faults.crashAt('sweeper.connector-mark', overdue);
    await expect(p.sweeper.sweep(silentAt)).rejects.toThrow(/sweeper\.connector-mark/);
    await eventually(async () => p.faults.pendingCrashes() === 0);

    // Assess: the data plane is marked silent; not one connector's own status was written...
    const marked = (await store.dataPlaneLiveness({ consistent: true }))!;
    expect(marked).toMatchObject({ silentSince: stamped.lastReportAt, detectedAt: silentAt.toISOString() });
    for (const [tenant, ids] of [[a.tenant, idsA], [b.tenant, idsB]] as const) {
      for (const id of ids) expect((await store.get(tenant, id))!.status).toBe('running');
    }
    // ...and yet every connector of both tenants reads stalled, with the silence's error and hint.
    for (const tenant of [a.tenant, b.tenant]) {
      const rows = await statusesAt(tenant, silentAt);
      expect(rows.length).toBeGreaterThan(1);
      for (const [, status, error, details] of rows) {
        expect(status).toBe('stalled');
        expect(error).toMatch(/^no status reported by the data plane for \d+ s$/);
        // jsonb: a JSON value in the answer, as Materialize's HTTP API gives it.
        expect((details as unknown as { hints: string[] }).hints).toContain(dataPlaneSilenceHint(stamped.lastReportAt!));
      }
    }
    // One event for the deployment, which each tenant sees.
    await eventually(async () => dataPlaneEvents(a.tenant).length === 1);
    expect(dataPlaneEvents(b.tenant)).toEqual(dataPlaneEvents(a.tenant));
    expect(dataPlaneEvents(a.tenant)[0]!.detail).toMatchObject({ tenant: null, from: 'reporting', to: 'silent', data_plane_silent: true });

    // The next sweep marks the connectors themselves (history), each flagged, and writes no second silence.
    const next = await p.sweeper.sweep(new Date(silentAt.getTime() + 60_000));
    expect(next.dataPlane).toEqual({ marked: false, silentSince: stamped.lastReportAt });
    expect(next.connectors.transitions).toBe(overdue);
    expect(next.connectors.probes).toBe(0);
    await eventually(async () => p.events.read(a.tenant, 0, 1000).filter((e) => e.detail.to === 'stalled').length === idsA.length);
    expect(p.events.read(a.tenant, 0, 1000).filter((e) => e.detail.to === 'stalled').every((e) => e.detail.data_plane_silent)).toBe(true);

    // The data plane reports again: its first stamp ends the silence (within a stamp interval), the reports make each connector running.
    await eventually(
      async () => {
        await p.reportHealth();
        return !(await store.dataPlaneLiveness({ consistent: true }))?.silentSince;
      },
      60_000,
      1_000,
    );
    for (const tenant of [a.tenant, b.tenant]) {
      expect((await statusesAt(tenant, new Date())).map((r) => r[1])).toEqual((await statusesAt(tenant, new Date())).map(() => 'running'));
    }
    await eventually(async () => dataPlaneEvents(a.tenant).length === 2);
    expect(dataPlaneEvents(a.tenant).map((e) => `${e.detail.from} → ${e.detail.to}`)).toEqual(['reporting → silent', 'silent → reporting']);
    for (const id of idsA) {
      const history = (await store.history(a.tenant)).filter((h) => h.objectId === id).map((h) => h.status);
      expect(history.slice(-3)).toEqual(['running', 'stalled', 'running']);
    }
  });
});
