/**
 * The console shell: the login box, the tabs (hash routes), and the 2-second poll of the view
 * on screen (paused while the tab is hidden, never two requests of one view at once).
 */
import { Api, AuthFailed, defaultApiUrl, loadSession, saveSession, SqlError } from './api';
import { h } from './dom';
import { errorView, sqlView } from './sql';
import { ObjectsPage } from './objects';
import { EventsPage } from './events';
import { loadEffects, loadReplicas } from './views';

const POLL_MS = 2000;
const app = document.getElementById('app')!;

interface Route {
  readonly tab: 'objects' | 'effects' | 'replicas' | 'events' | 'sql';
  readonly id?: string;
}

function route(): Route {
  const [, tab, id] = location.hash.replace(/^#/, '').split('/');
  if (tab === 'effects' || tab === 'replicas' || tab === 'events' || tab === 'sql') return { tab };
  return { tab: 'objects', ...(id ? { id: decodeURIComponent(id) } : {}) };
}

let stopPolling: (() => void) | undefined;

function login(message?: string): void {
  stopPolling?.();
  const url = h('input', { id: 'api-url', type: 'url', required: true, value: loadSession()?.url ?? defaultApiUrl() }) as HTMLInputElement;
  const password = h('input', { id: 'password', type: 'password', required: true, autocomplete: 'current-password', placeholder: 'ddlp_…' }) as HTMLInputElement;
  const status = h('p', { class: 'error-line', id: 'login-error' }, message ?? '');
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const api = new Api({ url: url.value.trim(), password: password.value.trim() });
    status.textContent = 'checking…';
    try {
      await api.records('SELECT id FROM mz_clusters LIMIT 1');
      saveSession(api.session);
      shell(api);
    } catch (err) {
      status.textContent = (err as Error).message;
    }
  };
  app.replaceChildren(
    h(
      'form',
      { class: 'login card', onsubmit: (ev: Event) => void submit(ev) },
      h('h1', {}, 'ddl-control-plane'),
      h('label', {}, 'API URL', url),
      h('label', {}, 'App password', password),
      h('button', { type: 'submit', id: 'login' }, 'Sign in'),
      status,
      h('p', { class: 'muted' }, 'Locally: the password ', h('code', {}, 'npm start'), ' printed (also in ', h('code', {}, '.data/bootstrap-app-password'), '). It is kept in this tab only.'),
    ),
  );
  password.focus();
}

function shell(api: Api): void {
  const nav = h('nav', {});
  const main = h('main', {});
  const banner = h('div', { class: 'banner', hidden: true });
  const signOut = () => {
    saveSession(undefined);
    location.hash = '';
    login();
  };
  app.replaceChildren(
    h(
      'header',
      {},
      h('span', { class: 'brand' }, 'ddl-control-plane'),
      nav,
      h('span', { class: 'muted conn' }, api.session.url),
      h('button', { class: 'link', onclick: signOut }, 'Sign out'),
    ),
    banner,
    main,
  );
  let sqlPanel: HTMLElement | undefined;
  // Kept across polls and clicks: the filter box keeps its text and focus.
  let objects: ObjectsPage | undefined;
  // Kept too: it reads only the events after the last one it has.
  let events: EventsPage | undefined;

  const show = () => {
    stopPolling?.();
    const r = route();
    nav.replaceChildren(
      ...(['objects', 'effects', 'replicas', 'events', 'sql'] as const).map((t) =>
        h('a', { href: `#/${t}`, class: t === r.tab ? 'active' : '', id: `tab-${t}` }, t === 'sql' ? 'SQL' : t[0]!.toUpperCase() + t.slice(1)),
      ),
    );
    if (r.tab === 'sql') {
      sqlPanel ??= sqlView(api);
      main.replaceChildren(sqlPanel);
      banner.hidden = true;
      return;
    }
    let load: () => Promise<HTMLElement | undefined>;
    if (r.tab === 'objects') {
      const page = (objects ??= new ObjectsPage(api));
      page.select(r.id);
      // The page redraws itself in place; it is swapped in only when it is not on screen yet.
      load = async () => (await page.refresh(), main.contains(page.el) ? undefined : page.el);
    } else if (r.tab === 'events') {
      const page = (events ??= new EventsPage(api));
      load = () => page.load();
    } else load = r.tab === 'effects' ? () => loadEffects(api) : () => loadReplicas(api);
    let stopped = false;
    let busy = false;
    const tick = async () => {
      if (stopped || busy || document.hidden) return;
      busy = true;
      try {
        const view = await load();
        if (stopped) return;
        if (view) main.replaceChildren(view);
        main.dataset.loadedAt = new Date().toISOString();
        banner.hidden = true;
      } catch (err) {
        if (err instanceof AuthFailed) {
          saveSession(undefined);
          login(err.message);
          return;
        }
        banner.hidden = false;
        banner.replaceChildren(err instanceof SqlError ? errorView(err.error, err.query) : h('span', {}, `Cannot refresh: ${(err as Error).message}`));
      } finally {
        busy = false;
      }
    };
    if (!(r.tab === 'objects' && objects && main.contains(objects.el))) main.replaceChildren(h('p', { class: 'muted' }, 'loading…'));
    void tick();
    const timer = setInterval(() => void tick(), POLL_MS);
    stopPolling = () => {
      stopped = true;
      clearInterval(timer);
    };
  };
  window.onhashchange = show;
  show();
}

const saved = loadSession();
if (saved) shell(new Api(saved));
else login();
