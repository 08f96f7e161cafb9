/**
 * In AWS, secret values live in Secrets Manager. Importing this module loads the Secrets Manager
 * client package: the functions use {@link lazyAwsSecretStore} (lazy-secrets.ts), which imports it
 * on first use, so a cold start whose first event reads no secret does not load it.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from '../config';
import { AwsSecretStore } from '../secrets/aws-store';
import { awsFingerprintKey, type FingerprintKey } from '../secrets/fingerprint-key';
import type { SecretStore } from '../secrets/store';

export function awsSecretStore(cfg: Config): SecretStore {
  return new AwsSecretStore(new SecretsManagerClient({ region: cfg.region }), cfg.secretNamePrefix);
}

/** The deployment's Idempotency-Key fingerprint key (shared/secrets/fingerprint-key.ts). */
export function awsFingerprintKeyOf(cfg: Config): FingerprintKey {
  return awsFingerprintKey(new SecretsManagerClient({ region: cfg.region }), cfg.secretNamePrefix);
}
