/**
 * SDK clients loaded on their first call, for the functions whose typical first event does not
 * call them: each client package is several milliseconds of a cold import (bench/phases/bundles.ts
 * measures a function's cold init against one that loads client-dynamodb alone).
 *
 * - SQS: the executors send only when a settle frees a slot for a tenant's next effect or a
 *   message must be delayed, the sweeper only when it replays an effect, the DDL function only
 *   after a commit with effects (a read never sends). The stream router sends on every event and
 *   keeps ./sqs.ts. (Starting the DDL function's load as its commit went out, to overlap the
 *   commit's round trip, measured no better: the load's synchronous work delayed the handling of
 *   the commit's answer about as much as it saved.)
 * - EventBridge: the stream router publishes only the records that are status events.
 *
 * Callers build their commands from {@link loadSqs} / {@link loadEventBridge}: a static import of a
 * command class would load the package at cold start again. They are the client modules' own
 * re-exports of the SDK package, so the command classes and the client's are the same.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ClientOptions } from './options';

/** What the control plane asks of an SQS client: `send`. A real `SQSClient` is one. */
export type SqsSender = Pick<SQSClient, 'send'>;

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
  return { send: forwardSend(loadOnce(() => loadSqs().then((m) => m.makeSqsClient(o)))) };
}

export function lazyEventBridgeClient(o: ClientOptions): EventBridgeSender {
  return { send: forwardSend(loadOnce(() => loadEventBridge().then((m) => m.makeEventBridgeClient(o)))) };
}
