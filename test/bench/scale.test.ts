// Issue 16's scale phase (bench/phases/scale.ts), run small on the test emulators: every figure
// is computed, counts agree with each other, and the rows read off them are complete. No timing
// is asserted: the phase's times depend on the machine, its counts do not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureSourceShape, scaleFigures, type ScaleResult } from '../../bench/phases/scale';
import { benchRows } from '../../bench/lib/rows';
import { summarizeScale } from '../../bench/lib/scale-model';
import type { Pipeline } from '../../local/pipeline';
import { dynamodbEndpoint } from '../helpers/endpoints';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline;
let result: ScaleResult;
beforeAll(async () => {
  p = await testPipeline('scale');
  const env = { live: p, dynamodbEndpoint: dynamodbEndpoint(), tag: `s${Date.now().toString(36)}`, quick: true, log: () => undefined, objectsPerTenant: 40, sizes: [40, 80, 120], stallSamples: 1 };
  result = await scaleFigures(env, await captureSourceShape(env));
}, 600_000);
afterAll(async () => {
  await p.stop();
});

describe('the scale phase, quick and small', () => {
  it('measures three sizes of tenants of 40 objects, 2 of them sources', () => {
    expect(result.sizes.map((z) => [z.tenants, z.objects, z.connectors])).toEqual([
      [1, 40, 2],
      [2, 80, 4],
      [3, 120, 6],
    ]);
  });

  it('reads nothing due in a quiet sweep, whatever the size', () => {
    for (const z of result.sizes) {
      expect(z.quietSweep.itemsRead).toBe(0);
      expect(z.quietSweep.calls).toBe(z.quietSweepUnits.readCalls);
      expect(z.quietSweep.readUnits).toBe(result.sizes[0]!.quietSweep.readUnits);
    }
  });

  it('takes one report per connector through status-ingest, each a read and a write, nothing else', () => {
    for (const z of result.sizes) {
      expect(z.heartbeat.reports).toBe(z.connectors);
      expect(z.heartbeatDetail.sqsMessages).toBe(z.connectors);
      expect(z.heartbeatDetail.outcomes).toEqual({ recorded: z.connectors });
      expect(z.heartbeat.invocations).toBeGreaterThanOrEqual(Math.ceil(z.connectors / 10));
      expect(z.heartbeat.invocations).toBe(z.heartbeatDetail.msPerInvocation.n);
      expect(z.heartbeatDetail.units).toMatchObject({ readCalls: z.connectors, writeCalls: z.connectors });
      expect(z.heartbeat.calls).toBe(2 * z.connectors);
    }
  });

  it('marks every connector of a silent data plane stalled at the first sweep after its deadline', () => {
    for (const z of result.sizes) {
      const d = z.silenceDetail;
      // The data plane itself is marked once, by the first sweep that found connectors overdue.
      expect(d.sweeps.filter((w) => w.dataPlaneMarked)).toHaveLength(1);
      expect(d.sweeps.find((w) => w.dataPlaneSilent)).toBe(d.sweeps.find((w) => w.dataPlaneMarked));
      expect(d.sweeps.every((w) => w.probes === 0 || !w.dataPlaneSilent)).toBe(true);
      expect(d.undetected).toBe(0);
      expect(d.offModel).toBe(0);
      expect(d.detectedSeconds.n).toBe(z.connectors);
      expect(d.detectedSeconds.min).toBeGreaterThanOrEqual(45);
      expect(d.detectedSeconds.max).toBeLessThanOrEqual(135);
      expect(d.sweeps.reduce((a, s) => a + s.transitions, 0)).toBe(z.connectors);
      expect(z.silence.overdue).toBeGreaterThanOrEqual(z.connectors);
    }
  });

  it('goes round every tenant in the full pass, finds no drift, lists each tenant’s secrets once', () => {
    for (const z of result.sizes) {
      expect(z.fullPass.tenants).toBe(z.tenants);
      expect(z.fullPassDetail).toMatchObject({ orphans: 0, missing: 0 });
      expect(z.fullPass.secretCalls).toBe(z.tenants);
      expect(z.fullPass.itemsRead).toBeGreaterThan(z.catalogItems / 2);
    }
  });

  it('measures the stall latency', () => {
    for (const z of result.sizes) {
      expect(z.stallLatencyMs.n).toBe(1);
      expect(z.stallLatencyMs.min).toBeGreaterThan(0);
    }
  });

  it('fits the model and gives every goal row at 10 000 × 1 000', () => {
    const s = summarizeScale(result.sizes, result.settings);
    expect(s.target.connectors).toBe(500_000);
    // A heartbeat per connector per 20 s.
    expect(s.target.statusIngest.reports).toBe(1_500_000);
    expect(Number.isFinite(s.target.fullPass.periodMinutes)).toBe(true);
    // Counts are exact lines in their drivers.
    for (const f of ['heartbeatCalls', 'heartbeatReadUnits', 'fullPassSecretCalls', 'quietItemsRead'] as const) {
      for (const r of s.fitRows.filter((x) => x.figure === f)) expect(Math.abs(r.errorPct)).toBeLessThan(1e-6);
    }
    const machine = { cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date: '2026-01-01', loadAverageAtStart: [1, 1, 1] };
    const rows = benchRows({ machine, quick: true, scale: result }).filter((r) => r.item === 8);
    expect(rows).toHaveLength(9);
    for (const r of rows) if (r.met === false) expect(r.cause).toBeTruthy();
    // The whole data plane's silence is shown by one mark, whatever the number of connectors.
    expect(rows.find((r) => r.figure.startsWith('Whole data plane silent'))!.met).toBe(true);
  });
});
