/** Option names and checks several connector types share. */
import { optionError, type CheckedOption } from './types';

export const SSL_NAMES = ['SSL CERTIFICATE', 'SSL CERTIFICATE AUTHORITY', 'SSL KEY'] as const;

/** HOST and USER are required (an SSH tunnel's and a database's), in Materialize's order. */
export function requireHostAndUser(given: ReadonlyMap<string, CheckedOption>, at: number): void {
  if (!given.has('HOST')) throw optionError('HOST option is required', at);
  if (!given.has('USER')) throw optionError('USER option is required', at);
}

/** A TLS identity is both SSL KEY and SSL CERTIFICATE or neither (a database connection's words). */
export function requireTlsIdentityPair(given: ReadonlyMap<string, CheckedOption>, at: number, message = 'invalid CONNECTION: both SSL KEY and SSL CERTIFICATE are required'): void {
  if (given.has('SSL KEY') !== given.has('SSL CERTIFICATE')) throw optionError(message, given.get(given.has('SSL KEY') ? 'SSL KEY' : 'SSL CERTIFICATE')?.position ?? at);
}

/**
 * The tunnel a database or schema registry is reached through (Materialize's
 * build_tunnel_definition, after its type's own PORT check): an AWS PRIVATELINK given a PORT of its
 * own is refused (the connection's PORT is the one used), and SSH TUNNEL and AWS PRIVATELINK
 * exclude each other.
 */
export function tunnel(given: ReadonlyMap<string, CheckedOption>, typeWords: string): void {
  const privatelink = given.get('AWS PRIVATELINK');
  if (privatelink?.nested?.includes('PORT')) throw optionError(`invalid CONNECTION: ${typeWords} does not support PORT for AWS PRIVATELINK`, privatelink.position);
  if (privatelink && given.has('SSH TUNNEL')) throw optionError('cannot specify both SSH TUNNEL and AWS PRIVATELINK', privatelink.position);
}

/** AWS IAM authentication (an AWS CONNECTION) takes no password. */
export function iamWithoutPassword(given: ReadonlyMap<string, CheckedOption>): void {
  if (given.has('AWS CONNECTION') && given.has('PASSWORD')) throw optionError('invalid CONNECTION: AWS IAM authentication is not supported with password', given.get('AWS CONNECTION')!.position);
}

/** An SSL MODE's value as Materialize compares it (MySQL and SQL Server upper-case it first). */
export function sslMode(given: ReadonlyMap<string, CheckedOption>, upper: boolean): { mode: string | undefined; position: number | undefined } {
  const o = given.get('SSL MODE');
  const text = o?.text;
  return { mode: text === undefined ? undefined : upper ? text.toUpperCase() : text, position: o?.position };
}
