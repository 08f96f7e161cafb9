/**
 * A tiny DOM builder. Every piece of server data goes in as text (never as HTML), so object
 * names and error messages cannot inject markup.
 */
import { timestampOf } from '../../shared/api/timestamps';

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | boolean | ((ev: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, '').toLowerCase(), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

/** A status badge: `running`, `stalled`, `failed`, `online`, ... each with its colour class. */
export function badge(status: string): HTMLElement {
  return h('span', { class: `badge badge-${status.replace(/[^a-z-]/g, '')}`, 'data-status': status }, status);
}

/** "5s ago" from a timestamp (the API's epoch text, or ISO); the exact time in the element's title. */
export function ago(iso: unknown): HTMLElement {
  const d = timestampOf(iso);
  if (!d) return h('span', { class: 'muted' }, '—');
  const s = Math.max(0, Math.round((Date.now() - d.getTime()) / 1000));
  const text = s < 60 ? `${s}s ago` : s < 3600 ? `${Math.floor(s / 60)}m ago` : s < 86_400 ? `${Math.floor(s / 3600)}h ago` : `${Math.floor(s / 86_400)}d ago`;
  return h('time', { datetime: d.toISOString(), title: d.toLocaleString() }, text);
}

/** A timestamp's local time of day, or '' when it is not one. */
export function timeOfDay(value: unknown): string {
  return timestampOf(value)?.toLocaleTimeString() ?? '';
}

/** A timestamp's local date and time, or the value as it came when it is not one. */
export function localTime(value: unknown): string {
  return timestampOf(value)?.toLocaleString() ?? String(value ?? '');
}

/** A timestamp of an answer in UTC, as ISO text (the same in every browser). */
export function utcTime(value: unknown): string {
  return timestampOf(value)?.toISOString() ?? String(value ?? '');
}

/** A plain table of rows. */
export function table(columns: readonly string[], rows: readonly (readonly (Node | string | number | null | undefined)[])[], cls = 'grid'): HTMLElement {
  return h(
    'table',
    { class: cls },
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', {}, c)))),
    h(
      'tbody',
      {},
      rows.map((r) => h('tr', {}, r.map((v) => h('td', {}, v === null || v === undefined ? '' : typeof v === 'object' ? v : String(v))))),
    ),
  );
}

export function empty(text: string): HTMLElement {
  return h('p', { class: 'empty' }, text);
}
