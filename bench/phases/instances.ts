/**
 * 9. Many API instances on one tenant: N independent `SqlApi`s (each its own CatalogStore, so its
 * own snapshot cache, and no in-process turn queue shared with the others), as N warm Lambdas.
 * Each commits CREATE TABLEs back to back on one tenant of 1 000 objects for a fixed count; the
 * figures are commits per second, 40001 answers, and how the losers of the version race got a
 * fresh basis: catch-ups (from the change log the refusal brought back, or from the transaction
 * records: O(changes)) against whole-catalog reads. Each level's rate is taken against a single
 * instance's on the same tenant, the two alternated (single · level · level · single), so a machine
 * whose load drifts over the phase weighs on both alike. At 8 the same instances also run on a
 * tenant each (no race): 1.03–1.41× one instance on 7 and 8 December 2026, so neither the emulator
 * nor this process is what the race costs.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import type { Bench } from '../lib/harness';
import { GOALS } from '../lib/rows';
import { now } from '../lib/stats';

export interface InstancesRow {
  readonly instances: number;
  readonly commits: number;
  readonly commitsPerSecond: number;
  readonly answers40001: number;
  readonly catchUps: number;
  /** Of the catch-ups, those that replayed the refusal's change log and read nothing. */
  readonly logCatchUps?: number;
  readonly fullLoadsAfterWarmUp: number;
  /** The single instance's rate just before this level, on the same tenant (what `ofSingle` divides by); with `alternated`, over the passes around it. */
  readonly singlePerSecond?: number;
  /** The single instance and the level ran alternated, single · level · level · single, each rate over its two passes (runs before 8 December 2026: one single pass just before). */
  readonly alternated?: boolean;
  /** The bench process's CPU per commit (every instance runs in it), this level's and the single instance's (over the same passes as `singlePerSecond`). */
  readonly cpuMsPerCommit?: number;
  readonly singleCpuMsPerCommit?: number;
  /** Commits per second as a share of the single instance's. */
  readonly ofSingle: number;
  /**
   * At the binding level (8): the same instances, each on a tenant of its own seeded alike, the
   * same commits: no version race, so the rate the emulator and the bench process carry for this
   * many instances (the race's ceiling).
   */
  readonly ownTenantsPerSecond?: number;
  readonly ownTenantsOfSingle?: number;
}

/** What one pass counted; passes of a level add up. */
export interface PassCounts {
  readonly instances: number;
  readonly commits: number;
  readonly seconds: number;
  readonly answers40001: number;
  readonly catchUps: number;
  readonly logCatchUps: number;
  readonly fullLoadsAfterWarmUp: number;
  /** The bench process's CPU over the pass. */
  readonly cpuMs: number;
}

/** Passes of one level (one instance count) added up. Pure. */
export function sumPasses(passes: readonly PassCounts[]): PassCounts {
  if (passes.length === 0) throw new Error('no passes to add up');
  const instances = passes[0]!.instances;
  if (passes.some((x) => x.instances !== instances)) throw new Error(`passes of different levels: ${passes.map((x) => x.instances).join(', ')} instances`);
  const add = (k: Exclude<keyof PassCounts, 'instances'>) => passes.reduce((a, x) => a + x[k], 0);
  return { instances, commits: add('commits'), seconds: add('seconds'), answers40001: add('answers40001'), catchUps: add('catchUps'), logCatchUps: add('logCatchUps'), fullLoadsAfterWarmUp: add('fullLoadsAfterWarmUp'), cpuMs: add('cpuMs') };
}

type InstancesFigures = Pick<InstancesRow, 'instances' | 'commits' | 'commitsPerSecond' | 'answers40001' | 'catchUps' | 'logCatchUps' | 'fullLoadsAfterWarmUp' | 'cpuMsPerCommit'>;

/** A level's row figures from its passes' counts: the rate is all commits over all the passes' time. Pure. */
export function figures(c: PassCounts): InstancesFigures {
  return {
    instances: c.instances,
    commits: c.commits,
    commitsPerSecond: Math.round((c.commits / c.seconds) * 10) / 10,
    answers40001: c.answers40001,
    catchUps: c.catchUps,
    logCatchUps: c.logCatchUps,
    fullLoadsAfterWarmUp: c.fullLoadsAfterWarmUp,
    cpuMsPerCommit: Math.round((c.cpuMs / Math.max(1, c.commits)) * 100) / 100,
  };
}

export async function manyInstances(bench: Bench, levels = bench.quick ? [1, 8] : [1, 4, 8, 16]): Promise<InstancesRow[]> {
  const p = bench.commitOnly;
  const logger = new Logger({ serviceName: 'bench', logLevel: 'ERROR' });
  const rows: InstancesRow[] = [];
  // Commits per level: at 96 one run moved the 8-instance ratio by ±0.1 (0.36–0.52× on one quiet machine in a day), so the full run takes 288.
  const total = bench.quick ? 96 : 288;
  const seeder = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger });
  /** A tenant of 1 000 tables, committed 100 at a time. */
  const seedTenant = async (tenant: string) => {
    await p.passwords.create(tenant);
    for (let i = 0; i < 1000; i += 100) {
      const r = await seeder.handle(tenant, 'bench', JSON.stringify({ query: Array.from({ length: 100 }, (_, k) => `CREATE TABLE base${i + k} (a int)`).join(';') }), 'application/json');
      if (r.status !== 200) throw new Error(`seeding: ${JSON.stringify(r.body).slice(0, 200)}`);
    }
  };
  for (const n of levels) {
    const tenant = `${bench.tag}inst${n}`;
    await seedTenant(tenant);
    /** One instance per entry of `tenants`, on that tenant; together they commit `total` CREATE TABLEs, back to back. */
    const pass = async (label: string, tenants: readonly string[]): Promise<PassCounts> => {
      const count = tenants.length;
      const instances = tenants.map((t) => {
        const store = new CatalogStore(p.clients.doc, p.config.catalogTable);
        return { tenant: t, store, api: new SqlApi({ store, logger }) };
      });
      for (const i of instances) await i.api.handle(i.tenant, 'bench', JSON.stringify({ query: 'SHOW TABLES' }), 'application/json');
      const warm = instances.map((i) => i.store.fullLoads);
      const each = Math.max(4, Math.round(total / count));
      let conflicts = 0;
      const cpu0 = process.cpuUsage();
      const t0 = now();
      await Promise.all(
        instances.map(async (inst, k) => {
          for (let j = 0; j < each; j++) {
            const r = await inst.api.handle(inst.tenant, 'bench', JSON.stringify({ query: `CREATE TABLE ${label}${k}_${j} (a int)` }), 'application/json');
            if (r.status === 409) conflicts++;
          }
        }),
      );
      const seconds = (now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      return {
        instances: count,
        commits: count * each - conflicts,
        seconds,
        answers40001: conflicts,
        catchUps: instances.reduce((a, i) => a + i.store.catchUps, 0),
        logCatchUps: instances.reduce((a, i) => a + i.store.logCatchUps, 0),
        fullLoadsAfterWarmUp: instances.reduce((a, i, x) => a + i.store.fullLoads - warm[x]!, 0),
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    };
    // The single instance and the level alternate, single · level · level · single (ABBA): one
    // pass of 288 commits lasts one or two seconds, and over one phase the same single pass ran
    // 138-260 commits/s (the JVM warming, the machine's other work), so a level measured once
    // against one single pass just before it moved by ±0.15 between runs. Alternated, a drift
    // over the four passes weighs on both alike.
    const singles: PassCounts[] = [];
    const levelPasses: PassCounts[] = [];
    for (const [round, order] of (['single', 'level', 'level', 'single'] as const).entries()) {
      if (order === 'single') singles.push(await pass(`s${round}_`, [tenant]));
      else if (n > 1) levelPasses.push(await pass(`i${round}_`, Array.from({ length: n }, () => tenant)));
    }
    const single = figures(sumPasses(singles));
    const row = n === 1 ? single : figures(sumPasses(levelPasses));
    // The ceiling, at the binding level only (seeding a tenant per instance takes a second or two each).
    let own: InstancesFigures | undefined;
    if (n === GOALS.instancesAt) {
      const tenants = Array.from({ length: n }, (_, k) => `${tenant}own${k}`);
      for (const t of tenants) await seedTenant(t);
      own = figures(await pass('o', tenants));
    }
    const ofSingle = (perSecond: number) => Math.round((perSecond / single.commitsPerSecond) * 100) / 100;
    rows.push({
      ...row,
      singlePerSecond: single.commitsPerSecond,
      alternated: true,
      singleCpuMsPerCommit: single.cpuMsPerCommit,
      ofSingle: ofSingle(row.commitsPerSecond),
      ...(own ? { ownTenantsPerSecond: own.commitsPerSecond, ownTenantsOfSingle: ofSingle(own.commitsPerSecond) } : {}),
    });
    bench.log(
      `instances ${n}: ${row.commitsPerSecond} commits/s against ${single.commitsPerSecond} for one instance in the passes around it, ${row.answers40001} × 40001, ${row.catchUps} catch-ups (${row.logCatchUps} from the refusal's change log alone), ${row.fullLoadsAfterWarmUp} whole reads after warm-up, ${row.cpuMsPerCommit} ms of CPU per commit against ${single.cpuMsPerCommit}${own ? `; on a tenant each (no race): ${own.commitsPerSecond} commits/s, ${own.cpuMsPerCommit} ms of CPU per commit` : ''}`,
    );
  }
  return rows;
}
