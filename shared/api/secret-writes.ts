/**
 * Secret values go to the secret store before the commit that references them: a crash after
 * this and before the commit leaves an unreferenced version the sweeper removes; the reverse
 * order could commit a secret without its value.
 */
import { ControlPlaneError, SQLSTATE } from '../errors';
import type { SecretWrite } from '../planner/plan';
import type { SecretStore } from '../secrets/store';

export async function writeSecretValues(secrets: SecretStore | undefined, tenant: string, writes: readonly SecretWrite[]): Promise<void> {
  if (writes.length === 0) return;
  if (!secrets) throw new ControlPlaneError('no secret store is configured', { code: SQLSTATE.featureNotSupported });
  for (const w of writes) await secrets.put(tenant, w.secretId, w.generation, w.value);
}
