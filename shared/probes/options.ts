/**
 * Reading a connection's options the way every protocol probe does (case and `_` tolerant).
 */
import type { ConnectionProbeInput } from './types';

export type Options = Readonly<Record<string, string>>;

/** What upstreams see as the client's name (pg's application_name, kafkajs's clientId). */
export const APPLICATION_NAME = 'ddl-control-plane-probe';

/** Option lookup tolerant of case and of `_` for spaces (`SSL_MODE`). */
export function opt(options: Options, name: string): string | undefined {
  if (options[name] !== undefined) return options[name];
  const want = name.toUpperCase().replace(/[_\s]+/g, ' ');
  for (const [k, v] of Object.entries(options)) if (k.toUpperCase().replace(/[_\s]+/g, ' ') === want) return v;
  return undefined;
}

/**
 * A connection routed through an SSH tunnel or AWS PrivateLink is reachable only from where the
 * tunnel ends (the data plane), not from here: a direct probe would report a false outage, so
 * these are not probed. The tunnel's own connection (type ssh) is probed for reachability.
 */
export function viaTunnel(conn: ConnectionProbeInput): boolean {
  if (opt(conn.options, 'SSH TUNNEL') !== undefined || opt(conn.options, 'AWS PRIVATELINK') !== undefined) return true;
  // A Kafka broker through a tunnel (`BROKERS ('b:9092' USING SSH TUNNEL t)`): `BROKER <address> SSH TUNNEL`.
  return Object.keys(conn.options).some((k) => /^BROKER \S+ (SSH TUNNEL|AWS PRIVATELINK)$/.test(k));
}

/** HOST, PORT (with a default) and USER of a database connection, or what is wrong with them (a configuration error). */
export function endpointOf(conn: ConnectionProbeInput, defaultPort: number): { host: string; port: number; user: string } | { error: string } {
  const host = opt(conn.options, 'HOST');
  if (!host) return { error: 'HOST option is required' };
  const port = portOf(conn.options, defaultPort);
  if (port === undefined) return { error: `invalid PORT: ${opt(conn.options, 'PORT')}` };
  const user = opt(conn.options, 'USER') ?? conn.secrets.USER;
  if (!user) return { error: 'USER option is required' };
  return { host, port, user };
}

export function portOf(options: Options, dflt: number): number | undefined {
  const raw = opt(options, 'PORT');
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

export function brokersOf(options: Options): string[] {
  const raw = [opt(options, 'BROKERS'), opt(options, 'BROKER')].filter((v): v is string => !!v).join(',');
  return raw
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0)
    .map((b) => (/:\d+$/.test(b) ? b : `${b}:9092`));
}
