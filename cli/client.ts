/**
 * A client of `POST /api/sql` (wire shapes from shared/api/wire.ts, the server's own). It returns what the server said,
 * errors included; only a failure to get an answer at all (network, 401, a non-JSON body) throws.
 */
import type { BareErrorBody, ErrorBody, SqlResponseBody, StatementResult } from '../shared/api/wire';
import type { ControlPlaneEvent } from '../shared/events/model';
import type { Connection } from './connection';
import { CliError, EXIT } from './errors';

export type { ErrorBody, StatementResult };

export interface SqlResponse {
  readonly status: number;
  /** The body as received. */
  readonly text: string;
  readonly results: readonly StatementResult[];
}

export type Rows = readonly (readonly unknown[])[];

/** An answer of `GET /api/events` (local/http-server.ts). */
export interface EventsPage {
  readonly events: readonly LoggedEventWire[];
  /** The `after` of the next read. */
  readonly next: number;
}

/** One status event as the local event log serves it (local/event-log.ts LoggedEvent). */
export type LoggedEventWire = ControlPlaneEvent & { readonly seq: number };

/** No answer at all from the API (refused, reset, aborted): unlike an answer the client refuses, worth trying again. */
export class UnreachableError extends CliError {
  constructor(message: string) {
    super(message, EXIT.connection);
    this.name = 'UnreachableError';
  }
}

export class SqlClient {
  constructor(
    readonly conn: Connection,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** One request to the API: an answer of any status, or a CliError when none came. */
  private async request(path: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(`${this.conn.url}${path}`, { ...init, headers: { authorization: `Bearer ${this.conn.password}`, ...(init.headers as Record<string, string>) } });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new UnreachableError(
        `cannot reach ${this.conn.url}${this.conn.urlFrom ? ` (${this.conn.urlFrom})` : ''}: ${cause?.code ?? cause?.message ?? (err as Error).message}.\n` +
          '  Is `npm start` running? Point ddlctl at it with --url http://127.0.0.1:<port> (or DDLCTL_URL), or --data-dir <its data folder>.',
      );
    }
  }

  private refused(res: Response): void {
    if (res.status === 401 || res.status === 403) {
      throw new CliError(`${this.conn.url} refused the app password from ${this.conn.passwordFrom} (HTTP ${res.status})`, EXIT.connection);
    }
  }

  /**
   * The tenant's status events after position `after` (`GET /api/events`, served by the local
   * runtime; a deployed stack publishes them to its EventBridge bus instead).
   */
  async events(after: number, o: { signal?: AbortSignal } = {}): Promise<EventsPage> {
    const res = await this.request(`/api/events?after=${after}`, { method: 'GET', ...(o.signal ? { signal: o.signal } : {}) });
    this.refused(res);
    const text = await res.text();
    if (res.status === 404) {
      throw new CliError(`${this.conn.url} serves no event log: status events are kept by the local runtime (npm start); a deployed stack publishes them to its EventBridge bus (output EventBusName, docs/operations.md)`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CliError(`${this.conn.url}/api/events answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, EXIT.connection);
    }
    const b = body as Partial<EventsPage> & Partial<BareErrorBody>;
    if (res.status !== 200 || !Array.isArray(b.events) || typeof b.next !== 'number') throw new CliError(`${this.conn.url}/api/events: ${b.error?.message ?? `HTTP ${res.status}`}`);
    return { events: b.events, next: b.next };
  }

  async run(query: string, o: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<SqlResponse> {
    const res = await this.request('/api/sql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(o.idempotencyKey ? { 'idempotency-key': o.idempotencyKey } : {}) },
      body: JSON.stringify({ query }),
      ...(o.signal ? { signal: o.signal } : {}),
    });
    this.refused(res);
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CliError(`${this.conn.url}/api/sql answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, EXIT.connection);
    }
    const b = body as Partial<SqlResponseBody> & Partial<BareErrorBody>;
    // Errors outside a statement (413 from the gateway, 404) come as a bare {"error": ...}.
    const results = b.results ?? (b.error ? [{ error: b.error }] : []);
    return { status: res.status, text, results };
  }

  /** One SELECT/SHOW whose rows the caller needs: a statement error becomes a CliError. */
  async rows(query: string): Promise<{ columns: string[]; rows: Rows }> {
    const r = await this.run(query);
    const first = r.results[0];
    if (!first || 'error' in first) throw new CliError(`${query}: ${first && 'error' in first ? `${first.error.message} (${first.error.code})` : `HTTP ${r.status}`}`);
    if (!('rows' in first)) throw new CliError(`${query}: returned no rows`);
    return { columns: first.desc.columns.map((c) => c.name), rows: first.rows };
  }

  /** Rows as objects keyed by column name. */
  async records<T = Record<string, unknown>>(query: string): Promise<T[]> {
    const { columns, rows } = await this.rows(query);
    return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]])) as T);
  }
}
