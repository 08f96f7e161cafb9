/**
 * The short chaos run: the engine of `npm run chaos` (bench/chaos/), about 150 operations with
 * two fixed seeds, through the real pipeline over HTTP with faults at every boundary; after the
 * system goes quiet, the invariant checker must find catalog and data plane in agreement.
 *
 * It runs on its worker's DynamoDB Local (test/setup/global.ts starts one per vitest worker, so
 * the file running beside it does not queue behind its writes, nor it behind theirs; the DynamoDB
 * Local restart is skipped here — the CLI run, which owns its DynamoDB Local, does it) and on its
 * own in-process SQS emulator, so that the SQS emulator restart stays in, next to the lost
 * messages of PurgeQueue.
 * Terminal data-plane errors are in: a drop that fails for good is collected by the full pass
 * (see test/chaos/findings.test.ts). So are the races around staged commits (paused readers and
 * sweepers, a lease running out mid-write, clocks 30 s apart) and a second API instance; the
 * history checker (bench/chaos/history.ts) checks every answer given against the final catalog.
 * The workload has issue 18's statement kinds (graceful reconfiguration among them, with crashes on
 * both sides of its settle commit); after quiescence each cluster must run one replica set.
 */
import { describe, expect, it, vi } from 'vitest';
import { runChaos } from '../../bench/chaos/engine';
import { CRASH_POINTS, generateWorkload, STAGED_RACES } from '../../bench/chaos/workload';
import { isClean } from '../../shared/checker/checker';
import { budget, progressWatchdog } from '../helpers/budget';
import { uniquePrefix } from '../helpers/pipeline';
import { dynamodbEndpoint } from '../helpers/endpoints';

// The pipeline's loggers would bury the report; the summary says what happened.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const SEEDS = [7, 1234] as const;
const OPS = 150;
/** Shorter executor backoffs than the production policies (a pipeline test seam), for speed. */
const FAST = { initialDelayMs: 250, factor: 2, capMs: 2_000, budget: 8 };
const SKIP: string[] = [];

describe('the workload', () => {
  it('is a pure function of the seed, drawn without Math.random', () => {
    const random = vi.spyOn(Math, 'random');
    const a = generateWorkload({ seed: SEEDS[0], ops: 1000, tenants: 3 });
    const b = generateWorkload({ seed: SEEDS[0], ops: 1000, tenants: 3 });
    expect(random).not.toHaveBeenCalled();
    random.mockRestore();
    expect(b).toEqual(a);
    expect(generateWorkload({ seed: SEEDS[1], ops: 1000, tenants: 3 })).not.toEqual(a);
    // Every boundary is in it, every crash point, and every object kind.
    const kinds = new Set(a.ops.map((op) => op.kind));
    const points = new Set(a.ops.flatMap((op) => (op.kind === 'crash' ? [op.point] : [])));
    expect([...points].sort()).toEqual([...CRASH_POINTS].sort());
    // Some requests wait for a reconfiguration to settle before they are sent.
    expect(a.ops.some((op) => op.kind === 'sql' && op.settle?.length)).toBe(true);
    for (const k of ['sql', 'retry', 'crash', 'dataplane', 'duplicate', 'purge', 'sqs-restart', 'ddb-restart', 'process-restart', 'sweep', 'staged', 'staged-race', 'instances']) expect(kinds, k).toContain(k);
    // Every race around a staged commit, even in a short run.
    const races = new Set(generateWorkload({ seed: SEEDS[0], ops: OPS, tenants: 2 }).ops.flatMap((op) => (op.kind === 'staged-race' ? [op.race] : [])));
    expect([...races].sort()).toEqual([...STAGED_RACES].sort());
    const text = a.ops.map((op) => ('body' in op ? op.body : '')).join('\n');
    for (const stmt of [
      'CREATE CLUSTER',
      'CREATE CLUSTER REPLICA',
      'ALTER CLUSTER',
      'SWAP WITH',
      'CREATE SECRET',
      'ALTER SECRET',
      'CREATE CONNECTION',
      'FROM LOAD GENERATOR',
      'FROM POSTGRES',
      'CREATE TABLE',
      'CREATE VIEW',
      'CREATE MATERIALIZED VIEW',
      'CREATE INDEX',
      'INTO KAFKA',
      'RENAME TO',
      'SET CLUSTER',
      'CASCADE',
      'BEGIN',
      // The statement kinds of issue 18.
      'WITH (WAIT UNTIL READY',
      "ON TIMEOUT = 'ROLLBACK'",
      'WITH (WAIT FOR',
      'SCHEDULE = ON REFRESH',
      'SET (MANAGED = false)',
      'SET (MANAGED',
      'ADD SUBSOURCE',
      'REFRESH REFERENCES',
      'SET (TIMESTAMP INTERVAL',
      'RESET (TIMESTAMP INTERVAL)',
      'ALTER CONNECTION',
      'ROTATE KEYS',
      "AS decode('",
      'SET (RETAIN HISTORY',
      'RESET (RETAIN HISTORY)',
      'WITH (REFRESH',
      'FROM MYSQL CONNECTION',
      'FROM SQL SERVER CONNECTION',
      'FROM WEBHOOK',
      'COMMENT ON COLUMN',
      'COMMENT ON CLUSTER',
      'ADD COLUMN',
      'CREATE TYPE',
      'DROP TYPE',
      'SHOW COLUMNS FROM',
      'SHOW SUBSOURCES ON',
      'FROM (SHOW',
      'mz_internal.mz_comments',
    ]) {
      expect(text, stmt).toContain(stmt);
    }
  });
});

describe('a short chaos run', () => {
  it.each(SEEDS)(
    'seed %i: after the faults stop and the system goes quiet, the checker finds nothing',
    async (seed) => {
      // A hang is no progress, not a long run: a loaded CI machine makes the run several times
      // slower (300 s was not enough there), and a stuck run fails after two idle minutes at an
      // idle machine's speed, naming the step it stopped after.
      const watchdog = progressWatchdog(120_000);
      const run = runChaos({
        seed,
        ops: OPS,
        tenants: 2,
        dynamodbEndpoint: dynamodbEndpoint(),
        prefix: uniquePrefix(`chaos${seed}`),
        visibilityTimeoutSeconds: 1,
        retryPolicyOverrides: { compute: { name: 'executor.compute', ...FAST }, storage: { name: 'executor.storage', ...FAST }, secrets: { name: 'executor.secrets', ...FAST } },
        // Ends as soon as the system is quiet; the limit only matters if it never is.
        quietTimeoutMs: budget(60_000),
        // Likewise for a request that waits for a graceful reconfiguration to settle.
        settleTimeoutMs: budget(180_000),
        skip: SKIP,
        step: watchdog.beat,
        // The watchdog tells stuck from slow; a fixed 60 s per request failed runs on a machine
        // ~15 times slower than idle that were still moving.
        requestTimeoutMs: 600_000,
      });
      const summary = await Promise.race([run, watchdog.stalled]).finally(watchdog.stop);
      const report = JSON.stringify(summary);
      expect(summary.problems, report).toEqual([]);
      expect(summary.violations, report).toBe(0);
      expect(isClean(summary.checker.counts), report).toBe(true);
      // Every acknowledged answer still holds, in one serial order that ends in the final catalog.
      expect(summary.history.first, report).toEqual([]);
      expect(summary.history.anomalies, report).toBe(0);
      expect(summary.history.acknowledged, report).toBeGreaterThan(OPS / 2);
      // After quiescence each cluster runs one replica set, the one its catalog entry describes.
      expect(summary.replicaSets.problems, report).toBe(0);
      // ...and every resource is held at its object's generation with the spec the catalog gives it.
      expect(summary.resources.problems, report).toBe(0);
      for (const k of ['staged-race:slow-roll-forward', 'staged-race:paused-rollback', 'staged-race:mid-rollback', 'staged-race:lease-expiry', 'instances']) {
        expect(Object.keys(summary.faults.scheduled).some((x) => x.startsWith(k)), `${k} in ${report}`).toBe(true);
      }
      expect(summary.quiet.settled, report).toBe(true);
      // The model of the workload and the product agree on every answer.
      expect(summary.mispredicted, report).toEqual([]);
      expect(Object.keys(summary.faults.skipped).filter((k) => k !== 'ddb-restart' && !SKIP.includes(k)), report).toEqual([]);
      expect(Object.keys(summary.faults.fired).length, report).toBeGreaterThan(3);
    },
    // The watchdog above is the hang detector; this is only the outer bound of a very slow machine.
    3_600_000,
  );
});
