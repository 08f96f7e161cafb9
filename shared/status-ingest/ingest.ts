/**
 * The status-ingest stage: applies one data-plane report to the connector's status with the pure
 * `transition()` and a conditional write on the status's version. Every delivery of a report is
 * judged against what the status holds now, so a late report (older sequence or generation)
 * changes nothing, a duplicate writes no second history row, a report about a dropped object
 * is ignored, and a report about a generation the status has not started (so the catalog has not
 * issued) is refused. One read and one write a report: the catalog object is not read (reports.ts).
 */
import type { StatusReport } from '../dataplane/contract';
import { judgeReport, reportDueAt, reportObservation, type ReportVerdict } from '../status/reports';
import type { ReportState, StatusStore } from '../catalog/status-store';
import { transition } from '../status/transition';

export interface StatusIngestDeps {
  readonly statuses: Pick<StatusStore, 'get' | 'apply' | 'touch'>;
  readonly clock?: () => Date;
}

export type IngestOutcome = 'changed' | 'recorded' | Exclude<ReportVerdict, 'accept'>;

/** Writers racing on one status (another report, the sweeper, a DDL commit) settle within a few rounds. */
const MAX_ROUNDS = 8;

export class StatusIngest {
  private readonly store: StatusIngestDeps['statuses'];
  private readonly clock: () => Date;

  constructor(deps: StatusIngestDeps) {
    this.store = deps.statuses;
    this.clock = deps.clock ?? (() => new Date());
  }

  async ingest(r: StatusReport): Promise<IngestOutcome> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const prev = await this.store.get(r.tenant, r.objectId);
      const verdict = judgeReport(prev, r);
      if (verdict !== 'accept') return verdict;
      const now = this.clock();
      const t = transition(prev, reportObservation(prev!.kind, r), now.toISOString());
      const due = reportDueAt(t.next.status, now);
      const state: ReportState = { reportGeneration: r.generation, reportSequence: r.sequence, lastReportAt: r.observedAt, ...(due ? { reportDueAt: due } : {}) };
      if (t.history) {
        if (await this.store.apply(r.tenant, { id: prev!.objectId, kind: prev!.kind, name: prev!.name }, t, prev!.version, state)) return 'changed';
      } else if (await this.store.touch(r.tenant, r.objectId, t.next.generation, prev!.version, state)) {
        return 'recorded';
      }
    }
    throw new Error(`status of ${r.objectId} kept changing under report ${r.generation}/${r.sequence}; the delivery will be retried`);
  }
}
