/** The DynamoDB Streams client (the local stream poller; in AWS, Lambda reads the stream itself). */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { clientConfig, type ClientOptions } from './options';

export function makeStreamsClient(o: ClientOptions): DynamoDBStreamsClient {
  const streams = new DynamoDBStreamsClient(clientConfig(o, o.endpoints?.dynamodb));
  o.recorder?.attach(streams);
  return streams;
}
