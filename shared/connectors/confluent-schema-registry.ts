/**
 * A Confluent Schema Registry, read for Avro and Protobuf formats (`USING CONFLUENT SCHEMA REGISTRY
 * CONNECTION csr`). Its probe is shared/probes/schema-registry.ts, at CREATE only (the sources and
 * sinks that use it are probed through their own connection at run time).
 */
import { SSL_NAMES } from './common';
import { byName, optionError, type CheckedOption, type ConnectorDescriptor } from './types';

function check(options: readonly CheckedOption[], at: number): void {
  const given = byName(options);
  const url = given.get('URL');
  if (!url) throw optionError('invalid CONNECTION: must specify URL', at);
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(url.text ?? '')?.[1] ?? '/';
  if (path !== '/' && path !== '') throw optionError('invalid CONNECTION: URL must have an empty path', url.position);
  if (given.has('SSL KEY') !== given.has('SSL CERTIFICATE')) {
    const which = given.get(given.has('SSL KEY') ? 'SSL KEY' : 'SSL CERTIFICATE');
    throw optionError('invalid CONNECTION: reading from SSL-auth Confluent Schema Registry requires both SSL KEY and SSL CERTIFICATE', which?.position ?? at);
  }
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
