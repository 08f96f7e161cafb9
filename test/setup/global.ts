/**
 * Boots the emulators once per test run, on free loopback ports: DynamoDB Local (in memory) and
 * the SQS emulator. Test files isolate themselves with their own table and queue prefix.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoLocal, startSqsEmulator } from '../../local/emulators';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sqsEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const [ddb, sqs] = await Promise.all([startDynamoLocal({ maxHeap: '1g' }), startSqsEmulator()]);
  project.provide('dynamodbEndpoint', ddb.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  return async () => {
    await sqs.stop();
    await ddb.stop();
  };
}
