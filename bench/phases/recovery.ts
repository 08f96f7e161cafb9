/**
 * 5. Recovery: 1 000 pending effects left by a crash. With the executors stopped, 1 000 CREATE
 *    TABLEs commit (the outbox holds 1 000 pending effects); the router then routes them and the
 *    queues lose every message (PurgeQueue: an SQS emulator restarted, messages past retention).
 *    The checker now counts 1 000 lost effects. Executors back on; the sweeper runs with a clock
 *    past each replay window (30 s after the commit, then 60 s after the first replay, ...) and
 *    we time until the checker is clean, counting the sweeps it took.
 */
import { tableStores } from '../../shared/catalog/stores';
import { GetQueueAttributesCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { Checker, isClean, type CheckCounts } from '../../shared/checker/checker';
import { perTenantInQueue } from '../../shared/config';
import { CONTROLLERS } from '../../shared/definitions';
import { backoffMs, RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { makeLogger } from '../../shared/lambda/logger';
import type { Pipeline } from '../../local/pipeline';
import { newTenant, pauseWorkers, resumeWorkers, waitQuiet, type Bench } from '../lib/harness';
import { now, sleep, until } from '../lib/stats';
import { createTable } from './commit';

export interface RecoveryResult {
  readonly pendingEffects: number;
  readonly lostBefore: CheckCounts;
  readonly commitSeconds: number;
  readonly sweeps: { n: number; clockOffsetSeconds: number; itemsRead: number; replayed: number; waiting: number; sweepSeconds: number }[];
  readonly sweepsNeeded: number | null;
  /** From the start of the first recovery sweep until the checker reported the tenant clean. */
  readonly secondsUntilClean: number | null;
  readonly executorEffectsPerSecond: number | null;
  readonly after: CheckCounts;
  /** The sweep before the crash (it also ran the hourly full pass over the live pipeline's tenants). */
  readonly preSweep: { seconds: number; fullPassItemsRead: number };
}

async function queued(p: Pipeline): Promise<number> {
  let n = 0;
  for (const c of CONTROLLERS) {
    const a = (await p.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: p.config.queueUrls[c], AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }))).Attributes ?? {};
    n += Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
  }
  return n;
}

/** `total`: the lost effects (1 000, 150 quick; test/bench/recovery.test.ts runs it small against a low admission cap). */
export async function recovery(bench: Pick<Bench, 'live' | 'quick' | 'tag' | 'log'>, total = bench.quick ? 150 : 1000): Promise<RecoveryResult> {
  const p = bench.live;
  resumeWorkers(p);
  await waitQuiet(p, 180_000);
  let s0 = now();
  const pre = await p.sweeper.sweep();
  const preSweep = { seconds: Math.round((now() - s0) / 100) / 10, fullPassItemsRead: pre.full?.itemsRead ?? 0 };
  await pauseWorkers(p);

  const { tenant } = await newTenant(p, `${bench.tag}-rec`);
  const api = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger: makeLogger('bench'), secrets: p.secrets });
  s0 = now();
  // 30 tables per request: 93 transaction items, under DynamoDB's 100 (no staged commit).
  for (let i = 0; i < total; i += 30) {
    const stmts = Array.from({ length: Math.min(30, total - i) }, (_, k) => createTable(`r_${i + k}`));
    const r = await api.handle(tenant, `${tenant}/bench`, JSON.stringify({ query: stmts.join('; ') }), 'application/json');
    if (r.status !== 200) throw new Error(`recovery commit failed: ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  const commitSeconds = Math.round((now() - s0) / 100) / 10;

  // The crash: the router hands the queues every effect it admits (the tenant's cap at a time,
  // shared/router/admission.ts; the rest wait in the outbox for a slot), then the queues lose them.
  const admitted = Math.min(total, perTenantInQueue(p.config));
  p.router.start();
  const routed = await until(async () => (await queued(p)) >= admitted, 120_000, 200);
  await p.router.stop();
  if (!routed) throw new Error(`the router did not route the recovery effects (${await queued(p)} of the ${admitted} admitted in the queues)`);
  await Promise.all(CONTROLLERS.map((c) => p.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: p.config.queueUrls[c] }))));
  const checker = new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane);
  const lostBefore = (await checker.check([tenant])).counts;
  bench.log(`recovery: ${total} effects committed in ${commitSeconds} s and lost; checker ${JSON.stringify(lostBefore)}`);

  resumeWorkers(p);
  const policy = RETRY_POLICIES['sweeper.replay'];
  const sweeps: RecoveryResult['sweeps'] = [];
  const t0 = now();
  let offset = Math.ceil(backoffMs(policy, 1) / 1000) + 1;
  const clockBase = Date.now();
  let cleanAt: number | undefined;
  let after: CheckCounts = lostBefore;
  for (let n = 1; n <= 4 && cleanAt === undefined; n++) {
    const sweepStart = now();
    const r = await p.sweeper.sweep(new Date(clockBase + offset * 1000));
    sweeps.push({ n, clockOffsetSeconds: offset, itemsRead: r.itemsRead, replayed: r.replayed, waiting: r.waiting, sweepSeconds: Math.round((now() - sweepStart) / 100) / 10 });
    bench.log(`recovery sweep ${n} (+${offset} s): read ${r.itemsRead}, replayed ${r.replayed}, waiting ${r.waiting}`);
    // Until clean, or until the executors have drained what this sweep sent and it is still not clean.
    let drainedChecks = 0;
    for (;;) {
      await sleep(1000);
      after = (await checker.check([tenant])).counts;
      if (isClean(after)) {
        cleanAt = now();
        break;
      }
      drainedChecks = (await queued(p)) === 0 ? drainedChecks + 1 : 0;
      if (drainedChecks >= 3 || now() - sweepStart > 180_000) break;
    }
    offset += Math.ceil(backoffMs(policy, n + 1) / 1000) + 1;
  }
  const secondsUntilClean = cleanAt === undefined ? null : Math.round((cleanAt - t0) / 100) / 10;
  bench.log(`recovery: clean after ${secondsUntilClean ?? 'NEVER'} s, ${sweeps.length} sweeps; checker ${JSON.stringify(after)}`);
  await pauseWorkers(p);
  return {
    pendingEffects: total,
    lostBefore,
    commitSeconds,
    sweeps,
    sweepsNeeded: cleanAt === undefined ? null : sweeps.length,
    secondsUntilClean,
    executorEffectsPerSecond: cleanAt === undefined ? null : Math.round((total / ((cleanAt - t0) / 1000)) * 10) / 10,
    after,
    preSweep,
  };
}
