/**
 * The local API Gateway: turns HTTP requests into REST (v1) proxy events, runs the Lambda
 * REQUEST authorizer first for protected routes (as API Gateway does), and calls the very same
 * handlers that run in Lambda. With CORS origins configured it also does what the stack's API
 * Gateway does for browsers: answers `OPTIONS` preflights itself, without the authorizer, and
 * puts the CORS headers on its own answers (401, 404, 413, ...), as the stack's gateway responses do.
 */
import { createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { ApiHandler, AuthorizerHandler } from '../shared/api/handlers';
import { UNAUTHORIZED_BODY } from '../shared/api/handlers';
import { corsHeaders, preflightHeaders } from '../shared/api/cors';
import { loadCorsAllowOrigins } from '../shared/config';
import { lambdaContext } from './lambda-context';
import type { EventReader } from './event-log';

/** API Gateway's own payload limit; the handler enforces the product's smaller one. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

export interface HttpServerOptions {
  /** The functions' timeout as their Lambda context reports it (local/profiles.ts). */
  readonly functionTimeoutMs?: number;
  readonly api: ApiHandler;
  readonly authorizer: AuthorizerHandler;
  readonly port: number;
  readonly host?: string;
  /** Extra routes served before the API (the console, later). */
  readonly fallback?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * Origins allowed to call from a browser page on another origin, as the stack's CORS
   * configuration; `[]` for none. The DDL handler adds its own headers from its config.
   * @default CORS_ALLOW_ORIGINS from the environment (shared/config.ts validates it)
   */
  readonly corsAllowOrigins?: readonly string[];
  /**
   * How long a decision of the authorizer is reused for the same `Authorization` header, as
   * API Gateway's authorizer result cache (the stack's `AUTHORIZER_CACHE_TTL_SECONDS`).
   * @default 0 (the authorizer runs on every request)
   */
  readonly authorizerCacheTtlSeconds?: number;
  /**
   * The local event log: `GET /api/events?after=N&limit=M` answers the caller's tenant's status
   * events (local only; in AWS they go to the stack's EventBridge bus). None: no such route.
   */
  readonly events?: EventReader;
}

/** Authorizer decisions by `Authorization` header, with when they expire. */
type AuthorizerCache = Map<string, { result: Awaited<ReturnType<AuthorizerHandler>>; expires: number }>;

const PROTECTED = new Set(['POST /api/sql', 'GET /api/events']);

/** Events per `GET /api/events` answer: default and most. */
const EVENTS_PAGE = 100;
const EVENTS_PAGE_MAX = 1000;

/** The `after` and `limit` of an events read, or what is wrong with them. */
export function eventsQuery(params: URLSearchParams): { after: number; limit: number } | string {
  const int = (name: string, dflt: number, min: number, max: number): number | string => {
    const raw = params.get(name);
    if (raw === null || raw === '') return dflt;
    const n = Number(raw);
    return /^\d+$/.test(raw) && n >= min && n <= max ? n : `${name} must be an integer from ${min} to ${max}, got "${raw}"`;
  };
  const after = int('after', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = int('limit', EVENTS_PAGE, 1, EVENTS_PAGE_MAX);
  if (typeof after === 'string') return after;
  if (typeof limit === 'string') return limit;
  return { after, limit };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  res.writeHead(status, headers);
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** The allowed CORS origins, resolved once per server (undefined: none). */
type Cors = readonly string[] | undefined;

/** An answer of the gateway itself: JSON, with the CORS headers its gateway responses carry. */
function sendOwn(cors: Cors, req: IncomingMessage, res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  send(res, status, body, { 'content-type': 'application/json', ...corsHeaders(cors, req.headers.origin), ...extra });
}

/**
 * Reads the body up to API Gateway's limit. Past it, the rest is drained and dropped (not
 * destroyed mid-upload: the client would see a reset instead of the 413).
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > GATEWAY_MAX_BODY ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function singleHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * A request Node's parser cannot take (headers over `maxHeaderSize`, 16 KiB by default; a request
 * line that is not HTTP; a request that did not arrive in time) in our JSON error shape, where
 * Node would answer a bare status line. As Node's own handler: only while no answer of the
 * connection has started, and the connection ends after it.
 */
function onClientError(err: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, reason, message, code] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', `request headers exceed ${maxHeaderSize} bytes`, '54000']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'the request did not arrive in time', '57014']
          : [400, 'Bad Request', 'malformed HTTP request', '08P01'];
    const body = JSON.stringify({ error: { message, code } });
    socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }
  socket.destroySoon();
}

/** How long a stop waits for requests in flight before it cuts their connections. */
const DRAIN_MS = 10_000;

export async function startHttpServer(o: HttpServerOptions): Promise<{ server: Server; url: string; stop(drainMs?: number): Promise<void> }> {
  const cors = o.corsAllowOrigins ?? loadCorsAllowOrigins(process.env);
  const decisions: AuthorizerCache = new Map();
  const server = createServer((req, res) => {
    handle(o, cors, decisions, req, res).catch((err) => {
      console.error('local API error', err);
      if (!res.headersSent) sendOwn(cors, req, res, 500, { error: { message: 'internal error', code: 'XX000' } });
    });
  });
  server.on('clientError', onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${o.host ?? '127.0.0.1'}:${addr.port}`;
  return {
    server,
    url,
    stop: (drainMs = DRAIN_MS) =>
      new Promise<void>((resolve) => {
        // Stop accepting, let requests in flight finish (bounded), then cut what is left.
        const cut = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** The authorizer's decision: a cached one while its TTL lasts, else a fresh invocation (cached when the TTL is positive). */
async function authorize(o: HttpServerOptions, decisions: AuthorizerCache, event: APIGatewayRequestAuthorizerEvent): Promise<Awaited<ReturnType<AuthorizerHandler>>> {
  const ttlMs = (o.authorizerCacheTtlSeconds ?? 0) * 1000;
  const key = event.headers?.authorization ?? '';
  const hit = ttlMs > 0 ? decisions.get(key) : undefined;
  if (hit && hit.expires > Date.now()) return hit.result;
  const result = await o.authorizer(event, lambdaContext('authorizer', o.functionTimeoutMs));
  if (ttlMs > 0) {
    // Bounded: an expired decision is useless, so a full cache is simply started afresh.
    if (decisions.size >= 10_000) decisions.clear();
    decisions.set(key, { result, expires: Date.now() + ttlMs });
  }
  return result;
}

async function handle(o: HttpServerOptions, cors: Cors, decisions: AuthorizerCache, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://local');
  const method = req.method ?? 'GET';
  const route = `${method} ${url.pathname}`;
  if (!url.pathname.startsWith('/api/')) {
    if (o.fallback?.(req, res)) return;
    sendOwn(cors, req, res, 404, { error: { message: `no route for ${route}`, code: '08P01' } });
    return;
  }
  // A preflight carries no credentials: answered here, like the stack's mock OPTIONS methods.
  const preflight = method === 'OPTIONS' ? preflightHeaders(cors, req.headers.origin, url.pathname) : undefined;
  if (preflight) {
    req.resume();
    res.writeHead(204, preflight);
    res.end();
    return;
  }
  const raw = await readBody(req);
  if (raw === 'too-large') {
    sendOwn(cors, req, res, 413, { error: { message: `request body exceeds ${GATEWAY_MAX_BODY} bytes`, code: '54000' } }, { connection: 'close' });
    return;
  }
  let body: string;
  try {
    body = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    sendOwn(cors, req, res, 400, { error: { message: 'request body is not valid UTF-8', code: '22021' } });
    return;
  }
  const headers = singleHeaders(req);
  const requestId = randomUUID();
  const resource = url.pathname;
  let authorizer: Record<string, string> | undefined;
  if (PROTECTED.has(route)) {
    const authEvent: APIGatewayRequestAuthorizerEvent = {
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:local:000000000000:local/local/${method}${resource}`,
      resource,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders: {},
      pathParameters: null,
      queryStringParameters: Object.fromEntries(url.searchParams),
      multiValueQueryStringParameters: null,
      stageVariables: null,
      requestContext: { requestId } as APIGatewayRequestAuthorizerEvent['requestContext'],
    };
    try {
      const result = await authorize(o, decisions, authEvent);
      const allowed = result.policyDocument.Statement.some((s) => s.Effect === 'Allow');
      if (!allowed) {
        sendOwn(cors, req, res, 403, { error: { message: 'forbidden', code: '42501' } });
        return;
      }
      authorizer = Object.fromEntries(Object.entries(result.context ?? {}).map(([k, v]) => [k, String(v)]));
    } catch (err) {
      if ((err as Error).message === 'Unauthorized') {
        sendOwn(cors, req, res, 401, UNAUTHORIZED_BODY);
        return;
      }
      throw err;
    }
  }
  if (route === 'GET /api/events' && o.events) {
    const q = eventsQuery(url.searchParams);
    if (typeof q === 'string') {
      sendOwn(cors, req, res, 400, { error: { message: q, code: '22023' } });
      return;
    }
    const events = o.events.read(authorizer!.tenant!, q.after, q.limit);
    // `next`: the cursor to pass as `after` for what comes later (unchanged when nothing new).
    sendOwn(cors, req, res, 200, { events, next: events.length ? events[events.length - 1]!.seq : q.after });
    return;
  }
  const event: APIGatewayProxyEvent = {
    resource,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders: {},
    queryStringParameters: url.searchParams.size ? Object.fromEntries(url.searchParams) : null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body.length ? body : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: authorizer ?? null,
      httpMethod: method,
      path: url.pathname,
      protocol: 'HTTP/1.1',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource,
      stage: 'local',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
  const result = await o.api(event, lambdaContext('ddl-api', o.functionTimeoutMs));
  const outHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) outHeaders[k] = String(v);
  send(res, result.statusCode, result.body, outHeaders);
}
