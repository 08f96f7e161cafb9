/**
 * Product bugs the chaos run (`npm run chaos`) found, each cut down to a small reproducible case.
 *
 * These tests pin the behaviour as it is while the bug is open, so the suite stays green and the
 * evidence stays runnable: once a bug is fixed its test fails on the pinned (wrong) state — then
 * turn it into the assertion of the right behaviour written next to it.
 */
import { tableStores } from '../../shared/catalog/stores';
import { Logger } from '@aws-lambda-powertools/logger';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { Checker } from '../../shared/checker/checker';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

async function effects(p: Pipeline, tenant: string): Promise<Record<string, any>[]> {
  const r = await p.clients.doc.send(
    new QueryCommand({ TableName: p.config.catalogTable, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)', ExpressionAttributeValues: { ':pk': `T#${tenant}`, ':e': 'EFF#' }, ConsistentRead: true }),
  );
  return r.Items ?? [];
}

const settled = (p: Pipeline, tenant: string) => eventually(async () => (await effects(p, tenant)).every((e) => e.state !== 'pending'), 15_000);

describe('found by the chaos run', () => {
  it('a terminal data-plane error on a DROP no longer leaves the resource behind: the full pass collects it through the outbox (found by chaos seeds 1 ops 520-522, 7 ops 725-726)', async () => {
    const p = await testPipeline('chaos-finding', { visibilityTimeoutSeconds: 1 });
    try {
      // Prepare: a table whose collection exists.
      const { sql, tenant } = await sqlClient(p);
      expect((await sql('CREATE TABLE t (a int)')).status).toBe(200);
      await settled(p, tenant);
      expect((await p.dataPlane.observe(tenant)).map((r) => r.kind)).toEqual(['collection']);

      // Act: the data plane answers the drop with a terminal error; then the system goes quiet,
      // with sweeps far enough ahead that the hourly full pass runs (twice).
      p.faults.failNext(1, 'terminal', 'injected terminal fault');
      expect((await sql('DROP TABLE t')).status).toBe(200);
      await settled(p, tenant);
      const fullPasses = [];
      for (let k = 1; k <= 13; k++) {
        const r = await p.sweeper.sweep(new Date(Date.now() + k * 600_000));
        if (r.full?.ran) fullPasses.push(r.full);
      }
      await settled(p, tenant);

      // Assess. The first drop failed for good and stays visible...
      expect((await effects(p, tenant)).map((e) => `${e.intent} ${e.kind} ${e.state}`)).toContain('drop collection failed');
      // ...and the full pass collected the orphan anyway, through a new drop effect in the outbox.
      expect(fullPasses.some((f) => f.orphans === 1)).toBe(true);
      const report = await new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane).check([tenant]);
      expect(report.problems).toEqual([]);
      expect(await p.dataPlane.observe(tenant)).toEqual([]);
    } finally {
      await p.stop();
    }
  });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A catalog store that stops right after its first idempotency look-up until `release()`. */
class PausingStore extends CatalogStore {
  private paused = false;
  private readonly atLookup = deferred();
  private readonly gate = deferred();
  readonly reached = this.atLookup.promise;

  release(): void {
    this.gate.resolve();
  }

  override async getIdempotency(...args: Parameters<CatalogStore['getIdempotency']>) {
    const r = await super.getIdempotency(...args);
    if (!this.paused) {
      this.paused = true;
      this.atLookup.resolve();
      await this.gate.promise;
    }
    return r;
  }
}

describe('found by the chaos run (idempotency)', () => {
  it('two requests with one Idempotency-Key get one answer, also when the second has nothing left to do (found by chaos seeds 3 op 253, 8 op 972)', async () => {
    const p = await testPipeline('chaos-finding-idem', { workers: false });
    try {
      const { sql, tenant } = await sqlClient(p);
      expect((await sql('CREATE TABLE t135 (a int)')).status).toBe(200);
      const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });
      const body = JSON.stringify({ query: 'DROP TABLE IF EXISTS t135' });
      const key = 'chaos-8-972';

      // Prepare: request B has looked the key up (nothing there yet) when request A runs through.
      const pausing = new PausingStore(p.clients.doc, p.config.catalogTable);
      const b = new SqlApi({ store: pausing, logger }).handle(tenant, `${tenant}/b`, body, 'application/json', key);
      await pausing.reached;
      const a = await new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger }).handle(tenant, `${tenant}/a`, body, 'application/json', key);
      pausing.release();
      const second = await b;

      // Assess. A committed the drop and recorded its answer under the key; B planned after A's
      // commit, found nothing to drop, and — recording its own answer under the key — found A's
      // there and answered with it.
      expect(a).toEqual({ status: 200, body: { results: [{ ok: 'DROP TABLE', notices: [] }] } });
      expect(second).toEqual({ ...a, replayed: true });
    } finally {
      await p.stop();
    }
  });
});
