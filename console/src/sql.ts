/**
 * The SQL box: any statements the API serves, one request (one transaction) per run, results as
 * tables and errors with a caret under the byte `position` the API reports.
 */
import { caretPadding, locate } from '../../shared/sql/caret';
import type { Api, ErrorBody, StatementResult } from './api';
import { h, table } from './dom';

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export function errorView(e: ErrorBody, query: string): HTMLElement {
  const lines: (HTMLElement | null)[] = [h('div', { class: 'error-head' }, h('b', {}, 'ERROR '), e.message, h('span', { class: 'muted' }, ` SQLSTATE ${e.code}`))];
  if (e.position !== undefined) {
    const at = locate(query, e.position);
    const label = `LINE ${at.lineNumber}: `;
    lines.push(h('pre', { class: 'caret' }, `${label}${at.line}\n${' '.repeat(label.length)}${caretPadding(at.before)}^`));
  }
  if (e.detail) lines.push(h('div', {}, h('b', {}, 'DETAIL '), e.detail));
  if (e.hint) lines.push(h('div', { class: 'hint' }, h('b', {}, 'HINT '), e.hint));
  return h('div', { class: 'error-box sql-error' }, lines);
}

function resultView(r: StatementResult, query: string, rolledBack: boolean): HTMLElement {
  if (rolledBack && 'ok' in r) return h('div', { class: 'result' }, h('div', { class: 'ok-tag rolled-back' }, `${r.ok} (rolled back)`));
  const notices = (r.notices ?? []).map((n) => h('div', { class: 'notice' }, `${n.severity.toUpperCase()}: ${n.message}`));
  if ('error' in r) return h('div', { class: 'result' }, notices, errorView(r.error, query));
  if ('rows' in r) {
    return h(
      'div',
      { class: 'result' },
      notices,
      table(
        r.desc.columns.map((c) => c.name),
        r.rows.map((row) => row.map(cell)),
      ),
      h('div', { class: 'muted' }, `(${r.rows.length} ${r.rows.length === 1 ? 'row' : 'rows'})`),
    );
  }
  return h('div', { class: 'result' }, notices, h('div', { class: 'ok-tag' }, r.ok));
}

export function sqlView(api: Api): HTMLElement {
  const input = h('textarea', { id: 'sql-input', spellcheck: 'false', rows: '8', placeholder: "CREATE CLUSTER c (SIZE = '25cc');  — Ctrl+Enter runs" }) as HTMLTextAreaElement;
  const out = h('div', { id: 'sql-results' });
  const button = h('button', { id: 'sql-run', type: 'submit' }, 'Run') as HTMLButtonElement;
  const run = async () => {
    const query = input.value;
    if (!query.trim()) return;
    button.disabled = true;
    out.replaceChildren(h('p', { class: 'muted' }, 'running…'));
    try {
      const { results } = await api.run(query);
      // One request is one transaction: after an error, nothing before it committed either.
      const failed = results.some((r) => 'error' in r);
      out.replaceChildren(...results.map((r) => resultView(r, query, failed)));
    } catch (err) {
      out.replaceChildren(h('div', { class: 'error-box' }, (err as Error).message));
    } finally {
      button.disabled = false;
    }
  };
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      void run();
    }
  });
  const form = h(
    'form',
    { class: 'sql-form', onsubmit: (ev: Event) => (ev.preventDefault(), void run()) },
    input,
    h('div', { class: 'row' }, button, h('span', { class: 'muted' }, 'Statements separated by ; run as one transaction: all commit, or none.')),
  );
  return h('div', { class: 'column wide' }, h('section', { class: 'card' }, form), h('section', { class: 'card' }, out));
}
