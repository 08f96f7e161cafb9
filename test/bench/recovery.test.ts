// The bench's recovery phase (bench/phases/recovery.ts), run small on the test emulators against a
// tenant whose admission cap is below the lost effects: the router then queues only the cap at a
// time, and the phase must still lose what it queued and recover every effect. (Until c87ea07 the
// phase waited for all of them in the queues, and every full bench run reported no recovery row.)
// No timing is asserted: the counts are the machine's to keep, the times are not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recovery, type RecoveryResult } from '../../bench/phases/recovery';
import type { Pipeline } from '../../local/pipeline';
import { testPipeline } from '../helpers/pipeline';

const LOST = 40;
const CAP = 12;

let p: Pipeline;
let result: RecoveryResult;
const log: string[] = [];
beforeAll(async () => {
  p = await testPipeline('bench-rec', { perTenantInQueue: CAP });
  result = await recovery({ live: p, quick: true, tag: `r${Date.now().toString(36)}`, log: (m) => log.push(m) }, LOST);
}, 600_000);
afterAll(async () => {
  await p?.stop();
});

describe('the recovery phase, small, under an admission cap', () => {
  it('loses every committed effect before the sweeps (the checker counts them)', () => {
    expect(CAP).toBeLessThan(LOST);
    expect(result.pendingEffects).toBe(LOST);
    expect(result.lostBefore.lostEffects).toBe(LOST);
  });

  it('is clean within two sweeps, and its counts agree', () => {
    expect(result.sweepsNeeded, log.join('\n')).not.toBeNull();
    expect(result.sweepsNeeded!).toBeLessThanOrEqual(2);
    expect(Object.values(result.after).every((n) => n === 0)).toBe(true);
    // The first sweep reads every lost effect and replays what the tenant's cap admits; the rest follow as slots free.
    expect(result.sweeps[0]!.itemsRead).toBeGreaterThanOrEqual(LOST);
    expect(result.sweeps[0]!.replayed).toBeGreaterThan(0);
    expect(result.sweeps[0]!.replayed).toBeLessThanOrEqual(LOST);
    expect(result.executorEffectsPerSecond).toBeGreaterThan(0);
  });
});
