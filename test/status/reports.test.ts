import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../shared/dataplane/contract';
import { judgeReport, parseReport, reportObservation } from '../../shared/status/reports';
import { SILENT_ERROR_PREFIX, transition, type ConnectorStatus } from '../../shared/status/transition';

const report = (extra: Partial<StatusReport> = {}): StatusReport => ({
  tenant: 't1',
  objectId: 'u1',
  kind: 'ingestion',
  generation: 1,
  sequence: 10,
  reason: 'change',
  status: 'running',
  error: null,
  hints: [],
  namespaced: {},
  observedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('judging a status report', () => {
  const stored = { status: 'running', generation: 2, reportGeneration: 2, reportSequence: 10 };
  const catalog = { generation: 2 };
  it.each([
    ['no status at all', undefined, {}, catalog, 'unknown'],
    ['no catalog object (read and absent)', stored, { generation: 2, sequence: 11 }, null, 'unknown'],
    ['the object was dropped', { ...stored, status: 'dropped' }, { generation: 2, sequence: 11 }, catalog, 'dropped'],
    ['the catalog object is a tombstone', stored, { generation: 2, sequence: 11 }, { generation: 3, dropped: true }, 'dropped'],
    ['an older generation than the status speaks of', stored, { generation: 1, sequence: 99 }, catalog, 'stale'],
    ['an older sequence', stored, { generation: 2, sequence: 9 }, catalog, 'stale'],
    ['the same sequence again', stored, { generation: 2, sequence: 10 }, catalog, 'duplicate'],
    ['a newer sequence', stored, { generation: 2, sequence: 11 }, catalog, 'accept'],
    ['a newer generation than the last report, once the status started it, whatever its sequence', { ...stored, generation: 3 }, { generation: 3, sequence: 1 }, { generation: 3 }, 'accept'],
    ['the first report of a status', { status: 'starting', generation: 2 }, { generation: 2, sequence: 1 }, catalog, 'accept'],
    // Issue 29: a generation nobody issued must not become the status's, or every genuine report after it is stale.
    ['a generation the catalog never issued', stored, { generation: 1000, sequence: 1 }, catalog, 'ahead'],
    ['a generation the catalog issued but the status has not started yet', stored, { generation: 3, sequence: 1 }, { generation: 3 }, 'ahead'],
    ['a genuine report after a forged mark (a mark beyond the status is no mark)', { ...stored, reportGeneration: 1000, reportSequence: 99 }, { generation: 2, sequence: 11 }, catalog, 'accept'],
    // Status-ingest reads no catalog object: the status's generation (set only from the catalog) fences a report alone.
    ['a generation the catalog never issued, judged by the status alone', stored, { generation: 1000, sequence: 1 }, undefined, 'ahead'],
    ['a newer sequence, judged by the status alone', stored, { generation: 2, sequence: 11 }, undefined, 'accept'],
  ] as const)('%s → %s', (_name, prev, r, object, verdict) => {
    expect(judgeReport(prev, { generation: 1, sequence: 10, ...r }, object)).toBe(verdict);
  });
});

describe('parsing a status report', () => {
  it('accepts a complete report', () => {
    expect(parseReport(JSON.stringify(report()))).toEqual(report());
  });
  it('names every bad field', () => {
    expect(() => parseReport(JSON.stringify({ ...report(), sequence: -1, status: 'happy' }))).toThrow(/sequence: .*; status: /);
    expect(() => parseReport('{')).toThrow(/not JSON/);
  });
});

describe('a report as an observation', () => {
  const prev: ConnectorStatus = { status: 'running', error: null, details: null, lastStatusChangeAt: '2025-12-31T00:00:00.000Z', generation: 1 };
  it('carries the error with its hints and namespaced details', () => {
    const t = transition(prev, reportObservation('source', report({ status: 'failed', error: 'postgres: publication "p" does not exist', hints: ['CREATE PUBLICATION p'], namespaced: { postgres: 'publication "p" does not exist' } })), '2026-01-01T00:00:01.000Z');
    expect(t.next).toMatchObject({ status: 'failed', error: 'postgres: publication "p" does not exist', details: { hints: ['CREATE PUBLICATION p'], namespaced: { postgres: 'publication "p" does not exist' } } });
    expect(t.history).toBeDefined();
  });
  it('masks a password in a URL the data plane echoed', () => {
    const t = transition(prev, reportObservation('source', report({ status: 'stalled', error: 'kafka: cannot reach sasl://user:hunter2@broker:9092', namespaced: { kafka: 'cannot reach sasl://user:hunter2@broker:9092' } })), '2026-01-01T00:00:01.000Z');
    expect(JSON.stringify(t.next)).not.toContain('hunter2');
  });
  it('changes nothing when it repeats the current health', () => {
    expect(transition(prev, reportObservation('source', report()), '2026-01-01T00:00:01.000Z').history).toBeUndefined();
  });
  it('cannot take a failed connector out of failed at the same generation', () => {
    expect(transition({ ...prev, status: 'failed', error: 'x' }, reportObservation('source', report()), '2026-01-01T00:00:01.000Z').next.status).toBe('failed');
  });
});

describe('silence', () => {
  const running: ConnectorStatus = { status: 'running', error: null, details: null, lastStatusChangeAt: '2025-12-31T00:00:00.000Z', generation: 1 };
  const silent = (seconds: number) => ({ kind: 'source' as const, dropped: false, generation: 1, resourcePresent: true, replicas: 1, silentSeconds: seconds });
  it('stalls a connector whose data plane stopped reporting, once however long it lasts', () => {
    const first = transition(running, silent(80), '2026-01-01T00:00:00.000Z');
    expect(first.next).toMatchObject({ status: 'stalled', error: `${SILENT_ERROR_PREFIX}80 s` });
    expect(transition(first.next, silent(140), '2026-01-01T00:01:00.000Z').history).toBeUndefined();
  });
  it('keeps a diagnostic probe in the details, not in the status', () => {
    const t = transition(running, { ...silent(80), probe: { ok: false, namespace: 'postgres', error: 'refused', hint: 'start it' } }, '2026-01-01T00:00:00.000Z');
    expect(t.next.error).toBe(`${SILENT_ERROR_PREFIX}80 s`);
    expect(t.next.details).toMatchObject({ namespaced: { postgres: 'refused' }, hints: expect.arrayContaining(['start it']) });
  });
  it('two changes in one millisecond make two history rows, in order', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const a = transition({ ...running, lastStatusChangeAt: at }, silent(80), at);
    expect(a.history!.occurredAt > at).toBe(true);
  });
});
