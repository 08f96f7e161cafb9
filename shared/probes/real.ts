/**
 * The prober that talks to real upstreams: PostgreSQL with `pg`, Kafka with the kafkajs admin
 * client, S3 with the AWS SDK, SSH bastions with a TCP connect, a Confluent schema registry with
 * an HTTP GET. It never throws: every failure, including a bug in this file, becomes a
 * ProbeResult, and no result carries a secret value (see scrubSecrets).
 *
 * Each probe is bounded twice: the client's own timeouts (connect, request, statement) set to
 * `timeoutMs`, and an outer deadline of `timeoutMs + DEADLINE_GRACE_MS` that answers "timed out"
 * and aborts the client, so a client that ignores its timeout cannot hold a CREATE statement or a
 * sweeper pass hostage.
 *
 * Errors read like Materialize's (`error connecting to server: Connection refused (os error 111)`,
 * `db error: FATAL: password authentication failed for user "u"`), without the namespace prefix:
 * the status shows `<namespace>: <error>`. `fatal` marks what retrying will not fix (bad
 * credentials, a missing publication or topic, wal_level); everything network-shaped is transient.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { connect as netConnect, isIP, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { HeadBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { Kafka, type KafkaConfig, type SASLOptions } from 'kafkajs';
import pg from 'pg';
import { AddressNotAllowedError, addressAllowed, DEPLOYED_PROBE_POLICY, guardedLookup, resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { namespaceOf, scrubResult } from './namespace';
import type { ConnectionProbeInput, ProbeNamespace, ProbeResult, Prober } from './types';

export interface RealProberOptions {
  /**
   * Budget of one probe, in milliseconds: connect plus the checks.
   * @default 5000
   */
  readonly timeoutMs?: number;
  /**
   * Which addresses probes may connect to, and how much a network failure says
   * (shared/probes/addresses.ts). The local runtime passes LOCAL_PROBE_POLICY.
   * @default DEPLOYED_PROBE_POLICY
   */
  readonly network?: ProbeNetworkPolicy;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
/** Lets a client report its own (more specific) timeout before the outer deadline answers. */
const DEADLINE_GRACE_MS = 250;
const APPLICATION_NAME = 'ddl-control-plane-probe';

type Options = Readonly<Record<string, string>>;

export class RealProber implements Prober {
  readonly timeoutMs: number;
  readonly network: ProbeNetworkPolicy;

  constructor(opts: RealProberOptions = {}) {
    const t = opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    if (!Number.isFinite(t) || t <= 0) throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${t}`);
    this.timeoutMs = t;
    this.network = opts.network ?? DEPLOYED_PROBE_POLICY;
  }

  probeConnection(conn: ConnectionProbeInput): Promise<ProbeResult> {
    return this.guarded(conn, (signal) => this.connectionWork(conn, signal));
  }

  probeSource(conn: ConnectionProbeInput, sourceOptions: Options): Promise<ProbeResult> {
    return this.guarded(conn, (signal) => {
      switch (conn.type.toLowerCase()) {
        case 'postgres':
          return probePostgres(conn, this.timeoutMs, signal, this.network, { publication: opt(sourceOptions, 'PUBLICATION') ?? '' });
        case 'kafka':
          return probeKafka(conn, this.timeoutMs, signal, this.network, { topic: opt(sourceOptions, 'TOPIC') ?? '' });
        case 'aws':
          return probeS3(conn, this.timeoutMs, signal, this.network, 's3', bucketOf(sourceOptions) ?? opt(conn.options, 'BUCKET'));
        default:
          return this.connectionWork(conn, signal);
      }
    });
  }

  probeSink(conn: ConnectionProbeInput, sinkOptions: Options): Promise<ProbeResult> {
    return this.guarded(conn, (signal) => {
      switch (conn.type.toLowerCase()) {
        case 'aws':
          return probeS3(conn, this.timeoutMs, signal, this.network, 's3', bucketOf(sinkOptions) ?? opt(conn.options, 'BUCKET'));
        default:
          // Kafka sinks: reachable is enough, the sink may create its topic.
          return this.connectionWork(conn, signal);
      }
    });
  }

  private connectionWork(conn: ConnectionProbeInput, signal: AbortSignal): Promise<ProbeResult> {
    switch (conn.type.toLowerCase()) {
      case 'postgres':
        return probePostgres(conn, this.timeoutMs, signal, this.network);
      case 'kafka':
        return probeKafka(conn, this.timeoutMs, signal, this.network);
      case 'aws':
        return probeS3(conn, this.timeoutMs, signal, this.network, 'aws', opt(conn.options, 'BUCKET'));
      case 'ssh':
        return probeTcp(conn, this.timeoutMs, signal, this.network);
      case 'confluent-schema-registry':
      case 'schema-registry':
        return probeSchemaRegistry(conn, this.timeoutMs, signal, this.network);
      default:
        return Promise.resolve(ok(namespaceOf(conn.type)));
    }
  }

  /**
   * Without detailed network errors, every transient failure (refused, reset, timed out, closed
   * by the server, an unexpected answer) reads the same: which one it was would tell open,
   * closed and filtered ports apart. Definite answers (authentication, a missing publication,
   * topic or bucket, a refused address, bad options) keep their words.
   */
  private withoutNetworkDetail(r: ProbeResult, conn: ConnectionProbeInput): ProbeResult {
    if (this.network.detailedNetworkErrors || r.ok || r.fatal) return r;
    return fail(r.namespace, `could not connect to ${targetOf(conn)}`, { hint: 'Check the host and port of the connection, and that the upstream accepts connections from the control plane' });
  }

  /** The outer deadline, the never-throw net, and the secret scrub, around one probe. */
  private async guarded(conn: ConnectionProbeInput, work: (signal: AbortSignal) => Promise<ProbeResult>): Promise<ProbeResult> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let namespace: ProbeNamespace = 'postgres';
    try {
      namespace = namespaceOf(String(conn.type));
      const timeout = timedOut(namespace, targetOf(conn));
      const deadline = new Promise<ProbeResult>((resolve) => {
        timer = setTimeout(() => resolve(timeout), this.timeoutMs + DEADLINE_GRACE_MS);
      });
      const attempt = Promise.resolve()
        .then(() => work(abort.signal))
        .catch((err: unknown) => fail(namespace, `internal error while probing: ${messageOf(err)}`));
      return scrubResult(this.withoutNetworkDetail(await Promise.race([attempt, deadline]), conn), conn.secrets);
    } catch (err) {
      // Malformed input (the scrub itself failed, or reading the options did): say so, and
      // show nothing of it, since it may hold a secret that could not be scrubbed.
      return fail(namespace, `internal error while probing${err instanceof Error ? ` (${err.name})` : ''}`);
    } finally {
      clearTimeout(timer);
      // Tells a probe still running (the deadline won) to close its client.
      abort.abort();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

async function probePostgres(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, source?: { publication: string }): Promise<ProbeResult> {
  if (viaTunnel(conn)) return ok('postgres');
  const o = conn.options;
  const host = opt(o, 'HOST');
  if (!host) return fail('postgres', 'HOST option is required', { fatal: true });
  const port = portOf(o, 5432);
  if (port === undefined) return fail('postgres', `invalid PORT: ${opt(o, 'PORT')}`, { fatal: true });
  const user = opt(o, 'USER') ?? conn.secrets.USER;
  if (!user) return fail('postgres', 'USER option is required', { fatal: true });
  const ssl = pgSsl(conn);
  if (typeof ssl === 'string') return fail('postgres', ssl, { fatal: true });
  if (source && !source.publication) return fail('postgres', 'PUBLICATION option is required', { fatal: true });
  // Connect to the address that was checked, not to a second resolution of the name.
  const pin = await resolveForProbe(host, network);
  if (pin.refused) return addressRefused('postgres', `${host}:${port}`);

  const client = new pg.Client({
    host: pin.address ?? host,
    port,
    user,
    database: opt(o, 'DATABASE') ?? 'postgres',
    password: conn.secrets.PASSWORD,
    ssl: ssl && pin.address !== undefined && !isIP(host) ? { ...ssl, servername: host } : ssl,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs,
    application_name: APPLICATION_NAME,
  });
  // A server that goes away after the handshake reports through the pending call; without a
  // listener the 'error' event would crash the process.
  client.on('error', () => undefined);
  const close = () => void client.end().catch(() => undefined);
  signal.addEventListener('abort', close, { once: true });
  try {
    await client.connect();
    if (!source) return ok('postgres');
    const wal = await client.query<{ wal_level: string }>('SHOW wal_level');
    const level = wal.rows[0]?.wal_level ?? 'unknown';
    if (level !== 'logical') {
      return fail('postgres', `wal_level is "${level}", but logical replication requires wal_level = logical`, {
        fatal: true,
        hint: 'Set wal_level = logical in postgresql.conf and restart PostgreSQL',
      });
    }
    const pub = await client.query('SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = $1', [source.publication]);
    if (pub.rowCount === 0) {
      return fail('postgres', `publication ${quoteLiteralName(source.publication)} does not exist`, {
        fatal: true,
        hint: `Create it in the upstream database, e.g. CREATE PUBLICATION ${quoteIdent(source.publication)} FOR ALL TABLES`,
      });
    }
    return ok('postgres');
  } catch (err) {
    return pgFailure(err, `${host}:${port}`);
  } finally {
    signal.removeEventListener('abort', close);
    // Not awaited: ending a half-open connection can take as long as the server does to answer,
    // and the result is already known.
    close();
  }
}

/** SSL MODE → pg's `ssl`; a string is a configuration error. */
function pgSsl(conn: ConnectionProbeInput): false | { rejectUnauthorized: boolean; ca?: string; cert?: string; key?: string } | string {
  const mode = (opt(conn.options, 'SSL MODE') ?? 'disable').toLowerCase();
  const files = () => {
    const ca = opt(conn.options, 'SSL CERTIFICATE AUTHORITY') ?? conn.secrets['SSL CERTIFICATE AUTHORITY'];
    const cert = opt(conn.options, 'SSL CERTIFICATE') ?? conn.secrets['SSL CERTIFICATE'];
    const key = conn.secrets['SSL KEY'];
    return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  };
  switch (mode) {
    case 'disable':
      return false;
    case 'require':
      // libpq's `require`: encrypt, verify nothing.
      return { rejectUnauthorized: false, ...files() };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true, ...files() };
    default:
      return `invalid SSL MODE: ${mode} (expected disable, require, verify-ca or verify-full)`;
  }
}

/** SQLSTATE classes that retrying cannot fix without the user changing something. */
const PG_FATAL_CLASSES = new Set(['28', '3D', '42', '0A']);
const PG_HINTS: Readonly<Record<string, string>> = {
  '28P01': 'Check the USER of the connection and the PASSWORD secret',
  '28000': 'Check that pg_hba.conf allows this client, user and database',
  '3D000': 'Check the DATABASE option of the connection',
};

function pgFailure(err: unknown, target: string): ProbeResult {
  const e = err as { code?: unknown; severity?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string') {
    if (e.code === '57014') return timedOut('postgres', target);
    const fatal = PG_FATAL_CLASSES.has(e.code.slice(0, 2));
    const hint = PG_HINTS[e.code];
    return fail('postgres', `db error: ${e.severity}: ${String(e.message)}`, { fatal, ...(hint ? { hint } : {}) });
  }
  const os = osError(err);
  if (os) return fail('postgres', `error connecting to server: ${os}`);
  const message = messageOf(err);
  if (isTimeout(err) || /timeout/i.test(message)) return timedOut('postgres', target);
  if (/does not support SSL/i.test(message)) {
    return fail('postgres', `error performing TLS handshake: ${message}`, { fatal: true, hint: 'Use SSL MODE disable, or enable SSL on the server' });
  }
  return fail('postgres', `error connecting to server: ${message}`);
}

// ---------------------------------------------------------------------------------------------
// Kafka

async function probeKafka(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, source?: { topic: string }): Promise<ProbeResult> {
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

// ---------------------------------------------------------------------------------------------
// AWS / S3

async function probeS3(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, namespace: ProbeNamespace, bucket: string | undefined): Promise<ProbeResult> {
  const o = conn.options;
  const accessKeyId = opt(o, 'ACCESS KEY ID') ?? conn.secrets['ACCESS KEY ID'];
  // Without static keys (ASSUME ROLE ARN, or nothing) there is nothing we may probe with: the
  // process's own credentials must never be sent to a user-chosen ENDPOINT.
  if (!accessKeyId) return ok(namespace);
  const secretAccessKey = conn.secrets['SECRET ACCESS KEY'] ?? '';
  const sessionToken = conn.secrets['SESSION TOKEN'] ?? opt(o, 'SESSION TOKEN');
  const endpoint = opt(o, 'ENDPOINT');
  let endpointHost: string | undefined;
  try {
    endpointHost = endpoint ? new URL(endpoint).hostname : undefined;
  } catch {
    endpointHost = undefined;
  }
  if (endpointHost !== undefined && (await resolveForProbe(endpointHost, network)).refused) return addressRefused(namespace, targetOf(conn));
  const lookup = network.addresses === 'any' ? undefined : guardedLookup(network);
  const client = new S3Client({
    region: opt(o, 'REGION') ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
      ...(lookup ? { httpAgent: new HttpAgent({ lookup }), httpsAgent: new HttpsAgent({ lookup }) } : {}),
    },
  });
  try {
    if (bucket) await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
    else await client.send(new ListBucketsCommand({}), { abortSignal: signal });
    return ok(namespace);
  } catch (err) {
    return s3Failure(err, namespace, targetOf(conn), bucket);
  } finally {
    client.destroy();
  }
}

function s3Failure(err: unknown, namespace: ProbeNamespace, target: string, bucket: string | undefined): ProbeResult {
  if ([...errorChain(err)].some((x) => x.code === 'EPROBEADDRESS')) return addressRefused(namespace, target);
  const e = err as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const name = typeof e?.name === 'string' ? e.name : '';
  if (bucket && (status === 404 || name === 'NotFound' || name === 'NoSuchBucket')) {
    return fail(namespace, `bucket "${bucket}" does not exist`, { fatal: true, hint: 'Create the bucket, or check the BUCKET option and the REGION of the connection' });
  }
  if (status === 403 || ['Forbidden', 'AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidClientTokenId', 'ExpiredToken'].includes(name)) {
    return fail(namespace, `access denied${name && name !== 'Forbidden' ? ` (${name})` : ''}${bucket ? ` to bucket "${bucket}"` : ''}`, {
      fatal: true,
      hint: 'Check ACCESS KEY ID, the SECRET ACCESS KEY secret and the permissions of the key',
    });
  }
  if (status === 301 || name === 'PermanentRedirect' || name === 'AuthorizationHeaderMalformed') {
    return fail(namespace, `bucket "${bucket ?? ''}" is not in this REGION`, { fatal: true, hint: 'Set REGION to the region of the bucket' });
  }
  // Before the timeout check: the SDK renames ECONNRESET and EPIPE to TimeoutError.
  const os = osError(err);
  if (os) return fail(namespace, `error connecting to ${target}: ${os}`);
  if (isTimeout(err) || name === 'AbortError' || name === 'RequestTimeout') return timedOut(namespace, target);
  if (status !== undefined) return fail(namespace, `unexpected HTTP ${status} from ${target}${name ? ` (${name})` : ''}`);
  return fail(namespace, `error connecting to ${target}: ${messageOf(err)}`);
}

/** `BUCKET 'b'` or `URI 's3://b/prefix'` on a source or sink. */
function bucketOf(options: Options): string | undefined {
  const b = opt(options, 'BUCKET');
  if (b) return b;
  const uri = opt(options, 'URI');
  const m = uri ? /^s3:\/\/([^/]+)/i.exec(uri) : null;
  return m?.[1];
}

// ---------------------------------------------------------------------------------------------
// SSH bastion: reachability only (the tunnel's key exchange needs the key pair the data plane holds)

async function probeTcp(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy): Promise<ProbeResult> {
  const namespace = namespaceOf(conn.type);
  const host = opt(conn.options, 'HOST');
  if (!host) return fail(namespace, 'HOST option is required', { fatal: true });
  const port = portOf(conn.options, 22);
  if (port === undefined) return fail(namespace, `invalid PORT: ${opt(conn.options, 'PORT')}`, { fatal: true });
  const pin = await resolveForProbe(host, network);
  if (pin.refused) return addressRefused(namespace, `${host}:${port}`);
  return new Promise<ProbeResult>((resolve) => {
    const socket = netConnect({ host: pin.address ?? host, port });
    const finish = (r: ProbeResult) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(r);
    };
    const onAbort = () => finish(timedOut(namespace, `${host}:${port}`));
    const timer = setTimeout(onAbort, timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish(ok(namespace)));
    socket.once('error', (err) => finish(fail(namespace, `error connecting to ${host}:${port}: ${osError(err) ?? err.message}`)));
  });
}

// ---------------------------------------------------------------------------------------------
// Confluent schema registry

async function probeSchemaRegistry(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy): Promise<ProbeResult> {
  const raw = opt(conn.options, 'URL');
  if (!raw) return fail('schema-registry', 'URL option is required', { fatal: true });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('schema-registry', 'invalid URL', { fatal: true });
  }
  // Credentials go in a header, never in the URL (which error messages may echo).
  const username = opt(conn.options, 'USERNAME') ?? conn.secrets.USERNAME ?? safeDecode(url.username);
  const password = conn.secrets.PASSWORD ?? safeDecode(url.password);
  url.username = '';
  url.password = '';
  const target = url.origin;
  // Checked before the request only: fetch takes no lookup of ours, so a name that resolves
  // elsewhere on the second lookup is not caught here (the other probes connect to the checked address).
  if ((await resolveForProbe(url.hostname, network)).refused) return addressRefused('schema-registry', target);
  const subjects = new URL(`${url.pathname.replace(/\/+$/, '')}/subjects`, url);
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(subjects, {
      signal: AbortSignal.any([signal, timeout]),
      headers: { accept: 'application/vnd.schemaregistry.v1+json', ...(username || password ? { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` } : {}) },
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.ok) return ok('schema-registry');
    if (res.status === 401 || res.status === 403) {
      return fail('schema-registry', `authentication failed: HTTP ${res.status} from ${target}`, { fatal: true, hint: 'Check USERNAME and the PASSWORD secret' });
    }
    return fail('schema-registry', `unexpected HTTP ${res.status} from ${subjects.origin}${subjects.pathname}`, { fatal: res.status === 404 });
  } catch (err) {
    const os = osError(err);
    if (os) return fail('schema-registry', `error connecting to ${target}: ${os}`);
    if (isTimeout(err) || timeout.aborted || signal.aborted) return timedOut('schema-registry', target);
    // fetch says only "fetch failed"; the reason is its cause.
    const cause = (err as { cause?: unknown })?.cause;
    return fail('schema-registry', `error connecting to ${target}: ${messageOf(cause ?? err)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

const ok = (namespace: ProbeNamespace): ProbeResult => ({ ok: true, namespace });

function fail(namespace: ProbeNamespace, error: string, o: { fatal?: boolean; hint?: string } = {}): ProbeResult {
  return { ok: false, namespace, error, fatal: o.fatal ?? false, ...(o.hint ? { hint: o.hint } : {}) };
}

const timedOut = (namespace: ProbeNamespace, target: string): ProbeResult => fail(namespace, `timed out connecting to ${target}`);

/** The host is, or resolves to, an address this deployment's probes may not connect to. */
const addressRefused = (namespace: ProbeNamespace, target: string): ProbeResult =>
  fail(namespace, `could not connect to ${target}: the address is not allowed`, {
    fatal: true,
    hint: 'Loopback, link-local and instance-metadata addresses are never probed; private ranges only where the deployment allows them (PROBE_ALLOW_PRIVATE_NETWORKS)',
  });

/** Option lookup tolerant of case and of `_` for spaces (`SSL_MODE`). */
function opt(options: Options, name: string): string | undefined {
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
function viaTunnel(conn: ConnectionProbeInput): boolean {
  return opt(conn.options, 'SSH TUNNEL') !== undefined || opt(conn.options, 'AWS PRIVATELINK') !== undefined;
}

function portOf(options: Options, dflt: number): number | undefined {
  const raw = opt(options, 'PORT');
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

function brokersOf(options: Options): string[] {
  const raw = [opt(options, 'BROKERS'), opt(options, 'BROKER')].filter((v): v is string => !!v).join(',');
  return raw
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0)
    .map((b) => (/:\d+$/.test(b) ? b : `${b}:9092`));
}

/** What a timeout message names: host:port, the brokers, the endpoint. */
function targetOf(conn: ConnectionProbeInput): string {
  const o = conn.options;
  switch (conn.type.toLowerCase()) {
    case 'postgres':
      return `${opt(o, 'HOST') ?? ''}:${opt(o, 'PORT') ?? 5432}`;
    case 'ssh':
      return `${opt(o, 'HOST') ?? ''}:${opt(o, 'PORT') ?? 22}`;
    case 'kafka':
      return brokersOf(o).join(',');
    case 'aws': {
      const endpoint = opt(o, 'ENDPOINT');
      if (endpoint) {
        try {
          return new URL(endpoint).host;
        } catch {
          return endpoint;
        }
      }
      return `s3.${opt(o, 'REGION') ?? 'us-east-1'}.amazonaws.com`;
    }
    case 'confluent-schema-registry':
    case 'schema-registry':
      try {
        return new URL(opt(o, 'URL') ?? '').origin;
      } catch {
        return 'the schema registry';
      }
    default:
      return conn.type;
  }
}

type ErrorLike = { name?: unknown; message?: unknown; code?: unknown; broker?: unknown };

/** The error, its causes (`cause`, kafkajs's `originalError`) and an AggregateError's members. */
function* errorChain(err: unknown): Generator<ErrorLike> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 32) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    yield e as ErrorLike;
    const x = e as { cause?: unknown; originalError?: unknown; errors?: unknown };
    queue.push(x.cause, x.originalError);
    if (Array.isArray(x.errors)) queue.push(...x.errors);
  }
}

/**
 * Socket errors in the words (and numbers) Materialize shows, from Rust's io::Error on Linux.
 * ETIMEDOUT is not here: it reads as our own "timed out connecting to ..." (see isTimeout).
 */
const OS_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'Connection refused (os error 111)',
  ECONNRESET: 'Connection reset by peer (os error 104)',
  EHOSTUNREACH: 'No route to host (os error 113)',
  ENETUNREACH: 'Network is unreachable (os error 101)',
  EPIPE: 'Broken pipe (os error 32)',
  ENOTFOUND: 'failed to lookup address information: Name or service not known',
  EAI_AGAIN: 'failed to lookup address information: Temporary failure in name resolution',
};

function osError(err: unknown): string | undefined {
  for (const e of errorChain(err)) {
    if (typeof e.code === 'string' && OS_ERRORS[e.code]) return OS_ERRORS[e.code];
  }
  return undefined;
}

function isTimeout(err: unknown): boolean {
  for (const e of errorChain(err)) if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return true;
  return false;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function quoteLiteralName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : quoteLiteralName(name);
}
