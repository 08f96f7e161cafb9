/**
 * Webhooks: sources (and tables, `CREATE TABLE ... FROM WEBHOOK`) that the data plane fills from
 * HTTP requests, with their own grammar (`BODY FORMAT`, `INCLUDE HEADER`, `CHECK`). No connection,
 * no upstream to probe.
 */
import type { ConnectorDescriptor } from './types';

export const WEBHOOK = {
  name: 'webhook',
  words: ['webhook'],
  source: { form: 'statement', retainHistory: false },
  dataPlane: true,
} as const satisfies ConnectorDescriptor;
