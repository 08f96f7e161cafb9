/**
 * CORS in the stack (context `corsAllowOrigins`, or the DdlApi prop): a mock OPTIONS method without
 * authorizer on each API resource, answering the headers the local gateway answers; the CORS header
 * on API Gateway's own answers; CORS_ALLOW_ORIGINS for the DDL Lambda only. Without origins,
 * nothing of it. Bundling is off: this file is about the template.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DdlApi, gatewayResponseCorsHeaders } from '../../cdk/constructs/ddl-api';
import { CatalogTable } from '../../cdk/constructs/catalog-table';
import { InvalidPropsError } from '../../cdk/constructs/props-validation';
import { CORS_ALLOW_ORIGINS_CONTEXT, DdlControlPlaneStack } from '../../cdk/stack';
import { preflightHeaders } from '../../shared/api/cors';
import { loadConfig } from '../../shared/config';
import { BUNDLING_STACKS, bareStack, captureError, FIXTURE_ENTRY, fakeResolve, logicalId, testApp } from './helpers';

const CONSOLE = 'https://console.example.com';
const DEV = 'http://localhost:5173';

function synth(context: Record<string, unknown>) {
  const stack = new DdlControlPlaneStack(testApp({ ...context, [BUNDLING_STACKS]: [] }), 'DdlControlPlane');
  return { stack, template: Template.fromStack(stack) };
}

type Resource = { Properties: Record<string, any> };

function methods(template: Template, httpMethod: string): Resource[] {
  return Object.values(template.findResources('AWS::ApiGateway::Method')).filter((m) => m.Properties.HttpMethod === httpMethod) as Resource[];
}

function gatewayResponses(template: Template): Record<string, Record<string, string> | undefined> {
  return Object.fromEntries(
    Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((r) => [r.Properties.ResponseType, r.Properties.ResponseParameters]),
  );
}

function functionEnv(template: Template, fnLogicalId: string): Record<string, string> {
  const variables = template.toJSON().Resources[fnLogicalId].Properties.Environment.Variables as Record<string, unknown>;
  return Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, fakeResolve(v)]));
}

describe('with context corsAllowOrigins (two origins)', () => {
  let stack: DdlControlPlaneStack;
  let template: Template;
  /** Path part by resource logical id. */
  let resourceIds: Record<string, string>;
  beforeAll(() => {
    // Prepare (once: the template is only read)
    ({ stack, template } = synth({ [CORS_ALLOW_ORIGINS_CONTEXT]: `${CONSOLE}, ${DEV}` }));
    resourceIds = Object.fromEntries(
      Object.entries(template.findResources('AWS::ApiGateway::Resource')).map(([id, r]) => [id, r.Properties.PathPart as string]),
    );
  });

  it('adds OPTIONS to /api/sql and /api/health only, with no authorizer, as mock integrations answering 204', () => {
    // Act
    const options = methods(template, 'OPTIONS');

    // Assess
    expect(options.map((m) => resourceIds[m.Properties.ResourceId.Ref]).sort()).toEqual(['health', 'sql']);
    for (const m of options) {
      expect(m.Properties.AuthorizationType).toBe('NONE');
      expect(m.Properties.AuthorizerId).toBeUndefined();
      expect(m.Properties.Integration.Type).toBe('MOCK');
      expect(m.Properties.Integration.IntegrationResponses[0].StatusCode).toBe('204');
    }
    // POST /api/sql keeps its authorizer.
    expect(methods(template, 'POST')[0]!.Properties.AuthorizerId).toEqual({ Ref: logicalId(stack.api.authorizer!) });
  });

  it('answers a preflight from the first origin with the headers the local gateway sends, and overrides the origin for the others', () => {
    for (const m of methods(template, 'OPTIONS')) {
      // Prepare
      const path = `/api/${resourceIds[m.Properties.ResourceId.Ref]}`;
      const response = m.Properties.Integration.IntegrationResponses[0];

      // Act
      const headers = Object.fromEntries(
        Object.entries(response.ResponseParameters as Record<string, string>).map(([k, v]) => [
          k.replace('method.response.header.', '').toLowerCase(),
          v.replace(/^'|'$/g, ''),
        ]),
      );

      // Assess
      expect(headers).toEqual(preflightHeaders([CONSOLE, DEV], CONSOLE, path));
      expect(response.ResponseTemplates['application/json']).toContain(`$origin == "${DEV}"`);
    }
  });

  it('puts the CORS header on the gateway responses: 401, bad body, too large, no route, every other 4xx, 5xx', () => {
    // Act
    const responses = gatewayResponses(template);

    // Assess
    expect(Object.keys(responses).sort()).toEqual(['BAD_REQUEST_BODY', 'DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'REQUEST_TOO_LARGE', 'UNAUTHORIZED']);
    for (const parameters of Object.values(responses)) {
      // Several origins: a gateway response can only echo the request's Origin (see gatewayResponseCorsHeaders).
      expect(parameters).toEqual({
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Vary': "'Origin'",
      });
    }
  });

  it('gives the DDL Lambda CORS_ALLOW_ORIGINS, which loadConfig accepts; the authorizer does not need it', () => {
    // Act
    const ddl = functionEnv(template, logicalId(stack.api.handler.function));
    const authorizer = functionEnv(template, logicalId(stack.api.authorizerHandler!.function));

    // Assess
    expect(ddl.CORS_ALLOW_ORIGINS).toBe(`${CONSOLE},${DEV}`);
    expect(loadConfig({ AWS_REGION: 'eu-west-1', ...ddl }).corsAllowOrigins).toEqual([CONSOLE, DEV]);
    expect(authorizer.CORS_ALLOW_ORIGINS).toBeUndefined();
  });
});

describe('gateway responses with one origin or "*"', () => {
  it.each([
    [[CONSOLE], { 'gatewayresponse.header.Access-Control-Allow-Origin': `'${CONSOLE}'`, 'gatewayresponse.header.Vary': "'Origin'" }],
    [['*'], { 'gatewayresponse.header.Access-Control-Allow-Origin': "'*'" }],
  ])('%j: a static header', (origins, expected) => {
    // Act
    const { template } = synth({ [CORS_ALLOW_ORIGINS_CONTEXT]: origins });

    // Assess
    for (const parameters of Object.values(gatewayResponses(template))) expect(parameters).toEqual(expected);
    expect(Object.keys(gatewayResponseCorsHeaders(origins)).map((h) => `gatewayresponse.header.${h}`)).toEqual(Object.keys(expected));
  });
});

describe('without CORS origins (the default)', () => {
  it('has no OPTIONS method, no CORS header on the gateway responses, no CORS_ALLOW_ORIGINS', () => {
    // Act
    const { stack, template } = synth({});

    // Assess
    expect(methods(template, 'OPTIONS')).toEqual([]);
    const responses = gatewayResponses(template);
    expect(Object.keys(responses)).not.toContain('DEFAULT_4XX');
    for (const parameters of Object.values(responses)) expect(parameters).toBeUndefined();
    expect(functionEnv(template, logicalId(stack.api.handler.function)).CORS_ALLOW_ORIGINS).toBeUndefined();
  });
});

describe('props validation', () => {
  it('refuses malformed origins, "*" with others and an empty list, naming each', () => {
    // Prepare
    const stack = bareStack();
    const catalog = new CatalogTable(stack, 'Catalog');
    const api = (id: string, corsAllowOrigins: string[]) => () =>
      new DdlApi(stack, id, { catalog, entry: FIXTURE_ENTRY, authorizerEntry: FIXTURE_ENTRY, corsAllowOrigins });

    // Act
    const malformed = captureError(api('A', [`${CONSOLE}/`, 'localhost:3000', '*']));
    const empty = captureError(api('B', []));

    // Assess
    expect(malformed).toBeInstanceOf(InvalidPropsError);
    expect((malformed as InvalidPropsError).problems).toEqual([
      `corsAllowOrigins: "${CONSOLE}/" is not an origin as a browser sends it: write "${CONSOLE}"`,
      'corsAllowOrigins: "localhost:3000" is not an origin: write scheme://host[:port] with http or https, e.g. https://console.example.com',
      'corsAllowOrigins: "*" allows every origin: it cannot be combined with other origins',
    ]);
    expect((empty as InvalidPropsError).problems).toEqual(['corsAllowOrigins must name at least one origin; leave it out for no CORS']);
  });

  it('a malformed context value stops synth with the same message', () => {
    // Act
    const error = captureError(() => synth({ [CORS_ALLOW_ORIGINS_CONTEXT]: 'https://Console.example.com' }));

    // Assess
    expect((error as Error).message).toMatch(/DdlApi:\n {2}- corsAllowOrigins: "https:\/\/Console\.example\.com" is not an origin as a browser sends it: write "https:\/\/console\.example\.com"/);
  });
});
