/**
 * The crash matrix for the ALTERs whose only effect is a new generation of an object's resources:
 * `SET / RESET (RETAIN HISTORY)` of a table, a source, an index and a materialized view (the
 * read policy moves), `ALTER SOURCE ... SET / RESET (TIMESTAMP INTERVAL)` (the ingestion starts
 * again with the option) and `ALTER CONNECTION ... ROTATE KEYS` of an SSH tunnel (the sources that
 * reach their upstream through it start again). Each case dies at one point on the way of the
 * SET, restarts and checks catalog and data plane agree and the data plane holds the new
 * generation with what the catalog says; then dies at the same point on the way of the RESET and
 * checks again. One boot per point and kind holds both phases, as in crash-matrix-sources.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import type { ObservedResource } from '../../shared/dataplane/contract';
import { FaultInjector } from '../../shared/dataplane/faults';
import { CRASH_POINTS, CrashHarness } from '../helpers/crash-matrix';
import { eventually, ok, sqlClient, uniquePrefix, type SqlClient } from '../helpers/pipeline';

const h = new CrashHarness('crashalter');
afterEach(() => h.stop());

/** The resources `name` owns on the data plane, by kind. */
async function ownedBy(p: Pipeline, tenant: string, name: string): Promise<ObservedResource[]> {
  return (await p.dataPlane.observe(tenant)).filter((r) => r.owner?.objectName === name).sort((a, b) => a.kind.localeCompare(b.kind));
}

/**
 * Boots a pipeline, runs `setup` and waits for `resources` data-plane resources; then, for each
 * phase, dies at `point` on the way of its statement, restarts and lets `check` look at the result.
 */
async function crashEachPhase(
  point: string,
  setup: string,
  resources: number,
  phases: readonly { statement: string; check: (p: Pipeline, tenant: string) => Promise<void> }[],
): Promise<void> {
  const prefix = uniquePrefix('crashalter');
  const faults = new FaultInjector();
  let p = await h.boot(prefix, faults);
  const first = await sqlClient(p);
  const tenant = first.tenant;
  let sql: SqlClient = first.sql;
  await ok(sql, setup);
  await eventually(async () => (await p.dataPlane.observe(tenant)).length === resources);
  for (const phase of phases) {
    p = await h.crashRestartCheck(prefix, faults, point, sql, phase.statement, tenant);
    await phase.check(p, tenant);
    // The restarted process listens on a new port.
    sql = (await sqlClient(p, tenant)).sql;
  }
}

/** RETAIN HISTORY is the read policy of the collection, or of an index's arrangement. */
const RETAINERS = [
  { kind: 'table', setup: 'CREATE TABLE t (a int)', alter: 'ALTER TABLE t', resources: 2, kinds: ['collection'], bearer: 'collection' },
  { kind: 'source', setup: 'CREATE SOURCE t IN CLUSTER c FROM LOAD GENERATOR COUNTER', alter: 'ALTER SOURCE t', resources: 3, kinds: ['collection', 'ingestion'], bearer: 'collection' },
  { kind: 'index', setup: 'CREATE TABLE base (a int); CREATE INDEX t IN CLUSTER c ON base (a)', alter: 'ALTER INDEX t', resources: 3, kinds: ['dataflow'], bearer: 'dataflow' },
  { kind: 'materialized view', setup: 'CREATE MATERIALIZED VIEW t IN CLUSTER c AS SELECT 1', alter: 'ALTER MATERIALIZED VIEW t', resources: 3, kinds: ['collection', 'dataflow'], bearer: 'collection' },
] as const;

describe.each(RETAINERS)('crash during ALTER $kind ... SET and RESET (RETAIN HISTORY)', ({ setup, alter, resources, kinds, bearer }) => {
  /** Every resource of `t` at `generation`, and the one that bears the read policy lagging `lagMs`. */
  const holds = (generation: number, lagMs: number) => async (p: Pipeline, tenant: string) => {
    const owned = await ownedBy(p, tenant, 't');
    expect(owned.map((r) => [r.kind, r.generation])).toEqual(kinds.map((k) => [k, generation]));
    expect(owned.find((r) => r.kind === bearer)?.readPolicy).toEqual({ kind: 'lag', lagMs });
  };

  it.each(CRASH_POINTS)('dying at %s: the new generation carries the new read policy, then the default again', async (point) => {
    await crashEachPhase(point, `CREATE CLUSTER c (SIZE = '25cc'); ${setup}`, resources, [
      { statement: `${alter} SET (RETAIN HISTORY = FOR '1h')`, check: holds(2, 3_600_000) },
      { statement: `${alter} RESET (RETAIN HISTORY)`, check: holds(3, 1_000) },
    ]);
  });
});

describe('crash during ALTER SOURCE ... SET and RESET (TIMESTAMP INTERVAL)', () => {
  /** The source's ingestion at `generation`, with the option as the catalog has it. */
  const ingests = (generation: number, interval: string | undefined) => async (p: Pipeline, tenant: string) => {
    const ingestion = (await ownedBy(p, tenant, 'pg_src')).find((r) => r.kind === 'ingestion');
    expect(ingestion?.generation).toBe(generation);
    expect((ingestion?.spec as { connector: { options: Record<string, string> } }).connector.options['TIMESTAMP INTERVAL']).toBe(interval);
  };

  it.each(CRASH_POINTS)('dying at %s: the ingestion runs its new generation with the option, then without it', async (point) => {
    const setup =
      "CREATE CLUSTER c (SIZE = '25cc'); CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', USER 'u') WITH (VALIDATE = false); CREATE SOURCE pg_src IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR ALL TABLES";
    await crashEachPhase(point, setup, 3, [
      { statement: "ALTER SOURCE pg_src SET (TIMESTAMP INTERVAL = '1s')", check: ingests(2, '1s') },
      { statement: 'ALTER SOURCE pg_src RESET (TIMESTAMP INTERVAL)', check: ingests(3, undefined) },
    ]);
  });
});

describe('crash during ALTER CONNECTION ... ROTATE KEYS', () => {
  it.each(CRASH_POINTS)('dying at %s: the source that reaches its upstream through the tunnel runs its new generation', async (point) => {
    const setup = [
      "CREATE CLUSTER c (SIZE = '25cc')",
      "CREATE CONNECTION tunnel TO SSH TUNNEL (HOST 'bastion.internal', USER 'mz', PORT 22) WITH (VALIDATE = false)",
      "CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', USER 'u', SSH TUNNEL tunnel) WITH (VALIDATE = false)",
      "CREATE SOURCE pg_src IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR ALL TABLES",
    ].join('; ');
    await crashEachPhase(point, setup, 3, [
      {
        statement: 'ALTER CONNECTION tunnel ROTATE KEYS',
        check: async (p, tenant) => expect((await ownedBy(p, tenant, 'pg_src')).map((r) => [r.kind, r.generation])).toEqual([['collection', 2], ['ingestion', 2]]),
      },
    ]);
  });
});
