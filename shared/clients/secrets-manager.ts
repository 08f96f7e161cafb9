/**
 * The Secrets Manager client. Importing this module loads `@aws-sdk/client-secrets-manager`: the
 * functions that need it only now and then import it dynamically (shared/lambda/data-plane-token.ts).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type ClientOptions, clientConfig } from './options';

/** What the data plane token needs of Secrets Manager: one secret's current SecretString. */
export interface SecretStringReader {
  /** The SecretString of the secret's current version (AWSCURRENT); undefined when it has only a SecretBinary. */
  readSecretString(secretId: string): Promise<string | undefined>;
}

export function makeSecretStringReader(o: ClientOptions): SecretStringReader {
  const client = new SecretsManagerClient(clientConfig(o, undefined));
  o.recorder?.attach(client);
  return {
    readSecretString: async (secretId) => (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString,
  };
}
