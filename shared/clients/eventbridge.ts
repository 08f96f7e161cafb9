/** The EventBridge client (the stream router's status events). */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { clientConfig, type ClientOptions } from './options';

// For the publisher, which loads this module on first use (./lazy.ts `loadEventBridge`).
export { PutEventsCommand } from '@aws-sdk/client-eventbridge';

export function makeEventBridgeClient(o: ClientOptions): EventBridgeClient {
  // Endpoint from AWS_ENDPOINT_URL_EVENTBRIDGE when set (LocalStack); no local emulator is used.
  const client = new EventBridgeClient(clientConfig(o, undefined));
  o.recorder?.attach(client);
  return client;
}
