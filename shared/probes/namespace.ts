/**
 * Which error namespace a connection type reports under, and the scrubbing every probe result
 * goes through before it leaves the prober. Pure: no I/O.
 */
import { connectorOf, namespaceOf as connectorNamespace } from '../connectors';
import type { ProbeNamespace, ProbeResult } from './types';

/**
 * The namespace a connection type reports under (its descriptor's, shared/connectors). A type with
 * nothing to probe still needs one (a ProbeResult always carries it); only an `ok` result is ever
 * produced for those, and an `ok` result's namespace is never shown, so for a name that is no
 * type the fallback is the name itself.
 */
export function namespaceOf(type: string): ProbeNamespace {
  const c = connectorOf(type.toLowerCase());
  return c ? connectorNamespace(c) : (type.toLowerCase() as ProbeNamespace);
}

export const REDACTED = '********';

/**
 * Removes every occurrence of every secret value (and its URL-encoded form) from a text. Longest
 * first, so a secret that contains another is removed whole. Upstream servers echo what they were
 * sent (`database "hunter2" does not exist` when a password was typed into DATABASE), so the
 * scrub is applied to every message and hint, whatever produced it.
 */
export function scrubSecrets(text: string, secrets: Readonly<Record<string, string>>): string {
  const values = new Set<string>();
  for (const v of Object.values(secrets)) {
    if (typeof v !== 'string' || v.length === 0) continue;
    values.add(v);
    const encoded = encodeURIComponent(v);
    if (encoded !== v) values.add(encoded);
  }
  let out = text;
  for (const v of [...values].sort((a, b) => b.length - a.length)) out = out.split(v).join(REDACTED);
  return out;
}

export function scrubResult(r: ProbeResult, secrets: Readonly<Record<string, string>>): ProbeResult {
  if (r.error === undefined && r.hint === undefined && r.detail === undefined) return r;
  return {
    ...r,
    ...(r.error !== undefined ? { error: scrubSecrets(r.error, secrets) } : {}),
    ...(r.hint !== undefined ? { hint: scrubSecrets(r.hint, secrets) } : {}),
    ...(r.detail !== undefined ? { detail: scrubSecrets(r.detail, secrets) } : {}),
  };
}

/** The longest error text kept on an effect or a status (a data plane may answer with a page). */
export const MAX_ERROR_CHARS = 2_000;

/**
 * An error text from outside (a data plane, a connector's `lastError`) on its way to
 * mz_pending_effects or a status: the connection's secret values removed as for probe errors,
 * passwords in URLs (`scheme://user:password@host`) removed even when their value is not known
 * here, and the text bounded.
 */
export function scrubError(text: string, secrets: Readonly<Record<string, string>> = {}): string {
  const scrubbed = scrubSecrets(text, secrets).replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, `$1:${REDACTED}@`);
  return scrubbed.length > MAX_ERROR_CHARS ? `${scrubbed.slice(0, MAX_ERROR_CHARS)}…` : scrubbed;
}
