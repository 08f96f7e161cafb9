/**
 * The local runtime's settings profiles. `deployed` (the default of `npm start` and of
 * `startPipeline`) takes every event-source-mapping, queue and authorizer setting from the
 * definitions the CDK stack deploys (shared/definitions.ts), so what runs here is what AWS runs;
 * `fast` keeps the local runtime's earlier, quicker settings for tests and benches that measure
 * the code rather than the deployment. docs/operations.md lists every setting of both.
 */
import { AUTHORIZER_CACHE_TTL_SECONDS, EXECUTOR_MAPPING, STREAM_MAPPING } from '../shared/definitions';
import { DEFAULT_FUNCTION_TIMEOUT_MS } from './lambda-context';
import type { QueuePollerOptions } from './queue-poller';
import type { StreamPollerOptions } from './stream-poller';

export const PROFILE_NAMES = ['deployed', 'fast'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export interface RuntimeProfile {
  readonly name: ProfileName;
  /** The catalog stream's mapping. */
  readonly stream: Pick<StreamPollerOptions, 'batchSize' | 'pollIntervalMs' | 'idleMs' | 'idleMinMs' | 'bisectBatchOnError' | 'retryAttempts' | 'maxRecordAgeSeconds'>;
  /** The effect queues' mappings. */
  readonly queuePolling: Required<Pick<QueuePollerOptions, 'batchSize' | 'maxConcurrency' | 'waitSeconds'>>;
  /** Every effect queue's visibility timeout; undefined: each queue's own (shared/definitions.ts EFFECT_QUEUES). */
  readonly visibilityTimeoutSeconds?: number;
  /** The local API Gateway's authorizer cache (0: the authorizer runs on every request). */
  readonly authorizerCacheTtlSeconds: number;
  /**
   * The timeout every local function's Lambda context reports (middy's timeout and the sweeper's
   * budget read it). Tests on a loaded machine run `fast`, where it must not cut a slow request.
   */
  readonly functionTimeoutMs: number;
}

/**
 * Long-poll wait of the local queue mappings: Lambda waits up to 20 s, but a waiting receive
 * answers as soon as a message arrives, so the wait changes only the idle request rate, and a
 * short one keeps `stop()` prompt (local/queue-poller.ts `settled`).
 */
const LOCAL_WAIT_SECONDS = 1;

export const PROFILES: Readonly<Record<ProfileName, RuntimeProfile>> = {
  deployed: {
    name: 'deployed',
    stream: {
      batchSize: STREAM_MAPPING.batchSize,
      pollIntervalMs: 1000 / STREAM_MAPPING.pollsPerSecondPerShard,
      bisectBatchOnError: STREAM_MAPPING.bisectBatchOnError,
      retryAttempts: STREAM_MAPPING.retryAttempts,
      maxRecordAgeSeconds: STREAM_MAPPING.maxRecordAgeSeconds,
    },
    // The local data plane is the reference one, as in the stack's default deployment.
    queuePolling: { batchSize: EXECUTOR_MAPPING.batchSize.referenceDataPlane, maxConcurrency: EXECUTOR_MAPPING.maxConcurrency, waitSeconds: LOCAL_WAIT_SECONDS },
    authorizerCacheTtlSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    functionTimeoutMs: DEFAULT_FUNCTION_TIMEOUT_MS,
  },
  fast: {
    name: 'fast',
    // A read that found records is followed by the next at once; an idle shard is read again
    // after 10 ms, doubling up to 100 ms. A failed batch is retried until it succeeds.
    stream: { batchSize: STREAM_MAPPING.batchSize, idleMinMs: 10, idleMs: 100 },
    // One message per invocation and up to 32 in flight: concurrency follows the active message groups.
    queuePolling: { batchSize: 1, maxConcurrency: 32, waitSeconds: LOCAL_WAIT_SECONDS },
    visibilityTimeoutSeconds: 30,
    authorizerCacheTtlSeconds: 0,
    // Ten minutes: on a machine loaded 15× past its cores a request took over 60 s and the
    // middleware cut it with a 500 (test/integration/iam.test.ts); the tests' own limits bound it.
    functionTimeoutMs: 600_000,
  },
};

export function runtimeProfile(name: string): RuntimeProfile {
  if (!(PROFILE_NAMES as readonly string[]).includes(name)) throw new Error(`unknown profile "${name}": expected one of ${PROFILE_NAMES.join(', ')}`);
  return PROFILES[name as ProfileName];
}
