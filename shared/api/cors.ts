/**
 * CORS: which headers let a browser page on another origin (the console on S3/CloudFront, a dev
 * server) call the API. One policy, applied in three places that must agree: the DDL handler
 * (shared/api/handlers.ts) on every answer it gives, the local API Gateway stand-in
 * (local/http-server.ts) on preflights and its own answers, and the CDK stack
 * (cdk/constructs/ddl-api.ts) on its OPTIONS methods and gateway responses.
 *
 * The allowed origins come from Config.corsAllowOrigins (env CORS_ALLOW_ORIGINS): exact origins,
 * or `['*']`. None configured means no CORS header at all. No `Access-Control-Allow-Credentials`:
 * the app password travels in an `Authorization` header the page sets itself, not in a cookie.
 */

/** The request headers a page may send (`Access-Control-Allow-Headers`). */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'idempotency-key'] as const;
/** The response headers a page may read beyond the CORS-safelisted ones (`Access-Control-Expose-Headers`). */
export const CORS_EXPOSE_HEADERS = ['idempotent-replayed'] as const;
/** How long a browser may reuse a preflight answer (`Access-Control-Max-Age`; Chrome caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;
/** The routes that answer a preflight, with the methods each allows (`Access-Control-Allow-Methods`). */
export const CORS_PREFLIGHT_ROUTES: Readonly<Record<string, readonly string[]>> = {
  '/api/sql': ['POST'],
  '/api/health': ['GET'],
};

/** True when `origins` allows the page at `origin`. */
export function corsAllows(origins: readonly string[] | undefined, origin: string | undefined): boolean {
  return !!origins?.length && (origins.includes('*') || (origin !== undefined && origins.includes(origin)));
}

/**
 * The origin headers of any answer: `Access-Control-Allow-Origin` (the page's origin, or `*`) when
 * the origin is allowed, and `Vary: Origin` whenever the answer depends on the origin (a list of
 * origins), so that a cache never hands one origin's answer to another.
 */
function originHeaders(origins: readonly string[] | undefined, origin: string | undefined): Record<string, string> {
  if (!origins?.length) return {};
  if (origins.includes('*')) return { 'access-control-allow-origin': '*' };
  return corsAllows(origins, origin) ? { 'access-control-allow-origin': origin!, vary: 'Origin' } : { vary: 'Origin' };
}

/** The CORS headers of an actual (not preflight) response to a request with this `Origin` header. */
export function corsHeaders(origins: readonly string[] | undefined, origin: string | undefined): Record<string, string> {
  const headers = originHeaders(origins, origin);
  if (corsAllows(origins, origin)) headers['access-control-expose-headers'] = CORS_EXPOSE_HEADERS.join(',');
  return headers;
}

/**
 * The answer to `OPTIONS <path>` (a preflight, sent without credentials): the headers of a 204, or
 * undefined when no origin is configured or the path has no preflight (then it is an unknown route).
 * Like API Gateway's mock integration it answers whatever the request asks; the browser compares.
 */
export function preflightHeaders(origins: readonly string[] | undefined, origin: string | undefined, path: string): Record<string, string> | undefined {
  const methods = Object.hasOwn(CORS_PREFLIGHT_ROUTES, path) ? CORS_PREFLIGHT_ROUTES[path] : undefined;
  if (!origins?.length || !methods) return undefined;
  return {
    ...originHeaders(origins, origin),
    'access-control-allow-methods': methods.join(','),
    'access-control-allow-headers': CORS_ALLOW_HEADERS.join(','),
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
  };
}
