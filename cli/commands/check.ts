/**
 * `ddlctl check`: the invariant checker (shared/checker/checker.ts) as a production audit. It
 * reads the catalog, the outbox and the data plane, prints every count and every problem, and
 * exits 1 when any count is not zero. Read-only.
 */
import { tableStores } from '../../shared/catalog/stores';
import pc from 'picocolors';
import { Checker, isClean, type CheckCounts, type CheckReport } from '../../shared/checker/checker';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import { ReferenceDataPlane } from '../../shared/dataplane/reference';
import type { GlobalOptions } from '../connection';
import { CliError, EXIT } from '../errors';
import { target, type AwsOptions } from '../admin';
import { table } from '../render';

export interface CheckOptions extends AwsOptions {
  readonly dataplaneTable?: string;
  readonly dataplaneUrl?: string;
  readonly tenant?: string[];
  readonly json?: boolean;
  /** Seconds to keep re-checking while problems remain (effects in flight on a busy system). */
  readonly grace: string;
}

const EXPLAIN: Record<keyof CheckCounts, string> = {
  orphans: 'data-plane resources we own whose owner object is dropped or gone',
  missing: 'live objects whose data-plane resource does not exist (and nothing pending)',
  collectionsWithoutReadPolicy: 'collections (or index arrangements) without a read policy',
  lostEffects: 'effects committed but never attempted',
  pendingWithoutReason: 'pending effects with no error and not dead-lettered',
  doubleApplied: 'the same change applied to the data plane more than once',
  dependencyViolations: 'references to dropped objects, or wrong dependents counters',
  statusesAhead: "connector statuses at a generation their object never had (ALTER ... RESTART resets one)",
};

export function renderReport(r: CheckReport): string {
  const out = [`checked ${r.tenants} tenant${r.tenants === 1 ? '' : 's'}`, ''];
  out.push(
    table(
      ['check', 'count', 'what it counts'],
      (Object.keys(EXPLAIN) as (keyof CheckCounts)[]).map((k) => [k, r.counts[k] === 0 ? pc.green('0') : pc.red(String(r.counts[k])), pc.dim(EXPLAIN[k])]),
    ),
  );
  if (r.problems.length) out.push('', pc.bold(`problems (${r.problems.length}):`), ...r.problems.map((p) => `  ${p}`));
  out.push('', isClean(r.counts) ? pc.green('clean: catalog, outbox and data plane agree') : pc.red('NOT clean'));
  return out.join('\n');
}

export async function check(g: GlobalOptions, o: CheckOptions): Promise<number> {
  const grace = Number(o.grace);
  if (!Number.isFinite(grace) || grace < 0) throw new CliError(`--grace must be a number of seconds, got ${o.grace}`, EXIT.usage);
  const t = target(g, o, 'ddlctl check');
  try {
    const dataPlaneTable = o.dataplaneTable ?? t.config?.dataPlaneTable;
    const dataPlaneUrl = o.dataplaneUrl ?? t.config?.dataPlaneUrl;
    let dataPlane: ConstructorParameters<typeof Checker>[1];
    let note: string | undefined;
    if (dataPlaneTable) dataPlane = new ReferenceDataPlane(t.clients.doc, dataPlaneTable);
    else if (dataPlaneUrl) {
      // The HTTP contract has observe() but no action log: double applies cannot be counted.
      const http = new HttpDataPlane(dataPlaneUrl, process.env.DATAPLANE_TOKEN ? { token: process.env.DATAPLANE_TOKEN } : {});
      dataPlane = { observe: (tenant) => http.observe(tenant), actionLog: async () => [] };
      note = 'the data plane is external (HTTP): doubleApplied is not checked';
    } else throw new CliError('name the data plane: --dataplane-table <table> (output DataPlaneTableName) or --dataplane-url <url>', EXIT.usage);
    const checker = new Checker(tableStores(t.clients.doc, t.catalogTable, { snapshotCacheObjects: 0 }), dataPlane);
    const deadline = Date.now() + grace * 1000;
    let report = await checker.check(o.tenant?.length ? o.tenant : undefined);
    while (!isClean(report.counts) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      report = await checker.check(o.tenant?.length ? o.tenant : undefined);
    }
    if (o.json) console.log(JSON.stringify({ ...report, clean: isClean(report.counts) }, null, 2));
    else {
      console.log(`${pc.dim(`reading ${t.where}`)}`);
      if (note) console.log(pc.yellow(note));
      console.log(renderReport(report));
    }
    return isClean(report.counts) ? EXIT.ok : EXIT.failed;
  } finally {
    t.close();
  }
}
