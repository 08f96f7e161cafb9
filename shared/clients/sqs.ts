/** The SQS client (the controller queues). */
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientConfig, type ClientOptions } from './options';

export function makeSqsClient(o: ClientOptions): SQSClient {
  const sqs = new SQSClient(clientConfig(o, o.endpoints?.sqs));
  o.recorder?.attach(sqs);
  return sqs;
}
