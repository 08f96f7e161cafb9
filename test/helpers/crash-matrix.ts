/**
 * The crash matrix's harness: boot (and restart, on the same tables and queues) a pipeline with a
 * fault injector, let an armed crash happen, and check — once quiet — that catalog and data plane
 * agree. Shared by test/integration/crash-matrix*.test.ts.
 */
import { expect } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tableStores } from '../../shared/catalog/stores';
import { Checker, isClean } from '../../shared/checker/checker';
import type { FaultInjector } from '../../shared/dataplane/faults';
import { RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { tenantItems } from './catalog';
import { eventually, testPipeline } from './pipeline';

/** The points every crash-matrix case dies at: the router around its send, the executor around its data-plane call and before its ack. */
export const CRASH_POINTS = ['router.before-send', 'router.after-send', 'executor.before-dataplane', 'executor.after-dataplane', 'executor.before-ack'] as const;

export class CrashHarness {
  running: Pipeline | undefined;

  constructor(private readonly label: string) {}

  /** Starts (or restarts, on the same tables and queues) the pipeline. */
  async boot(prefix: string, faults: FaultInjector, o: { workers?: boolean } = {}): Promise<Pipeline> {
    await this.running?.stop();
    this.running = await testPipeline(this.label, { prefix, faults, visibilityTimeoutSeconds: 1, ...o });
    return this.running;
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    this.running = undefined;
  }

  /** At most two sweeps, far enough ahead that every replay window is open; then the invariant checker's report. */
  async quietThenCheck(p: Pipeline, tenant: string) {
    const replay = RETRY_POLICIES['sweeper.replay'];
    for (let sweeps = 1; sweeps <= 2; sweeps++) {
      await p.sweeper.sweep(new Date(Date.now() + sweeps * replay.capMs));
      const settled = async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending');
      try {
        await eventually(settled, 8_000);
        break;
      } catch (err) {
        if (sweeps === 2) throw err;
      }
    }
    return new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane).check([tenant]);
  }

  /**
   * Runs `statement` with a crash armed at `point`, lets the crash happen, restarts the process on
   * the same state and checks that, once quiet, catalog and data plane agree. Returns the new pipeline.
   */
  async crashRestartCheck(prefix: string, faults: FaultInjector, point: string, sql: (q: string) => Promise<{ status: number; body?: unknown }>, statement: string, tenant: string): Promise<Pipeline> {
    faults.crashAt(point, 1);
    const r = await sql(statement);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Let the crash happen, then restart the process on the same state.
    await eventually(async () => faults.pendingCrashes() === 0, 10_000);
    const p = await this.boot(prefix, faults);
    const report = await this.quietThenCheck(p, tenant);
    expect(report.problems).toEqual([]);
    expect(isClean(report.counts)).toBe(true);
    return p;
  }
}
