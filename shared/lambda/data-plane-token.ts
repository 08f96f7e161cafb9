/**
 * The HTTP data plane's bearer token from Secrets Manager (env `DATAPLANE_TOKEN_SECRET_ARN`): read
 * (GetSecretValue, SecretString) on the first data plane call, kept for the life of the instance,
 * and read again when the data plane answers 401 to it (the secret was rotated). The Secrets
 * Manager client is imported on that first call: a function that never calls an external data
 * plane (the secrets executor, any function on the reference data plane) never loads it.
 *
 * The token appears in no log line and no error message: failures name the secret's ARN only.
 */
import type { BearerTokenSource } from '../dataplane/http-client';
import type { SecretStringReader } from '../clients/secrets-manager';

export interface SecretsManagerTokenOptions {
  /** Test seam: how the secret is read. @default the SDK client of ./clients/secrets-manager, loaded on first use */
  readonly reader?: () => Promise<SecretStringReader>;
}

/** A {@link BearerTokenSource} reading the secret `secretArn` in `region` (the secret's own region). */
export function secretsManagerToken(secretArn: string, region: string, o: SecretsManagerTokenOptions = {}): BearerTokenSource {
  let reader: Promise<SecretStringReader> | undefined;
  const loadReader = o.reader ?? (() => import('../clients/secrets-manager').then((m) => m.makeSecretStringReader({ region })));
  const getReader = () =>
    (reader ??= loadReader().catch((err: unknown) => {
      reader = undefined; // a failed load is retried by the next call
      throw err;
    }));
  /** The read in flight or done: concurrent first calls share one GetSecretValue. */
  let current: Promise<string> | undefined;
  /** What `current` resolved to, once it has. */
  let held: string | undefined;

  const read = async (): Promise<string> => {
    let value: string | undefined;
    try {
      value = await (await getReader()).readSecretString(secretArn);
    } catch (err) {
      // The SDK error's name and message name the secret and the reason, never its value.
      const e = err as Error;
      throw new Error(`could not read the data plane token from ${secretArn}: ${e.name}: ${e.message}`, { cause: err });
    }
    const token = value?.trim();
    if (!token) throw new Error(`the data plane token secret ${secretArn} has no SecretString (or an empty one): store the token as its text`);
    return token;
  };

  return {
    get() {
      if (!current) {
        const reading = read();
        current = reading;
        reading.then(
          (token) => {
            if (current === reading) held = token;
          },
          () => {
            if (current === reading) current = undefined; // a failed read is not kept: the next call reads again
          },
        );
      }
      return current;
    },
    rejected(token) {
      // Only the token the 401 answered: after concurrent 401s, the first one's re-read is shared.
      if (held === token) {
        current = undefined;
        held = undefined;
      }
    },
  };
}
