/** The DynamoDB Streams client (the local stream poller; in AWS, Lambda reads the stream itself). */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { clientConfig, type ClientOptions } from './options';

export function makeStreamsClient(o: ClientOptions): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient(clientConfig(o, o.endpoints?.dynamodb));
}
