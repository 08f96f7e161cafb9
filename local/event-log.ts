/**
 * The local stand-in for the stack's EventBridge bus: the stream router publishes status events
 * here, and `GET /api/events`, `ddlctl events` and the console read them back. Kept in
 * `<data dir>/events.jsonl` (one event a line, with its position), or in memory with
 * `--in-memory` and in tests. An event id already logged is not logged again, so a stream batch
 * delivered twice leaves one event per transition.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventPublisher } from '../shared/events/publisher';
import type { ControlPlaneEvent } from '../shared/events/model';

/** An event as logged: `seq` orders the log and is the `after` cursor of a read. */
export interface LoggedEvent extends ControlPlaneEvent {
  readonly seq: number;
}

export interface EventReader {
  /** The tenant's events (and the deployment's own) after position `after` (0: from the start), oldest first, at most `limit`. */
  read(tenant: string, after: number, limit: number): LoggedEvent[];
}

export const EVENTS_FILE = 'events.jsonl';

export class EventLog implements EventPublisher, EventReader {
  private readonly events: LoggedEvent[] = [];
  private readonly ids = new Set<string>();
  /** Deliveries that repeated an event already logged (for tests and the banner's curious). */
  repeats = 0;

  /** `file`: where the log persists (read back on open); none: in memory. */
  constructor(private readonly file?: string) {
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        this.remember(JSON.parse(line) as LoggedEvent);
      } catch {
        // A line cut short by a crash mid-write: the events after it are still good.
      }
    }
  }

  private remember(e: LoggedEvent): void {
    this.events.push(e);
    this.ids.add(e.id);
  }

  async publish(events: readonly ControlPlaneEvent[]): Promise<readonly string[]> {
    const lines: string[] = [];
    for (const e of events) {
      if (this.ids.has(e.id)) {
        this.repeats++;
        continue;
      }
      const logged: LoggedEvent = { seq: (this.events[this.events.length - 1]?.seq ?? 0) + 1, ...e };
      this.remember(logged);
      lines.push(JSON.stringify(logged));
    }
    if (this.file && lines.length) appendFileSync(this.file, lines.map((l) => `${l}\n`).join(''));
    return [];
  }

  read(tenant: string, after: number, limit: number): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (const e of this.events) {
      // A deployment-wide event (the data plane went silent) concerns every tenant.
      if (e.seq <= after || (e.detail.tenant !== tenant && e.detail.tenant !== null)) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Every event logged, in order (tests). */
  all(): readonly LoggedEvent[] {
    return this.events;
  }
}
