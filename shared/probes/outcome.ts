/**
 * What a probe answers, shared by every protocol: results, and the reading of client errors
 * (socket errors in Materialize's words, timeouts, the chain of causes).
 */
import type { ProbeNamespace, ProbeResult } from './types';

export const ok = (namespace: ProbeNamespace): ProbeResult => ({ ok: true, namespace });

export function fail(namespace: ProbeNamespace, error: string, o: { fatal?: boolean; hint?: string; detail?: string; sqlstate?: string } = {}): ProbeResult {
  return { ok: false, namespace, error, fatal: o.fatal ?? false, ...(o.hint ? { hint: o.hint } : {}), ...(o.detail ? { detail: o.detail } : {}), ...(o.sqlstate ? { sqlstate: o.sqlstate } : {}) };
}

export const timedOut = (namespace: ProbeNamespace, target: string): ProbeResult => fail(namespace, `timed out connecting to ${target}`);

/** The host is, or resolves to, an address this deployment's probes may not connect to. */
export const addressRefused = (namespace: ProbeNamespace, target: string): ProbeResult =>
  fail(namespace, `could not connect to ${target}: the address is not allowed`, {
    fatal: true,
    hint: 'Loopback, link-local and instance-metadata addresses are never probed; private ranges only where the deployment allows them (PROBE_ALLOW_PRIVATE_NETWORKS)',
  });

type ErrorLike = { name?: unknown; message?: unknown; code?: unknown; broker?: unknown };

/** The error, its causes (`cause`, kafkajs's `originalError`) and an AggregateError's members. */
export function* errorChain(err: unknown): Generator<ErrorLike> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 32) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    yield e as ErrorLike;
    const x = e as { cause?: unknown; originalError?: unknown; errors?: unknown };
    queue.push(x.cause, x.originalError);
    if (Array.isArray(x.errors)) queue.push(...x.errors);
  }
}

/**
 * Socket errors in the words (and numbers) Materialize shows, from Rust's io::Error on Linux.
 * ETIMEDOUT is not here: it reads as our own "timed out connecting to ..." (see isTimeout).
 */
const OS_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'Connection refused (os error 111)',
  ECONNRESET: 'Connection reset by peer (os error 104)',
  EHOSTUNREACH: 'No route to host (os error 113)',
  ENETUNREACH: 'Network is unreachable (os error 101)',
  EPIPE: 'Broken pipe (os error 32)',
  ENOTFOUND: 'failed to lookup address information: Name or service not known',
  EAI_AGAIN: 'failed to lookup address information: Temporary failure in name resolution',
};

export function osError(err: unknown): string | undefined {
  for (const e of errorChain(err)) {
    if (typeof e.code === 'string' && OS_ERRORS[e.code]) return OS_ERRORS[e.code];
  }
  return undefined;
}

export function isTimeout(err: unknown): boolean {
  for (const e of errorChain(err)) if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return true;
  return false;
}

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
