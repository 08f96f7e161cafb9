/**
 * A Confluent Schema Registry, read for Avro and Protobuf formats (`USING CONFLUENT SCHEMA REGISTRY
 * CONNECTION csr`). Its probe is shared/probes/schema-registry.ts, at CREATE only (the sources and
 * sinks that use it are probed through their own connection at run time).
 */
import { requireTlsIdentityPair, SSL_NAMES, tunnel } from './common';
import { byName, optionError, type CheckedOption, type ConnectorDescriptor } from './types';

function check(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  const url = given.get('URL');
  if (!url) throw optionError('invalid CONNECTION: must specify URL', at);
  // The URL parser's refusals Materialize passes on (the WHATWG rules its url crate follows).
  const text = (url.text ?? '').trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) throw optionError('parsing schema registry url: relative URL without a base', url.position);
  const special = ['http', 'https', 'ws', 'wss', 'ftp'].includes(scheme);
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(text)?.[1];
  const host = authority?.replace(/^[^@]*@/, '').replace(/:\d*$/, '');
  if (special && !host) throw optionError('parsing schema registry url: empty host', url.position);
  if (!special && !host) throw optionError('invalid CONNECTION: URL must specify domain name', url.position);
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(url.text ?? '')?.[1] ?? '/';
  if (path !== '/' && path !== '') throw optionError('invalid CONNECTION: URL must have an empty path', url.position);
  requireTlsIdentityPair(given, at, 'invalid CONNECTION: reading from SSL-auth Confluent Schema Registry requires both SSL KEY and SSL CERTIFICATE');
  tunnel(given, 'CONFLUENT SCHEMA REGISTRY');
}

export const CONFLUENT_SCHEMA_REGISTRY = {
  name: 'confluent-schema-registry',
  words: ['confluent', 'schema', 'registry'],
  namespace: 'schema-registry',
  connection: {
    options: {
      what: 'Confluent Schema Registry connection',
      names: ['AWS PRIVATELINK', 'PASSWORD', 'PORT', ...SSL_NAMES, 'SSH TUNNEL', 'URL', 'USER'],
      aliases: { USERNAME: 'USER' },
    },
    validateByDefault: true,
    check,
  },
  dataPlane: false,
  probe: { reprobed: false },
} as const satisfies ConnectorDescriptor;
