/** The DynamoDB client and the document client over it (catalog, app passwords, reference data plane). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientConfig, type ClientOptions } from './options';

export interface DynamoClients {
  readonly ddb: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
}

export function makeDynamoClients(o: ClientOptions): DynamoClients {
  const ddb = new DynamoDBClient({ ...clientConfig(o, o.endpoints?.dynamodb), maxAttempts: o.dynamoMaxAttempts ?? 3 });
  o.recorder?.attach(ddb);
  const doc = DynamoDBDocumentClient.from(ddb, { marshallOptions: { removeUndefinedValues: true } });
  return { ddb, doc };
}
