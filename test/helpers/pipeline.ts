/** Per-test-file pipelines on the shared emulators, isolated by a unique name prefix. */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { startPipeline, type Pipeline, type PipelineOptions } from '../../local/pipeline';
import { loadAdjustedClock } from './budget';
import { dynamodbEndpoint } from './endpoints';
import { livePipelines } from './live-pipelines';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

export function uniquePrefix(label: string): string {
  return `t-${label}-${randomBytes(3).toString('hex')}-`;
}

export { livePipelines };

export async function testPipeline(label: string, o: Partial<PipelineOptions> = {}): Promise<Pipeline> {
  const p = await startPipeline({
    dynamodbEndpoint: dynamodbEndpoint(),
    sqsEndpoint: inject('sqsEndpoint'),
    prefix: uniquePrefix(label),
    port: 0,
    // Tests run the quicker local settings unless they ask for the deployed ones (local/profiles.ts).
    profile: 'fast',
    ...o,
  });
  livePipelines.add(p);
  const stop = p.stop.bind(p);
  return Object.assign(p, {
    stop: async () => {
      livePipelines.delete(p);
      await stop();
    },
  });
}

/**
 * Polls `check` until it returns a truthy value (or throws its last error after `timeoutMs`,
 * stretched on a loaded machine: see budget.ts).
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  // Measured on a clock that runs at an idle machine's speed, re-measured as the load changes.
  const clock = loadAdjustedClock();
  const t0 = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (clock() > timeoutMs) {
      throw new Error(`condition not met within ${Date.now() - t0} ms (${timeoutMs} ms at an idle machine's speed)${lastError ? `: ${(lastError as Error).message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface SqlClient {
  (
    query: string,
    init?: {
      password?: string | null;
      body?: string;
      contentType?: string | null;
      headers?: Record<string, string>;
      /** Session variables for the request's session: the `options` query parameter (Materialize's). */
      options?: Readonly<Record<string, string>>;
    },
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/**
 * A client for POST /api/sql with a fresh tenant and app password. The password acts as a
 * superuser (materialize, as the bootstrap password does) unless made for a `role`.
 */
export async function sqlClient(p: Pipeline, tenant = `t${randomBytes(4).toString('hex')}`, o: { role?: string } = {}): Promise<{ sql: SqlClient; tenant: string; password: string }> {
  const password = await p.passwords.create(tenant, undefined, '', o.role === undefined ? {} : { role: o.role });
  const sql: SqlClient = async (query, init = {}) => {
    const headers: Record<string, string> = {};
    const pw = init.password === undefined ? password : init.password;
    if (pw !== null) headers.authorization = `Bearer ${pw}`;
    const ct = init.contentType === undefined ? 'application/json' : init.contentType;
    if (ct !== null) headers['content-type'] = ct;
    Object.assign(headers, init.headers ?? {});
    const options = init.options && Object.keys(init.options).length ? `?options=${encodeURIComponent(JSON.stringify(init.options))}` : '';
    const res = await fetch(`${p.url}/api/sql${options}`, { method: 'POST', headers, body: init.body ?? JSON.stringify({ query }) });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* keep text */
    }
    return { status: res.status, body, headers: res.headers };
  };
  return { sql, tenant, password };
}

/** The results of a request that must succeed (its status and body in the error otherwise). */
export async function ok(sql: SqlClient, query: string): Promise<any[]> {
  const r = await sql(query);
  if (r.status !== 200) throw new Error(`${query.slice(0, 200)} → ${r.status} ${JSON.stringify(r.body).slice(0, 2000)}`);
  return r.body.results;
}

/** The last result's rows of a request that must succeed (its status and body in the error otherwise). */
export async function rows(sql: SqlClient, query: string): Promise<any[][]> {
  return (await ok(sql, query)).at(-1).rows;
}
