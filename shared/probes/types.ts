/**
 * Probes check a connector's upstream with a real client (pg, kafkajs, the S3 SDK, a TCP
 * connect), each with a timeout. They run twice: at CREATE time (purification: a failure answers
 * the user at once with an 08xxx error and nothing is committed) and at run time (the sweeper's
 * observations drive stalled / failed / running).
 */

/** Namespaces of connector errors, like Materialize's mz_source_statuses (`postgres: ...`). */
export type ProbeNamespace = 'postgres' | 'mysql' | 'sql-server' | 'kafka' | 's3' | 'ssh' | 'aws' | 'schema-registry';

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
  /** `postgres`, `kafka`, `aws`, `ssh`, `confluent-schema-registry`, `aws-privatelink`. */
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
