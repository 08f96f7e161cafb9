/** Confluent schema registry: an HTTP GET of `/subjects`, credentials in a header. */
import { resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { opt } from './options';
import { addressRefused, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeResult } from './types';


export async function probeSchemaRegistry(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy): Promise<ProbeResult> {
  const raw = opt(conn.options, 'URL');
  if (!raw) return fail('schema-registry', 'URL option is required', { fatal: true });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('schema-registry', 'invalid URL', { fatal: true });
  }
  // Credentials go in a header, never in the URL (which error messages may echo).
  const username = opt(conn.options, 'USERNAME') ?? conn.secrets.USERNAME ?? safeDecode(url.username);
  const password = conn.secrets.PASSWORD ?? safeDecode(url.password);
  url.username = '';
  url.password = '';
  const target = url.origin;
  // Checked before the request only: fetch takes no lookup of ours, so a name that resolves
  // elsewhere on the second lookup is not caught here (the other probes connect to the checked address).
  if ((await resolveForProbe(url.hostname, network)).refused) return addressRefused('schema-registry', target);
  const subjects = new URL(`${url.pathname.replace(/\/+$/, '')}/subjects`, url);
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(subjects, {
      signal: AbortSignal.any([signal, timeout]),
      headers: { accept: 'application/vnd.schemaregistry.v1+json', ...(username || password ? { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` } : {}) },
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.ok) return ok('schema-registry');
    if (res.status === 401 || res.status === 403) {
      return fail('schema-registry', `authentication failed: HTTP ${res.status} from ${target}`, { fatal: true, hint: 'Check USERNAME and the PASSWORD secret' });
    }
    return fail('schema-registry', `unexpected HTTP ${res.status} from ${subjects.origin}${subjects.pathname}`, { fatal: res.status === 404 });
  } catch (err) {
    const os = osError(err);
    if (os) return fail('schema-registry', `error connecting to ${target}: ${os}`);
    if (isTimeout(err) || timeout.aborted || signal.aborted) return timedOut('schema-registry', target);
    // fetch says only "fetch failed"; the reason is its cause.
    const cause = (err as { cause?: unknown })?.cause;
    return fail('schema-registry', `error connecting to ${target}: ${messageOf(cause ?? err)}`);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A Confluent schema registry's probe: `/subjects` answers. */
export const SCHEMA_REGISTRY_PROBE: ConnectorProbe<'confluent-schema-registry'> = {
  type: 'confluent-schema-registry',
  connection: (conn, c) => probeSchemaRegistry(conn, c.timeoutMs, c.signal, c.network),
  target: (conn) => {
    try {
      return new URL(opt(conn.options, 'URL') ?? '').origin;
    } catch {
      return 'the schema registry';
    }
  },
};
