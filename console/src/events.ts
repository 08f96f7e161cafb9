/**
 * The Events tab: the tenant's status events (connector status changes, failed effects) from the
 * local runtime's event log (`GET /api/events`), newest first; and the Restart button the Objects
 * page shows on a failed or stalled source or sink (`ALTER SOURCE|SINK name RESTART`).
 */
import type { ControlPlaneEvent } from '../../shared/events/model';
import { AuthFailed, type Api } from './api';
import { ago, badge, empty, h, table } from './dom';

type LoggedEvent = ControlPlaneEvent & { readonly seq: number };

/** Events kept on screen: the newest. */
const KEEP = 500;

/** The Events page: reads only what is new on each poll (the log's `after` cursor). */
export class EventsPage {
  private after = 0;
  private events: LoggedEvent[] = [];
  /** Set when the API has no event log (a deployed stack: its events go to EventBridge). */
  private unavailable = false;

  constructor(private readonly api: Api) {}

  private async fetchPage(): Promise<{ events: LoggedEvent[]; next: number } | undefined> {
    let res: Response;
    try {
      res = await fetch(`${this.api.session.url.replace(/\/+$/, '')}/api/events?after=${this.after}&limit=1000`, { headers: { authorization: `Bearer ${this.api.session.password}` } });
    } catch (err) {
      throw new Error(`cannot reach ${this.api.session.url}: ${(err as Error).message}`);
    }
    if (res.status === 401) throw new AuthFailed('The API refused this app password.');
    if (res.status === 404 || res.status === 403) return undefined;
    if (!res.ok) throw new Error(`GET /api/events answered HTTP ${res.status}`);
    return (await res.json()) as { events: LoggedEvent[]; next: number };
  }

  async load(): Promise<HTMLElement> {
    if (!this.unavailable) {
      for (;;) {
        const page = await this.fetchPage();
        if (!page) {
          this.unavailable = true;
          break;
        }
        this.events = [...page.events.reverse(), ...this.events].slice(0, KEEP);
        if (page.next === this.after) break;
        this.after = page.next;
      }
    }
    return h(
      'div',
      { class: 'column wide' },
      h(
        'section',
        { class: 'card', id: 'events' },
        h('h2', {}, 'Status events', h('span', { class: 'count' }, String(this.events.length))),
        this.unavailable
          ? empty('This API keeps no event log: a deployed stack publishes status events to its EventBridge bus (see docs/operations.md).')
          : this.events.length === 0
            ? empty('No status changes yet.')
            : table(
                ['when', 'event', 'object', 'from', 'to', 'error'],
                this.events.map((e) => [
                  ago(e.time),
                  e.detailType,
                  // The data plane as a whole is no object of the tenant's: nothing to open.
                  e.detail.object_kind === 'data_plane' ? 'the data plane' : h('a', { href: `#/objects/${encodeURIComponent(e.detail.object_id)}` }, e.detail.cluster_name ? `${e.detail.cluster_name}.${e.detail.object_name ?? e.detail.object_id}` : (e.detail.object_name ?? e.detail.object_id)),
                  e.detail.from ? badge(e.detail.from) : '',
                  badge(e.detail.to),
                  h('div', {}, e.detail.error ? h('div', { class: 'error-line' }, e.detail.error) : null, e.detail.hints.map((x) => h('div', { class: 'muted' }, `hint: ${x}`))),
                ]),
                'grid events',
              ),
      ),
    );
  }
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * A Restart button for a source or sink that is failed or stalled (none otherwise): sends
 * `ALTER SOURCE|SINK <schema>.<name> RESTART` and says what the API answered.
 */
export function restartButton(api: Api, e: { readonly type: string; readonly name: string; readonly schema?: string; readonly status?: string }): HTMLElement | null {
  if ((e.type !== 'source' && e.type !== 'sink') || (e.status !== 'failed' && e.status !== 'stalled')) return null;
  const name = [...(e.schema ? e.schema.split('.') : []), e.name].map(ident).join('.');
  const statement = `ALTER ${e.type.toUpperCase()} ${name} RESTART`;
  const note = h('span', { class: 'muted restart-note' });
  const button = h('button', { id: 'restart', type: 'button', title: statement }, 'Restart') as HTMLButtonElement;
  button.onclick = async () => {
    button.disabled = true;
    note.textContent = 'restarting…';
    try {
      const { results } = await api.run(statement);
      const r = results[0];
      note.textContent = !r ? 'no answer' : 'error' in r ? `${r.error.message} (${r.error.code})` : 'restarted: the status goes starting, then follows the data plane';
    } catch (err) {
      note.textContent = (err as Error).message;
    } finally {
      button.disabled = false;
    }
  };
  return h('div', { class: 'restart' }, button, note);
}
