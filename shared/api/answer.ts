/**
 * The answer of `POST /api/sql`: HTTP statuses, error entries, result rows and the size cap.
 * Pure: builds the wire shapes of `./wire` from plans, relations and errors.
 */
import { MAX_IDEMPOTENT_ANSWER_BYTES } from '../catalog/store';
import { ControlPlaneError, PlanError, RequestError, SQLSTATE } from '../errors';
import type { PlanValue } from '../planner/plan';
import type { ColumnType, Relation } from '../system/relations';
import type { ColumnDesc, ErrorBody, StatementResult } from './wire';
import type { FieldDesc } from '../wire/protocol';

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  /** The response was recorded for this Idempotency-Key by an earlier request. */
  readonly replayed?: boolean;
}

/**
 * The largest answer, in bytes of the Lambda response's escaped body: Lambda refuses a response
 * over 6 MB (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); the rest is
 * room for the error entry, headers and the proxy envelope.
 */
/**
 * The SQL engine's rows as PostgreSQL wrote them (DataRow messages), beside their JSON form: pgwire
 * sends these bytes (text or binary, as bound), HTTP the JSON. A symbol key: JSON.stringify skips it.
 */
export const WIRE_ROWS = Symbol('wire rows');
export interface WireRows {
  readonly fields: readonly FieldDesc[];
  readonly rows: Buffer;
  readonly rowCount: number;
  readonly paramTypes: readonly number[];
}

export const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** The entry the request stopped at, added after the results of the statements before it. */
export const NOTHING_COMMITTED = 'The request runs as one transaction: no statement in it was committed.';

export function errorBody(err: ControlPlaneError): ErrorBody {
  return {
    message: err.message,
    code: err.code,
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
    ...(err.hint !== undefined ? { hint: err.hint } : {}),
    ...(err.position !== undefined ? { position: err.position } : {}),
  };
}

export function statusFor(err: ControlPlaneError): number {
  if (err instanceof RequestError) return err.status;
  return err.code === SQLSTATE.serializationFailure ? 409 : 400;
}

/** An answer that is one error and nothing else (the request was refused before any statement ran). */
export function errorResponse(err: ControlPlaneError): ApiResponse {
  return { status: statusFor(err), body: { results: [{ error: errorBody(err) }] } };
}

/** PostgreSQL type oids for the columns we return. */
const TYPE_OIDS: Record<ColumnType, [number, number]> = { text: [25, -1], int8: [20, 8], bool: [16, 1], timestamptz: [1184, 8] };

function column(name: string, type: ColumnType): ColumnDesc {
  return { name, type_oid: TYPE_OIDS[type][0], type_len: TYPE_OIDS[type][1], type_mod: -1 };
}

/** Rows the planner computed itself (SHOW CREATE, EXPLAIN EFFECTS): every column is text. */
export function rowsResult(columns: readonly string[], rows: readonly (readonly PlanValue[])[]): StatementResult {
  return { tag: `SELECT ${rows.length}`, rows, desc: { columns: columns.map((name) => column(name, 'text')) }, notices: [] };
}

/** Rows of a system-table read (SHOW): numbers as strings, as Materialize's HTTP API gives them (json-values.ts). */
export function selectResult(rel: Relation): StatementResult {
  return {
    tag: `SELECT ${rel.rows.length}`,
    rows: rel.rows.map((r) => r.map((v) => (typeof v === 'number' ? String(v) : v))),
    desc: { columns: rel.columns.map((c) => column(c.name, c.type)) },
    notices: (rel.notices ?? []).map((message) => ({ message, severity: 'notice' as const })),
  };
}

/**
 * Bytes of an answer as a Lambda response carries it: its JSON, escaped once more into the proxy
 * response's `body` string. Past MAX_ANSWER_BYTES (or, with an Idempotency-Key, past what one
 * DynamoDB item can remember) the statement that crosses the line answers 54000 instead.
 */
export class AnswerSize {
  private total = 0;

  add(result: StatementResult, position: number, remembered: boolean): void {
    this.total += Buffer.byteLength(JSON.stringify(JSON.stringify(result)), 'utf8');
    if (this.total > MAX_ANSWER_BYTES) {
      throw new PlanError(`answer exceeds ${MAX_ANSWER_BYTES} bytes, the most one response can carry`, {
        code: SQLSTATE.programLimitExceeded,
        position,
        hint: 'Read fewer rows or columns (WHERE, LIMIT, a column list), or split the statements over several requests.',
      });
    }
    if (remembered && this.total > MAX_IDEMPOTENT_ANSWER_BYTES) {
      throw new PlanError(`answer exceeds ${MAX_IDEMPOTENT_ANSWER_BYTES} bytes, the most an Idempotency-Key can remember`, {
        code: SQLSTATE.programLimitExceeded,
        position,
        hint: 'Send a request that only reads without an Idempotency-Key, or split the statements over several requests.',
      });
    }
  }
}
