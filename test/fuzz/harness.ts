/**
 * What a fuzz case must satisfy, and the two ways to send one: in-process through `SqlApi.handle`
 * (the DDL Lambda's engine, over the real catalog store) and over HTTP to the local API Gateway.
 * Shared by test/fuzz/*.test.ts and bench/fuzz.ts.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import fc from 'fast-check';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { ControlPlaneError } from '../../shared/errors';
import type { SecretStore } from '../../shared/secrets/store';
import { parse } from '../../shared/sql/parser';
import { PRELUDE, type FuzzRequest } from './arbitraries';

/**
 * The real store (its own per-tenant snapshot cache included), counting the commits that reached
 * DynamoDB per tenant.
 */
export class SnapshotCachingStore extends CatalogStore {
  /** Commits that reached DynamoDB successfully, per tenant. */
  readonly commits = new Map<string, number>();

  /** Forgets the cached snapshot (someone else changed the catalog; only saves a conflict). */
  invalidate(tenant: string): void {
    this.forget(tenant);
  }

  override async commit(tenant: string, ...rest: Parameters<CatalogStore['commit']> extends [string, ...infer R] ? R : never): Promise<{ optional: boolean }> {
    const r = await super.commit(tenant, ...rest);
    this.commits.set(tenant, (this.commits.get(tenant) ?? 0) + 1);
    return r;
  }
}

/** A logger that keeps the product's error logs out of the fuzz output (500s are counted, not logged). */
export function quietLogger(): Logger {
  return new Logger({ serviceName: 'fuzz', logLevel: 'SILENT' });
}

export function inProcessApi(store: CatalogStore, secrets?: SecretStore): SqlApi {
  return new SqlApi({ store, logger: quietLogger(), ...(secrets ? { secrets } : {}) });
}

/** Creates the tenant's catalog and the prelude's objects through the API itself. */
export async function preludeInProcess(api: SqlApi, store: CatalogStore, tenant: string): Promise<void> {
  await store.ensureTenantCatalog(tenant);
  const r = await api.handle(tenant, `${tenant}/fuzz`, JSON.stringify({ query: PRELUDE }), 'application/json');
  if (r.status !== 200) throw new Error(`prelude failed: ${JSON.stringify(r.body)}`);
}

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly body: unknown;
}

/** Posts exactly these bytes and headers (no content type unless given: the body goes as bytes). */
export async function postRaw(url: string, password: string | undefined, req: FuzzRequest, signal?: AbortSignal): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...req.headers };
  if (password !== undefined) headers.authorization = `Bearer ${password}`;
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  const body = typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body;
  const res = await fetch(`${url}/api/sql`, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* reported by checkResponse */
  }
  return { status: res.status, text, body: parsed };
}

/** The error object of a 4xx answer, in either shape the API uses. */
export function errorOf(body: unknown): { code?: unknown; message?: unknown; position?: unknown; detail?: unknown; hint?: unknown } | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { error?: unknown; results?: unknown };
  if (b.error && typeof b.error === 'object') return b.error as Record<string, unknown>;
  if (Array.isArray(b.results) && b.results.length > 0) {
    const last = b.results[b.results.length - 1] as { error?: unknown };
    if (last && typeof last === 'object' && last.error && typeof last.error === 'object') return last.error as Record<string, unknown>;
  }
  return undefined;
}

/** The SQL text of a simple-mode body, when it is one (positions must fall inside it). */
function simpleQuery(body: string | Buffer): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const j = JSON.parse(body) as unknown;
    return j && typeof j === 'object' && !Array.isArray(j) && typeof (j as { query?: unknown }).query === 'string' ? (j as { query: string }).query : undefined;
  } catch {
    return undefined;
  }
}

export interface Verdict {
  /** `ok` for a 200, else the SQLSTATE (or `status:<n>` when there is none). */
  readonly outcome: string;
  /** What broke the contract, if anything. */
  readonly problem?: string;
  /** The HTTP status answered (absent when nothing was answered). */
  readonly status?: number;
}

/**
 * The contract every answer keeps: never ≥ 500; a 4xx is JSON whose error has a SQLSTATE `code`
 * and a `message` (and a `position` inside the SQL text when it has one); a 200 holds results and
 * no error.
 */
export function checkResponse(status: number, body: unknown, request?: string | Buffer): Verdict {
  if (status >= 500) {
    const e = errorOf(body);
    return { outcome: `status:${status}`, problem: `HTTP ${status}${e ? ` ${String(e.code)} ${String(e.message)}` : ''}` };
  }
  if (body === undefined || body === null || typeof body !== 'object') return { outcome: `status:${status}`, problem: `HTTP ${status} with a body that is not a JSON object` };
  if (status >= 400) {
    const e = errorOf(body);
    if (!e) return { outcome: `status:${status}`, problem: `HTTP ${status} without an error object` };
    const code = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
    if (!code) return { outcome: `status:${status}`, problem: `HTTP ${status} error without a SQLSTATE code: ${JSON.stringify(e).slice(0, 200)}` };
    if (typeof e.message !== 'string' || e.message.length === 0) return { outcome: code, problem: `HTTP ${status} error ${code} without a message` };
    if (e.position !== undefined) {
      const q = request === undefined ? undefined : simpleQuery(request);
      const max = q === undefined ? Number.MAX_SAFE_INTEGER : Buffer.byteLength(q, 'utf8');
      if (!Number.isInteger(e.position) || (e.position as number) < 0 || (e.position as number) > max) {
        return { outcome: code, problem: `error ${code} position ${String(e.position)} outside the SQL text (${max} bytes): ${e.message}` };
      }
    }
    return { outcome: code };
  }
  if (status !== 200) return { outcome: `status:${status}`, problem: `unexpected HTTP ${status}` };
  const results = (body as { results?: unknown }).results;
  if (!Array.isArray(results)) return { outcome: 'ok', problem: 'HTTP 200 without a results array' };
  if (results.some((r) => r && typeof r === 'object' && 'error' in r)) return { outcome: 'ok', problem: 'HTTP 200 holding an error result' };
  return { outcome: 'ok' };
}

/** Parse never throws anything but the product's own errors. */
export function checkParse(text: string): string | undefined {
  try {
    parse(text);
    return undefined;
  } catch (e) {
    if (e instanceof ControlPlaneError) {
      if (e.position !== undefined && (!Number.isInteger(e.position) || e.position < 0 || e.position > Buffer.byteLength(text, 'utf8'))) {
        return `${e.name} position ${e.position} outside the text: ${e.message}`;
      }
      return undefined;
    }
    return `parse threw ${(e as Error)?.name ?? typeof e}: ${(e as Error)?.message ?? String(e)}`;
  }
}

/**
 * Runs one request in process and checks it, including invariant 8: a request that does not answer
 * 200 committed nothing.
 */
export async function runInProcess(api: SqlApi, store: SnapshotCachingStore, tenant: string, req: FuzzRequest): Promise<Verdict> {
  const body = typeof req.body === 'string' ? req.body : req.body.toString('utf8');
  const before = store.commits.get(tenant) ?? 0;
  let r;
  try {
    r = await api.handle(tenant, `${tenant}/fuzz`, body, req.contentType, req.headers['idempotency-key']);
  } catch (e) {
    return { outcome: 'crash', problem: `SqlApi.handle threw ${(e as Error)?.name}: ${(e as Error)?.message}` };
  }
  const v = { ...checkResponse(r.status, r.body, body), status: r.status };
  if (!v.problem && r.status !== 200 && (store.commits.get(tenant) ?? 0) !== before && !r.replayed) {
    return { ...v, problem: `HTTP ${r.status} (${v.outcome}) but the request committed` };
  }
  return v;
}

/** Shortens a fuzz input for a report. */
export function excerpt(x: string | Buffer, max = 300): string {
  const s = typeof x === 'string' ? x : `<bytes ${x.toString('hex').slice(0, 80)}>`;
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/**
 * fc.assert, but the failure names the seed and the problem with a shortened input: fast-check's
 * own report prints the whole counterexample, and fuzz inputs run to hundreds of KB.
 */
export async function assertProperty<T>(property: fc.IAsyncProperty<T> | fc.IProperty<T>, params: fc.Parameters<T>): Promise<void> {
  const details = await fc.check(property, params);
  if (!details.failed) return;
  const error = details.errorInstance as Error | undefined;
  throw new Error(
    `property failed after ${details.numRuns} run(s) (seed ${details.seed}, path ${details.counterexamplePath ?? '?'}):\n` +
      `${(error?.message ?? String(details.errorInstance)).slice(0, 2000)}\n` +
      `replay: { seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)} }`,
  );
}
