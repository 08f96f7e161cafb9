/**
 * SDK clients. Endpoints come from the SDK's standard `AWS_ENDPOINT_URL*` variables (the local
 * runtime and LocalStack set them); nothing here hard-codes an address. Tests may pass explicit
 * endpoints.
 *
 * `makeClients` builds every kind (the local runtime, the CLI and the tests use them all). A Lambda
 * entry builds only the kinds its function calls, with the per-kind factories in
 * shared/clients/: importing this module pulls in every client package.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeDynamoClients } from './clients/dynamodb';
import type { ClientOptions } from './clients/options';
import { makeSqsClient } from './clients/sqs';
import { makeStreamsClient } from './clients/streams';

export type { ClientOptions } from './clients/options';
export { makeDynamoClients } from './clients/dynamodb';
export { makeSqsClient } from './clients/sqs';
export { makeStreamsClient } from './clients/streams';

export interface Clients {
  readonly ddb: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly streams: DynamoDBStreamsClient;
}

export function makeClients(o: ClientOptions): Clients {
  return { ...makeDynamoClients(o), sqs: makeSqsClient(o), streams: makeStreamsClient(o) };
}
