/**
 * Connector status: what is true now, and a history row whenever it changes (DESIGN.md
 * invariant 6). A pure function of (previous status, observations, now).
 *
 *   created → starting → running
 *   stalled  transient errors, retrying, with the error
 *   failed   a definite error or retries spent; stays until the user acts (a new generation)
 *   paused   no replica runs it (says so in details.hints)
 *   dropped  terminal
 */
import type { ProbeResult } from '../probes/types';

export const CONNECTOR_STATUS = {
  created: 'created',
  starting: 'starting',
  running: 'running',
  paused: 'paused',
  stalled: 'stalled',
  failed: 'failed',
  dropped: 'dropped',
} as const;
export type ConnectorStatusValue = (typeof CONNECTOR_STATUS)[keyof typeof CONNECTOR_STATUS];

export interface StatusDetails {
  readonly hints?: readonly string[];
  /** Per-namespace errors, like Materialize's details: `{"postgres": "..."}`. */
  readonly namespaced?: Readonly<Record<string, string>>;
}

export interface ConnectorStatus {
  readonly status: ConnectorStatusValue;
  readonly error: string | null;
  readonly details: StatusDetails | null;
  readonly lastStatusChangeAt: string;
  /** The object generation this status speaks about (`failed` is sticky within one). */
  readonly generation: number;
}

export interface Observation {
  readonly kind: 'source' | 'sink';
  readonly dropped: boolean;
  readonly generation: number;
  /** A terminal error from the executor for this object (effect failed). */
  readonly effectError?: string;
  /** The ingestion/export exists in the data plane at this generation or newer. */
  readonly resourcePresent: boolean;
  /** Replicas running on the object's cluster (from the data plane). */
  readonly replicas: number;
  /** The data plane's own health report for the ingestion/export. */
  readonly health?: { readonly healthy: boolean; readonly error?: string; readonly fatal?: boolean };
  /** The upstream probe (absent when the connector has nothing to probe). */
  readonly probe?: ProbeResult;
  /**
   * The data plane's own report (shared/status/reports.ts): when present, it says what is true
   * and the fields above that speak about health (health, probe, replicas) are not consulted.
   */
  readonly report?: { readonly status: 'starting' | 'running' | 'paused' | 'stalled' | 'failed'; readonly error: string | null; readonly details: StatusDetails | null };
  /**
   * Seconds since the data plane last reported on a connector that should be reporting (the
   * sweeper's heartbeat deadline passed). `probe`, when given with it, is a diagnostic only: it
   * goes into the details, never decides the status.
   */
  readonly silentSeconds?: number;
  /**
   * With `silentSeconds`: the whole data plane has been silent since then (shared/status/data-plane.ts),
   * not this connector alone. Its hint says so, and its history row is marked, so a status event
   * can tell one silent ingestion from a silent data plane.
   */
  readonly dataPlaneSilentSince?: string;
}

/** The error of a connector whose data plane went quiet; recognised so that a longer silence writes no new history row. */
export const SILENT_ERROR_PREFIX = 'no status reported by the data plane for ';

/** The hint of a connector stalled because the data plane as a whole went silent. */
export function dataPlaneSilenceHint(since: string): string {
  return `The data plane as a whole has sent no status report since ${since}: check that it runs and can send to the status queue.`;
}

export interface Transition {
  readonly next: ConnectorStatus;
  /**
   * Present when status or error changed: the row for the _history table. `from` is the status
   * before (null for a new connector; absent where the writer does not know it), for the status
   * event the row becomes (shared/events/select.ts).
   */
  readonly history?: {
    readonly occurredAt: string;
    readonly status: ConnectorStatusValue;
    readonly error: string | null;
    readonly details: StatusDetails | null;
    readonly from?: ConnectorStatusValue | null;
    /** The stall is the data plane's as a whole (`Observation.dataPlaneSilentSince`). */
    readonly dataPlaneSilent?: boolean;
  };
}

function describe(o: Observation, prev: ConnectorStatus | undefined): Omit<ConnectorStatus, 'lastStatusChangeAt' | 'generation'> {
  const s = (status: ConnectorStatusValue, error: string | null = null, details: StatusDetails | null = null) => ({ status, error, details });
  if (o.dropped) return s('dropped');
  // Sticky: a failed connector stays failed until the user changes it (a new generation).
  if (prev?.status === 'failed' && prev.generation === o.generation) return s('failed', prev.error, prev.details);
  if (o.effectError) return s('failed', o.effectError, { hints: ['Drop and recreate the object, or alter it, once the cause is fixed.'] });
  if (o.report) return s(o.report.status, o.report.error, o.report.details);
  if (o.silentSeconds !== undefined) {
    // The same silence, longer: one history row for it, not one per sweep.
    if (prev?.status === 'stalled' && prev.error?.startsWith(SILENT_ERROR_PREFIX)) return s('stalled', prev.error, prev.details);
    const diag = o.probe && !o.probe.ok ? o.probe : undefined;
    const first = o.dataPlaneSilentSince ? dataPlaneSilenceHint(o.dataPlaneSilentSince) : 'Check that the data plane runs and can send to the status queue.';
    return s('stalled', `${SILENT_ERROR_PREFIX}${Math.round(o.silentSeconds)} s`, {
      hints: [first, ...(diag?.hint ? [diag.hint] : [])],
      ...(diag ? { namespaced: { [diag.namespace]: diag.error ?? 'unavailable' } } : {}),
    });
  }
  const fatalProbe = o.probe && !o.probe.ok && o.probe.fatal ? o.probe : undefined;
  if (fatalProbe) {
    const msg = `${fatalProbe.namespace}: ${fatalProbe.error ?? 'failed'}`;
    return s('failed', msg, { ...(fatalProbe.hint ? { hints: [fatalProbe.hint] } : {}), namespaced: { [fatalProbe.namespace]: fatalProbe.error ?? 'failed' } });
  }
  if (o.health && !o.health.healthy && o.health.fatal) {
    return s('failed', o.health.error ?? 'the data plane reported a fatal error', null);
  }
  if (o.replicas === 0) {
    return s('paused', null, { hints: [`There is currently no replica running this ${o.kind}`] });
  }
  const transientProbe = o.probe && !o.probe.ok ? o.probe : undefined;
  if (transientProbe) {
    const msg = `${transientProbe.namespace}: ${transientProbe.error ?? 'unavailable'}`;
    return s('stalled', msg, { ...(transientProbe.hint ? { hints: [transientProbe.hint] } : {}), namespaced: { [transientProbe.namespace]: transientProbe.error ?? 'unavailable' } });
  }
  if (o.health && !o.health.healthy) return s('stalled', o.health.error ?? 'the data plane reported the connector unhealthy', null);
  // Not in the data plane yet: `created` until the first observation, then `starting`.
  if (!o.resourcePresent) return s(prev ? 'starting' : 'created');
  return s('running');
}

export function transition(prev: ConnectorStatus | undefined, o: Observation, at: string): Transition {
  const d = describe(o, prev);
  const changed = !prev || prev.status !== d.status || prev.error !== d.error;
  // History rows are keyed by time: two changes within one millisecond (a `starting` and the
  // error of the call right after it) or a clock behind the last writer's must still make two
  // rows, in order.
  const now = prev && Date.parse(at) <= Date.parse(prev.lastStatusChangeAt) ? new Date(Date.parse(prev.lastStatusChangeAt) + 1).toISOString() : at;
  const next: ConnectorStatus = {
    ...d,
    generation: o.generation,
    lastStatusChangeAt: changed ? now : prev!.lastStatusChangeAt,
  };
  const dataPlaneSilent = o.dataPlaneSilentSince !== undefined && o.silentSeconds !== undefined && d.status === 'stalled' && d.error?.startsWith(SILENT_ERROR_PREFIX) === true;
  return changed ? { next, history: { occurredAt: now, status: d.status, error: d.error, details: d.details, from: prev?.status ?? null, ...(dataPlaneSilent ? { dataPlaneSilent } : {}) } } : { next };
}
