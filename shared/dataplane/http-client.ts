/**
 * The controller contract over HTTP (docs/controller-contract.openapi.json): how the control
 * plane talks to a real data plane. Every operation is an idempotent "make it so" fenced by
 * generation, so a call whose outcome is unknown (timeout, dropped connection, 5xx) is simply
 * sent again; that is what makes the retries below safe.
 *
 * Failures are classed for the executors' retry decision (shared/executor/executor.ts): network
 * errors, timeouts, 408, 429 and 5xx are transient (retried here per the `dataplane.http` policy,
 * then surfaced as a transient DataPlaneError so the executor's own policy takes over); any other
 * 4xx is terminal (retrying the same request cannot succeed) and carries the server's message.
 */
import * as z from 'zod/mini';
import { RESOURCE_KINDS, type ApplyResult, type DataPlane, type ObservedResource, type ReadPolicy, type ResourceKind, type ResourceOwner, type ResourceSpecs } from './contract';
import { DataPlaneError } from '../errors';
import { backoffMs, budgetSpent, RETRY_POLICIES, type RetryPolicy } from '../effects/retry-policies';

/**
 * Where a bearer token comes from when it is not a fixed string: Secrets Manager in AWS
 * (shared/lambda/data-plane-token.ts). The client asks for it before every attempt (the source
 * caches it) and reports a token the data plane answered 401 to, then tries once more with
 * whatever `get` returns next: a token rotated since it was read is picked up without a restart.
 */
export interface BearerTokenSource {
  /** The token to send. A rejection fails the call as a transient DataPlaneError. */
  get(): Promise<string>;
  /** The data plane answered 401 to `token`: forget it, so that the next `get` reads it again. */
  rejected(token: string): void;
}

export interface HttpDataPlaneOptions {
  /**
   * Sent as `Authorization: Bearer <token>`; omitted when unset. A {@link BearerTokenSource} is
   * read before each attempt, and read again (once per call) after a 401.
   */
  readonly token?: string | BearerTokenSource;
  /**
   * Per attempt, covering the response body too.
   * @default 5_000
   */
  readonly timeoutMs?: number;
  /**
   * Test seam: production runs the named policy as written (DESIGN.md invariant 7).
   * @default RETRY_POLICIES['dataplane.http']
   */
  readonly policy?: RetryPolicy;
}

export const DEFAULT_TIMEOUT_MS = 5_000;

/** Statuses worth sending the same request again for; every other non-2xx is terminal. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

// Responses are checked, not trusted: a data plane answering garbage must not be read as "done".
// Built on the first call, not at import: every function that may reach a data plane imports this
// module, and those on the reference data plane never call it.
function buildSchemas() {
  const generation = z.int().check(z.nonnegative());
  const applyResultSchema = z.object({ changed: z.boolean(), heldGeneration: generation });
  const ownerSchema = z.object({ tenant: z.string(), objectId: z.string(), objectKind: z.string(), objectName: z.string() });
  const observedSchema = z.object({
    tenant: z.string(),
    kind: z.enum(RESOURCE_KINDS as [ResourceKind, ...ResourceKind[]]),
    resourceId: z.string(),
    owner: z.optional(ownerSchema),
    managedBy: z.optional(z.string()),
    generation,
    health: z.enum(['healthy', 'unhealthy', 'unknown']),
    lastError: z.optional(z.string()),
    errorIsFatal: z.optional(z.boolean()),
    lastHeartbeat: z.optional(z.string()),
    createdAt: z.string(),
    readPolicy: z.optional(z.object({ kind: z.literal('lag'), lagMs: z.int().check(z.nonnegative()) })),
    spec: z.record(z.string(), z.unknown()),
  });
  return { applyResultSchema, observeSchema: z.object({ resources: z.array(observedSchema) }) };
}
let built: ReturnType<typeof buildSchemas> | undefined;
const schemas = () => (built ??= buildSchemas());

export class HttpDataPlane implements DataPlane {
  private readonly base: string;
  private readonly token: string | BearerTokenSource | undefined;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;

  /**
   * `baseUrl` is where the contract's `/v1/...` paths are mounted (a path prefix is fine); a
   * trailing `/v1` is accepted too, so `https://dp.example.com` and `https://dp.example.com/v1` both work.
   */
  constructor(baseUrl: string, options: HttpDataPlaneOptions = {}) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`data plane URL must be http(s), got ${baseUrl}`);
    this.base = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
    this.token = options.token || undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = options.policy ?? RETRY_POLICIES['dataplane.http'];
  }

  ensure<K extends ResourceKind>(kind: K, owner: ResourceOwner, generation: number, spec: ResourceSpecs[K]): Promise<ApplyResult> {
    return this.call('PUT', resourcePath(owner.tenant, kind, owner.objectId), { owner, generation, spec }, schemas().applyResultSchema);
  }

  drop(kind: ResourceKind, owner: ResourceOwner, generation: number): Promise<ApplyResult> {
    return this.call('POST', `${resourcePath(owner.tenant, kind, owner.objectId)}/drop`, { owner, generation }, schemas().applyResultSchema);
  }

  setReadPolicy(owner: ResourceOwner, generation: number, policy: ReadPolicy): Promise<ApplyResult> {
    return this.call('PUT', `${resourcePath(owner.tenant, 'collection', owner.objectId)}/read-policy`, { owner, generation, policy }, schemas().applyResultSchema);
  }

  async observe(tenant: string): Promise<ObservedResource[]> {
    const body = await this.call('GET', `/v1/tenants/${encodeURIComponent(tenant)}/resources`, undefined, schemas().observeSchema);
    return body.resources as ObservedResource[];
  }

  /** One logical call: attempts until success, a terminal error, or the policy's budget is spent. */
  private async call<T>(method: string, path: string, body: unknown, schema: z.ZodMiniType<T>): Promise<T> {
    const what = `${method} ${path}`;
    let reauthenticated = false;
    for (let attempt = 1; ; attempt++) {
      const r = await this.attempt(method, path, body, schema);
      if (r.ok) return r.value;
      // A 401 with a token from a source: the token may have been rotated since it was read. Read
      // it again and retry at once, one time per call (not counted against the retry budget).
      if (r.rejectedToken !== undefined && !reauthenticated && typeof this.token === 'object') {
        reauthenticated = true;
        this.token.rejected(r.rejectedToken);
        attempt--;
        continue;
      }
      if (!r.transient) throw new DataPlaneError(`data plane ${what}: ${r.message}`, false, { cause: r.cause });
      if (budgetSpent(this.policy, attempt)) {
        throw new DataPlaneError(`data plane ${what}: ${r.message} (gave up after ${attempt} attempts)`, true, { cause: r.cause });
      }
      // Retry-After is honoured, but never past the policy's cap.
      const wait = Math.min(this.policy.capMs, Math.max(backoffMs(this.policy, attempt), r.retryAfterMs ?? 0));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async attempt<T>(method: string, path: string, body: unknown, schema: z.ZodMiniType<T>): Promise<Attempt<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let token: string | undefined;
    try {
      token = typeof this.token === 'object' ? await this.token.get() : this.token;
    } catch (err) {
      // The source's own message, never a token: it has none to tell.
      return { ok: false, transient: true, message: `no bearer token: ${(err as Error).message}`, cause: err };
    }
    if (token) headers.authorization = `Bearer ${token}`;
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        // A redirect means a misconfigured URL; following it could also carry the token elsewhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await res.text();
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') return { ok: false, transient: true, message: `no response within ${this.timeoutMs} ms`, cause: err };
      return { ok: false, transient: true, message: `request failed: ${e.cause?.code ?? e.cause?.message ?? e.message}`, cause: err };
    }
    if (status >= 200 && status < 300) {
      const parsed = schema.safeParse(parseJson(text));
      if (parsed.success) return { ok: true, value: parsed.data };
      const where = parsed.error.issues.slice(0, 3).map((i) => (i.path.length ? i.path.join('.') : '(body)')).join(', ');
      return { ok: false, transient: true, message: `malformed ${status} response (at ${where})` };
    }
    const message = `${status} ${errorMessage(text) ?? (text.slice(0, 200) || 'no body')}`;
    if (status >= 300 && status < 400) return { ok: false, transient: false, message: `unexpected redirect (${message}); check the data plane URL` };
    const retryAfterMs = parseRetryAfter(retryAfter);
    return {
      ok: false,
      transient: isTransientStatus(status),
      message,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(status === 401 && token ? { rejectedToken: token } : {}),
    };
  }
}

type Attempt<T> =
  | { ok: true; value: T }
  /** `rejectedToken`: the token a 401 answered, for the source to forget; never put in a message. */
  | { ok: false; transient: boolean; message: string; retryAfterMs?: number; cause?: unknown; rejectedToken?: string };

function resourcePath(tenant: string, kind: ResourceKind, resourceId: string): string {
  return `/v1/tenants/${encodeURIComponent(tenant)}/resources/${encodeURIComponent(kind)}/${encodeURIComponent(resourceId)}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The contract's `{error: {message}}`, when the body is one. */
function errorMessage(text: string): string | undefined {
  const body = parseJson(text) as { error?: { message?: unknown } } | undefined;
  const m = body?.error?.message;
  return typeof m === 'string' && m ? m : undefined;
}

function parseRetryAfter(v: string | null): number | undefined {
  if (!v) return undefined;
  const seconds = Number(v);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
