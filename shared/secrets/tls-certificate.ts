/**
 * The Postgres wire endpoint's TLS certificate and key, kept in a Secrets Manager secret and read by
 * the endpoint's Fargate task (docs/deploy-aws.md, "TLS"). The task ends TLS itself: PostgreSQL
 * clients ask for TLS inside the protocol (SSLRequest, then 'S'), which a load balancer's TLS
 * listener does not speak, so the load balancer passes the bytes through and the certificate's
 * private key must be where the session is.
 *
 * The secret's text (SecretString) is JSON: `{"certificate": "<PEM>", "privateKey": "<PEM>"}`, the
 * certificate first and any intermediates after it in the same PEM, the key unencrypted (PKCS#8 or
 * PKCS#1). Re-reading the secret picks up a renewed certificate without a deploy.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { TlsCertificateError } from '../errors';

export interface TlsCertificate {
  /** The certificate chain, PEM. */
  readonly cert: string;
  /** The private key, PEM. */
  readonly key: string;
  /** The certificate's subject, for the log. */
  readonly subject: string;
  readonly notAfter: Date;
}

/** What the secret must hold, as its documentation and errors show it. */
export const TLS_SECRET_SHAPE = '{"certificate": "-----BEGIN CERTIFICATE-----...", "privateKey": "-----BEGIN PRIVATE KEY-----..."}';

/** Checks a secret's text and returns the certificate it holds; throws {@link TlsCertificateError}. */
export function parseTlsCertificateSecret(secretId: string, text: string | undefined): TlsCertificate {
  const fail = (problem: string, cause?: unknown): never => {
    throw new TlsCertificateError(secretId, problem, cause === undefined ? undefined : { cause });
  };
  if (text === undefined) return fail(`has no SecretString: store ${TLS_SECRET_SHAPE}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The text itself is never quoted: it may be a bare key.
    return fail(`is not JSON: store ${TLS_SECRET_SHAPE}`);
  }
  const { certificate, privateKey } = (parsed ?? {}) as { certificate?: unknown; privateKey?: unknown };
  if (typeof certificate !== 'string' || typeof privateKey !== 'string') return fail(`must have the string fields "certificate" and "privateKey": ${TLS_SECRET_SHAPE}`);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certificate);
  } catch (err) {
    return fail('"certificate" is not a PEM certificate', err);
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(privateKey);
  } catch (err) {
    return fail('"privateKey" is not an unencrypted PEM private key', err);
  }
  if (!x509.checkPrivateKey(key)) fail('"privateKey" is not the key of the first certificate in "certificate"');
  return { cert: certificate, key: privateKey, subject: x509.subject.replace(/\n/g, ', '), notAfter: new Date(x509.validTo) };
}

/**
 * Reads the certificate from its secret, anew at each call (a renewed certificate is picked up).
 * `reader` is Secrets Manager's (shared/clients/secrets-manager.ts `makeSecretStringReader`).
 */
export function secretTlsCertificate(
  reader: { readSecretString(secretId: string): Promise<string | undefined> },
  secretId: string,
): () => Promise<TlsCertificate> {
  return async () => {
    let text: string | undefined;
    try {
      text = await reader.readSecretString(secretId);
    } catch (err) {
      throw new TlsCertificateError(secretId, `could not be read (${(err as Error).name}: ${(err as Error).message})`, { cause: err });
    }
    return parseTlsCertificateSecret(secretId, text);
  };
}
