/**
 * Boots the emulators once per test run, on free loopback ports: one DynamoDB Local (in memory)
 * per vitest worker, and the SQS emulator. Test files isolate themselves with their own table and
 * queue prefix; the files running at the same time (one per worker) also have their own DynamoDB
 * Local, so one that floods it (the chaos run, the race tests) does not make the other wait: a
 * DynamoDB Local serializes the writes to its one in-memory database.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoLocal, startSqsEmulator } from '../../local/emulators';
import { startEmulatorControl } from './emulator-control';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One DynamoDB Local per worker, by VITEST_POOL_ID: read it with `dynamodbEndpoint()` (test/helpers/endpoints.ts). */
    dynamodbEndpoints: string[];
    /** The first worker's DynamoDB Local; `dynamodbEndpoint()` gives each worker its own. */
    dynamodbEndpoint: string;
    sqsEndpoint: string;
    /** Where a file, once done, lets its worker's DynamoDB Local be restarted (test/setup/emulator-control.ts). */
    emulatorControl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const workers = Math.max(1, project.globalConfig.maxWorkers);
  const [sqs, ...ddbs] = await Promise.all([startSqsEmulator(), ...Array.from({ length: workers }, () => startDynamoLocal({ maxHeap: '1g' }))]);
  project.provide('dynamodbEndpoints', ddbs.map((d) => d.endpoint));
  project.provide('dynamodbEndpoint', ddbs[0]!.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  const control = await startEmulatorControl(ddbs, { maxHeap: '1g' });
  project.provide('emulatorControl', control.url);
  return async () => {
    if (process.env.DEBUG_EMULATOR_RESTARTS) console.log(`DynamoDB Local restarts by worker: ${control.restarts.join(', ')}`);
    await sqs.stop();
    await control.stop();
  };
}
