/**
 * The StatusReport schema in docs/controller-contract.openapi.json is what other data planes
 * implement: the reports the reference data plane really sends must validate against it, and it
 * must refuse what the status-ingest parser refuses.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../shared/dataplane/contract';
import { parseReport } from '../../shared/status/reports';

const doc = JSON.parse(readFileSync(new URL('../../docs/controller-contract.openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'contract', components: doc.components });
const validate = ajv.getSchema('contract#/components/schemas/StatusReport')!;

const good: StatusReport = {
  tenant: 't1',
  objectId: 'u1',
  kind: 'ingestion',
  generation: 3,
  sequence: 1764570000123,
  reason: 'change',
  status: 'failed',
  error: 'postgres: publication "mz_source" does not exist',
  hints: ['CREATE PUBLICATION mz_source FOR ALL TABLES'],
  namespaced: { postgres: 'publication "mz_source" does not exist' },
  observedAt: '2026-12-01T06:40:00.123Z',
};

describe('StatusReport schema', () => {
  it('is the x-status-queue message', () => {
    expect(doc['x-status-queue'].message).toEqual({ $ref: '#/components/schemas/StatusReport' });
  });

  it('accepts what the parser accepts', () => {
    expect(validate(good), ajv.errorsText(validate.errors)).toBe(true);
    expect(parseReport(JSON.stringify(good))).toEqual(good);
  });

  it.each([
    ['a missing sequence', (({ sequence: _s, ...r }) => r)(good)],
    ['an unknown status', { ...good, status: 'happy' }],
    ['a negative generation', { ...good, generation: -1 }],
    ['a kind that is not a connector', { ...good, kind: 'replica' }],
    ['a non-string hint', { ...good, hints: [1] }],
  ])('refuses %s, as the parser does', (_name, body) => {
    expect(validate(body)).toBe(false);
    expect(() => parseReport(JSON.stringify(body))).toThrow(/invalid status report/);
  });
});
