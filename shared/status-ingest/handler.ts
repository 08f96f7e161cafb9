/**
 * The status-ingest function's SQS side: a standard queue, so a partial batch response lets the
 * reports that failed (a DynamoDB hiccup, a malformed body) come back alone; a body that never
 * parses ends in the DLQ after the queue's receive budget, where an operator can read it.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { StatusIngest, type IngestOutcome, type StatusIngestDeps } from './ingest';
import { parseReport } from '../status/reports';
import { LIVENESS_WRITE_INTERVAL_MS } from '../status/data-plane';
import type { StatusStore } from '../catalog/status-store';

export interface StatusIngestHandlerDeps extends StatusIngestDeps {
  readonly statuses: StatusIngestDeps['statuses'] & Pick<StatusStore, 'stampDataPlane'>;
  readonly logger: Logger;
  /** Called after each report is handled (the local runtime and tests wait on it). */
  readonly onIngested?: (body: string, outcome: IngestOutcome) => void;
}

export function createStatusIngestHandler(deps: StatusIngestHandlerDeps): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const ingest = new StatusIngest(deps);
  const { logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  // Per container: the data plane's liveness is stamped at most once a write interval from here.
  let stampedAt = 0;

  const record = async (r: SQSRecord): Promise<void> => {
    const report = parseReport(r.body);
    const outcome = await ingest.ingest(report);
    if (outcome === 'changed') logger.info('connector status reported', { tenant: report.tenant, objectId: report.objectId, status: report.status, error: report.error, sequence: report.sequence });
    // A report about a generation the control plane never started is no data plane's doing: someone should look.
    else if (outcome === 'ahead') logger.warn('status report refused: its generation is ahead of the status and the catalog', { tenant: report.tenant, objectId: report.objectId, generation: report.generation, sequence: report.sequence });
    else logger.debug('status report', { tenant: report.tenant, objectId: report.objectId, outcome });
    deps.onIngested?.(r.body, outcome);
  };

  const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const response = await processPartialResponse(event, record, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });
    // A report (even a stale one) came: the data plane is alive (shared/status/data-plane.ts).
    const now = clock();
    if (response.batchItemFailures.length < event.Records.length && now.getTime() - stampedAt >= LIVENESS_WRITE_INTERVAL_MS) {
      stampedAt = now.getTime();
      await deps.statuses.stampDataPlane(now).catch((err) => logger.error('data plane liveness not stamped', { error: err as Error }));
    }
    return response;
  };

  return middy(handler).use(injectLambdaContext(logger));
}
