/**
 * The JSON shapes of `POST /api/sql` answers, Materialize's. Types only and no imports, so the
 * browser console and the CLI can import them without pulling in the server.
 */

export interface Notice {
  readonly message: string;
  readonly severity: 'notice' | 'warning';
}
export interface ErrorBody {
  readonly message: string;
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly position?: number;
}
export interface ColumnDesc {
  readonly name: string;
  readonly type_oid: number;
  readonly type_len: number;
  readonly type_mod: number;
}
export type StatementResult =
  | { readonly ok: string; readonly notices: readonly Notice[] }
  | { readonly tag: string; readonly rows: readonly (readonly unknown[])[]; readonly desc: { readonly columns: readonly ColumnDesc[] }; readonly notices: readonly Notice[] }
  | { readonly error: ErrorBody; readonly notices?: readonly Notice[] };
/** A 200's body, and a 4xx's when the request was read (one result per statement up to the first error). */
export interface SqlResponseBody {
  readonly results: readonly StatementResult[];
}
/** A request answered before any statement was read (500, a gateway's 413, an unknown route): one bare error. */
export interface BareErrorBody {
  readonly error: ErrorBody;
}
