/** The EventBridge client (the stream router's status events). */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { clientConfig, type ClientOptions } from './options';

export function makeEventBridgeClient(o: ClientOptions): EventBridgeClient {
  // Endpoint from AWS_ENDPOINT_URL_EVENTBRIDGE when set (LocalStack); no local emulator is used.
  const client = new EventBridgeClient(clientConfig(o, undefined));
  o.recorder?.attach(client);
  return client;
}
