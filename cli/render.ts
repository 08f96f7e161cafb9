/**
 * Terminal output: psql-style aligned tables, errors with a caret under the spot, and coloured
 * statuses. Colours come from picocolors, which turns itself off when stdout is not a terminal
 * or NO_COLOR is set, so piped output and the tests see plain text.
 */
import Table from 'cli-table3';
import pc from 'picocolors';
import { timestampOf } from '../shared/api/timestamps';
import { caretPadding, locate } from '../shared/sql/caret';
import type { ErrorBody, StatementResult } from './client';

const PSQL_CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', right: '', 'right-mid': '',
  mid: '-', 'mid-mid': '+', middle: '|',
};

/** A cell as psql shows it: NULL as empty, objects as JSON. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** An aligned table with a header rule (psql's format), trailing blanks trimmed. */
export function table(columns: readonly string[], rows: readonly (readonly unknown[])[], o: { colour?: (col: number, value: string) => string } = {}): string {
  const t = new Table({ head: [...columns], chars: PSQL_CHARS, style: { compact: true, head: [], border: [] } });
  for (const r of rows) t.push(r.map((v, i) => (o.colour ? o.colour(i, cell(v)) : cell(v))));
  const lines = t.toString().split('\n');
  // psql draws the rule under the header even when no row follows; cli-table3 only between rows.
  if (rows.length === 0) lines.push(lines[0]!.split('|').map((seg) => '-'.repeat(seg.length)).join('+'));
  return lines.map((l) => l.replace(/\s+$/, '')).join('\n');
}

export function rowCount(n: number): string {
  return `(${n} ${n === 1 ? 'row' : 'rows'})`;
}

/**
 * An error as psql draws it: the message, the line of the query holding `position` (a byte
 * offset) and a caret under the character there, then DETAIL and HINT.
 */
export function formatError(e: ErrorBody, query?: string): string {
  const out = [`${pc.red(pc.bold('ERROR:'))}  ${e.message}  ${pc.dim(`(SQLSTATE ${e.code})`)}`];
  if (query !== undefined && e.position !== undefined) {
    const at = locate(query, e.position);
    const label = `LINE ${at.lineNumber}: `;
    out.push(`${label}${at.line}`, `${' '.repeat(label.length)}${caretPadding(at.before)}${pc.red('^')}`);
  }
  if (e.detail) out.push(`${pc.bold('DETAIL:')}  ${e.detail}`);
  if (e.hint) out.push(`${pc.bold('HINT:')}  ${e.hint}`);
  return out.join('\n');
}

/** One statement's result: a table and its row count, a command tag, or the error. */
export function formatResult(r: StatementResult, query?: string): string {
  const notices = (r.notices ?? []).map((n) => `${n.severity === 'warning' ? pc.yellow('WARNING:') : 'NOTICE:'}  ${n.message}`);
  if ('error' in r) return [...notices, formatError(r.error, query)].join('\n');
  if ('rows' in r) {
    const columns = r.desc.columns.map((c) => c.name);
    const statusCol = columns.findIndex((c) => c === 'status' || c === 'state');
    const body = table(columns, r.rows, { colour: (i, v) => (i === statusCol ? colourStatus(v) : v) });
    return [...notices, body, rowCount(r.rows.length)].join('\n');
  }
  return [...notices, r.ok].join('\n');
}

/** Connector, replica and effect statuses in the colour of their meaning. */
export function colourStatus(status: string): string {
  switch (status) {
    case 'running':
    case 'online':
    case 'applied':
      return pc.green(status);
    case 'stalled':
    case 'pending':
    case 'starting':
      return pc.yellow(status);
    case 'failed':
    case 'offline':
    case 'dead-lettered':
      return pc.red(status);
    case 'paused':
    case 'created':
      return pc.cyan(status);
    case 'dropped':
      return pc.dim(status);
    default:
      return status;
  }
}

/** "3s ago", "4m ago", "2h ago" from a timestamp (the API's epoch text, or ISO). */
export function ago(iso: unknown, now: number = Date.now()): string {
  if (typeof iso !== 'string') return '';
  const t = timestampOf(iso)?.getTime();
  if (t === undefined) return iso;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/** A section title. */
export function heading(text: string, count?: number): string {
  return pc.bold(count === undefined ? text : `${text} (${count})`);
}
