/**
 * The Secrets Manager secret store, loaded on first use. The DDL API needs it only for CREATE /
 * ALTER SECRET, the sweeper only to probe a connector that uses a secret, and the secrets executor
 * not for a duplicate delivery: their cold start should not load the Secrets Manager client (with
 * code splitting, ./secrets becomes a chunk).
 */
import type { Config } from '../config';
import type { FingerprintKey } from '../secrets/fingerprint-key';
import type { SecretStore } from '../secrets/store';

export function lazyAwsSecretStore(cfg: Config): SecretStore {
  let loading: Promise<SecretStore> | undefined;
  const get = () =>
    (loading ??= import('./secrets').then(
      (m) => m.awsSecretStore(cfg),
      (err: unknown) => {
        loading = undefined; // a failed load is retried by the next call
        throw err;
      },
    ));
  return {
    put: async (tenant, secretId, generation, value) => (await get()).put(tenant, secretId, generation, value),
    has: async (tenant, secretId, generation) => (await get()).has(tenant, secretId, generation),
    get: async (tenant, secretId, generation) => (await get()).get(tenant, secretId, generation),
    prune: async (tenant, secretId, keep) => (await get()).prune(tenant, secretId, keep),
    list: async (tenant) => (await get()).list(tenant),
  };
}

/** The deployment's Idempotency-Key fingerprint key, with the Secrets Manager client loaded only when a request carries a key. */
export function lazyAwsFingerprintKey(cfg: Config): FingerprintKey {
  let loading: Promise<FingerprintKey> | undefined;
  const get = () =>
    (loading ??= import('./secrets').then(
      (m) => m.awsFingerprintKeyOf(cfg),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  return async () => (await get())();
}
