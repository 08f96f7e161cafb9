/**
 * Probes check a connector's upstream with a real client (pg, kafkajs, the S3 SDK, a TCP
 * connect), each with a timeout. They run twice: at CREATE time (purification: a failure answers
 * the user at once with an 08xxx error and nothing is committed) and at run time (the sweeper's
 * observations drive stalled / failed / running).
 */

import type { ErrorNamespace, ProbedConnectorType } from '../connectors';
import type { ProbeNetworkPolicy } from './addresses';

/** Namespaces of connector errors, like Materialize's mz_source_statuses (`postgres: ...`): the connector types' (shared/connectors). */
export type ProbeNamespace = ErrorNamespace;

export interface ProbeResult {
  readonly ok: boolean;
  readonly namespace: ProbeNamespace;
  /** Without the namespace prefix; the status shows `<namespace>: <error>`. */
  readonly error?: string;
  /** A definite error that retrying will not fix (publication dropped, topic deleted, auth refused). */
  readonly fatal?: boolean;
  /** What the user can do about it. */
  readonly hint?: string;
  /** More of the upstream's answer, as Materialize's DETAIL (which settings are off, and how). */
  readonly detail?: string;
  /**
   * The SQLSTATE a CREATE answers when the upstream answered but the statement asks for what it
   * does not have (a table a source names): not a connection failure, so not 08xxx.
   */
  readonly sqlstate?: string;
}

/**
 * The upstream tables a new source asks for, as written (`FOR TABLES (shop.orders)`, `FOR ALL
 * TABLES`, `FOR SCHEMAS (shop)`): purification checks them where the protocol can (MySQL).
 */
export type UpstreamReferences =
  | { readonly kind: 'all' }
  | { readonly kind: 'schemas'; readonly schemas: readonly string[] }
  | { readonly kind: 'tables'; readonly tables: readonly (readonly string[])[] };

/** A connection's settings with its secret references resolved to values (never logged). */
export interface ConnectionProbeInput {
  /** The connector type (shared/connectors): `postgres`, `kafka`, `aws`, `ssh`, `confluent-schema-registry`, `aws-privatelink`, ... */
  readonly type: string;
  /** Canonical option names as written: HOST, PORT, USER, DATABASE, SSL MODE, BROKER, BROKERS, REGION, ENDPOINT, ... */
  readonly options: Readonly<Record<string, string>>;
  /** Option name → secret value (PASSWORD, SASL PASSWORD, SECRET ACCESS KEY, ...). */
  readonly secrets: Readonly<Record<string, string>>;
}

export interface Prober {
  /** Can the upstream be reached with these settings? (CREATE CONNECTION) */
  probeConnection(conn: ConnectionProbeInput): Promise<ProbeResult>;
  /**
   * Is the upstream ready for this source? Postgres: reachable, `wal_level = logical`, the
   * PUBLICATION exists. Kafka: reachable, the TOPIC exists. MySQL: the connection's checks, and
   * `references` (at CREATE; the data plane's checks pass none) resolve to upstream tables.
   */
  probeSource(conn: ConnectionProbeInput, sourceOptions: Readonly<Record<string, string>>, references?: UpstreamReferences): Promise<ProbeResult>;
  /** Kafka sinks: the broker is reachable (the topic may be created by the sink). */
  probeSink(conn: ConnectionProbeInput, sinkOptions: Readonly<Record<string, string>>): Promise<ProbeResult>;
}

/** What a probe has besides the connection: its budget, the outer deadline's abort signal, and which addresses it may reach. */
export interface ProbeContext {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly network: ProbeNetworkPolicy;
}

/**
 * One connector type's upstream probe: every type whose descriptor (shared/connectors) says it has
 * a probe has one, in its protocol's file here, and real.ts lists them all (a missing one fails to
 * compile there). A source or a sink without its own check is probed as its connection.
 */
export interface ConnectorProbe<T extends ProbedConnectorType = ProbedConnectorType> {
  readonly type: T;
  /** Can the upstream be reached with these settings? (CREATE CONNECTION, VALIDATE CONNECTION) */
  connection(conn: ConnectionProbeInput, c: ProbeContext): Promise<ProbeResult>;
  /** Is the upstream ready for this source? */
  source?(conn: ConnectionProbeInput, c: ProbeContext, sourceOptions: Readonly<Record<string, string>>, references?: UpstreamReferences): Promise<ProbeResult>;
  /** Can this sink write there? */
  sink?(conn: ConnectionProbeInput, c: ProbeContext, sinkOptions: Readonly<Record<string, string>>): Promise<ProbeResult>;
  /** What a timeout message names: host:port, the brokers, the endpoint. */
  target(conn: ConnectionProbeInput): string;
}
