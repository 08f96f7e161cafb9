/**
 * The console's only backend: `POST /api/sql` with the app password as a Bearer token. The
 * session (API URL and password) lives in sessionStorage: it ends with the browser tab.
 */

export interface ErrorBody {
  readonly message: string;
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly position?: number;
}

export interface Notice {
  readonly message: string;
  readonly severity: string;
}

export type StatementResult =
  | { readonly ok: string; readonly notices: readonly Notice[] }
  | { readonly tag: string; readonly rows: readonly (readonly unknown[])[]; readonly desc: { readonly columns: readonly { readonly name: string }[] }; readonly notices: readonly Notice[] }
  | { readonly error: ErrorBody; readonly notices?: readonly Notice[] };

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

  async run(query: string): Promise<{ status: number; results: StatementResult[] }> {
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
    let body: { results?: StatementResult[]; error?: ErrorBody };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the API answered HTTP ${res.status} with a body that is not JSON`);
    }
    return { status: res.status, results: body.results ?? (body.error ? [{ error: body.error }] : []) };
  }

  /** One read, as objects keyed by column name; a statement error throws SqlError. */
  async records<T>(query: string): Promise<T[]> {
    const { results } = await this.run(query);
    const r = results[0];
    if (!r) throw new Error(`no result for ${query}`);
    if ('error' in r) throw new SqlError(r.error, query);
    if (!('rows' in r)) throw new Error(`${query} returned no rows`);
    const cols = r.desc.columns.map((c) => c.name);
    return r.rows.map((row) => Object.fromEntries(cols.map((c, i) => [c, row[i]])) as T);
  }
}

/** A string literal for SQL text. */
export function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
