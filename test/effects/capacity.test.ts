/**
 * Effect capacity and per-tenant fairness on the local pipeline with the stack's mapping (the
 * deployed profile): 400 effects of 20 tenants, one of them with half, queued in both arrival
 * orders and drained by the compute executor (bench/phases/capacity.ts; `npm run bench -- --only
 * capacity` runs 10 000 over 100 tenants). The bound is the goal, loose: no tenant's p99
 * wait above 3 × the median tenant's; with the burst first, the small tenants are served before
 * the burst drains (admission, shared/router/admission.ts).
 *
 * The bounds are read in service order (each wait counted in effects the data plane held before
 * it, bench/lib/fairness.ts servicePositions): what admission and the queue decide, whatever the
 * machine's speed does meanwhile. Measured in milliseconds, a CPU burst of the test file running
 * beside this one during the big tenant's tail stretched only its waits (3.22 and 3.33 against
 * 3 in two fresh-clone CI runs, 2.0-2.3 alone or under steady load); in service order the same
 * runs read 1.96-1.97 interleaved and 1.69-1.72 burst first, and with the cap lifted small/big
 * reads 1.9. The wall-clock figures are logged here and are the bench's row (npm run bench --
 * --only capacity). Each order runs on a DynamoDB Local of its own, as the bench phase does: the
 * worker's shared one slows down as the stream records of earlier files and orders pile up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { startDynamoLocal, type DynamoLocal } from '../../local/emulators';
import { queueAndDrain } from '../../bench/phases/capacity';
import { ARRIVAL_ORDERS } from '../../bench/lib/fairness';
import { EXECUTOR_MAPPING } from '../../shared/definitions';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline | undefined;
let ddb: DynamoLocal | undefined;
afterEach(async () => {
  await p?.stop();
  await ddb?.stop();
  p = undefined;
  ddb = undefined;
});

describe('effect capacity', () => {
  for (const order of ARRIVAL_ORDERS) {
    it(`drains a skewed workload (${order}) within the stack's concurrency, no tenant's p99 wait above 3 × the median tenant's`, async () => {
      // Prepare
      ddb = await startDynamoLocal({ maxHeap: '1g' });
      p = await testPipeline(`cap-${order}`, { dynamodbEndpoint: ddb.endpoint, profile: 'deployed', workers: false, fastPath: false });

      // Act
      const run = await queueAndDrain(p, { tag: 'fair', tenants: 20, effects: 400, bigShare: 0.5, order, timeoutMs: 1_200_000, log: (m) => console.log(m) });

      // Assess
      expect(run.fairness.tenants).toHaveLength(20);
      expect(run.fairness.tenants[0]!.effects).toBe(200);
      expect(run.peakInFlight).toBeLessThanOrEqual(EXECUTOR_MAPPING.maxConcurrency);
      expect(run.fairnessInServiceOrder.ratio).toBeLessThanOrEqual(3);
      if (order === 'burst-first') {
        // FIFO groups are served in arrival order; admission lets at most perTenantInQueue of the
        // burst into the queue, so the small tenants wait behind that many, not behind all of it
        // (docs/operations.md, "Effect capacity and per-tenant fairness"). Without the cap this
        // was above 1: every small tenant waited for the whole burst.
        expect(run.fairnessInServiceOrder.smallOverBig).toBeLessThanOrEqual(1);
      }
      // A hang guard, not a budget: at load 40 on 2 cores one order took over 600 s.
    }, 1_800_000);
  }
});
