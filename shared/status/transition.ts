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
}

export interface Transition {
  readonly next: ConnectorStatus;
  /** Present when status or error changed: the row for the _history table. */
  readonly history?: { readonly occurredAt: string; readonly status: ConnectorStatusValue; readonly error: string | null; readonly details: StatusDetails | null };
}

function describe(o: Observation, prev: ConnectorStatus | undefined): Omit<ConnectorStatus, 'lastStatusChangeAt' | 'generation'> {
  const s = (status: ConnectorStatusValue, error: string | null = null, details: StatusDetails | null = null) => ({ status, error, details });
  if (o.dropped) return s('dropped');
  // Sticky: a failed connector stays failed until the user changes it (a new generation).
  if (prev?.status === 'failed' && prev.generation === o.generation) return s('failed', prev.error, prev.details);
  if (o.effectError) return s('failed', o.effectError, { hints: ['Drop and recreate the object, or alter it, once the cause is fixed.'] });
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

export function transition(prev: ConnectorStatus | undefined, o: Observation, now: string): Transition {
  const d = describe(o, prev);
  const changed = !prev || prev.status !== d.status || prev.error !== d.error;
  const next: ConnectorStatus = {
    ...d,
    generation: o.generation,
    lastStatusChangeAt: changed ? now : prev!.lastStatusChangeAt,
  };
  return changed ? { next, history: { occurredAt: now, status: d.status, error: d.error, details: d.details } } : { next };
}
