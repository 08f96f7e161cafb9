/**
 * SDK clients. Endpoints come from the SDK's standard `AWS_ENDPOINT_URL*` variables (the local
 * runtime and LocalStack set them); nothing here hard-codes an address. Tests may pass explicit
 * endpoints.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface ClientOptions {
  readonly region: string;
  readonly endpoints?: { readonly dynamodb?: string; readonly sqs?: string };
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export interface Clients {
  readonly ddb: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly streams: DynamoDBStreamsClient;
}

export function makeClients(o: ClientOptions): Clients {
  const base = { region: o.region, ...(o.credentials ? { credentials: o.credentials } : {}), maxAttempts: 3 };
  const ddb = new DynamoDBClient({ ...base, ...(o.endpoints?.dynamodb ? { endpoint: o.endpoints.dynamodb } : {}) });
  const doc = DynamoDBDocumentClient.from(ddb, { marshallOptions: { removeUndefinedValues: true } });
  const sqs = new SQSClient({ ...base, ...(o.endpoints?.sqs ? { endpoint: o.endpoints.sqs } : {}) });
  const streams = new DynamoDBStreamsClient({ ...base, ...(o.endpoints?.dynamodb ? { endpoint: o.endpoints.dynamodb } : {}) });
  return { ddb, doc, sqs, streams };
}
