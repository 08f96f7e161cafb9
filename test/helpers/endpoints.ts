/** The emulators test/setup/global.ts started, as this worker sees them. */
import { inject } from 'vitest';

/**
 * This worker's DynamoDB Local. Each vitest worker (VITEST_POOL_ID, 1 to maxWorkers; the files
 * running at the same moment have different ones) gets its own, so files do not queue behind
 * each other's writes; the files one worker runs one after another share it.
 */
export function dynamodbEndpoint(): string {
  return inject('dynamodbEndpoints')[dynamodbIndex()]!;
}

/** Which of the workers' DynamoDB Locals is this worker's. */
export function dynamodbIndex(): number {
  const all = inject('dynamodbEndpoints');
  const id = Number(process.env.VITEST_POOL_ID ?? '1');
  return (Number.isInteger(id) && id >= 1 ? id - 1 : 0) % all.length;
}
