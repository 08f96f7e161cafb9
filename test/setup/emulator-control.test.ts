// The restart of a worker's DynamoDB Local between test files (test/setup/emulator-control.ts):
// under the CPU limit a file leaves the emulator as it is; past it the next file finds a fresh one
// on the same endpoint.
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoLocal, type DynamoLocal } from '../../local/emulators';
import { startEmulatorControl, type EmulatorControl } from './emulator-control';

const controls: EmulatorControl[] = [];
afterAll(async () => {
  await Promise.all(controls.map((c) => c.stop()));
});

const clientOf = (endpoint: string) => new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

async function withOneTable(): Promise<{ d: DynamoLocal; client: DynamoDBClient }> {
  const d = await startDynamoLocal({ maxHeap: '256m' });
  const client = clientOf(d.endpoint);
  await client.send(new CreateTableCommand({ TableName: 'left-behind', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' }));
  return { d, client };
}

const afterFile = async (c: EmulatorControl, i: number) => {
  const r = await fetch(`${c.url}/dynamodb/${i}/after-file`, { method: 'POST' });
  expect(r.status).toBe(200);
  return (await r.json()) as { restarted: boolean; cpuMs?: number };
};

describe("a worker's DynamoDB Local between files", () => {
  it('is kept while it has used less CPU than the limit', async () => {
    const { d, client } = await withOneTable();
    const c = await startEmulatorControl([d], { maxHeap: '256m', recycleCpuMs: 3_600_000 });
    controls.push(c);
    const r = await afterFile(c, 0);
    expect(r.restarted).toBe(false);
    expect(r.cpuMs).toBeTypeOf('number');
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(['left-behind']);
    expect(c.restarts).toEqual([0]);
    client.destroy();
  });

  it('is restarted on the same endpoint, empty, once it has used more', async () => {
    const { d, client } = await withOneTable();
    const c = await startEmulatorControl([d], { maxHeap: '256m', recycleCpuMs: 0 });
    controls.push(c);
    const r = await afterFile(c, 0);
    expect(r.restarted).toBe(true);
    expect(c.restarts).toEqual([1]);
    // The next file's client, on the endpoint it was given: a new JVM with nothing left behind.
    const next = clientOf(d.endpoint);
    expect((await next.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    expect(d.process.exitCode !== null || d.process.signalCode !== null).toBe(true);
    next.destroy();
    client.destroy();
  });

  it('answers 404 for a worker it does not have', async () => {
    const d = await startDynamoLocal({ maxHeap: '256m' });
    const c = await startEmulatorControl([d], { maxHeap: '256m' });
    controls.push(c);
    expect((await fetch(`${c.url}/dynamodb/1/after-file`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${c.url}/dynamodb/0/after-file`)).status).toBe(404);
  });
});
