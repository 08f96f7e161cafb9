/**
 * The executor marks a connector `starting` at its new generation before it asks the data plane
 * to run it, and status-ingest refuses a report about a generation the status has not started
 * (issue 29): so the mark must land even when another writer (a heartbeat) moved the status
 * between the executor's read and its write, or the data plane's genuine reports about the new
 * generation would all be refused.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import type { StatusStore } from '../../shared/catalog/status-store';
import { tableStores } from '../../shared/catalog/stores';
import type { StatusReport } from '../../shared/dataplane/contract';
import type { EffectMessage } from '../../shared/effects/model';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { EffectExecutor } from '../../shared/executor/executor';
import { routeRecord } from '../../shared/router/routing';
import { StatusIngest } from '../../shared/status-ingest/ingest';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  // No workers: the test runs the executor itself, with the status writes it races.
  p = await testPipeline('mark-starting', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

describe('the starting mark', () => {
  it('lands at the new generation when a heartbeat moved the status first, and the data plane’s report about that generation is applied', async () => {
    // Prepare: a running source (its first generation applied and reported).
    const { sql, tenant } = await sqlClient(p);
    expect((await sql("CREATE CLUSTER c (SIZE = '25cc'); CREATE SOURCE s IN CLUSTER c FROM LOAD GENERATOR COUNTER")).status).toBe(200);
    const id = (await sql("SELECT id FROM mz_sources WHERE name = 's'")).body.results[0].rows[0][0] as string;
    const stores = tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 });
    const ingest = new StatusIngest({ statuses: stores.statuses });
    const report = (generation: number, sequence: number, status: StatusReport['status'] = 'running'): StatusReport => ({
      tenant,
      objectId: id,
      kind: 'ingestion',
      generation,
      sequence,
      reason: 'change',
      status,
      error: null,
      hints: [],
      namespaced: {},
      observedAt: new Date().toISOString(),
    });
    /** The ingestion effects of the source not yet settled, as the queue would deliver them. */
    const pendingIngestion = async (): Promise<EffectMessage> => {
      const e = (await tenantItems(p, tenant)).find((i) => i.type === 'effect' && i.kind === 'ingestion' && i.objectId === id && i.state === 'pending')!;
      return JSON.parse(routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(e) as never } })!.body) as EffectMessage;
    };
    const executor = (statuses: ConstructorParameters<typeof EffectExecutor>[0]['statuses']) =>
      new EffectExecutor({ catalog: stores.catalog, outbox: stores.outbox, statuses, dataPlane: p.dataPlane, controller: 'storage', policy: RETRY_POLICIES['executor.storage'] });
    await executor(stores.statuses).process(await pendingIngestion(), 1);
    expect(await ingest.ingest(report(1, 1))).toBe('changed');
    expect(await stores.statuses.get(tenant, id)).toMatchObject({ status: 'running', generation: 1 });

    // A status store whose first write loses to a heartbeat landing just before it.
    let raced = false;
    const racing: Pick<StatusStore, 'get' | 'apply' | 'replicaStatusItem' | 'writeReplicaStatus'> = {
      get: (t, o) => stores.statuses.get(t, o),
      replicaStatusItem: (...a) => stores.statuses.replicaStatusItem(...a),
      writeReplicaStatus: (item) => stores.statuses.writeReplicaStatus(item),
      apply: async (...a) => {
        if (!raced) {
          raced = true;
          expect(await ingest.ingest({ ...report(1, 2), reason: 'heartbeat' })).toBe('recorded');
        }
        return stores.statuses.apply(...a);
      },
    };

    // Act: a restart is generation 2; its ingestion effect runs with the race.
    expect((await sql('ALTER SOURCE s RESTART')).status).toBe(200);
    await executor(racing).process(await pendingIngestion(), 1);

    // Assess: starting at generation 2 in spite of the race, and the data plane's report about it applies.
    expect(raced).toBe(true);
    expect(await stores.statuses.get(tenant, id)).toMatchObject({ status: 'starting', generation: 2 });
    expect(await ingest.ingest(report(2, 3))).toBe('changed');
    expect(await stores.statuses.get(tenant, id)).toMatchObject({ status: 'running', generation: 2 });
  });
});
