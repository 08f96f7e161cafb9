/** The data plane as a whole, silent or reporting: the pure rules (shared/status/data-plane.ts) and the events they make. */
import { describe, expect, it } from 'vitest';
import { eventForRecord } from '../../shared/events/select';
import { matchesRouterFilter } from '../../shared/router/routing';
import { activeSilence, DATA_PLANE_SILENCE_MS, silenceToMark, withDataPlaneSilence } from '../../shared/status/data-plane';
import { dataPlaneSilenceHint, transition, type ConnectorStatus } from '../../shared/status/transition';
import { HEARTBEAT_TIMEOUT_SECONDS } from '../../shared/dataplane/contract';
import { streamRecord } from '../helpers/events';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();

const status = (over: Partial<ConnectorStatus & { lastReportAt: string; objectId: string }> = {}) => ({
  objectId: 'u1',
  status: 'running' as const,
  error: null,
  details: null,
  lastStatusChangeAt: iso(0),
  lastReportAt: iso(0),
  generation: 1,
  ...over,
});

describe('silenceToMark', () => {
  const stamped = { lastReportAt: iso(0) };
  it('marks only with a connector overdue and no report for longer than a connector deadline plus the stamp interval', () => {
    expect(silenceToMark(stamped, at(DATA_PLANE_SILENCE_MS + 1), 3)).toEqual({ since: iso(0) });
    expect(silenceToMark(stamped, at(DATA_PLANE_SILENCE_MS), 3)).toBeUndefined();
    // Nothing overdue: a data plane with no connectors sends nothing, and is not silent for it.
    expect(silenceToMark(stamped, at(10 * DATA_PLANE_SILENCE_MS), 0)).toBeUndefined();
    expect(DATA_PLANE_SILENCE_MS).toBeGreaterThan(HEARTBEAT_TIMEOUT_SECONDS * 1000);
  });

  it('says nothing of a data plane that never reported, or one already marked', () => {
    expect(silenceToMark(undefined, at(10 * DATA_PLANE_SILENCE_MS), 3)).toBeUndefined();
    expect(silenceToMark({}, at(10 * DATA_PLANE_SILENCE_MS), 3)).toBeUndefined();
    expect(silenceToMark({ ...stamped, silentSince: iso(0), detectedAt: iso(90_000) }, at(10 * DATA_PLANE_SILENCE_MS), 3)).toBeUndefined();
  });
});

describe('activeSilence', () => {
  const marked = { lastReportAt: iso(0), silentSince: iso(0), detectedAt: iso(90_000) };
  it('holds while the mark is there and no stamp came since', () => {
    expect(activeSilence(marked, at(100_000))).toEqual({ since: iso(0), detectedAt: iso(90_000) });
    expect(activeSilence({ lastReportAt: iso(0) }, at(100_000))).toBeUndefined();
    expect(activeSilence(undefined, at(100_000))).toBeUndefined();
  });

  it('ends by the read’s own clock when the stamp is fresh, even before the mark is gone', () => {
    expect(activeSilence({ ...marked, lastReportAt: iso(95_000) }, at(100_000))).toBeUndefined();
  });
});

describe('withDataPlaneSilence', () => {
  const silence = { since: iso(0), detectedAt: iso(90_000) };
  it('shows every watched connector stalled with the silence’s error and hint, from when it was found', () => {
    const rows = withDataPlaneSilence(
      [status({ objectId: 'run' }), status({ objectId: 'start', status: 'starting', lastReportAt: iso(-10_000) }), status({ objectId: 'pause', status: 'paused' }), status({ objectId: 'stall', status: 'stalled', error: 'kafka: broker down' })],
      silence,
    );
    expect(rows.map((r) => [r.objectId, r.status, r.error, r.lastStatusChangeAt])).toEqual([
      ['run', 'stalled', 'no status reported by the data plane for 90 s', iso(90_000)],
      ['start', 'stalled', 'no status reported by the data plane for 100 s', iso(90_000)],
      ['pause', 'stalled', 'no status reported by the data plane for 90 s', iso(90_000)],
      ['stall', 'stalled', 'no status reported by the data plane for 90 s', iso(90_000)],
    ]);
    expect(rows[0]!.details).toEqual({ hints: [dataPlaneSilenceHint(iso(0))] });
  });

  it('leaves failed, dropped and already-marked silent connectors as they are, and everything without a silence', () => {
    const failed = status({ objectId: 'f', status: 'failed', error: 'postgres: publication gone' });
    const dropped = status({ objectId: 'd', status: 'dropped' });
    const marked = status({ objectId: 'm', status: 'stalled', error: 'no status reported by the data plane for 61 s', lastStatusChangeAt: iso(61_000) });
    expect(withDataPlaneSilence([failed, dropped, marked], silence)).toEqual([failed, dropped, marked]);
    const running = status();
    expect(withDataPlaneSilence([running], undefined)).toEqual([running]);
  });
});

describe('a connector marked silent while the whole data plane is', () => {
  it('carries the data plane’s hint and a marked history row; alone it does not', () => {
    const prev = { ...status(), lastStatusChangeAt: iso(0) };
    const obs = { kind: 'source' as const, dropped: false, generation: 1, resourcePresent: true, replicas: 1, silentSeconds: 90 };
    const whole = transition(prev, { ...obs, dataPlaneSilentSince: iso(0) }, iso(90_000));
    expect(whole.next).toMatchObject({ status: 'stalled', error: 'no status reported by the data plane for 90 s', details: { hints: [dataPlaneSilenceHint(iso(0))] } });
    expect(whole.history).toMatchObject({ dataPlaneSilent: true, from: 'running' });
    const alone = transition(prev, obs, iso(90_000));
    expect(alone.next.error).toBe(whole.next.error);
    expect(alone.history).not.toHaveProperty('dataPlaneSilent');
  });
});

describe('Data Plane Status Changed events', () => {
  const liveness = (over: Record<string, unknown>) => ({ pk: 'DATAPLANE', sk: 'LIVENESS', type: 'data_plane_liveness', lastReportAt: iso(0), resumedFrom: 'none', ...over });

  it('the sweeper’s mark is one silent event, for every tenant (tenant null), whichever delivery', () => {
    const record = streamRecord('MODIFY', liveness({ silentSince: iso(0), detectedAt: iso(90_000) }));
    expect(matchesRouterFilter(record)).toBe(true);
    const e = eventForRecord(record);
    expect(e).toEqual({
      id: `data-plane/silent/${iso(0)}`,
      source: 'ddl-control-plane',
      detailType: 'Data Plane Status Changed',
      time: iso(90_000),
      detail: {
        event_id: `data-plane/silent/${iso(0)}`,
        tenant: null,
        object_id: 'data-plane',
        object_name: null,
        object_kind: 'data_plane',
        from: 'reporting',
        to: 'silent',
        error: 'no status reported by the data plane for 90 s',
        hints: [dataPlaneSilenceHint(iso(0))],
        occurred_at: iso(90_000),
        data_plane_silent: true,
      },
    });
    expect(eventForRecord(record)!.id).toBe(e!.id);
  });

  it('the stamp that ends a silence is a reporting event; every other stamp is none', () => {
    const back = eventForRecord(streamRecord('MODIFY', liveness({ lastReportAt: iso(200_000), resumedFrom: iso(0) })));
    expect(back).toMatchObject({ id: `data-plane/reporting/${iso(0)}`, time: iso(200_000), detail: { from: 'silent', to: 'reporting', error: null, tenant: null, data_plane_silent: false } });
    expect(eventForRecord(streamRecord('MODIFY', liveness({ lastReportAt: iso(205_000) })))).toBeUndefined();
    expect(eventForRecord(streamRecord('INSERT', liveness({})))).toBeUndefined();
  });

  it('a connector’s history row written during the silence says so in its event', () => {
    const row = {
      pk: 'T#acme',
      sk: `HIST#u1#${iso(90_000)}`,
      type: 'status_history',
      tenant: 'acme',
      objectId: 'u1',
      kind: 'source',
      name: 'counter',
      occurredAt: iso(90_000),
      status: 'stalled',
      from: 'running',
      error: 'no status reported by the data plane for 90 s',
      details: { hints: [dataPlaneSilenceHint(iso(0))] },
    };
    expect(eventForRecord(streamRecord('INSERT', { ...row, dataPlaneSilent: true }))!.detail.data_plane_silent).toBe(true);
    expect(eventForRecord(streamRecord('INSERT', row))!.detail.data_plane_silent).toBe(false);
  });
});
