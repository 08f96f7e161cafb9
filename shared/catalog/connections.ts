/**
 * A connection as its users see it: its options, and its secret references resolved to values
 * through the catalog (the secret's current generation) and the secret store. Used by the API's
 * purification, the executor's error scrubbing and the sweeper's diagnostic probes.
 */
import type { ConnectionProbeInput } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import type { CatalogObject, ObjectOf } from './model';

/** `pendingValues`: secret values of the request itself, not yet committed (they win over the store). */
export async function resolveConnection(
  tenant: string,
  conn: ObjectOf<'connection'>,
  get: (id: string) => Promise<CatalogObject | undefined>,
  secrets: SecretStore | undefined,
  pendingValues: ReadonlyMap<string, string> = new Map(),
): Promise<ConnectionProbeInput> {
  const values: Record<string, string> = {};
  for (const [option, secretId] of Object.entries(conn.spec.connector.secretRefs)) {
    const pending = pendingValues.get(secretId);
    if (pending !== undefined) {
      values[option] = pending;
      continue;
    }
    const secret = await get(secretId);
    const value = secret && secrets ? await secrets.get(tenant, secretId, secret.generation) : undefined;
    if (value !== undefined) values[option] = value;
  }
  // A tunnel (SSH TUNNEL, AWS PRIVATELINK, per broker too) shows in the options, by its connection's id: the probes
  // do not reach an upstream that only the tunnel's end can (shared/probes/options.ts, viaTunnel).
  const tunnels = Object.entries(conn.spec.connector.connectionRefs).filter(([option]) => /TUNNEL|PRIVATELINK/.test(option));
  return { type: conn.spec.connector.type, options: { ...conn.spec.connector.options, ...Object.fromEntries(tunnels) }, secrets: values };
}
