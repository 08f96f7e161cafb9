/**
 * Where the stream router sends status events: an interface, with the EventBridge adapter for AWS
 * here and the local event log (local/event-log.ts) for `npm start` and the tests.
 */
import { loadEventBridge, type EventBridgeSender } from '../clients/lazy';
import type { ControlPlaneEvent } from './model';

export interface EventPublisher {
  /**
   * Publishes the events; resolves with the ids of those that were not accepted (the router
   * reports their stream records as failed, so the mapping delivers them again).
   */
  publish(events: readonly ControlPlaneEvent[]): Promise<readonly string[]>;
}

/** PutEvents takes at most 10 entries: https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html */
const PUT_EVENTS_BATCH = 10;

/** The stack's own bus. EventBridge assigns its own event id; ours travels in `detail.event_id`. */
export class EventBridgePublisher implements EventPublisher {
  constructor(
    /** An `EventBridgeClient`, or one loaded on first use (shared/clients/lazy.ts). */
    private readonly client: EventBridgeSender,
    private readonly busName: string,
  ) {}

  async publish(events: readonly ControlPlaneEvent[]): Promise<readonly string[]> {
    const failed: string[] = [];
    if (events.length === 0) return failed;
    const { PutEventsCommand } = await loadEventBridge();
    for (let i = 0; i < events.length; i += PUT_EVENTS_BATCH) {
      const chunk = events.slice(i, i + PUT_EVENTS_BATCH);
      try {
        const r = await this.client.send(
          new PutEventsCommand({
            Entries: chunk.map((e) => ({ EventBusName: this.busName, Source: e.source, DetailType: e.detailType, Time: new Date(e.time), Detail: JSON.stringify(e.detail) })),
          }),
        );
        // Entries answer in request order; a failed one has an ErrorCode instead of an EventId.
        (r.Entries ?? []).forEach((entry, j) => {
          if (entry.ErrorCode) failed.push(chunk[j]!.id);
        });
      } catch {
        failed.push(...chunk.map((e) => e.id));
      }
    }
    return failed;
  }
}
