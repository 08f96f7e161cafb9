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
