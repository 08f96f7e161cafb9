/** The SQS client (the controller queues). */
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientConfig, type ClientOptions } from './options';

// The commands the control plane sends, for the callers that load this module on first use
// (./lazy.ts `loadSqs`): a dynamic import of the client package itself gave a bundle with code
// splitting only its default export while the bundles required the runtime's CommonJS package
// (esbuild wraps it); of this ES module, its named exports, however the SDK is bundled.
export { ChangeMessageVisibilityBatchCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';

export function makeSqsClient(o: ClientOptions): SQSClient {
  // Requests go to the client's endpoint (the region's, or AWS_ENDPOINT_URL_SQS / `endpoints.sqs`),
  // never to the host a QueueUrl names: our queues are the stack's own, in the function's region,
  // so the two are the same in AWS, and the SDK's per-call check of the QueueUrl (two URL parses)
  // buys nothing. Where they differ — an emulator's queue URLs such as
  // http://sqs.us-east-1.127.0.0.1:4566/..., which WHATWG URL refuses — that check printed the
  // parse error and its stack to the console on every send (source-mapped: a cold function's
  // first send parsed its source maps for it), and then used the client's endpoint anyway.
  const sqs = new SQSClient({ ...clientConfig(o, o.endpoints?.sqs), useQueueUrlAsEndpoint: false });
  o.recorder?.attach(sqs);
  return sqs;
}
