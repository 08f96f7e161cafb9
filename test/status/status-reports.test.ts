/**
 * The status-ingest function against DynamoDB Local: reports from the data plane move a
 * connector's status with conditional writes, fenced by generation and sequence; and the
 * sweeper's only part in it, catching a data plane that went silent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Pipeline } from '../../local/pipeline';
import { lambdaContext } from '../../local/lambda-context';
import { HEARTBEAT_INTERVAL_SECONDS, HEARTBEAT_TIMEOUT_SECONDS, type StatusReport } from '../../shared/dataplane/contract';
import { makeLogger } from '../../shared/lambda/logger';
import { loadReporterConfig, referenceReporterHandler, REPORTER_TIMEOUT_SECONDS } from '../../shared/lambda/reference-reporter';
import { statusIngestHandler } from '../../shared/lambda/status-ingest';
import type { Prober, ProbeResult } from '../../shared/probes/types';
import { StatusStore } from '../../shared/catalog/status-store';
import { tableStores } from '../../shared/catalog/stores';
import { Checker } from '../../shared/checker/checker';
import { transition } from '../../shared/status/transition';
import { sqsEvent } from '../helpers/events';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

/** The upstream's answer, for the reference data plane's checks and the sweeper's diagnostic probes alike. */
let upstream: ProbeResult = { ok: true, namespace: 'postgres' };
const prober: Prober = { probeConnection: async () => upstream, probeSource: async () => upstream, probeSink: async () => upstream };

let p: Pipeline;
let store: StatusStore;
let handler: ReturnType<typeof statusIngestHandler>;
beforeAll(async () => {
  p = await testPipeline('reports', { prober });
  store = new StatusStore(p.clients.doc, p.config.catalogTable);
  handler = statusIngestHandler(p.config, p.clients, makeLogger('status-ingest-test'));
});
afterAll(async () => {
  await p.stop();
});

async function runningSource(sql: SqlClient, tenant: string, name: string): Promise<string> {
  await sql(`CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE ${name} IN CLUSTER c FROM LOAD GENERATOR COUNTER`);
  const id = (await sql(`SELECT id FROM mz_sources WHERE name = '${name}'`)).body.results[0].rows[0][0] as string;
  await eventually(async () => (await store.get(tenant, id))?.status === 'running', 15_000);
  return id;
}

async function historyOf(tenant: string, id: string): Promise<string[]> {
  return (await store.history(tenant)).filter((h) => h.objectId === id).map((h) => h.status);
}

function nextReport(prev: { generation: number; reportSequence?: number }, extra: Partial<StatusReport> & { tenant: string; objectId: string }, step = 1): StatusReport {
  return {
    kind: 'ingestion',
    generation: prev.generation,
    sequence: (prev.reportSequence ?? 0) + step,
    reason: 'change',
    status: 'running',
    error: null,
    hints: [],
    namespaced: {},
    observedAt: new Date().toISOString(),
    ...extra,
  };
}

const invoke = (reports: readonly StatusReport[]) => handler(sqsEvent(reports.map((r) => JSON.stringify(r))), lambdaContext('status-ingest'));

describe('status reports', () => {
  it('a report older than the last one applied changes nothing', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'ordered');
    const prev = (await store.get(tenant, id))!;
    const stalled = nextReport(prev, { tenant, objectId: id, status: 'stalled', error: 'load-generator: tick missed' }, 2);
    const late = nextReport(prev, { tenant, objectId: id, status: 'running' }, 1);
    expect(await invoke([stalled])).toEqual({ batchItemFailures: [] });
    expect(await invoke([late])).toEqual({ batchItemFailures: [] });
    expect(await store.get(tenant, id)).toMatchObject({ status: 'stalled', error: 'load-generator: tick missed', reportSequence: stalled.sequence });
    // A report about an older generation is no better.
    await invoke([nextReport({ generation: prev.generation - 1, reportSequence: stalled.sequence }, { tenant, objectId: id })]);
    expect((await store.get(tenant, id))!.status).toBe('stalled');
    expect(await historyOf(tenant, id)).toEqual(['created', 'starting', 'running', 'stalled']);
  });

  it('a report delivered three times (in one batch, in parallel, and through the queue) writes one history row', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'tripled');
    const prev = (await store.get(tenant, id))!;
    const r = nextReport(prev, { tenant, objectId: id, status: 'stalled', error: 'load-generator: tick missed', hints: ['wait'], namespaced: { 'load-generator': 'tick missed' } });
    expect(await invoke([r, r, r])).toEqual({ batchItemFailures: [] });
    await Promise.all([invoke([r]), invoke([r]), invoke([r])]);
    const before = p.statusPoller.invocations;
    for (let i = 0; i < 3; i++) await p.clients.sqs.send(new SendMessageCommand({ QueueUrl: p.statusQueueUrl, MessageBody: JSON.stringify(r) }));
    await eventually(async () => {
      const a = (await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.statusQueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }))).Attributes ?? {};
      return p.statusPoller.invocations > before && a.ApproximateNumberOfMessages === '0' && a.ApproximateNumberOfMessagesNotVisible === '0';
    });
    const after = (await store.get(tenant, id))!;
    expect(after).toMatchObject({ status: 'stalled', details: { hints: ['wait'], namespaced: { 'load-generator': 'tick missed' } }, reportSequence: r.sequence });
    expect(after.version).toBe(prev.version + 1);
    expect(await historyOf(tenant, id)).toEqual(['created', 'starting', 'running', 'stalled']);
  });

  it('a report for a dropped object is ignored', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'gone');
    const prev = (await store.get(tenant, id))!;
    await sql('DROP SOURCE gone');
    await invoke([nextReport(prev, { tenant, objectId: id, status: 'running', generation: prev.generation + 5 })]);
    expect((await store.get(tenant, id))!.status).toBe('dropped');
    expect(await historyOf(tenant, id)).toEqual(['created', 'starting', 'running', 'dropped']);
    // An object that never existed: nothing is written for it.
    await invoke([nextReport({ generation: 1 }, { tenant, objectId: 'u-never' })]);
    expect(await store.get(tenant, 'u-never')).toBeUndefined();
  });

  it('a report from a generation the catalog never issued is refused: genuine reports still apply and RESTART still moves the status', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'future');
    const prev = (await store.get(tenant, id))!;
    const forged = nextReport(prev, { tenant, objectId: id, generation: prev.generation + 1000, status: 'failed', error: 'forged' });

    expect(await invoke([forged])).toEqual({ batchItemFailures: [] });

    expect(await store.get(tenant, id)).toMatchObject({ status: 'running', generation: prev.generation, reportGeneration: prev.reportGeneration, reportSequence: prev.reportSequence });
    // A genuine report after it applies.
    await invoke([nextReport(prev, { tenant, objectId: id, status: 'stalled', error: 'load-generator: tick missed' })]);
    expect(await store.get(tenant, id)).toMatchObject({ status: 'stalled', generation: prev.generation });
    // And a restart is a new generation the status follows.
    await sql('ALTER SOURCE future RESTART');
    await eventually(async () => {
      const s = await store.get(tenant, id);
      return s?.status === 'running' && s.generation === prev.generation + 1;
    }, 15_000);
    expect(await historyOf(tenant, id)).toEqual(['created', 'starting', 'running', 'stalled', 'starting', 'running']);
  });

  it('a status whose generation is ahead of its object (written before reports were fenced) is flagged by the checker, and RESTART repairs it', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'frozen');
    const prev = (await store.get(tenant, id))!;
    const ahead = prev.generation + 1000;
    await store.apply(tenant, { id, kind: 'source', name: prev.name }, transition(prev, { kind: 'source', dropped: false, generation: ahead, resourcePresent: true, replicas: 1, report: { status: 'failed', error: 'forged', details: null } }, new Date().toISOString()), prev.version, {
      reportGeneration: ahead,
      reportSequence: prev.reportSequence! + 1,
    });
    const checker = new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane);

    const flagged = await checker.check([tenant]);

    expect(flagged.counts.statusesAhead).toBe(1);
    expect(flagged.problems).toContain(`${tenant}: statusesAhead: source frozen (${id}): status at generation ${ahead}, the catalog at ${prev.generation}`);
    await sql('ALTER SOURCE frozen RESTART');
    await eventually(async () => {
      const s = await store.get(tenant, id);
      return s?.status === 'running' && s.generation === prev.generation + 1;
    }, 15_000);
    expect((await checker.check([tenant])).counts.statusesAhead).toBe(0);
  });

  it('a malformed report fails alone, the others in its batch are applied', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'batch');
    const prev = (await store.get(tenant, id))!;
    const event = sqsEvent(['{"tenant": 1}', JSON.stringify(nextReport(prev, { tenant, objectId: id, status: 'paused', hints: ['no replica'] }))]);
    const res = await handler(event, lambdaContext('status-ingest'));
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]!.messageId }]);
    expect((await store.get(tenant, id))!.status).toBe('paused');
  });

  it('a data plane that stops reporting makes the connector stalled within two sweeps, and its next report makes it running', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'quiet');
    const last = Date.parse((await store.get(tenant, id))!.lastReportAt!);
    // Sweeps a minute apart (the stack's schedule); no report arrives in between.
    await p.sweeper.sweep(new Date(last + 30_000));
    expect((await store.get(tenant, id))!.status).toBe('running');
    await p.sweeper.sweep(new Date(last + 90_000));
    const stalled = (await store.get(tenant, id))!;
    expect(stalled.status).toBe('stalled');
    expect(stalled.error).toMatch(/^no status reported by the data plane for 9\d s$/);
    // A longer silence is the same stall: no second history row.
    await p.sweeper.sweep(new Date(last + 150_000));
    expect(await historyOf(tenant, id)).toEqual(['created', 'starting', 'running', 'stalled']);
    await p.reportHealth();
    expect((await store.get(tenant, id))!.status).toBe('running');
    expect(HEARTBEAT_TIMEOUT_SECONDS).toBeLessThan(2 * 60);
    expect(HEARTBEAT_TIMEOUT_SECONDS).toBeGreaterThan(2 * HEARTBEAT_INTERVAL_SECONDS);
  });

  it('a data plane that goes silent right after a heartbeat shows stalled within two sweep intervals, whatever the sweeps’ phase', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'lost');
    const s = (await store.get(tenant, id))!;
    // The worst phase: the data plane stops right after this report, and a sweep runs just before
    // the report deadline status-ingest set, so the next one (a minute later) is the one to catch it.
    const last = Date.parse(s.lastReportAt!);
    const due = Date.parse(s.reportDueAt!);
    await p.sweeper.sweep(new Date(due - 1));
    expect((await store.get(tenant, id))!.status).toBe('running');
    const catching = due - 1 + 60_000;
    await p.sweeper.sweep(new Date(catching));
    expect((await store.get(tenant, id))!.status).toBe('stalled');
    // Two sweep intervals (the stack sweeps every 60 s) from the stop.
    expect(catching - last).toBeLessThanOrEqual(2 * 60_000);
  });

  it('a sweep reads only the deadlines that passed; a silent connector gets a diagnostic probe, its secret read once per sweep', async () => {
    const { sql, tenant } = await sqlClient(p);
    await sql(
      [
        "CREATE CLUSTER c (SIZE = '25cc')",
        "CREATE SECRET pw AS 'pw'",
        "CREATE CONNECTION pg TO POSTGRES (HOST 'pg.reports.test', USER 'u', PASSWORD SECRET pw, DATABASE 'd') WITH (VALIDATE = false)",
        "CREATE SOURCE one IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR TABLES (public.a AS a)",
        "CREATE SOURCE two IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR TABLES (public.b AS b)",
      ].join('; '),
    );
    const ids = (await sql("SELECT id FROM mz_sources WHERE name IN ('one', 'two')")).body.results[0].rows.map((r: string[]) => r[0]) as string[];
    for (const id of ids) await eventually(async () => (await store.get(tenant, id))?.status === 'running', 15_000);
    // Reporting connectors are not read at all.
    const quiet = await p.sweeper.sweep(new Date());
    expect(quiet.connectors.checked).toBe(0);

    upstream = { ok: false, namespace: 'postgres', error: 'error connecting to server: Connection refused (os error 111)', hint: 'Is the server running?' };
    try {
      const last = Math.max(...(await Promise.all(ids.map(async (id) => Date.parse((await store.get(tenant, id))!.lastReportAt!)))));
      const at = new Date(last + (HEARTBEAT_TIMEOUT_SECONDS + 1) * 1000);
      // Only these two went silent: the rest of the data plane reported just before the sweep (else
      // the sweep rightly finds the whole data plane silent, the liveness stamp being up to 5 s older
      // than their last report, and probes nothing).
      await store.stampDataPlane(new Date(at.getTime() - 1000));
      const sweep = await p.sweeper.sweep(at);
      // (Other tests' load generators are overdue too, with nothing to probe.)
      expect(sweep.connectors).toMatchObject({ probes: ids.length, secretReads: 1 });
      expect(sweep.connectors.overdue).toBeGreaterThanOrEqual(ids.length);
      for (const id of ids) {
        const s = (await store.get(tenant, id))!;
        expect(s.status).toBe('stalled');
        expect(s.error).toMatch(/^no status reported by the data plane for \d+ s$/);
        expect(s.details).toMatchObject({ namespaced: { postgres: upstream.error }, hints: expect.arrayContaining(['Is the server running?']) });
        // Looked at again one timeout later, not at every sweep.
        expect(Date.parse(s.reportDueAt!)).toBeGreaterThan(last + 2 * HEARTBEAT_TIMEOUT_SECONDS * 1000);
      }
    } finally {
      upstream = { ok: true, namespace: 'postgres' };
    }
  });

  it('the reference data plane’s reporter function (AWS) reports every live connector from a cold start to the status queue', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'reported');
    const before = (await store.get(tenant, id))!.reportSequence!;
    const cfg = loadReporterConfig({ AWS_REGION: 'us-east-1', DATAPLANE_TABLE: p.config.dataPlaneTable, STATUS_QUEUE_URL: p.statusQueueUrl });
    const reporter = referenceReporterHandler(cfg, p.clients, makeLogger('reference-reporter-test'));
    // Time for one round only.
    const r = (await reporter({} as never, lambdaContext('reference-reporter', 5_000))) as { reports: number; rounds: number };
    expect(r.rounds).toBe(1);
    expect(r.reports).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await store.get(tenant, id))!.reportSequence! > before, 15_000);
    expect(() => loadReporterConfig({ DATAPLANE_TABLE: 't' })).toThrow('invalid configuration: STATUS_QUEUE_URL: ');
  });
  it('the reference reporter (AWS, invoked once a minute) heartbeats every running connector every 20 s within its invocation', async () => {
    const { sql, tenant } = await sqlClient(p);
    const id = await runningSource(sql, tenant, 'rounds');
    const cfg = loadReporterConfig({ AWS_REGION: 'us-east-1', DATAPLANE_TABLE: p.config.dataPlaneTable, STATUS_QUEUE_URL: p.statusQueueUrl });
    // Virtual time, in the past (so nothing it sends could outrank a real report), and a queue that only records.
    let clock = Date.now() - 3_600_000;
    const sent: StatusReport[] = [];
    const sqs = { send: async (cmd: SendMessageCommand) => void sent.push(JSON.parse(cmd.input.MessageBody!) as StatusReport) } as unknown as SQSClient;
    const reporter = referenceReporterHandler(cfg, { doc: p.clients.doc, sqs }, makeLogger('reference-reporter-rounds-test'), {
      clock: () => new Date(clock),
      wait: async (ms) => void (clock += ms),
    });
    const start = clock;

    const r = (await reporter({} as never, lambdaContext('reference-reporter', REPORTER_TIMEOUT_SECONDS * 1000))) as { rounds: number };

    expect(r.rounds).toBe(3);
    const mine = sent.filter((x) => x.tenant === tenant && x.objectId === id);
    expect(mine.map((x) => Date.parse(x.observedAt) - start)).toEqual([0, 20_000, 40_000]);
    expect(mine.map((x) => x.reason)).toEqual(['change', 'heartbeat', 'heartbeat']);
    expect(mine.every((x) => x.status === 'running')).toBe(true);
  });
});
