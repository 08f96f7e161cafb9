/** Option names and checks several connector types share. */
import { byName, optionError, type CheckedOption } from './types';

export const SSL_NAMES = ['SSL CERTIFICATE', 'SSL CERTIFICATE AUTHORITY', 'SSL KEY'] as const;

/** HOST and USER are required (an SSH tunnel's and a database's). */
export function requireHostAndUser(given: ReadonlyMap<string, CheckedOption>, at: number): void {
  if (!given.has('HOST')) throw optionError('HOST option is required', at);
  if (!given.has('USER')) throw optionError('USER option is required', at);
}

/**
 * A MySQL or SQL Server connection (Materialize's words): HOST and USER, an SSL MODE it knows,
 * SSL KEY with SSL CERTIFICATE, and AWS IAM authentication without a password.
 */
export function databaseConnectionCheck(sslModes: readonly string[]): (options: readonly CheckedOption[], at: number) => void {
  return (options, at) => {
    const given = byName(options);
    const where = (name: string) => given.get(name)?.position ?? at;
    requireHostAndUser(given, at);
    const mode = given.get('SSL MODE');
    if (mode && !sslModes.includes((mode.text ?? '').toLowerCase())) throw optionError(`invalid CONNECTION: unknown SSL MODE '${mode.text}'`, mode.position);
    if (given.has('SSL KEY') !== given.has('SSL CERTIFICATE')) {
      throw optionError('invalid CONNECTION: both SSL KEY and SSL CERTIFICATE are required', where(given.has('SSL KEY') ? 'SSL KEY' : 'SSL CERTIFICATE'));
    }
    if (given.has('AWS CONNECTION') && given.has('PASSWORD')) {
      throw optionError('invalid CONNECTION: AWS IAM authentication is not supported with password', where('AWS CONNECTION'));
    }
  };
}
