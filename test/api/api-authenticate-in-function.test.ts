/**
 * Where no API Gateway authorizer runs in front of the DDL function (the stack's LocalStack mode,
 * `AUTHENTICATE_IN_FUNCTION=true`), the function checks the app password itself: the same answers
 * as behind the authorizer (401 with the API's body, or the request served for the password's tenant).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { lambdaContext } from '../../local/lambda-context';
import { UNAUTHORIZED_BODY } from '../../shared/api/handlers';
import { loadConfig, configToEnv } from '../../shared/config';
import { apiHandler } from '../../shared/lambda/api';
import { makeLogger } from '../../shared/lambda/logger';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('api-auth-in-fn', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

function event(authorization: string | undefined, query: string): APIGatewayProxyEvent {
  return {
    resource: '/api/sql',
    path: '/api/sql',
    httpMethod: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { Authorization: authorization } : {}) },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: JSON.stringify({ query }),
    isBase64Encoded: false,
    requestContext: { authorizer: null, httpMethod: 'POST', path: '/api/sql', requestId: 'r1' } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

describe('DDL function without a gateway authorizer', () => {
  it('AUTHENTICATE_IN_FUNCTION: refuses a missing or wrong app password with 401, serves a valid one as its tenant', async () => {
    // Prepare: the deployed function's configuration, read from its environment
    const cfg = loadConfig({ ...configToEnv(p.config), AUTHENTICATE_IN_FUNCTION: 'true', PASSWORD_CACHE_SECONDS: '0' });
    const handler = apiHandler(cfg, p.clients, makeLogger('ddl-api'));
    const password = await p.passwords.create('tauthfn');
    const call = async (authorization: string | undefined, query: string) => {
      const r = await handler(event(authorization, query), lambdaContext('ddl-api'));
      return { status: r.statusCode, body: JSON.parse(r.body) as unknown };
    };

    // Act
    const missing = await call(undefined, 'CREATE SCHEMA s1');
    // (Its last character changed: to '0', unless it already is one — then the "wrong" password was the right one, 1 run in 16.)
    const wrong = await call(`Bearer ${password.slice(0, -1)}${password.endsWith('0') ? '1' : '0'}`, 'CREATE SCHEMA s1');
    const ok = await call(`Bearer ${password}`, 'CREATE SCHEMA s1');
    const shown = await call(`Basic ${Buffer.from(`tauthfn:${password}`).toString('base64')}`, 'SHOW SCHEMAS');

    // Assess
    expect(cfg.authenticateInFunction).toBe(true);
    expect(missing).toEqual({ status: 401, body: UNAUTHORIZED_BODY });
    expect(wrong).toEqual({ status: 401, body: UNAUTHORIZED_BODY });
    expect(ok.status).toBe(200);
    expect(JSON.stringify(shown.body)).toContain('s1');
  });

  it('without AUTHENTICATE_IN_FUNCTION, trusts only the authorizer: a valid password alone is still 401 (control)', async () => {
    // Prepare
    const handler = apiHandler(p.config, p.clients, makeLogger('ddl-api'));
    const password = await p.passwords.create('tauthfn2');

    // Act
    const r = await handler(event(`Bearer ${password}`, 'SHOW SCHEMAS'), lambdaContext('ddl-api'));

    // Assess
    expect(r.statusCode).toBe(401);
  });
});
