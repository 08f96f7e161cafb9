/**
 * The console's only backend: `POST /api/sql` with the app password as a Bearer token (wire
 * shapes from shared/api/wire.ts, the server's own). The session (API URL and password) lives in
 * sessionStorage: it ends with the browser tab.
 */

import type { BareErrorBody, ErrorBody, SqlResponseBody, StatementResult } from '../../shared/api/wire';

export type { ErrorBody, StatementResult };

export interface Session {
  readonly url: string;
  readonly password: string;
}

/** Baked in at build time (`npm run build:console -- --api-url <url>`); empty means "this origin". */
declare const __DEFAULT_API_URL__: string;

const KEY = 'ddlctl.console.session';

export function defaultApiUrl(): string {
  if (__DEFAULT_API_URL__) return __DEFAULT_API_URL__;
  return location.protocol.startsWith('http') ? location.origin : 'http://127.0.0.1:6876';
}

export function loadSession(): Session | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return undefined;
  try {
    const s = JSON.parse(raw) as Session;
    return typeof s.url === 'string' && typeof s.password === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(s: Session | undefined): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

/** The server refused the password: back to the login box. */
export class AuthFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthFailed';
  }
}

/** A statement error, with the query it belongs to (for the caret). */
export class SqlError extends Error {
  constructor(
    readonly error: ErrorBody,
    readonly query: string,
  ) {
    super(`${error.message} (${error.code})`);
    this.name = 'SqlError';
  }
}

export class Api {
  constructor(readonly session: Session) {}

  async run(query: string): Promise<{ status: number; results: readonly StatementResult[] }> {
    let res: Response;
    try {
      res = await fetch(`${this.session.url.replace(/\/+$/, '')}/api/sql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.session.password}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
    } catch (err) {
      throw new Error(`cannot reach ${this.session.url}: ${(err as Error).message}`);
    }
    if (res.status === 401 || res.status === 403) throw new AuthFailed('The API refused this app password.');
    const text = await res.text();
    // A request the API could not read at all answers a bare `error` (before any statement).
    let body: Partial<SqlResponseBody> & Partial<BareErrorBody>;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the API answered HTTP ${res.status} with a body that is not JSON`);
    }
    return { status: res.status, results: body.results ?? (body.error ? [{ error: body.error }] : []) };
  }

  /** One read, as objects keyed by column name; a statement error throws SqlError. */
  async records<T>(query: string): Promise<T[]> {
    const [r] = await this.batch<[T]>([query]);
    return r;
  }

  /**
   * Several reads in one request (one round trip, one consistent catalog snapshot), each as
   * objects keyed by column name; the first statement error throws SqlError.
   */
  async batch<T extends unknown[]>(queries: { readonly [K in keyof T]: string }): Promise<{ [K in keyof T]: T[K][] }> {
    const query = queries.join(';\n');
    const { results } = await this.run(query);
    const failed = results.find((r) => 'error' in r);
    if (failed && 'error' in failed) throw new SqlError(failed.error, query);
    return queries.map((q, i) => {
      const r = results[i];
      if (!r || !('rows' in r)) throw new Error(`${q} returned no rows`);
      const cols = r.desc.columns.map((c) => c.name);
      return r.rows.map((row) => Object.fromEntries(cols.map((c, j) => [c, row[j]])));
    }) as { [K in keyof T]: T[K][] };
  }
}

/** A string literal for SQL text. */
export function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
