/**
 * Every connector type, and what the rest of the code reads of them. Adding one is a descriptor
 * here (its own file, listed in CONNECTORS) and, if it says it has a probe, a ConnectorProbe in
 * shared/probes/ listed by shared/probes/real.ts; the unions below follow, and every lookup with
 * them. test/connectors/connectors.test.ts checks that the type's name is spelled nowhere else.
 */
import { AWS } from './aws';
import { AWS_PRIVATELINK } from './aws-privatelink';
import { CONFLUENT_SCHEMA_REGISTRY } from './confluent-schema-registry';
import { KAFKA } from './kafka';
import { LOAD_GENERATOR } from './load-generator';
import { MYSQL } from './mysql';
import { POSTGRES } from './postgres';
import { SQL_SERVER } from './sql-server';
import { SSH } from './ssh';
import type { ConnectionPart, ConnectorDescriptor, GeneratorSpec } from './types';
import { WEBHOOK } from './webhook';

export { AWS, AWS_PRIVATELINK, CONFLUENT_SCHEMA_REGISTRY, KAFKA, LOAD_GENERATOR, MYSQL, POSTGRES, SQL_SERVER, SSH, WEBHOOK };
export type { CheckedOption, ConnectorDescriptor, GeneratedColumn, GeneratorSpec, OptionListSpec, SourceCheckContext } from './types';
export { intervalMicrosOf, refreshInterval } from './types';

/**
 * Every connector type: the source types first, then the connections that serve them, in the
 * order of the controller contract's list (docs/controller-contract.openapi.json `ConnectorSpec`).
 */
export const CONNECTORS = [KAFKA, POSTGRES, MYSQL, SQL_SERVER, LOAD_GENERATOR, WEBHOOK, AWS, SSH, AWS_PRIVATELINK, CONFLUENT_SCHEMA_REGISTRY] as const satisfies readonly ConnectorDescriptor[];

type Any = (typeof CONNECTORS)[number];
export type Connector = Any;
export type ConnectorName = Any['name'];
/** Types a connection can have (`CREATE CONNECTION ... TO <type>`). */
export type ConnectionConnector = Extract<Any, { readonly connection: object }>;
export type ConnectionType = ConnectionConnector['name'];
/** Types a source can have. */
export type SourceConnector = Extract<Any, { readonly source: object }>;
export type SourceType = SourceConnector['name'];
/** Sources that read through a connection of their own type (`FROM KAFKA CONNECTION c`). */
export type ConnectionSourceConnector = Extract<Any, { readonly source: { readonly form: 'connection' } }>;
export type ConnectionSourceType = ConnectionSourceConnector['name'];
/** Sources that make their own data (`FROM LOAD GENERATOR AUCTION`). */
export type GeneratorSourceConnector = Extract<Any, { readonly source: { readonly form: 'generator' } }>;
export type GeneratorSourceType = GeneratorSourceConnector['name'];
/** Types a sink can have (`INTO KAFKA CONNECTION c`). */
export type SinkType = Extract<Any, { readonly sink: object }>['name'];
/** Connection types a broker may be reached through (`USING SSH TUNNEL t`). */
export type TunnelConnector = Extract<Any, { readonly connection: { readonly tunnel: object } }>;
export type TunnelType = TunnelConnector['name'];
/** The controller contract's connector types: what an ingestion or an export runs. */
export type DataPlaneConnectorType = Extract<Any, { readonly dataPlane: true }>['name'];
/** The types with an upstream probe (each one a ConnectorProbe in shared/probes/). */
export type ProbedConnectorType = Extract<Any, { readonly probe: object }>['name'];
/** Load generators (`FROM LOAD GENERATOR <generator>`), by the name the AST gives them. */
export type LoadGenerator = keyof GeneratorSourceConnector['source']['generators'] & string;
/** Namespaces of connector errors, like Materialize's mz_source_statuses (`postgres: ...`). */
export type ErrorNamespace =
  | Exclude<Any, { readonly namespace: string }>['name']
  | Extract<Any, { readonly namespace: string }>['namespace']
  | Extract<Any, { readonly probe: { readonly namespaces: readonly string[] } }>['probe']['namespaces'][number];

const BY_NAME: ReadonlyMap<string, Any> = new Map(CONNECTORS.map((c) => [c.name, c]));

/** The descriptor of a type (as the catalog, the AST and the contract spell it), or none for a name that is no type. */
export function connectorOf(name: string): Any | undefined {
  return BY_NAME.get(name);
}

/** The type's words as SQL writes them: `SQL SERVER`, `CONFLUENT SCHEMA REGISTRY`. */
export function sqlWords(c: Pick<ConnectorDescriptor, 'words'> | ConnectorName): string {
  const words = typeof c === 'string' ? BY_NAME.get(c)!.words : c.words;
  return words.join(' ').toUpperCase();
}

/** The namespace a type's errors are reported under (its name unless its descriptor says). */
export function namespaceOf(c: Any): ErrorNamespace {
  return 'namespace' in c ? c.namespace : c.name;
}

export const CONNECTION_CONNECTORS: readonly ConnectionConnector[] = CONNECTORS.filter((c): c is ConnectionConnector => 'connection' in c);
export const SOURCE_CONNECTORS: readonly SourceConnector[] = CONNECTORS.filter((c): c is SourceConnector => 'source' in c);
export const CONNECTION_SOURCE_CONNECTORS: readonly ConnectionSourceConnector[] = CONNECTORS.filter((c): c is ConnectionSourceConnector => 'source' in c && c.source.form === 'connection');
export const GENERATOR_SOURCE_CONNECTORS: readonly GeneratorSourceConnector[] = CONNECTORS.filter((c): c is GeneratorSourceConnector => 'source' in c && c.source.form === 'generator');
export const TUNNEL_CONNECTORS: readonly TunnelConnector[] = CONNECTORS.filter((c): c is TunnelConnector => 'connection' in c && 'tunnel' in c.connection);
export const SINK_CONNECTORS: readonly Extract<Any, { readonly sink: object }>[] = CONNECTORS.filter((c): c is Extract<Any, { readonly sink: object }> => 'sink' in c);
/** The contract's connector types, for a schema that lists them (the local data plane's). */
export const DATA_PLANE_CONNECTOR_TYPES = CONNECTORS.filter((c) => c.dataPlane).map((c) => c.name) as unknown as readonly [DataPlaneConnectorType, ...DataPlaneConnectorType[]];

/** The connection descriptor of a type, if connections can have it. */
export function connectionOf(type: string): ConnectionConnector | undefined {
  const c = BY_NAME.get(type);
  return c && 'connection' in c ? c : undefined;
}

/** What a connection of a type is (its options, checks and capabilities), read through the general shape. */
export function connectionPart(type: string): ConnectionPart | undefined {
  return connectionOf(type)?.connection;
}

/** The source descriptor of a type, if sources can have it. */
export function sourceOf(type: string): SourceConnector | undefined {
  const c = BY_NAME.get(type);
  return c && 'source' in c ? c : undefined;
}

/** A load generator's spec, by the name the AST gives it (`key value`) or the catalog keeps (`KEY VALUE`). */
export function generatorOf(name: string | undefined): GeneratorSpec | undefined {
  if (name === undefined) return undefined;
  const generators: Readonly<Record<string, GeneratorSpec>> = LOAD_GENERATOR.source.generators;
  return generators[name.toLowerCase()];
}

/**
 * The source's records have keys of their own: INCLUDE KEY and an ENVELOPE apply to it (Kafka; the
 * KEY VALUE load generator, whose `GENERATOR` option the catalog keeps).
 */
export function keyedSource(type: string, options: Readonly<Record<string, string>>): boolean {
  const s = sourceOf(type)?.source;
  return (s?.form === 'connection' && s.formats) || generatesKeys(type, options.GENERATOR);
}

/** A load generator whose records have keys without a KEY FORMAT (KEY VALUE): INCLUDE KEY applies to it. */
export function generatesKeys(type: string, generator: string | undefined): boolean {
  return sourceOf(type)?.source.form === 'generator' && generatorOf(generator)?.keyed === true;
}

/** The reference data plane's health monitor probes a running connector of this type again (its descriptor's `probe.reprobed`). */
export function isReprobed(type: string): boolean {
  const c = BY_NAME.get(type.toLowerCase());
  return c !== undefined && 'probe' in c && c.probe.reprobed;
}
