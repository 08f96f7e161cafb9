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
import { parseReport } from './reports';

export interface StatusIngestHandlerDeps extends StatusIngestDeps {
  readonly logger: Logger;
  /** Called after each report is handled (the local runtime and tests wait on it). */
  readonly onIngested?: (body: string, outcome: IngestOutcome) => void;
}

export function createStatusIngestHandler(deps: StatusIngestHandlerDeps): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const ingest = new StatusIngest(deps);
  const { logger } = deps;

  const record = async (r: SQSRecord): Promise<void> => {
    const report = parseReport(r.body);
    const outcome = await ingest.ingest(report);
    if (outcome === 'changed') logger.info('connector status reported', { tenant: report.tenant, objectId: report.objectId, status: report.status, error: report.error, sequence: report.sequence });
    else logger.debug('status report', { tenant: report.tenant, objectId: report.objectId, outcome });
    deps.onIngested?.(r.body, outcome);
  };

  const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, record, new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false });

  return middy(handler).use(injectLambdaContext(logger));
}
