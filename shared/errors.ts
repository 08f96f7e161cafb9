/**
 * The product's errors, every one a `DdlError`. Those a client can see are `ControlPlaneError`s:
 * a PostgreSQL SQLSTATE, a message, and where it helps a byte position and a hint, all written
 * for the caller. Anything else that reaches the API's edge is answered with a bare 500
 * "internal error" (shared/api/handlers.ts), so 5xx details never leak. The other `DdlError`s
 * steer retries and races inside the control plane.
 */

export const SQLSTATE = {
  successfulCompletion: '00000',
  connectionException: '08000',
  connectionFailure: '08006',
  protocolViolation: '08P01',
  sqlclientUnableToEstablish: '08001',
  featureNotSupported: '0A000',
  invalidParameterValue: '22023',
  cantChangeRuntimeParam: '55P02',
  characterNotInRepertoire: '22021',
  invalidTextRepresentation: '22P02',
  dataException: '22000',
  invalidAuthorization: '28000',
  invalidPassword: '28P01',
  dependentObjectsStillExist: '2BP01',
  invalidTransactionState: '25000',
  activeSqlTransaction: '25001',
  noActiveSqlTransaction: '25P01',
  serializationFailure: '40001',
  syntaxError: '42601',
  insufficientPrivilege: '42501',
  duplicateObject: '42P07',
  /** PostgreSQL's duplicate_object (`role 'r' already exists`). */
  duplicateRole: '42710',
  invalidGrantOperation: '0LP01',
  duplicateColumn: '42701',
  invalidTableDefinition: '42P16',
  duplicateDatabase: '42P04',
  duplicateSchema: '42P06',
  undefinedObject: '42704',
  invalidSchemaName: '3F000',
  undefinedTable: '42P01',
  undefinedColumn: '42703',
  ambiguousColumn: '42702',
  undefinedParameter: '42P02',
  wrongObjectType: '42809',
  nameTooLong: '42622',
  reservedName: '42939',
  programLimitExceeded: '54000',
  objectInUse: '55006',
  statementTooComplex: '54001',
  tooManyStatements: '54023',
  systemError: '58000',
  internalError: 'XX000',
} as const;
export type SqlState = (typeof SQLSTATE)[keyof typeof SQLSTATE];

export interface ErrorFields {
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 0-based byte offset into the request's SQL text. */
  readonly position?: number;
  readonly cause?: unknown;
}

/** Base of every error class the product defines: a name of its own, and the cause when there is one. */
export class DdlError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DdlError';
  }
}

/** Base of every error a client may see (a SQLSTATE and a message). */
export class ControlPlaneError extends DdlError {
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  position?: number;

  constructor(message: string, fields: ErrorFields) {
    super(message, { cause: fields.cause });
    this.name = 'ControlPlaneError';
    this.code = fields.code;
    if (fields.detail !== undefined) this.detail = fields.detail;
    if (fields.hint !== undefined) this.hint = fields.hint;
    if (fields.position !== undefined) this.position = fields.position;
  }
}

/** The SQL text could not be read: "Expected X, found Y" at a byte position. */
export class SqlSyntaxError extends ControlPlaneError {
  constructor(message: string, position: number, fields: Partial<ErrorFields> = {}) {
    super(message, { code: SQLSTATE.syntaxError, ...fields, position });
    this.name = 'SqlSyntaxError';
  }
}

/** A statement we read but do not support (yet); Materialize has it, we do not. */
export class NotSupportedError extends ControlPlaneError {
  constructor(message: string, fields: Partial<ErrorFields> = {}) {
    super(message, { code: SQLSTATE.featureNotSupported, ...fields });
    this.name = 'NotSupportedError';
  }
}

/** A statement that parses but cannot be planned against the catalog. */
export class PlanError extends ControlPlaneError {
  constructor(message: string, fields: ErrorFields) {
    super(message, fields);
    this.name = 'PlanError';
  }
}

/** The request itself is malformed (not JSON, wrong shape, too large). */
export class RequestError extends ControlPlaneError {
  readonly status: number;
  constructor(status: number, message: string, fields: ErrorFields) {
    super(message, fields);
    this.name = 'RequestError';
    this.status = status;
  }
}

export class AuthError extends ControlPlaneError {
  constructor(message: string) {
    super(message, { code: SQLSTATE.invalidAuthorization });
    this.name = 'AuthError';
  }
}

/** A commit lost a race that a retry may win. */
export class SerializationError extends ControlPlaneError {
  constructor(message: string, fields: Partial<ErrorFields> = {}) {
    super(message, {
      code: SQLSTATE.serializationFailure,
      hint: 'Another statement changed the same objects concurrently; retry the request.',
      ...fields,
    });
    this.name = 'SerializationError';
  }
}

/** Data-plane errors, classed for the executors' retry decision. */
export class DataPlaneError extends DdlError {
  readonly transient: boolean;
  constructor(message: string, transient: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataPlaneError';
    this.transient = transient;
  }
}

/** Thrown by fault injection to stand for a process that died at a given point. */
export class SimulatedCrash extends DdlError {
  constructor(point: string) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}

/** The commit lost a race: some condition on a shared item failed. Replanning decides what it means. */
export class CommitConflictError extends ControlPlaneError {
  /**
   * @param missed how many commits landed since the basis the refused commit was planned on, when
   *   the refusal showed the catalog version (one: a lone stale basis, not a busy tenant)
   */
  constructor(
    readonly reasons: readonly string[],
    readonly missed?: number,
  ) {
    super(`catalog commit conflicted (${reasons.join(', ')})`, { code: SQLSTATE.serializationFailure });
    this.name = 'CommitConflictError';
  }
}

/** A staged commit found what the plan read changed when it took the lock. */
export class StagedConflict extends DdlError {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'StagedConflict';
  }
}

/** A staged change's lock is gone or another's: whoever released it finished (or abandoned) the change. */
export class FenceLost extends DdlError {
  constructor() {
    super('the staged change no longer holds the catalog');
    this.name = 'FenceLost';
  }
}

/** A transient failure: the effect's message must come back after the policy's backoff. */
export class RetryLater extends DdlError {
  constructor(
    message: string,
    readonly attempt: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RetryLater';
  }
}

/**
 * A view body the first reader could not read. When PostgreSQL's parser was not loaded yet
 * (`triedPostgres` false), the API loads it and plans the request again (planning is pure), so
 * its cost is paid only then.
 */
export class UnreadableViewBody extends SqlSyntaxError {
  constructor(
    message: string,
    position: number,
    fields: Partial<ErrorFields>,
    readonly triedPostgres: boolean,
  ) {
    super(message, position, fields);
    this.name = 'UnreadableViewBody';
  }
}

/** PostgreSQL's parser refused the text; `cursor` is its 1-based character position, when it gives one. */
export class PgSyntaxError extends DdlError {
  constructor(
    message: string,
    readonly cursor: number | undefined,
  ) {
    super(message);
    this.name = 'PgSyntaxError';
  }
}

/** The error a refused address fails a probe's connection with (its message names no port state). */
export class AddressNotAllowedError extends DdlError {
  readonly code = 'EPROBEADDRESS';
  constructor(host: string) {
    super(`${host} resolves to an address probes may not connect to`);
    this.name = 'AddressNotAllowedError';
  }
}

/**
 * A Postgres wire connection ends with this error (severity FATAL): a protocol violation, a failed
 * login, a limit. The fields are PostgreSQL's ErrorResponse fields (shared/wire/protocol.ts).
 */
export class PgFatalError extends DdlError {
  constructor(readonly fields: { readonly severity: string; readonly code: string; readonly message: string; readonly [field: string]: string | number | undefined }) {
    super(fields.message);
    this.name = 'PgFatalError';
  }
}

/**
 * The Postgres wire endpoint's TLS certificate cannot be used: its secret is missing, not the
 * documented JSON, or its key does not match the certificate. The message names the secret and
 * the problem, never the key material.
 */
export class TlsCertificateError extends DdlError {
  constructor(
    readonly secretId: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`TLS certificate secret ${secretId}: ${problem}`, options);
    this.name = 'TlsCertificateError';
  }
}
