/**
 * The SQS-facing side of an executor: one FIFO-aware partial batch (Powertools), a backoff from
 * the loop's named policy applied with ChangeMessageVisibility, and simulated crashes passed
 * through as a failed invocation (the way a dead process looks to the event source mapping).
 */
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { SimulatedCrash } from '../errors';
import type { EffectMessage } from '../effects/model';
import { backoffMs } from '../effects/retry-policies';
import { EffectExecutor, RetryLater, type ExecutorDeps } from './executor';

export interface ExecutorHandlerDeps extends ExecutorDeps {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly logger: Logger;
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export function createExecutorHandler(deps: ExecutorHandlerDeps): SqsHandler {
  const executor = new EffectExecutor(deps);
  const { logger } = deps;

  const recordHandler = async (record: SQSRecord): Promise<void> => {
    const msg = JSON.parse(record.body) as EffectMessage;
    const attempt = Number(record.attributes.ApproximateReceiveCount ?? '1');
    try {
      const outcome = await executor.process(msg, attempt);
      logger.info('effect processed', { effectId: msg.effectId, objectId: msg.objectId, generation: msg.generation, outcome, attempt });
    } catch (err) {
      if (err instanceof RetryLater) {
        const delaySeconds = Math.ceil(backoffMs(deps.policy, attempt) / 1000);
        logger.warn('effect will be retried', { effectId: msg.effectId, attempt, delaySeconds, error: err.message });
        await deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: delaySeconds }));
      }
      throw err;
    }
  };

  const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    let crash: SimulatedCrash | undefined;
    const processor = new SqsFifoPartialProcessorAsync();
    const response = await processPartialResponse(
      event,
      async (record: SQSRecord) => {
        try {
          await recordHandler(record);
        } catch (err) {
          if (err instanceof SimulatedCrash) crash ??= err;
          throw err;
        }
      },
      processor,
      { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
    );
    if (crash) throw crash;
    return response;
  };

  return middy(handler).use(injectLambdaContext(logger)) as unknown as SqsHandler;
}
