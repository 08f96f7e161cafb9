/**
 * `npm run chaos -- --ops N --seed S [--tenants K] [--quiet-timeout MS] [--skip KIND,...]`
 *
 * The chaos run (DESIGN.md invariants 2–5): a seeded random DDL workload over every object kind
 * through the real local pipeline over HTTP, with faults injected at every boundary on a schedule
 * drawn from the same seed, on its own DynamoDB Local (a temporary data folder on a fixed port, so
 * it can be restarted with its data) and its own SQS emulator. Then the system goes quiet and the
 * invariant checker runs over every tenant, and the history checker (chaos/history.ts) over every
 * answer the run received. The same seed gives the same workload (the summary's
 * `workloadHash`); timing still varies between runs, which is the point of a chaos run.
 * `--skip` leaves fault kinds out (as the summary names them, e.g. `dataplane:terminal`) without
 * changing the workload.
 *
 * Prints one JSON summary on stdout (progress goes to stderr) and exits 1 if any checker count is
 * non-zero, the history checker found an answer the final catalog or the other answers contradict,
 * or the harness saw a contract violation (a 5xx answer, an idempotent retry answered differently,
 * a staged commit seen half-applied).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// Powertools loggers write to stdout, which carries the JSON summary only.
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const { runChaos } = await import('./chaos/engine');
const { isClean } = await import('../shared/checker/checker');

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    tenants: { type: 'string', default: '3' },
    'quiet-timeout': { type: 'string', default: '180000' },
    skip: { type: 'string', default: '' },
  },
});
const OPS = Number(values.ops);
const SEED = values.seed !== undefined ? Number(values.seed) : randomBytes(4).readUInt32BE() >>> 1;
const TENANTS = Number(values.tenants);
const QUIET_TIMEOUT_MS = Number(values['quiet-timeout']);
for (const [k, v] of Object.entries({ ops: OPS, seed: SEED, tenants: TENANTS, 'quiet-timeout': QUIET_TIMEOUT_MS })) {
  if (!Number.isSafeInteger(v) || v < 0 || (k === 'tenants' && v < 1)) {
    console.error(`--${k} must be a ${k === 'tenants' ? 'positive' : 'non-negative'} integer`);
    process.exit(2);
  }
}

const summary = await runChaos({
  seed: SEED,
  ops: OPS,
  tenants: TENANTS,
  quietTimeoutMs: QUIET_TIMEOUT_MS,
  skip: values.skip ? values.skip.split(',').map((x) => x.trim()).filter(Boolean) : [],
  progress: (line) => process.stderr.write(`[chaos seed ${SEED}] ${line}\n`),
});
process.stdout.write(`${JSON.stringify(summary)}\n`);
process.exit(isClean(summary.checker.counts) && summary.violations === 0 && summary.history.anomalies === 0 ? 0 : 1);
