/**
 * The prober that talks to real upstreams: PostgreSQL with `pg` (postgres.ts), MySQL with mysql2
 * (mysql.ts), SQL Server with tedious (sql-server.ts), Kafka with the kafkajs admin client
 * (kafka.ts), S3 with the AWS SDK (s3.ts), SSH bastions with a TCP connect (ssh.ts), a Confluent
 * schema registry with an HTTP GET (schema-registry.ts); the shared pieces
 * are in options.ts and outcome.ts. It never throws: every failure, including a bug in a probe,
 * becomes a ProbeResult, and no result carries a secret value (see scrubSecrets).
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
import { POSTGRES, type ProbedConnectorType } from '../connectors';
import { DEPLOYED_PROBE_POLICY, type ProbeNetworkPolicy } from './addresses';
import { KAFKA_PROBE } from './kafka';
import { namespaceOf, scrubResult } from './namespace';
import { type Options } from './options';
import { fail, messageOf, ok, timedOut } from './outcome';
import { MYSQL_PROBE } from './mysql';
import { POSTGRES_PROBE } from './postgres';
import { AWS_PROBE } from './s3';
import { SCHEMA_REGISTRY_PROBE } from './schema-registry';
import { SQL_SERVER_PROBE } from './sql-server';
import { SSH_PROBE } from './ssh';
import type { ConnectionProbeInput, ConnectorProbe, ProbeContext, ProbeNamespace, ProbeResult, Prober, UpstreamReferences } from './types';

/**
 * The probes by connector type. Every type whose descriptor says it has a probe must be here: a
 * missing one is a second argument the call below lacks ("Expected 2 arguments"), naming the type.
 */
function byType<const L extends readonly ConnectorProbe[]>(
  probes: L,
  ..._complete: Exclude<ProbedConnectorType, L[number]['type']> extends never ? [] : [missing: Exclude<ProbedConnectorType, L[number]['type']>]
): ReadonlyMap<string, ConnectorProbe> {
  return new Map(probes.map((p) => [p.type, p]));
}

const PROBES = byType([POSTGRES_PROBE, KAFKA_PROBE, MYSQL_PROBE, SQL_SERVER_PROBE, AWS_PROBE, SSH_PROBE, SCHEMA_REGISTRY_PROBE]);

const probeOf = (conn: ConnectionProbeInput): ConnectorProbe | undefined => PROBES.get(conn.type.toLowerCase());

/** What a timeout message names: host:port, the brokers, the endpoint (the type's probe says), else the type. */
function targetOf(conn: ConnectionProbeInput): string {
  return probeOf(conn)?.target(conn) ?? conn.type;
}

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

  probeSource(conn: ConnectionProbeInput, sourceOptions: Options, references?: UpstreamReferences): Promise<ProbeResult> {
    return this.guarded(conn, (signal) => {
      const probe = probeOf(conn);
      return probe?.source ? probe.source(conn, this.context(signal), sourceOptions, references) : this.connectionWork(conn, signal);
    });
  }

  probeSink(conn: ConnectionProbeInput, sinkOptions: Options): Promise<ProbeResult> {
    return this.guarded(conn, (signal) => {
      // Kafka sinks: reachable is enough, the sink may create its topic.
      const probe = probeOf(conn);
      return probe?.sink ? probe.sink(conn, this.context(signal), sinkOptions) : this.connectionWork(conn, signal);
    });
  }

  private context(signal: AbortSignal): ProbeContext {
    return { timeoutMs: this.timeoutMs, signal, network: this.network };
  }

  private connectionWork(conn: ConnectionProbeInput, signal: AbortSignal): Promise<ProbeResult> {
    const probe = probeOf(conn);
    return probe ? probe.connection(conn, this.context(signal)) : Promise.resolve(ok(namespaceOf(conn.type)));
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
    // Replaced at once by the type's namespace; kept only if reading the type itself throws.
    let namespace: ProbeNamespace = POSTGRES.name;
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
