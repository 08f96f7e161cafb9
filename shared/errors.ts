/**
 * The product's errors. Every error a client can see carries a PostgreSQL SQLSTATE, a message,
 * and where it helps a byte position and a hint; `expose` says whether its message may be shown
 * to the caller (5xx details never leak).
 */

export const SQLSTATE = {
  successfulCompletion: '00000',
  connectionException: '08000',
  connectionFailure: '08006',
  sqlclientUnableToEstablish: '08001',
  featureNotSupported: '0A000',
  invalidParameterValue: '22023',
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
  duplicateColumn: '42701',
  invalidTableDefinition: '42P16',
  duplicateDatabase: '42P04',
  duplicateSchema: '42P06',
  undefinedObject: '42704',
  undefinedTable: '42P01',
  undefinedColumn: '42703',
  wrongObjectType: '42809',
  nameTooLong: '42622',
  reservedName: '42939',
  programLimitExceeded: '54000',
  statementTooComplex: '54001',
  tooManyStatements: '54023',
  idempotencyConflict: '22023',
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

/** Base of every error the product raises on purpose. */
export class ControlPlaneError extends Error {
  readonly code: string;
  readonly detail?: string;
  readonly hint?: string;
  position?: number;
  /** May the message be shown to the caller? */
  readonly expose: boolean = true;

  constructor(message: string, fields: ErrorFields) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
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
export class DataPlaneError extends Error {
  readonly transient: boolean;
  constructor(message: string, transient: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataPlaneError';
    this.transient = transient;
  }
}

/** Thrown by fault injection to stand for a process that died at a given point. */
export class SimulatedCrash extends Error {
  constructor(point: string) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}

/** Internal, never exposed: wraps anything unexpected. */
export class InternalError extends ControlPlaneError {
  override readonly expose = false;
  constructor(message: string, cause?: unknown) {
    super(message, { code: SQLSTATE.internalError, cause });
    this.name = 'InternalError';
  }
}
