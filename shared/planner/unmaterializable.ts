/**
 * Calls a dataflow cannot maintain: their value depends on the session or the moment of the
 * query (Materialize's `UnmaterializableFunc`). A materialized view may read `mz_now()` (a
 * temporal filter); an index key may not. Found in the statement's tokens (a function name
 * followed by `(`, or one of SQL's parenthesis-less calls), not in strings or quoted names. Pure.
 */
import { PlanError, SQLSTATE } from '../errors';
import { byteOffset, lex } from '../sql/lexer';

/** SQL function name → Materialize's name of the call in its message. */
const UNMATERIALIZABLE: Readonly<Record<string, string>> = {
  current_database: 'current_database',
  current_schema: 'current_schema',
  current_timestamp: 'current_timestamp',
  now: 'current_timestamp',
  transaction_timestamp: 'current_timestamp',
  localtimestamp: 'current_timestamp',
  current_user: 'current_user',
  current_role: 'current_user',
  user: 'current_user',
  session_user: 'session_user',
  is_rbac_enabled: 'is_rbac_enabled',
  mz_environment_id: 'mz_environment_id',
  mz_is_superuser: 'mz_is_superuser',
  mz_now: 'mz_now',
  mz_role_oid_memberships: 'mz_role_oid_memberships',
  mz_session_id: 'mz_session_id',
  mz_uptime: 'mz_uptime',
  mz_version: 'mz_version',
  mz_version_num: 'mz_version_num',
  pg_backend_pid: 'pg_backend_pid',
  pg_postmaster_start_time: 'pg_postmaster_start_time',
  version: 'version',
};
/** Calls SQL writes without parentheses. */
const BARE_CALLS = new Set(['current_timestamp', 'current_user', 'current_role', 'session_user', 'localtimestamp']);

/** Materialize's name of a call a dataflow cannot maintain (`now` → `current_timestamp`), if `fn` is one. */
export function unmaterializableName(fn: string): string | undefined {
  return Object.hasOwn(UNMATERIALIZABLE, fn) ? UNMATERIALIZABLE[fn] : undefined;
}

export interface MaterializeCheck {
  /** The text becomes a dataflow (a materialized view, an index key); a plain view only has the rename checked. */
  readonly materialized: boolean;
  /** `mz_now()` may appear (a materialized view's temporal filter). */
  readonly allowMzNow: boolean;
  /** Byte offset of `text` in the request. */
  readonly basePosition: number;
}

/**
 * Throws Materialize's error for the first call in `text` that a dataflow cannot maintain, and for
 * `mz_logical_timestamp()` (renamed). `text` must lex (the caller has parsed it).
 */
export function checkMaterializable(text: string, check: MaterializeCheck): void {
  let tokens;
  try {
    tokens = lex(text);
  } catch {
    return;
  }
  tokens.forEach((t, k) => {
    if (t.kind !== 'word') return;
    const prev = tokens[k - 1];
    // `x.now(...)` is a schema-qualified function or a column; `AS now` is a name.
    if (prev && ((prev.kind === 'op' && prev.value === '.') || (prev.kind === 'word' && prev.value === 'as'))) return;
    const next = tokens[k + 1];
    const called = next?.kind === 'op' && next.value === '(';
    const at = check.basePosition + byteOffset(text, t.start);
    if (called && t.value === 'mz_logical_timestamp') {
      throw new PlanError('mz_logical_timestamp() has been renamed to mz_now()', { code: SQLSTATE.internalError, position: at });
    }
    const name = UNMATERIALIZABLE[t.value];
    if (!check.materialized || !name || !(called || BARE_CALLS.has(t.value))) return;
    if (name === 'mz_now' && check.allowMzNow) return;
    throw new PlanError(`cannot materialize call to ${name}`, { code: SQLSTATE.internalError, position: at });
  });
}
