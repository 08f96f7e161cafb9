/**
 * SDK clients loaded on their first call, for the functions whose typical first event does not
 * call them: each client package is several milliseconds of a cold import (bench/phases/bundles.ts
 * measures a function's cold init against one that loads client-dynamodb alone).
 *
 * - SQS: the executors send only when a settle frees a slot for a tenant's next effect or a
 *   message must be delayed, the sweeper only when it replays an effect, the DDL function only
 *   after a commit with effects (a read never sends). The stream router sends on every event and
 *   keeps ./sqs.ts. The DDL function starts the load (`prepare`) once a commit with effects is
 *   on the wire, so that it overlaps the commit's round trip: a cold first event 5-10 ms shorter
 *   in three interleaved `BENCH_FUNCTIONS=ddl-api npm run bench -- --only bundles` pairs. (Started
 *   as the commit went out, before the SDK had written the request, it measured no better: the
 *   load's synchronous work delayed the commit itself.)
 * - EventBridge: the stream router publishes only the records that are status events.
 *
 * Callers build their commands from {@link loadSqs} / {@link loadEventBridge}: a static import of a
 * command class would load the package at cold start again. They are the client modules' own
 * re-exports of the SDK package, so the command classes and the client's are the same.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ClientOptions } from './options';

/**
 * What the control plane asks of an SQS client: `send`. A real `SQSClient` is one. A client loaded
 * on first use also has `prepare`: load it now, without sending (the caller has a wait to overlap).
 */
export type SqsSender = Pick<SQSClient, 'send'> & { readonly prepare?: () => void };

/** What the status-event publisher asks of an EventBridge client: `send`. A real `EventBridgeClient` is one. */
export type EventBridgeSender = Pick<EventBridgeClient, 'send'>;

/** ./sqs.ts and the SQS client package: the client factory and the command classes, on first use. */
export const loadSqs = () => import('./sqs');

/** ./eventbridge.ts and the EventBridge client package, on first use. */
export const loadEventBridge = () => import('./eventbridge');

/** A loader that runs once; a failed load is retried by the next call. */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}

/** `send` forwarded to a client built on the first call. */
function forwardSend<C extends { send: (...args: never[]) => unknown }>(client: () => Promise<C>): C['send'] {
  return (async (...args: Parameters<C['send']>) => (await client()).send(...args)) as C['send'];
}

/** An {@link SqsSender} over ./sqs.ts's client, built on the first `send`. */
export function lazySqsClient(o: ClientOptions): SqsSender {
  const client = loadOnce(() => loadSqs().then((m) => m.makeSqsClient(o)));
  // A failed load here is the first send's to report (loadOnce retries it).
  return { send: forwardSend(client), prepare: () => void client().catch(() => undefined) };
}

export function lazyEventBridgeClient(o: ClientOptions): EventBridgeSender {
  return { send: forwardSend(loadOnce(() => loadEventBridge().then((m) => m.makeEventBridgeClient(o)))) };
}
