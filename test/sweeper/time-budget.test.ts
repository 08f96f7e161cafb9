/**
 * One sweep never runs past its time budget, whatever the backlog: past its deadline it starts no
 * new work, says so (`truncated`), and what it left stays due for the next sweep. The full pass
 * keeps its own cursor: one page per run without a deadline, page after page with one.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tableStores } from '../../shared/catalog/stores';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { FullPass } from '../../shared/sweeper/full-pass';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  // Workers off: the effects stay pending in the outbox. The sweeper's own full pass is off: this
  // file runs one by hand.
  p = await testPipeline('budget', { workers: false, fullPass: false });
});
afterAll(async () => {
  await p.stop();
});

const due = () => new Date(Date.now() + RETRY_POLICIES['sweeper.replay'].initialDelayMs + 1_000);

describe('the sweep time budget', () => {
  it('a sweep past its deadline starts nothing, says it was cut short, and the next sweep does the work', async () => {
    // Prepare: 12 pending effects over two tenants, their queue messages lost.
    const tenants: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { sql, tenant } = await sqlClient(p);
      expect((await sql("CREATE CLUSTER a (SIZE = '25cc', REPLICATION FACTOR = 3); CREATE CLUSTER b (SIZE = '25cc', REPLICATION FACTOR = 3)")).status).toBe(200);
      tenants.push(tenant);
    }
    await p.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: p.config.queueUrls.compute }));

    // Act: a sweep whose deadline has passed, then one without a deadline.
    const cut = await p.sweeper.sweep(due(), { deadline: Date.now() - 1, fullPass: false });
    const full = await p.sweeper.sweep(due(), { fullPass: false });

    // Assess
    expect(cut).toMatchObject({ truncated: true, replayed: 0 });
    expect(full).toMatchObject({ truncated: false, replayed: 12 });
    for (const tenant of tenants) {
      expect((await tenantItems(p, tenant)).filter((i) => i.type === 'effect').map((e) => e.replays)).toEqual([1, 1, 1, 1, 1, 1]);
    }
  });

  it('the full pass goes on from its cursor: one page without a deadline, page after page until the deadline with one', async () => {
    // Prepare: three more tenants (five in all), a pass of one tenant per page.
    for (let i = 0; i < 3; i++) {
      const { sql } = await sqlClient(p);
      expect((await sql('CREATE TABLE t (a int)')).status).toBe(200);
    }
    const pass = new FullPass({ ...tableStores(p.clients.doc, p.config.catalogTable), dataPlane: p.dataPlane, logger: new Logger({ logLevel: 'ERROR' }) }, { tenantsPerRun: 1 });
    const now = new Date();

    // Act
    const first = await pass.run(now);
    const rest = await pass.run(now, { deadline: Date.now() + 600_000 });
    const after = await pass.run(now, { deadline: Date.now() + 600_000 });

    // Assess: one tenant, then the four left (the pass completes), then nothing until the interval passes.
    expect(first).toMatchObject({ ran: true, tenants: 1, completed: false });
    expect(rest).toMatchObject({ ran: true, tenants: 4, completed: true });
    expect(after).toMatchObject({ ran: false });
  });
});
