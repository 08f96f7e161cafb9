/**
 * The data plane as a whole: reporting, or silent. Pure.
 *
 * Every connector has its own report deadline (shared/status-ingest/ingest.ts), and the sweeper's
 * connector pass marks an overdue one `stalled`. When the whole data plane goes quiet (its reporter
 * died, or lost its way to the status queue) every running connector becomes overdue in the same
 * minute, and marking them one by one takes a status transaction each: about 8 300 a second for
 * 500 000 connectors to show within two sweeps, above a table's default write limit. So the
 * control plane keeps one liveness item for the data plane: status-ingest stamps it (at most once
 * per {@link LIVENESS_WRITE_INTERVAL_MS} per deployment, by a condition), and a sweep that finds
 * overdue connectors while the stamp is older than the report timeout marks the data plane silent
 * with ONE conditional write. Reads of the status tables then show every watched connector
 * `stalled` at once, whatever the catalog size; the connector pass still writes each connector's
 * own transition and history row at its pace, and status-ingest's next stamp ends the silence.
 */
import { HEARTBEAT_TIMEOUT_SECONDS } from '../dataplane/contract';
import type { ConnectorStatus, StatusDetails } from './transition';
import { dataPlaneSilenceHint, SILENT_ERROR_PREFIX } from './transition';

/** What the liveness item holds. */
export interface DataPlaneLiveness {
  /** The last time status-ingest stamped it (the control plane's clock): a report arrived then. */
  readonly lastReportAt?: string;
  /** Set by the sweeper when it found the data plane silent: `lastReportAt` as it then was. */
  readonly silentSince?: string;
  /** When the sweeper found it so. */
  readonly detectedAt?: string;
}

/**
 * Status-ingest stamps the item at most this often (one conditional write per container per
 * interval; only one of them per interval lands, so the catalog stream sees a few records a minute).
 */
export const LIVENESS_WRITE_INTERVAL_MS = 5_000;

/**
 * How long without any report before the data plane is silent: a connector's own deadline, plus the
 * stamp's granularity (the stamp may lag the newest report by up to one write interval).
 */
export const DATA_PLANE_SILENCE_MS = HEARTBEAT_TIMEOUT_SECONDS * 1000 + LIVENESS_WRITE_INTERVAL_MS;

/** Statuses the data plane is expected to keep reporting on (those a silence makes untrue). */
export const WATCHED_STATUSES: ReadonlySet<string> = new Set(['starting', 'running', 'paused', 'stalled']);

/**
 * Whether a sweep should mark the data plane silent: some connector is overdue, and no report at
 * all came for longer than the silence threshold. Nothing is said of a data plane that never
 * reported (no stamp: a new deployment, or one from before stamps) — its connectors' own deadlines
 * still catch it — nor of one already marked.
 */
export function silenceToMark(liveness: DataPlaneLiveness | undefined, now: Date, overdueConnectors: number): { readonly since: string } | undefined {
  if (overdueConnectors === 0 || !liveness?.lastReportAt || liveness.silentSince) return undefined;
  if (now.getTime() - Date.parse(liveness.lastReportAt) <= DATA_PLANE_SILENCE_MS) return undefined;
  return { since: liveness.lastReportAt };
}

/**
 * The data plane's silence as a read sees it now: marked by a sweep and not ended by a report
 * since. The read's own clock must agree (the stamp is old): a stamp written after the mark ends it
 * even before the mark is removed.
 */
export function activeSilence(liveness: DataPlaneLiveness | undefined, now: Date): { readonly since: string; readonly detectedAt: string } | undefined {
  if (!liveness?.silentSince || !liveness.lastReportAt) return undefined;
  if (now.getTime() - Date.parse(liveness.lastReportAt) <= DATA_PLANE_SILENCE_MS) return undefined;
  return { since: liveness.silentSince, detectedAt: liveness.detectedAt ?? liveness.silentSince };
}

interface ReadStatus extends ConnectorStatus {
  readonly lastReportAt?: string;
}

/**
 * The statuses a read shows while the data plane is silent: each watched connector `stalled` with
 * the silence's error (as the connector pass writes it), unless the pass already wrote it so.
 * Failed and dropped connectors are untouched: no report was expected from them.
 */
export function withDataPlaneSilence<S extends ReadStatus>(statuses: readonly S[], silence: { readonly since: string; readonly detectedAt: string } | undefined): S[] {
  if (!silence) return [...statuses];
  const detected = Date.parse(silence.detectedAt);
  return statuses.map((s) => {
    if (!WATCHED_STATUSES.has(s.status)) return s;
    if (s.status === 'stalled' && s.error?.startsWith(SILENT_ERROR_PREFIX)) return s;
    const last = Date.parse(s.lastReportAt ?? s.lastStatusChangeAt);
    const details: StatusDetails = { hints: [dataPlaneSilenceHint(silence.since)] };
    return {
      ...s,
      status: 'stalled',
      error: `${SILENT_ERROR_PREFIX}${Math.max(0, Math.round((detected - last) / 1000))} s`,
      details,
      lastStatusChangeAt: silence.detectedAt,
    };
  });
}
