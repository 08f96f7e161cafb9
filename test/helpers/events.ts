/** Factories for Lambda events (Powertools' test style). */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';

let seq = 0;
export function streamRecord(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', newImage: Record<string, unknown> | undefined): DynamoDBRecord {
  seq++;
  return {
    eventID: `e${seq}`,
    eventName,
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      SequenceNumber: String(seq).padStart(21, '0'),
      ...(newImage ? { NewImage: marshall(newImage, { removeUndefinedValues: true }) as never } : {}),
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

/** An SQS event of standard-queue records with these bodies (a record per body, repeats allowed). */
export function sqsEvent(bodies: readonly string[]): import('aws-lambda').SQSEvent {
  return {
    Records: bodies.map((body) => {
      seq++;
      return {
        messageId: `m${seq}`,
        receiptHandle: `r${seq}`,
        body,
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'dataplane', ApproximateFirstReceiveTimestamp: String(Date.now()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:ddl-status-reports`,
        awsRegion: 'us-east-1',
      };
    }),
  };
}
