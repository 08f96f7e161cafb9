/**
 * Status reports from the data plane, judged against the stored status. Pure: parsing, the
 * stale/duplicate/dropped verdict, and the observation a report makes for `transition()`.
 */
import * as z from 'zod/mini';
import { HEARTBEAT_TIMEOUT_SECONDS, REPORTED_STATUSES, type StatusReport } from '../dataplane/contract';
import { scrubError } from '../probes/namespace';
import type { Observation, StatusDetails } from './transition';

// Built on the first report parsed, not at import: the executors and the sweeper import this
// module for `reportDueAt` alone and never parse a report.
let reportSchema: ReturnType<typeof buildReportSchema> | undefined;
const buildReportSchema = () => z.object({
  tenant: z.string().check(z.minLength(1)),
  objectId: z.string().check(z.minLength(1)),
  kind: z.enum(['ingestion', 'export']),
  generation: z.number().check(z.int(), z.minimum(0)),
  sequence: z.number().check(z.int(), z.minimum(0)),
  reason: z.enum(['change', 'heartbeat']),
  status: z.enum(REPORTED_STATUSES),
  error: z.nullable(z.string()),
  hints: z.array(z.string()),
  namespaced: z.record(z.string(), z.string()),
  observedAt: z.iso.datetime({ offset: true }),
});

/** A report from a message body, or an error saying what is wrong with it. */
export function parseReport(body: string): StatusReport {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    throw new Error(`status report is not JSON: ${(err as Error).message}`);
  }
  const parsed = (reportSchema ??= buildReportSchema()).safeParse(json);
  if (!parsed.success) throw new Error(`invalid status report: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}`);
  return parsed.data as StatusReport;
}

/** What the status item remembers of the reports it accepted. */
export interface ReportMark {
  readonly reportGeneration?: number;
  readonly reportSequence?: number;
}

/** `ahead`: about a generation the control plane has not started (or never issued): refused. */
export type ReportVerdict = 'accept' | 'stale' | 'duplicate' | 'dropped' | 'unknown' | 'ahead';

/**
 * Whether a report may change the status: not about an object the catalog no longer has
 * (`dropped`, or `unknown` when no status or no catalog object exists), not about an older
 * generation than the status speaks of, not older than (`stale`) or the same as (`duplicate`)
 * one already applied.
 *
 * Nor about a newer generation than the status speaks of (`ahead`): the executor moves the status
 * to a new generation (`starting`) before it asks the data plane to run it, so no genuine report
 * is ahead of the status, and none is ahead of the catalog (`object`, read after the report was
 * sent). A report therefore never raises a status's generation: one that did would make every
 * genuine report after it stale, and `ALTER ... RESTART` (a generation below it) would not move
 * the status (issue 29). A report mark beyond the status's generation (left by such a report
 * before they were refused) is no mark.
 *
 * `object` is the catalog object when the caller read it (`null`: read and absent). Status-ingest
 * does not read it for every report: a status's generation is set only from the catalog (at the
 * commit, and by the executor's starting mark), so a report at or below it is at or below the
 * catalog's, and a DROP marks the status `dropped` in its own commit. A status left ahead of its
 * catalog object by a report before they were fenced is for `ddlctl check` to flag and `ALTER ...
 * RESTART` to repair.
 */
export function judgeReport(
  prev: (ReportMark & { status: string; generation: number }) | undefined,
  r: Pick<StatusReport, 'generation' | 'sequence'>,
  object?: { readonly generation: number; readonly dropped?: boolean } | null,
): ReportVerdict {
  if (!prev) return 'unknown';
  if (prev.status === 'dropped' || object?.dropped) return 'dropped';
  if (object === null) return 'unknown';
  if (r.generation < prev.generation) return 'stale';
  if (r.generation > prev.generation || (object && r.generation > object.generation)) return 'ahead';
  if (prev.reportGeneration === undefined || prev.reportSequence === undefined || prev.reportGeneration > prev.generation) return 'accept';
  if (r.generation < prev.reportGeneration) return 'stale';
  if (r.generation > prev.reportGeneration) return 'accept';
  if (r.sequence < prev.reportSequence) return 'stale';
  return r.sequence === prev.reportSequence ? 'duplicate' : 'accept';
}

/**
 * The observation a report makes about its connector. The data plane's text goes in front of
 * users: passwords in URLs are masked and long texts bounded, as for every data-plane error.
 */
export function reportObservation(kind: 'source' | 'sink', report: StatusReport): Observation {
  const r: StatusReport = {
    ...report,
    error: report.error === null ? null : scrubError(report.error),
    hints: report.hints.map((h) => scrubError(h)),
    namespaced: Object.fromEntries(Object.entries(report.namespaced).map(([k, v]) => [k, scrubError(v)])),
  };
  const details: StatusDetails | null =
    r.hints.length || Object.keys(r.namespaced).length ? { ...(r.hints.length ? { hints: r.hints } : {}), ...(Object.keys(r.namespaced).length ? { namespaced: r.namespaced } : {}) } : null;
  return {
    kind,
    dropped: false,
    generation: r.generation,
    resourcePresent: r.status !== 'starting',
    replicas: r.status === 'paused' ? 0 : 1,
    report: { status: r.status, error: r.status === 'stalled' || r.status === 'failed' ? r.error : null, details },
  };
}

/** When the next report is due: none while failed (the data plane has nothing more to say until a new generation). */
export function reportDueAt(status: string, now: Date): string | undefined {
  return status === 'failed' || status === 'dropped' ? undefined : new Date(now.getTime() + HEARTBEAT_TIMEOUT_SECONDS * 1000).toISOString();
}
