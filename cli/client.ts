/**
 * A client of `POST /api/sql` (shapes in shared/api/sql-api.ts). It returns what the server said,
 * errors included; only a failure to get an answer at all (network, 401, a non-JSON body) throws.
 */
import type { ErrorBody, StatementResult } from '../shared/api/sql-api';
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

export class SqlClient {
  constructor(
    readonly conn: Connection,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async run(query: string, o: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<SqlResponse> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.conn.url}/api/sql`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.conn.password}`,
          'content-type': 'application/json',
          ...(o.idempotencyKey ? { 'idempotency-key': o.idempotencyKey } : {}),
        },
        body: JSON.stringify({ query }),
        ...(o.signal ? { signal: o.signal } : {}),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach ${this.conn.url}${this.conn.urlFrom ? ` (${this.conn.urlFrom})` : ''}: ${cause?.code ?? cause?.message ?? (err as Error).message}.\n` +
          '  Is `npm start` running? Point ddlctl at it with --url http://127.0.0.1:<port> (or DDLCTL_URL), or --data-dir <its data folder>.',
        EXIT.connection,
      );
    }
    const text = await res.text();
    if (res.status === 401 || res.status === 403) {
      throw new CliError(`${this.conn.url} refused the app password from ${this.conn.passwordFrom} (HTTP ${res.status})`, EXIT.connection);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CliError(`${this.conn.url}/api/sql answered HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, EXIT.connection);
    }
    const b = body as { results?: StatementResult[]; error?: ErrorBody };
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
