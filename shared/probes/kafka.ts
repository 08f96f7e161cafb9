/**
 * Kafka, with the kafkajs admin client: the brokers answer (every connection's address checked),
 * and for a source the topic exists. SASL and SSL follow Materialize's defaults.
 */
import { connect as netConnect, isIP, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, type KafkaConfig, type SASLOptions } from 'kafkajs';
import { AddressNotAllowedError, addressAllowed, guardedLookup, type ProbeNetworkPolicy } from './addresses';
import { APPLICATION_NAME, brokersOf, opt, viaTunnel } from './options';
import { addressRefused, errorChain, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeResult } from './types';


export async function probeKafka(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, source?: { topic: string }): Promise<ProbeResult> {
  if (viaTunnel(conn)) return ok('kafka');
  const brokers = brokersOf(conn.options);
  if (brokers.length === 0) return fail('kafka', 'BROKER or BROKERS option is required', { fatal: true });
  if (source && !source.topic) return fail('kafka', 'TOPIC option is required', { fatal: true });
  const security = kafkaSecurity(conn);
  if (typeof security === 'string') return fail('kafka', security, { fatal: true });

  const kafka = new Kafka({
    clientId: APPLICATION_NAME,
    brokers,
    ...security,
    connectionTimeout: timeoutMs,
    authenticationTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    enforceRequestTimeout: true,
    retry: { retries: 0 },
    // Every connection, to the bootstrap brokers and to the ones their metadata names, is checked.
    ...(network.addresses === 'any' ? {} : { socketFactory: guardedKafkaSocket(network) }),
    // kafkajs logs every failed connect at ERROR level on its own; the result says it all.
    logCreator: () => () => undefined,
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  const close = () => void admin.disconnect().catch(() => undefined);
  signal.addEventListener('abort', close, { once: true });
  try {
    await admin.connect();
    await admin.describeCluster();
    if (!source) return ok('kafka');
    const topics = await admin.listTopics();
    if (!topics.includes(source.topic)) {
      return fail('kafka', `topic "${source.topic}" does not exist`, {
        fatal: true,
        hint: 'Create the topic in Kafka, or check the TOPIC option of the source',
      });
    }
    return ok('kafka');
  } catch (err) {
    return kafkaFailure(err, brokers);
  } finally {
    signal.removeEventListener('abort', close);
    close();
  }
}

function kafkaSecurity(conn: ConnectionProbeInput): Pick<KafkaConfig, 'ssl' | 'sasl'> | string {
  const o = conn.options;
  const mechanism = opt(o, 'SASL MECHANISMS') ?? opt(o, 'SASL MECHANISM');
  const ca = opt(o, 'SSL CERTIFICATE AUTHORITY') ?? conn.secrets['SSL CERTIFICATE AUTHORITY'];
  // Materialize's default: SASL options mean SASL_SSL, SSL options mean SSL, else PLAINTEXT.
  const protocol = (opt(o, 'SECURITY PROTOCOL') ?? (mechanism ? 'SASL_SSL' : ca ? 'SSL' : 'PLAINTEXT')).toUpperCase();
  if (!['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].includes(protocol)) {
    return `invalid SECURITY PROTOCOL: ${protocol} (expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)`;
  }
  const out: { ssl?: KafkaConfig['ssl']; sasl?: SASLOptions } = {};
  if (protocol.endsWith('SSL')) out.ssl = ca ? { ca: [ca] } : true;
  if (protocol.startsWith('SASL')) {
    const username = opt(o, 'SASL USERNAME') ?? conn.secrets['SASL USERNAME'] ?? '';
    const password = conn.secrets['SASL PASSWORD'] ?? '';
    switch ((mechanism ?? 'PLAIN').toUpperCase()) {
      case 'PLAIN':
        out.sasl = { mechanism: 'plain', username, password };
        break;
      case 'SCRAM-SHA-256':
        out.sasl = { mechanism: 'scram-sha-256', username, password };
        break;
      case 'SCRAM-SHA-512':
        out.sasl = { mechanism: 'scram-sha-512', username, password };
        break;
      default:
        return `unsupported SASL MECHANISMS: ${mechanism} (expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)`;
    }
  }
  return out;
}

/** kafkajs's own socket factory, with the address check on every connection. */
function guardedKafkaSocket(network: ProbeNetworkPolicy): NonNullable<KafkaConfig['socketFactory']> {
  const lookup = guardedLookup(network);
  return ({ host, port, ssl, onConnect }) => {
    if (isIP(host) && !addressAllowed(host, network)) {
      const socket = new Socket();
      process.nextTick(() => socket.destroy(new AddressNotAllowedError(host)));
      return socket;
    }
    return ssl ? tlsConnect({ host, port, lookup, ...(!isIP(host) ? { servername: host } : {}), ...ssl }, onConnect) : netConnect({ host, port, lookup }, onConnect);
  };
}

function kafkaFailure(err: unknown, brokers: readonly string[]): ProbeResult {
  const target = brokers.join(',');
  const errors = [...errorChain(err)];
  if (errors.some((e) => e.code === 'EPROBEADDRESS')) return addressRefused('kafka', target);
  const broker = errors.map((e) => e.broker).find((b): b is string => typeof b === 'string') ?? brokers[0] ?? target;
  if (errors.some((e) => e.name === 'KafkaJSSASLAuthenticationError')) {
    return fail('kafka', `SASL authentication failed: ${messageOf(err)}`, {
      fatal: true,
      hint: 'Check SASL MECHANISMS, SASL USERNAME and the SASL PASSWORD secret',
    });
  }
  const os = osError(err);
  if (os) return fail('kafka', `error connecting to broker ${broker}: ${os}`);
  if (errors.some((e) => e.name === 'KafkaJSRequestTimeoutError' || e.message === 'Connection timeout') || isTimeout(err)) {
    return timedOut('kafka', target);
  }
  if (errors.some((e) => e.name === 'KafkaJSConnectionClosedError')) {
    return fail('kafka', `connection to broker ${broker} closed by the server`, {
      hint: 'The broker may require SSL or SASL: check SECURITY PROTOCOL',
    });
  }
  return fail('kafka', messageOf(err));
}

/** Kafka's probe: the brokers answer, and for a source the TOPIC exists (a sink may create its topic: reachable is enough). */
export const KAFKA_PROBE: ConnectorProbe<'kafka'> = {
  type: 'kafka',
  connection: (conn, c) => probeKafka(conn, c.timeoutMs, c.signal, c.network),
  source: (conn, c, options) => probeKafka(conn, c.timeoutMs, c.signal, c.network, { topic: opt(options, 'TOPIC') ?? '' }),
  target: (conn) => brokersOf(conn.options).join(','),
};
