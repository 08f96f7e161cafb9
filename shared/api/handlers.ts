/**
 * API Gateway (REST, v1) entry points: the DDL API behind a Lambda REQUEST authorizer. The local
 * runtime turns HTTP requests into the very same events and calls these same functions.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { actorOf, AppPasswords } from '../auth/app-passwords';
import { AuthError, SQLSTATE } from '../errors';
import { corsHeaders } from './cors';
import { SqlApi } from './sql-api';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

/** The body API Gateway's UNAUTHORIZED gateway response returns (the stack sets the same). */
export const UNAUTHORIZED_BODY = { error: { message: 'missing or invalid app password', code: SQLSTATE.invalidPassword } };

const JSON_HEADERS = { 'content-type': 'application/json' };

function json(statusCode: number, body: unknown): APIGatewayProxyResult {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

function header(event: { headers?: Record<string, string | undefined> | null }, name: string): string | undefined {
  const h = event.headers ?? {};
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : h[key];
}

export interface ApiHandlerDeps {
  readonly api: SqlApi;
  readonly logger: Logger;
  /** Origins whose pages may read the answers (Config.corsAllowOrigins); none: no CORS headers. */
  readonly corsAllowOrigins?: readonly string[];
  /**
   * Checks the app password here, where no API Gateway authorizer runs in front of the function
   * (Config.authenticateInFunction: the stack's LocalStack mode). Absent: the authorizer's context decides.
   */
  readonly passwords?: AppPasswords;
}

export function createApiHandler(deps: ApiHandlerDeps): ApiHandler {
  const route = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    if (event.httpMethod === 'GET' && event.path.endsWith('/api/health')) return json(200, { status: 'ok' });
    if (event.httpMethod !== 'POST' || !event.path.endsWith('/api/sql')) {
      return json(404, { error: { message: `no route for ${event.httpMethod} ${event.path}`, code: '08P01' } });
    }
    let tenant = event.requestContext?.authorizer?.tenant as string | undefined;
    let principal = (event.requestContext?.authorizer?.tokenId as string | undefined) ?? tenant;
    // The authorizer's context holds strings only: '' for a password made for no role (a superuser materialize).
    const authorizedRole = event.requestContext?.authorizer?.role as string | undefined;
    let role = authorizedRole ? authorizedRole : undefined;
    if (!tenant && deps.passwords) {
      try {
        const p = await deps.passwords.verify(header(event, 'authorization'));
        [tenant, principal, role] = [p.tenant, p.tokenId, p.role];
      } catch (err) {
        if (!(err instanceof AuthError)) throw err;
        deps.logger.info('authentication refused', { reason: err.message });
      }
    }
    // The authorizer always sets it; a missing one means the route was deployed without it.
    if (!tenant) return json(401, UNAUTHORIZED_BODY);
    try {
      const body = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      const r = await deps.api.handle(tenant, `${tenant}/${principal}`, body, header(event, 'content-type'), header(event, 'idempotency-key'), actorOf(role === undefined ? {} : { role }), event.queryStringParameters?.options);
      const res = json(r.status, r.body);
      return r.replayed ? { ...res, headers: { ...res.headers, 'idempotent-replayed': 'true' } } : res;
    } catch (err) {
      deps.logger.error('request failed', { error: err as Error });
      return json(500, { error: { message: 'internal error', code: SQLSTATE.internalError } });
    }
  };
  // Every answer, errors included, carries the CORS headers: a page must be able to read a 400 or a 500 too.
  const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const res = await route(event);
    const cors = corsHeaders(deps.corsAllowOrigins, header(event, 'origin'));
    return Object.keys(cors).length ? { ...res, headers: { ...res.headers, ...cors } } : res;
  };
  return middy(handler).use(injectLambdaContext(deps.logger)) as unknown as ApiHandler;
}

export function createAuthorizerHandler(deps: { passwords: AppPasswords; logger: Logger }): AuthorizerHandler {
  const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    try {
      const p = await deps.passwords.verify(header(event, 'authorization'));
      return {
        principalId: `${p.tenant}/${p.tokenId}`,
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
        context: { tenant: p.tenant, tokenId: p.tokenId, role: p.role ?? '' },
      };
    } catch (err) {
      if (err instanceof AuthError) {
        deps.logger.info('authentication refused', { reason: err.message });
        // API Gateway answers 401 (its UNAUTHORIZED gateway response) when an authorizer throws exactly this.
        throw new Error('Unauthorized');
      }
      throw err;
    }
  };
  return middy(handler).use(injectLambdaContext(deps.logger)) as unknown as AuthorizerHandler;
}
