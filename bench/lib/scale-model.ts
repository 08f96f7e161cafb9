/**
 * Issue 16's "numbers to show": a model of the status path and the sweeper fitted to the sizes
 * measured on this machine (bench/phases/scale.ts), and its extrapolation to a deployment too
 * large to build here (10 000 tenants × 1 000 objects, 500 000 connectors). Pure: no I/O.
 *
 * Each figure is a straight line in the quantity that drives it — connectors for the status
 * path, overdue connectors for a sweep that catches silence, tenants for the full pass — fitted
 * by least squares to the measured sizes. The fit is shown against every measured size
 * (`fitTable`), so a figure that does not grow the way the model says shows as a large error.
 */

/** One measured size, as the scale phase records it. */
export interface ScalePoint {
  readonly tenants: number;
  readonly objects: number;
  readonly connectors: number;
  /** One quiet due-work sweep (median of several). */
  /** `calls`: DynamoDB calls made (each figure's time at another latency is calls × that latency). */
  readonly quietSweep: { readonly itemsRead: number; readonly readUnits: number; readonly ms: number; readonly calls: number };
  /** One heartbeat from every connector, through the status queue and status-ingest. */
  readonly heartbeat: { readonly reports: number; readonly invocations: number; readonly readUnits: number; readonly writeUnits: number; readonly lambdaMs: number; readonly calls: number };
  /** The sweeps that caught a silent data plane: totals over them. */
  readonly silence: { readonly overdue: number; readonly ms: number; readonly readUnits: number; readonly writeUnits: number; readonly probes: number; readonly secretReads: number; readonly calls: number };
  /** One whole full pass. */
  readonly fullPass: { readonly tenants: number; readonly itemsRead: number; readonly readUnits: number; readonly writeUnits: number; readonly ms: number; readonly secretCalls: number; readonly calls: number };
}

/** The stack's settings the figures assume (defaults of cdk/constructs and shared/definitions). */
export interface ScaleSettings {
  /** The due-work sweep's schedule. */
  readonly sweepIntervalSeconds: number;
  /** The sweeper function's timeout. */
  readonly sweepTimeoutSeconds: number;
  /** The share of the timeout a sweep may use before it stops starting work (SWEEP_TIME_BUDGET). */
  readonly sweepBudget: number;
  readonly heartbeatIntervalSeconds: number;
  readonly heartbeatTimeoutSeconds: number;
  /** status-ingest's event source mapping. */
  readonly ingestBatchSize: number;
  readonly ingestMaxConcurrency: number;
  /** How often the full pass starts over (FullPassOptions.intervalMs). */
  readonly fullPassIntervalMinutes: number;
  /** How often the full-pass rule invokes the sweeper (the Sweeper construct's fullPassInterval). */
  readonly fullPassRuleMinutes: number;
  /** Overdue connectors the connector pass marks at once (CONNECTOR_PASS_CONCURRENCY); absent: one at a time. */
  readonly connectorPassConcurrency?: number;
}

export interface Line {
  readonly intercept: number;
  readonly slope: number;
}

/** Least-squares line through the points; one distinct x gives a line through the origin and their mean. */
export function fitLine(points: readonly (readonly [number, number])[]): Line {
  if (!points.length) return { intercept: 0, slope: 0 };
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  if (sxx === 0) return { intercept: 0, slope: mx === 0 ? 0 : my / mx };
  const slope = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
  return { intercept: my - slope * mx, slope };
}

export const at = (l: Line, x: number) => l.intercept + l.slope * x;

/** The figures the model predicts, each a line in its driver. */
export const FIGURES = {
  quietReadUnits: { driver: 'connectors', of: (p: ScalePoint) => p.quietSweep.readUnits },
  quietItemsRead: { driver: 'connectors', of: (p: ScalePoint) => p.quietSweep.itemsRead },
  quietMs: { driver: 'connectors', of: (p: ScalePoint) => p.quietSweep.ms },
  quietCalls: { driver: 'connectors', of: (p: ScalePoint) => p.quietSweep.calls },
  heartbeatReadUnits: { driver: 'connectors', of: (p: ScalePoint) => p.heartbeat.readUnits },
  heartbeatWriteUnits: { driver: 'connectors', of: (p: ScalePoint) => p.heartbeat.writeUnits },
  heartbeatLambdaMs: { driver: 'connectors', of: (p: ScalePoint) => p.heartbeat.lambdaMs },
  heartbeatCalls: { driver: 'connectors', of: (p: ScalePoint) => p.heartbeat.calls },
  silenceMs: { driver: 'overdue', of: (p: ScalePoint) => p.silence.ms },
  silenceCalls: { driver: 'overdue', of: (p: ScalePoint) => p.silence.calls },
  silenceReadUnits: { driver: 'overdue', of: (p: ScalePoint) => p.silence.readUnits },
  silenceWriteUnits: { driver: 'overdue', of: (p: ScalePoint) => p.silence.writeUnits },
  fullPassReadUnits: { driver: 'tenants', of: (p: ScalePoint) => p.fullPass.readUnits },
  fullPassItems: { driver: 'tenants', of: (p: ScalePoint) => p.fullPass.itemsRead },
  fullPassMs: { driver: 'tenants', of: (p: ScalePoint) => p.fullPass.ms },
  fullPassCalls: { driver: 'tenants', of: (p: ScalePoint) => p.fullPass.calls },
  fullPassSecretCalls: { driver: 'tenants', of: (p: ScalePoint) => p.fullPass.secretCalls },
} as const satisfies Record<string, { driver: 'connectors' | 'overdue' | 'tenants'; of: (p: ScalePoint) => number }>;

export type Figure = keyof typeof FIGURES;
export type ScaleFit = Record<Figure, Line>;

const driverOf = (p: ScalePoint, d: 'connectors' | 'overdue' | 'tenants') => (d === 'connectors' ? p.connectors : d === 'overdue' ? p.silence.overdue : p.fullPass.tenants);

export function fitScale(points: readonly ScalePoint[]): ScaleFit {
  return Object.fromEntries(Object.entries(FIGURES).map(([k, f]) => [k, fitLine(points.map((p) => [driverOf(p, f.driver), f.of(p)]))])) as ScaleFit;
}

export interface FitRow {
  readonly figure: Figure;
  readonly connectors: number;
  readonly driver: number;
  readonly measured: number;
  readonly modelled: number;
  /** (modelled − measured) ÷ measured, in %; 0 when both are 0. */
  readonly errorPct: number;
}

/** Measured against modelled for every figure at every measured size. */
export function fitTable(points: readonly ScalePoint[], fit: ScaleFit): FitRow[] {
  const rows: FitRow[] = [];
  for (const [k, f] of Object.entries(FIGURES) as [Figure, (typeof FIGURES)[Figure]][]) {
    for (const p of points) {
      const x = driverOf(p, f.driver);
      const measured = f.of(p);
      const modelled = at(fit[k], x);
      const errorPct = measured === 0 ? (Math.abs(modelled) < 1e-9 ? 0 : Infinity) : ((modelled - measured) / measured) * 100;
      rows.push({ figure: k, connectors: p.connectors, driver: x, measured, modelled, errorPct });
    }
  }
  return rows;
}

/** The deployment to extrapolate to. */
export interface Deployment {
  readonly tenants: number;
  readonly objectsPerTenant: number;
  /** Share of objects that are sources or sinks. */
  readonly connectorShare: number;
}

export const TARGET_DEPLOYMENT: Deployment = { tenants: 10_000, objectsPerTenant: 1_000, connectorShare: 0.05 };

/** Per minute, in a quiet minute (no DDL, every connector heartbeating, nothing overdue). */
export interface PerMinute {
  readonly connectors: number;
  readonly objects: number;
  readonly sweeper: { readonly invocations: number; readonly seconds: number; readonly readUnits: number; readonly writeUnits: number; readonly connectorItemsRead: number };
  readonly fullPass: { readonly invocations: number; readonly seconds: number; readonly readUnits: number; readonly writeUnits: number; readonly periodMinutes: number; readonly secondsPerPass: number };
  readonly statusIngest: { readonly reports: number; readonly invocations: number; readonly seconds: number; readonly readUnits: number; readonly writeUnits: number; readonly concurrencyNeeded: number; readonly maxReportsPerMinute: number };
  readonly executors: { readonly invocations: number; readonly seconds: number };
  readonly sqsMessages: number;
  readonly secretsManagerCalls: number;
  readonly probes: number;
  readonly readUnits: number;
  readonly writeUnits: number;
}

/** How long the full pass takes to go round: its work in invocations of half a timeout, one per rule period, and never sooner than its interval. */
export function fullPassPeriodMinutes(secondsPerPass: number, s: ScaleSettings): number {
  const invocations = Math.max(1, Math.ceil(secondsPerPass / (s.sweepTimeoutSeconds * s.sweepBudget)));
  return Math.max(s.fullPassIntervalMinutes, invocations * s.fullPassRuleMinutes);
}

/** The four timed figures. */
export type Timed = 'quiet' | 'heartbeat' | 'silence' | 'fullPass';

/**
 * How long a DynamoDB call takes: on AWS, an assumption (`aws`: a fixed time per call plus a time
 * per read unit, so a 1 MB page costs more than a GetItem); here, measured (`measured`: each
 * figure's milliseconds over its calls, averaged over the sizes).
 */
export type Latency = { readonly kind: 'aws'; readonly msPerCall: number; readonly msPerReadUnit: number } | { readonly kind: 'measured'; readonly msPerCall: Readonly<Record<Timed, number>> };

/** DynamoDB's latency the deployed figures assume: single-digit milliseconds a call in-region (rounded up to 10), plus 0.25 ms per read unit (a 1 MB page, 256 units, about 75 ms). */
export const AWS_LATENCY: Latency = { kind: 'aws', msPerCall: 10, msPerReadUnit: 0.25 };

const TIMED: Record<Timed, { ms: Figure; calls: Figure; readUnits: Figure }> = {
  quiet: { ms: 'quietMs', calls: 'quietCalls', readUnits: 'quietReadUnits' },
  heartbeat: { ms: 'heartbeatLambdaMs', calls: 'heartbeatCalls', readUnits: 'heartbeatReadUnits' },
  silence: { ms: 'silenceMs', calls: 'silenceCalls', readUnits: 'silenceReadUnits' },
  fullPass: { ms: 'fullPassMs', calls: 'fullPassCalls', readUnits: 'fullPassReadUnits' },
};

/** This machine's milliseconds per DynamoDB call for each timed figure, over every measured size. */
export function measuredLatency(points: readonly ScalePoint[]): Latency {
  const per = (k: Timed) => {
    const ms = points.reduce((a, p) => a + FIGURES[TIMED[k].ms].of(p), 0);
    const calls = points.reduce((a, p) => a + FIGURES[TIMED[k].calls].of(p), 0);
    return calls > 0 ? ms / calls : 0;
  };
  return { kind: 'measured', msPerCall: { quiet: per('quiet'), heartbeat: per('heartbeat'), silence: per('silence'), fullPass: per('fullPass') } };
}

/** The time lines (ms): the counted calls (and read units) at a latency; the calls are made one after another, so this bounds the time from above. */
export function timeLines(fit: ScaleFit, latency: Latency): Record<Timed, Line> {
  const line = (k: Timed): Line => {
    const calls = fit[TIMED[k].calls];
    const ru = fit[TIMED[k].readUnits];
    if (latency.kind === 'measured') return { intercept: calls.intercept * latency.msPerCall[k], slope: calls.slope * latency.msPerCall[k] };
    return { intercept: calls.intercept * latency.msPerCall + ru.intercept * latency.msPerReadUnit, slope: calls.slope * latency.msPerCall + ru.slope * latency.msPerReadUnit };
  };
  return { quiet: line('quiet'), heartbeat: line('heartbeat'), silence: line('silence'), fullPass: line('fullPass') };
}

export function perMinute(fitted: ScaleFit, s: ScaleSettings, d: Deployment, latency: Latency): PerMinute {
  const t = timeLines(fitted, latency);
  const fit = { ...fitted, quietMs: t.quiet, heartbeatLambdaMs: t.heartbeat, silenceMs: t.silence, fullPassMs: t.fullPass };
  const objects = d.tenants * d.objectsPerTenant;
  const connectors = Math.round(objects * d.connectorShare);
  const sweepsPerMinute = 60 / s.sweepIntervalSeconds;
  const sweeper = {
    invocations: sweepsPerMinute,
    seconds: (sweepsPerMinute * Math.max(0, at(fit.quietMs, connectors))) / 1000,
    readUnits: sweepsPerMinute * Math.max(0, at(fit.quietReadUnits, connectors)),
    writeUnits: 0,
    connectorItemsRead: sweepsPerMinute * Math.max(0, at(fit.quietItemsRead, connectors)),
  };
  const secondsPerPass = Math.max(0, at(fit.fullPassMs, d.tenants)) / 1000;
  const periodMinutes = fullPassPeriodMinutes(secondsPerPass, s);
  const fullPass = {
    invocations: 1 / s.fullPassRuleMinutes,
    seconds: secondsPerPass / periodMinutes,
    readUnits: Math.max(0, at(fit.fullPassReadUnits, d.tenants)) / periodMinutes,
    writeUnits: 0,
    periodMinutes,
    secondsPerPass,
  };
  // A heartbeat per connector per interval; one report per message, batches of ingestBatchSize.
  const reports = (connectors * 60) / s.heartbeatIntervalSeconds;
  const perReport = (l: Line) => Math.max(0, at(l, connectors)) / Math.max(1, connectors);
  // An invocation handles its batch's reports side by side (BatchProcessor): at a latency per call
  // its time is about one report's calls, not the batch's. A measured time is the invocations'
  // own (wall clock), which already includes that.
  const sideBySide = latency.kind === 'aws' ? s.ingestBatchSize : 1;
  const msPerReport = perReport(fit.heartbeatLambdaMs) / sideBySide;
  const ingestSeconds = (reports * msPerReport) / 1000;
  const statusIngest = {
    reports,
    invocations: reports / s.ingestBatchSize,
    seconds: ingestSeconds,
    readUnits: reports * perReport(fit.heartbeatReadUnits),
    writeUnits: reports * perReport(fit.heartbeatWriteUnits),
    // Little's law: invocations in flight = seconds of work per second.
    concurrencyNeeded: ingestSeconds / 60,
    maxReportsPerMinute: msPerReport > 0 ? (s.ingestMaxConcurrency * 60_000) / msPerReport : Infinity,
  };
  const secretsManagerCalls = Math.max(0, at(fit.fullPassSecretCalls, d.tenants)) / periodMinutes;
  return {
    connectors,
    objects,
    sweeper,
    fullPass,
    statusIngest,
    executors: { invocations: 0, seconds: 0 },
    sqsMessages: reports,
    secretsManagerCalls,
    probes: 0,
    readUnits: sweeper.readUnits + fullPass.readUnits + statusIngest.readUnits,
    writeUnits: sweeper.writeUnits + fullPass.writeUnits + statusIngest.writeUnits,
  };
}

/**
 * How long after a data plane stops a connector shows `stalled`: its last heartbeat was u × the
 * heartbeat interval before the stop (u uniform in [0, 1)), its deadline the timeout after that,
 * and the first due-work sweep at or after the deadline catches it (sweeps at a uniform phase).
 * Closed form of the worst case and of the share detected later than `intervals` sweep intervals.
 */
export function silenceDetection(s: ScaleSettings, intervals = 2): { worstSeconds: number; bestSeconds: number; shareLaterThan: number; p99Seconds: number } {
  const I = s.sweepIntervalSeconds;
  const lo = s.heartbeatTimeoutSeconds - s.heartbeatIntervalSeconds;
  const hi = s.heartbeatTimeoutSeconds;
  const limit = intervals * I;
  // D = deadline + wait, deadline ~ U[lo, hi], wait ~ U[0, I): P(D > t) by integrating over the deadline.
  const over = (t: number) => {
    const steps = 2000;
    let p = 0;
    for (let k = 0; k < steps; k++) {
      const dl = lo + ((k + 0.5) / steps) * (hi - lo);
      p += Math.min(1, Math.max(0, (dl + I - t) / I));
    }
    return p / steps;
  };
  let a = lo;
  let b = hi + I;
  for (let k = 0; k < 60; k++) {
    const m = (a + b) / 2;
    if (over(m) > 0.01) a = m;
    else b = m;
  }
  return { worstSeconds: hi + I, bestSeconds: lo, shareLaterThan: over(limit), p99Seconds: (a + b) / 2 };
}

/** The sweep that catches connectors at `at` seconds after the first sweep: the first sweep at or after the deadline. */
export function detectingSweep(deadlineSeconds: number, phaseSeconds: number, intervalSeconds: number): number {
  return phaseSeconds + Math.max(0, Math.ceil((deadlineSeconds - phaseSeconds) / intervalSeconds)) * intervalSeconds;
}

/**
 * When the whole data plane goes silent, every connector's deadline passes within one heartbeat
 * interval; a sweep handles as many overdue connectors as fit in its time budget, the rest stay
 * due for the next one. Sweeps until the last connector shows `stalled`.
 */
export function massSilenceSweeps(fit: ScaleFit, s: ScaleSettings, connectors: number, latency: Latency): { msPerOverdue: number; perSweep: number; sweeps: number; lastDetectedSeconds: number } {
  // At a latency per call the calls of `connectorPassConcurrency` connectors overlap; a measured
  // time is the sweeps' wall clock, which already includes that.
  const width = latency.kind === 'aws' ? Math.max(1, s.connectorPassConcurrency ?? 1) : 1;
  const msPerOverdue = Math.max(1e-6, timeLines(fit, latency).silence.slope / width);
  const perSweep = Math.floor((s.sweepTimeoutSeconds * s.sweepBudget * 1000) / msPerOverdue);
  const sweeps = perSweep > 0 ? Math.ceil(connectors / perSweep) : Infinity;
  return { msPerOverdue, perSweep, sweeps, lastDetectedSeconds: s.heartbeatTimeoutSeconds + sweeps * s.sweepIntervalSeconds };
}

/** What the report and the rows read off one run's measured sizes. */
export interface ScaleSummary {
  readonly fit: ScaleFit;
  readonly fitRows: FitRow[];
  /** At AWS_LATENCY. */
  readonly target: PerMinute;
  /** With this machine's measured times. */
  readonly targetHere: PerMinute;
  readonly massSilenceHere: ReturnType<typeof massSilenceSweeps>;
  /** This machine's latency per call, per figure. */
  readonly here: Latency;
  readonly deployment: Deployment;
  readonly detection: ReturnType<typeof silenceDetection>;
  readonly massSilence: ReturnType<typeof massSilenceSweeps>;
}

export function summarizeScale(points: readonly ScalePoint[], s: ScaleSettings, d: Deployment = TARGET_DEPLOYMENT): ScaleSummary {
  const fit = fitScale(points);
  const here = measuredLatency(points);
  const target = perMinute(fit, s, d, AWS_LATENCY);
  const targetHere = perMinute(fit, s, d, here);
  return {
    fit,
    fitRows: fitTable(points, fit),
    target,
    targetHere,
    deployment: d,
    detection: silenceDetection(s),
    massSilence: massSilenceSweeps(fit, s, target.connectors, AWS_LATENCY),
    massSilenceHere: massSilenceSweeps(fit, s, target.connectors, here),
    here,
  };
}
