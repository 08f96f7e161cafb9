/**
 * What API Gateway answers by itself must agree with what the DDL Lambda and the local runtime
 * answer: the request schema accepts exactly the bodies the Lambda's own check accepts, and the
 * gateway's error bodies are the Lambda's. (ajv stands in for API Gateway's validator; the
 * schema keywords used mean the same in draft 4 and in ajv's draft 7.)
 */
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GATEWAY_ERROR_BODIES, SQL_REQUEST_SCHEMA } from '../../cdk/constructs/ddl-api';
import { UNAUTHORIZED_BODY } from '../../shared/api/handlers';
import { readRequest } from '../../shared/api/sql-api';

const { schema: _draft, ...schema } = SQL_REQUEST_SCHEMA as Record<string, unknown>;
const gatewayAccepts = new Ajv({ strict: false }).compile(schema);

/** True unless the Lambda rejects the body's shape (SQL errors come later and do not count). */
function lambdaAcceptsShape(body: unknown): boolean {
  try {
    readRequest(JSON.stringify(body), 'application/json');
    return true;
  } catch (error) {
    return !(error as Error).message.startsWith('request body must be');
  }
}

const query = fc.constantFrom("CREATE CLUSTER c (SIZE = 'small')", '', 'not sql', 42, null, ['x']);
const extended = fc.record(
  {
    query,
    params: fc.oneof(fc.array(fc.oneof(fc.string(), fc.constant(null), fc.integer())), fc.constant('p')),
    other: fc.boolean(),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.record(
    { query, queries: fc.oneof(fc.array(extended, { maxLength: 3 }), fc.constant('q')), extra: fc.integer() },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

describe('SQL_REQUEST_SCHEMA', () => {
  it.each([
    [{ query: 'CREATE CLUSTER c (SIZE = 1)' }, true],
    [{ queries: [{ query: 'SELECT 1' }] }, true],
    [{ queries: [{ query: 'SELECT 1', params: ['a', null] }] }, true],
    [{}, false],
    [{ query: 1 }, false],
    [{ query: 'x', queries: [] }, false],
    [{ query: 'x', extra: true }, false],
    [{ queries: [{ query: 'x', params: [1] }] }, false],
    [[], false],
  ])('%j: accepted = %s', (input, accepted) => {
    // Act + Assess
    expect(gatewayAccepts(input)).toBe(accepted);
    expect(lambdaAcceptsShape(input)).toBe(accepted);
  });

  it('accepts exactly the bodies the DDL Lambda accepts (property)', () => {
    // Act + Assess
    fc.assert(
      fc.property(body, (input) => {
        const json = JSON.parse(JSON.stringify(input)) as unknown;
        expect(gatewayAccepts(json)).toBe(lambdaAcceptsShape(json));
      }),
      { numRuns: 500 },
    );
  });
});

describe('gateway error bodies', () => {
  it('UNAUTHORIZED answers what the Lambda and the local runtime answer', () => {
    // Assess
    expect(GATEWAY_ERROR_BODIES.unauthorized).toEqual(UNAUTHORIZED_BODY);
  });

  it('a bad body answers the Lambda message with SQLSTATE 08P01', () => {
    // Act
    let lambdaError: Error & { code?: string } = new Error('none');
    try {
      readRequest('{"nope": 1}', 'application/json');
    } catch (error) {
      lambdaError = error as Error & { code?: string };
    }

    // Assess
    expect(GATEWAY_ERROR_BODIES.badRequestBody.error.message).toBe(lambdaError.message);
    expect(GATEWAY_ERROR_BODIES.badRequestBody.error.code).toBe(lambdaError.code);
  });
});
