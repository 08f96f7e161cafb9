/**
 * The key of the Idempotency-Key fingerprint (an HMAC-SHA-256 of the request body). An unkeyed
 * hash in the catalog table would let anyone who can read the table test guesses of a
 * low-entropy value sent in a CREATE SECRET; with a key kept outside the table, a guess cannot be
 * checked. Changing the key only makes older fingerprints stop matching (a retry then answers
 * 422 instead of its recorded answer, within the key's 24 hours).
 *
 * - Locally: derived (HKDF) from the local secret store's key, which the runtime keeps in its
 *   data folder; nothing more to store.
 * - In AWS: a random 32-byte key in Secrets Manager, `<the stack's secret prefix>/.deployment/idempotency-fingerprint-key`
 *   (`ddl-control-plane/<stack>/.deployment/...`; no tenant can be named `.deployment`), created by the
 *   first DDL Lambda or pgwire task that needs it — create only, so two racing creators end up
 *   reading the same key — and cached per instance. Both may already create and read secrets under
 *   the stack's prefix, and two stacks in one account never share a key.
 */
import { hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { CreateSecretCommand, GetSecretValueCommand, ResourceExistsException, ResourceNotFoundException, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SECRET_NAME_PREFIX } from './aws-store';

export type FingerprintKey = () => Promise<Buffer>;

/** The key's secret name under a deployment's secret name prefix. */
export const fingerprintKeySecretName = (prefix: string = SECRET_NAME_PREFIX): string => `${prefix}/.deployment/idempotency-fingerprint-key`;

/** Locally: a key derived from the local secret store's 32-byte key (the two never serve as each other). */
export function localFingerprintKey(secretsKey: Buffer): FingerprintKey {
  const key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'ddl-control-plane idempotency fingerprint', 32));
  return () => Promise.resolve(key);
}

/** In AWS: read the deployment's key, or create it once. */
export function awsFingerprintKey(sm: SecretsManagerClient, prefix?: string): FingerprintKey {
  const name = fingerprintKeySecretName(prefix);
  let loading: Promise<Buffer> | undefined;
  const read = async (): Promise<Buffer | undefined> => {
    try {
      const r = await sm.send(new GetSecretValueCommand({ SecretId: name }));
      return r.SecretString === undefined ? undefined : Buffer.from(r.SecretString, 'base64');
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return undefined;
      throw err;
    }
  };
  const load = async (): Promise<Buffer> => {
    const found = await read();
    if (found) return found;
    try {
      await sm.send(
        new CreateSecretCommand({
          Name: name,
          SecretString: randomBytes(32).toString('base64'),
          ClientRequestToken: randomUUID(),
          Tags: [{ Key: 'managed-by', Value: SECRET_NAME_PREFIX }],
        }),
      );
    } catch (err) {
      // Another instance created it first: its key is the key.
      if (!(err instanceof ResourceExistsException)) throw err;
    }
    const created = await read();
    if (!created) throw new Error(`${name} has no value`);
    return created;
  };
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined; // retried by the next request that needs it
      throw err;
    }));
}
