/**
 * Stopping and restarting keeps the catalog: DynamoDB Local with a data folder keeps the tables,
 * their stream and the router's checkpoint, so the restarted router neither loses nor re-sends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject, afterAll, describe, expect, it } from 'vitest';
import { startDynamoLocal, type DynamoLocal } from '../../local/emulators';
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { dataPlaneReplicas } from '../helpers/catalog';
import { budget } from '../helpers/budget';
import { eventually } from '../helpers/pipeline';

const dir = mkdtempSync(join(tmpdir(), 'ddl-restart-'));
const running: { ddb?: DynamoLocal; p?: Pipeline } = {};

async function boot(): Promise<Pipeline> {
  running.ddb = await startDynamoLocal({ dataDir: dir });
  running.p = await startPipeline({ dynamodbEndpoint: running.ddb.endpoint, sqsEndpoint: inject('sqsEndpoint'), prefix: 'restart-', port: 0, profile: 'fast' });
  return running.p;
}
async function shutdown(): Promise<void> {
  await running.p?.stop();
  await running.ddb?.stop();
  running.p = undefined;
  running.ddb = undefined;
}
afterAll(async () => {
  await shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function post(p: Pipeline, password: string, query: string) {
  const r = await fetch(`${p.url}/api/sql`, { method: 'POST', headers: { authorization: `Bearer ${password}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: r.status, body: (await r.json()) as any };
}

describe('restart', () => {
  it('keeps the catalog, the app passwords and the router checkpoint', async () => {
    // Prepare
    let p = await boot();
    const password = await p.passwords.create('default');
    expect((await post(p, password, "CREATE CLUSTER kept (SIZE = '25cc', REPLICATION FACTOR = 2)")).status).toBe(200);
    await eventually(async () => (await dataPlaneReplicas(p, 'default')).length === 2);
    const routedBefore = p.router.invocations;
    expect(routedBefore).toBeGreaterThan(0);

    // Act
    await shutdown();
    p = await boot();

    // Assess: same catalog, same password, and the restarted router picks up only new records.
    const shown = await post(p, password, 'SHOW CLUSTERS');
    expect(shown.body.results[0].rows).toEqual([['kept', 'r1 (25cc), r2 (25cc)', '']]);
    expect((await post(p, password, "CREATE CLUSTER after (SIZE = '25cc')")).status).toBe(200);
    await eventually(async () => (await dataPlaneReplicas(p, 'default')).length === 3);
    expect(p.router.invocations).toBeGreaterThanOrEqual(1);
    const creates = (await p.dataPlane.actionLog('default')).filter((l) => l.action === 'create');
    expect(creates).toHaveLength(3);
    // Two JVM boots and two stops: about 40 s on a busy 2-core machine, more beside other work.
  }, budget(120_000));
});
