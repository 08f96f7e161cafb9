// Issue 16's scale model (bench/lib/scale-model.ts): the fit, the per-minute figures and the
// silence-detection arithmetic, on figures whose answers are known.
import { describe, expect, it } from 'vitest';
import { AWS_LATENCY, detectingSweep, measuredLatency, fitLine, fitScale, fitTable, fullPassPeriodMinutes, massSilenceSweeps, perMinute, silenceDetection, summarizeScale, type ScalePoint, type ScaleSettings } from '../../bench/lib/scale-model';

const settings: ScaleSettings = {
  sweepIntervalSeconds: 60,
  sweepTimeoutSeconds: 60,
  sweepBudget: 0.5,
  heartbeatIntervalSeconds: 30,
  heartbeatTimeoutSeconds: 75,
  ingestBatchSize: 10,
  ingestMaxConcurrency: 5,
  fullPassIntervalMinutes: 60,
  fullPassRuleMinutes: 5,
};

/** A size whose every figure is an exact line in its driver. */
function point(tenants: number): ScalePoint {
  const connectors = tenants * 50;
  return {
    tenants,
    objects: tenants * 1000,
    connectors,
    quietSweep: { itemsRead: 0, readUnits: 4, ms: 20, calls: 8 },
    heartbeat: { reports: connectors, invocations: connectors / 10, readUnits: connectors, writeUnits: 3 * connectors, lambdaMs: 15 * connectors, calls: 2 * connectors },
    silence: { overdue: connectors, ms: 12 * connectors + 40, readUnits: connectors + 8, writeUnits: 8 * connectors, probes: 0, secretReads: 0, calls: 2 * connectors },
    fullPass: { tenants, itemsRead: 2100 * tenants, readUnits: 100 * tenants, writeUnits: 0, ms: 300 * tenants + 50, secretCalls: tenants, calls: 30 * tenants },
  };
}

describe('fitLine', () => {
  it('finds the line through points on it, and the mean through the origin for one x', () => {
    expect(fitLine([[1, 5], [2, 7], [4, 11]])).toEqual({ intercept: 3, slope: 2 });
    expect(fitLine([[10, 4], [10, 6]])).toEqual({ intercept: 0, slope: 0.5 });
    expect(fitLine([])).toEqual({ intercept: 0, slope: 0 });
  });
});

/** The synthetic sizes' milliseconds per call, per figure, as round numbers. */
const latency = { kind: 'measured', msPerCall: { quiet: 2.5, heartbeat: 7.5, silence: 6, fullPass: 10 } } as const;

describe('the scale model', () => {
  const points = [point(1), point(3), point(6)];
  const fit = fitScale(points);

  it('fits exact lines with no error at any measured size', () => {
    for (const row of fitTable(points, fit)) expect(Math.abs(row.errorPct)).toBeLessThan(1e-6);
    expect(fit.fullPassMs.slope).toBeCloseTo(300);
    expect(fit.heartbeatCalls.slope).toBeCloseTo(2);
  });

  it('shows a figure that does not follow its line as an error', () => {
    const off = [point(1), point(3), { ...point(6), quietSweep: { itemsRead: 600, readUnits: 200, ms: 20, calls: 8 } }];
    const rows = fitTable(off, fitScale(off)).filter((r) => r.figure === 'quietItemsRead');
    expect(rows.some((r) => Math.abs(r.errorPct) > 10)).toBe(true);
  });

  it('counts a quiet minute at 10 000 × 1 000: a heartbeat per connector per 30 s, nothing read by the sweeper', () => {
    const pm = perMinute(fit, settings, { tenants: 10_000, objectsPerTenant: 1000, connectorShare: 0.05 }, latency);
    expect(pm.connectors).toBe(500_000);
    expect(pm.statusIngest.reports).toBe(1_000_000);
    expect(pm.sqsMessages).toBe(pm.statusIngest.reports);
    expect(pm.statusIngest.invocations).toBe(100_000);
    expect(pm.statusIngest.readUnits).toBeCloseTo(1_000_000);
    expect(pm.statusIngest.writeUnits).toBeCloseTo(3_000_000);
    // 15 ms a report: 15 000 s of work a minute = 250 in flight; 5 handle 20 000 a minute.
    expect(pm.statusIngest.concurrencyNeeded).toBeCloseTo(250);
    expect(pm.statusIngest.maxReportsPerMinute).toBeCloseTo(20_000);
    expect(pm.sweeper.connectorItemsRead).toBe(0);
    expect(pm.sweeper.readUnits).toBeCloseTo(4);
    expect(pm.readUnits).toBeCloseTo(pm.sweeper.readUnits + pm.fullPass.readUnits + pm.statusIngest.readUnits);
    // 300 ms a tenant: 3 000 s of work, 100 invocations of 30 s, one every 5 min.
    expect(pm.fullPass.secondsPerPass).toBeCloseTo(3000);
    expect(pm.fullPass.periodMinutes).toBe(500);
    expect(pm.secretsManagerCalls).toBeCloseTo(10_000 / 500);
  });

  it('puts time at an assumed latency per call and per read unit, or at the measured one', () => {
    const d = { tenants: 10_000, objectsPerTenant: 1000, connectorShare: 0.05 };
    const pm = perMinute(fit, settings, d, { kind: 'aws', msPerCall: 10, msPerReadUnit: 0 });
    // 2 calls a report, but a batch's 10 reports side by side: a tenth of the reports' calls in time.
    expect(pm.statusIngest.seconds).toBeCloseTo((1_000_000 * 2 * 10) / 1000 / 10);
    // A measured time is the invocations' own: not divided again.
    const here0 = perMinute(fit, settings, d, { kind: 'measured', msPerCall: { quiet: 1, heartbeat: 10, silence: 1, fullPass: 1 } });
    expect(here0.statusIngest.seconds).toBeCloseTo((1_000_000 * 2 * 10) / 1000);
    expect(pm.fullPass.secondsPerPass).toBeCloseTo(3000);
    // 30 calls and 100 read units a tenant: 325 ms.
    expect(perMinute(fit, settings, d, { kind: 'aws', msPerCall: 10, msPerReadUnit: 0.25 }).fullPass.secondsPerPass).toBeCloseTo(3250);
    // Measured: the full pass's 3 150 ms over 300 calls = 10.5 ms a call.
    const here = measuredLatency(points);
    expect(here.kind === 'measured' && here.msPerCall.fullPass).toBeCloseTo(10.5);
    const s = summarizeScale(points, settings);
    expect(s.target.fullPass.periodMinutes).toBe(fullPassPeriodMinutes(perMinute(fit, settings, d, AWS_LATENCY).fullPass.secondsPerPass, settings));
    expect(s.target.fullPass.periodMinutes).toBe(545);
    expect(s.targetHere.fullPass.periodMinutes).toBe(525);
  });

  it('bounds the full-pass period below by its interval', () => {
    expect(fullPassPeriodMinutes(10, settings)).toBe(60);
    expect(fullPassPeriodMinutes(12 * 30, settings)).toBe(60);
    expect(fullPassPeriodMinutes(13 * 30, settings)).toBe(65);
  });

  it('marks a whole silent data plane in as many sweeps as its time budget allows', () => {
    const m = massSilenceSweeps(fit, settings, 500_000, latency);
    expect(m.perSweep).toBe(2500);
    expect(m.sweeps).toBe(200);
    // 2 calls and 1 read unit an overdue connector: 20.25 ms.
    expect(massSilenceSweeps(fit, settings, 500_000, AWS_LATENCY).perSweep).toBe(Math.floor(30_000 / 20.25));
    // 32 marked at once: 32 times as many a sweep at an assumed latency; a measured (wall-clock) time already has it.
    const wide = { ...settings, connectorPassConcurrency: 32 };
    expect(massSilenceSweeps(fit, wide, 500_000, AWS_LATENCY).perSweep).toBe(Math.floor((30_000 * 32) / 20.25));
    expect(massSilenceSweeps(fit, wide, 500_000, AWS_LATENCY).sweeps).toBe(11);
    expect(massSilenceSweeps(fit, wide, 500_000, latency).perSweep).toBe(2500);
  });
});

describe('silence detection', () => {
  it('catches a connector at the first sweep at or after its deadline', () => {
    expect(detectingSweep(75, 14.5, 60)).toBe(134.5);
    expect(detectingSweep(74, 14.5, 60)).toBe(74.5);
    expect(detectingSweep(10, 14.5, 60)).toBe(14.5);
  });

  it('takes 45 to 135 s from the stop with a 75 s deadline, 6.25 % of connectors past two intervals', () => {
    const d = silenceDetection(settings);
    expect(d.bestSeconds).toBe(45);
    expect(d.worstSeconds).toBe(135);
    expect(d.shareLaterThan).toBeCloseTo(0.0625, 3);
    expect(d.p99Seconds).toBeGreaterThan(120);
    expect(d.p99Seconds).toBeLessThan(135);
  });

  it('meets two intervals with a 55 s deadline', () => {
    const d = silenceDetection({ ...settings, heartbeatIntervalSeconds: 20, heartbeatTimeoutSeconds: 55 });
    expect(d.worstSeconds).toBeLessThanOrEqual(120);
    expect(d.shareLaterThan).toBe(0);
  });
});
