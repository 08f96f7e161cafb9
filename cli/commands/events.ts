/**
 * `ddlctl events`: the tenant's status events from the local runtime's event log (connector
 * status changes, failed effects), one line each; `--follow` keeps polling for new ones until
 * Ctrl-C. In AWS the same events go to the stack's EventBridge bus (docs/operations.md).
 */
import pc from 'picocolors';
import { UnreachableError, type LoggedEventWire, type SqlClient } from '../client';
import { colourStatus } from '../render';

/** One event as a line: when, what, which object, from → to, error and hints. */
export function renderEvent(e: LoggedEventWire): string {
  const d = e.detail;
  const what = e.detailType === 'Effect Failed' ? `effect ${d.object_kind}` : d.object_kind;
  // A replica's name is unique only within its cluster: `east.r1`, as Materialize names it.
  const name = d.object_name ?? d.object_id;
  const parts = [pc.dim(e.time), what, d.cluster_name ? `${d.cluster_name}.${name}` : name, `${d.from ?? '∅'} → ${colourStatus(d.to)}`];
  if (d.error) parts.push(pc.red(d.error));
  const hints = d.hints.map((h) => pc.dim(`  hint: ${h}`));
  return [parts.join('  '), ...hints].join('\n');
}

export interface EventsOptions {
  readonly follow: boolean;
  readonly json: boolean;
  readonly after: number;
  /** Seconds between polls with --follow. */
  readonly interval: number;
  readonly signal?: AbortSignal;
  readonly print?: (line: string) => void;
  /** With `follow`: how long the server may stay unreachable before it is reported gone (default FOLLOW_GIVE_UP_MS). */
  readonly giveUpAfterMs?: number;
}

/**
 * How long `--follow` keeps polling a server that does not answer (refused, reset: a restart of
 * `npm start`, a busy machine) before it says so and exits. A poll that failed once is retried
 * quietly at the next interval.
 */
export const FOLLOW_GIVE_UP_MS = 30_000;

/** Prints the events after `after`; with `follow`, keeps polling until the signal aborts. Resolves with how many it printed. */
export async function printEvents(client: SqlClient, o: EventsOptions): Promise<number> {
  const print = o.print ?? ((line: string) => console.log(line));
  let after = o.after;
  let printed = 0;
  let unreachableSince: number | undefined;
  for (;;) {
    try {
      // Drain what is there (pages of up to 100), then wait for more or stop.
      for (;;) {
        const page = await client.events(after, o.signal ? { signal: o.signal } : {});
        for (const e of page.events) print(o.json ? JSON.stringify(e) : renderEvent(e));
        printed += page.events.length;
        if (page.next === after) break;
        after = page.next;
      }
      unreachableSince = undefined;
    } catch (err) {
      // Ctrl-C while a poll was on its way is the way --follow ends, not a lost server.
      if (o.signal?.aborted) return printed;
      if (!o.follow || !(err instanceof UnreachableError)) throw err;
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince >= (o.giveUpAfterMs ?? FOLLOW_GIVE_UP_MS)) throw err;
    }
    if (!o.follow || o.signal?.aborted) return printed;
    const stopped = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), o.interval * 1000);
      o.signal?.addEventListener('abort', () => {
        clearTimeout(t);
        resolve(true);
      }, { once: true });
    });
    if (stopped) return printed;
  }
}
