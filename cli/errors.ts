/** ddlctl's exit codes (psql's where they overlap) and its one error type. */
export const EXIT = {
  ok: 0,
  /** A statement failed, a check found problems, an effect failed. */
  failed: 1,
  /** Could not connect or authenticate. */
  connection: 2,
  /** Bad flags or a bad config file. */
  usage: 64,
} as const;

/** An error whose message is meant for the user (printed without a stack trace). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
