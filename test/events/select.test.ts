/** Which stream records are status events, and what the router does with them (through the local event log as the fake bus). */
import { describe, expect, it } from 'vitest';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { EventLog } from '../../local/event-log';
import type { ControlPlaneEvent } from '../../shared/events/model';
import type { EventPublisher } from '../../shared/events/publisher';
import { eventForRecord } from '../../shared/events/select';
import { makeLogger } from '../../shared/lambda/logger';
import { lambdaContext } from '../../local/lambda-context';
import { createRouterHandler } from '../../shared/router/handler';
import { matchesRouterFilter, ROUTER_FILTER_PATTERNS } from '../../shared/router/routing';
import { streamRecord } from '../helpers/events';

const history = (over: Record<string, unknown> = {}) => ({
  pk: 'T#acme',
  sk: 'HIST#u7#2026-01-01T00:00:05.000Z',
  type: 'status_history',
  tenant: 'acme',
  objectId: 'u7',
  kind: 'source',
  name: 'pg_orders',
  occurredAt: '2026-01-01T00:00:05.000Z',
  status: 'stalled',
  from: 'running',
  error: 'postgres: connection refused',
  details: { hints: ['Start the server.'], namespaced: { postgres: 'connection refused' } },
  ...over,
});

const failedEffect = (over: Record<string, unknown> = {}) => ({
  pk: 'T#acme',
  sk: 'EFF#0abc#0002',
  type: 'effect',
  effectId: '0abc-2',
  tenant: 'acme',
  txnId: '0abc',
  objectId: 'u7',
  objectName: 'pg_orders',
  generation: 2,
  controller: 'storage',
  kind: 'ingestion',
  intent: 'ensure',
  state: 'failed',
  attempts: 1,
  lastError: 'publication "mz" does not exist',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:03.000Z',
  settledAt: '2026-01-01T00:00:03.000Z',
  ...over,
});

describe('eventForRecord', () => {
  it('a new history row is a Connector Status Changed event with tenant, object, from, to, error, hints', () => {
    // Act
    const e = eventForRecord(streamRecord('INSERT', history()));

    // Assess
    expect(e).toEqual({
      id: 'acme/HIST#u7#2026-01-01T00:00:05.000Z',
      source: 'ddl-control-plane',
      detailType: 'Connector Status Changed',
      time: '2026-01-01T00:00:05.000Z',
      detail: {
        event_id: 'acme/HIST#u7#2026-01-01T00:00:05.000Z',
        tenant: 'acme',
        object_id: 'u7',
        object_name: 'pg_orders',
        object_kind: 'source',
        from: 'running',
        to: 'stalled',
        error: 'postgres: connection refused',
        hints: ['Start the server.'],
        namespaced: { postgres: 'connection refused' },
        occurred_at: '2026-01-01T00:00:05.000Z',
        data_plane_silent: false,
      },
    });
  });

  it('the same row delivered again (another stream record of it) gives the same id', () => {
    const a = eventForRecord(streamRecord('INSERT', history()));
    const b = eventForRecord(streamRecord('INSERT', history()));
    expect(a!.id).toBe(b!.id);
  });

  it('a row without tenant, name or from (written before rows carried them) still makes an event', () => {
    const { tenant: _t, name: _n, from: _f, ...old } = history();
    const e = eventForRecord(streamRecord('INSERT', old));
    expect(e?.detail).toMatchObject({ tenant: 'acme', object_name: null, from: null, to: 'stalled' });
  });

  it('an effect settled from pending to failed is an Effect Failed event', () => {
    const e = eventForRecord(streamRecord('MODIFY', failedEffect()));
    expect(e).toMatchObject({
      id: 'acme/EFF#0abc#0002/failed',
      detailType: 'Effect Failed',
      time: '2026-01-01T00:00:03.000Z',
      detail: { tenant: 'acme', object_id: 'u7', object_name: 'pg_orders', object_kind: 'ingestion', from: 'pending', to: 'failed', error: 'publication "mz" does not exist', effect_id: '0abc-2', controller: 'storage', generation: 2 },
    });
  });

  it.each([
    ['a later write to a failed effect (a DLQ redrive clears its mark)', streamRecord('MODIFY', failedEffect({ redrivenAt: '2026-01-01T01:00:00.000Z', deadLettered: false, settledAt: '2026-01-01T00:00:03.000Z', updatedAt: '2026-01-01T00:00:02.000Z' }))],
    ['an effect settled applied', streamRecord('MODIFY', failedEffect({ state: 'applied', lastError: undefined }))],
    ['an attempt recorded on a pending effect', streamRecord('MODIFY', failedEffect({ state: 'pending', settledAt: undefined }))],
    ['a new effect record', streamRecord('INSERT', failedEffect({ state: 'pending', settledAt: undefined }))],
    ['a history row removed by its TTL', streamRecord('REMOVE', undefined)],
    ['a status item', streamRecord('MODIFY', { pk: 'T#acme', sk: 'STATUS#u7', type: 'connector_status', status: 'stalled' })],
    ['a catalog object', streamRecord('INSERT', { pk: 'T#acme', sk: 'OBJ#u7', type: 'object' })],
  ])('ignores %s', (_name, record) => {
    expect(eventForRecord(record)).toBeUndefined();
  });

  const replicaRow = (over: Record<string, unknown> = {}) => ({
    pk: 'T#acme',
    sk: 'RSTATUS#u9',
    type: 'replica_status',
    replicaId: 'u9',
    name: 'r1',
    clusterId: 'u8',
    clusterName: 'prod',
    status: 'offline',
    reason: 'size 25cc is not offered in this region',
    generation: 3,
    updatedAt: '2026-01-01T00:00:07.000Z',
    previousStatus: 'online',
    previousReason: null,
    ...over,
  });

  it('a replica status row whose status changed is a Cluster Replica Status Changed event', () => {
    // Act
    const e = eventForRecord(streamRecord('MODIFY', replicaRow()));

    // Assess
    expect(e).toEqual({
      id: 'acme/RSTATUS#u9/2026-01-01T00:00:07.000Z',
      source: 'ddl-control-plane',
      detailType: 'Cluster Replica Status Changed',
      time: '2026-01-01T00:00:07.000Z',
      detail: {
        event_id: 'acme/RSTATUS#u9/2026-01-01T00:00:07.000Z',
        tenant: 'acme',
        object_id: 'u9',
        object_name: 'r1',
        object_kind: 'replica',
        cluster_id: 'u8',
        cluster_name: 'prod',
        from: 'online',
        to: 'offline',
        error: 'size 25cc is not offered in this region',
        hints: [],
        occurred_at: '2026-01-01T00:00:07.000Z',
        data_plane_silent: false,
        generation: 3,
      },
    });
  });

  it('a new replica status row is an event from nothing, and a changed reason alone is one too', () => {
    const created = eventForRecord(streamRecord('INSERT', replicaRow({ status: 'online', reason: null, previousStatus: 'none', previousReason: null })));
    expect(created?.detail).toMatchObject({ from: null, to: 'online', error: null });
    const reason = eventForRecord(streamRecord('MODIFY', replicaRow({ previousStatus: 'offline', previousReason: 'quota exceeded' })));
    expect(reason?.detail).toMatchObject({ from: 'offline', to: 'offline', error: 'size 25cc is not offered in this region' });
  });

  it.each([
    ['a replica status rewritten unchanged (another apply of the same state)', streamRecord('MODIFY', replicaRow({ status: 'online', reason: null, previousStatus: 'online', previousReason: null }))],
    ['a replica status row written before rows kept their previous status', streamRecord('MODIFY', replicaRow({ previousStatus: undefined, previousReason: undefined }))],
    ['a replica status row removed with its replica', streamRecord('REMOVE', undefined)],
  ])('ignores %s', (_name, record) => {
    expect(eventForRecord(record)).toBeUndefined();
  });

  const droppedStatus = (over: Record<string, unknown> = {}) => ({
    pk: 'T#acme',
    sk: 'STATUS#u7',
    type: 'connector_status',
    tenant: 'acme',
    objectId: 'u7',
    kind: 'source',
    name: 'pg_orders',
    status: 'dropped',
    error: null,
    details: null,
    generation: 3,
    lastStatusChangeAt: '2026-01-01T00:00:09.000Z',
    previousStatus: 'running',
    version: 7,
    ...over,
  });

  it('a DROP is one event from the state the connector was in: the status item keeps it, its history row (from unknown) is no event', () => {
    // Act
    const fromStatus = eventForRecord(streamRecord('MODIFY', droppedStatus()));
    const fromHistory = eventForRecord(streamRecord('INSERT', history({ sk: 'HIST#u7#2026-01-01T00:00:09.000Z', occurredAt: '2026-01-01T00:00:09.000Z', status: 'dropped', from: undefined, error: null, details: null })));

    // Assess: the id a history row of the drop would have had.
    expect(fromStatus).toEqual({
      id: 'acme/HIST#u7#2026-01-01T00:00:09.000Z',
      source: 'ddl-control-plane',
      detailType: 'Connector Status Changed',
      time: '2026-01-01T00:00:09.000Z',
      detail: {
        event_id: 'acme/HIST#u7#2026-01-01T00:00:09.000Z',
        tenant: 'acme',
        object_id: 'u7',
        object_name: 'pg_orders',
        object_kind: 'source',
        from: 'running',
        to: 'dropped',
        error: null,
        hints: [],
        occurred_at: '2026-01-01T00:00:09.000Z',
        data_plane_silent: false,
      },
    });
    expect(fromHistory).toBeUndefined();
    expect(matchesRouterFilter(streamRecord('MODIFY', droppedStatus()))).toBe(true);
  });

  it.each([
    ['a dropped status written again (previous status dropped)', streamRecord('MODIFY', droppedStatus({ previousStatus: 'dropped' }))],
    ['a dropped status without a previous status (written whole by another writer)', streamRecord('MODIFY', droppedStatus({ previousStatus: undefined }))],
    ['a status item that is not dropped', streamRecord('MODIFY', droppedStatus({ status: 'running', previousStatus: 'starting' }))],
  ])('ignores %s', (_name, record) => {
    expect(eventForRecord(record)).toBeUndefined();
  });

  it("every record that is an event passes the router's stream filter", () => {
    for (const r of [streamRecord('INSERT', replicaRow()), streamRecord('MODIFY', replicaRow())]) expect(matchesRouterFilter(r)).toBe(true);
    for (const r of [streamRecord('INSERT', history()), streamRecord('MODIFY', failedEffect())]) expect(matchesRouterFilter(r)).toBe(true);
    for (const r of [streamRecord('MODIFY', failedEffect({ state: 'applied' })), streamRecord('INSERT', { pk: 'T#acme', sk: 'STATUS#u7' }), streamRecord('MODIFY', history())]) {
      expect(matchesRouterFilter(r)).toBe(false);
    }
    // A connector's heartbeat (its status item touched, not dropped) never wakes the router.
    for (const status of ['running', 'stalled', 'starting']) expect(matchesRouterFilter(streamRecord('MODIFY', { pk: 'T#acme', sk: 'STATUS#u7', type: 'connector_status', status }))).toBe(false);
  });

  it("keeps the router's stream filters within an event source mapping's default quota of 5", () => {
    expect(ROUTER_FILTER_PATTERNS.length).toBeLessThanOrEqual(5);
  });
});

/** No effect record in these batches: the router must not send to SQS at all. */
const noSqs = { send: () => Promise.reject(new Error('no SQS call expected')) } as unknown as SQSClient;
const queueUrls = { compute: 'q-compute', storage: 'q-storage', secrets: 'q-secrets' };

describe('the stream router publishes status events', () => {
  it('a batch delivered twice (a retry) leaves one event per transition in the log', async () => {
    // Prepare
    const log = new EventLog();
    const handler = createRouterHandler({ sqs: noSqs, queueUrls, logger: makeLogger('router-test'), events: log });
    const batch = {
      Records: [
        streamRecord('INSERT', history({ sk: 'HIST#u7#2026-01-01T00:00:01.000Z', occurredAt: '2026-01-01T00:00:01.000Z', status: 'running', from: 'starting', error: null, details: null })),
        streamRecord('INSERT', history()),
        streamRecord('MODIFY', failedEffect()),
      ],
    };

    // Act
    const first = await handler(batch, lambdaContext('stream-router'));
    const again = await handler(batch, lambdaContext('stream-router'));

    // Assess
    expect(first).toEqual({ batchItemFailures: [] });
    expect(again).toEqual({ batchItemFailures: [] });
    expect(log.all().map((e) => `${e.detailType}: ${e.detail.from} → ${e.detail.to}`)).toEqual([
      'Connector Status Changed: starting → running',
      'Connector Status Changed: running → stalled',
      'Effect Failed: pending → failed',
    ]);
    expect(log.repeats).toBe(3);
    expect(log.read('acme', 1, 10).map((e) => e.seq)).toEqual([2, 3]);
    expect(log.read('other', 0, 10)).toEqual([]);
  });

  it('an event the bus did not accept fails its record (and what follows it), so the mapping delivers it again', async () => {
    // Prepare: a bus that refuses the stalled event once.
    const accepted: ControlPlaneEvent[] = [];
    let refused = false;
    const bus: EventPublisher = {
      publish: async (events) => {
        const out: string[] = [];
        for (const e of events) {
          if (e.detail.to === 'stalled' && !refused) {
            refused = true;
            out.push(e.id);
          } else accepted.push(e);
        }
        return out;
      },
    };
    const handler = createRouterHandler({ sqs: noSqs, queueUrls, logger: makeLogger('router-test'), events: bus });
    const stalled = streamRecord('INSERT', history());
    const failed = streamRecord('MODIFY', failedEffect());

    // Act
    const r = await handler({ Records: [stalled, failed] }, lambdaContext('stream-router'));

    // Assess
    expect(r.batchItemFailures).toEqual([{ itemIdentifier: stalled.dynamodb!.SequenceNumber }]);
    expect(accepted.map((e) => e.detailType)).toEqual(['Effect Failed']);
  });

  it('a bus that throws fails every event record of the batch', async () => {
    const bus: EventPublisher = { publish: () => Promise.reject(new Error('ThrottlingException')) };
    const handler = createRouterHandler({ sqs: noSqs, queueUrls, logger: makeLogger('router-test'), events: bus });
    const a = streamRecord('INSERT', history());
    const b = streamRecord('MODIFY', failedEffect());
    const r = await handler({ Records: [a, b] }, lambdaContext('stream-router'));
    expect(r.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([a.dynamodb!.SequenceNumber, b.dynamodb!.SequenceNumber]);
  });
});
