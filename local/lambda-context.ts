/** A Lambda context for handlers invoked by the local runtime. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** The local runtime's function timeout unless its profile says otherwise (local/profiles.ts). */
export const DEFAULT_FUNCTION_TIMEOUT_MS = 60_000;

export function lambdaContext(functionName: string, timeoutMs = DEFAULT_FUNCTION_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
