/**
 * A catalog snapshot built by the planner from SQL, with no I/O: the default database and schema,
 * then `setup` planned statement by statement (ids `u1`, `u2`, ... in order). For unit tests of
 * the pure stages that read a catalog (system tables, SHOW).
 */
import { CatalogSnapshot, DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogObject } from '../../shared/catalog/model';
import { Planner } from '../../shared/planner/plan';
import { Workspace } from '../../shared/planner/workspace';
import { parse } from '../../shared/sql/parser';
import * as occasional from '../../shared/planner/occasional';
import { relationsReferenced, viewShape } from '../../shared/sql/view-deps';

export const PLANNED_AT = '2026-01-01T00:00:00.000Z';

export function plannedCatalog(setup: string, now = PLANNED_AT): CatalogSnapshot {
  const base = { generation: 1, version: 1, dependents: 0, createdAt: now, updatedAt: now, owner: 'system' };
  const boot = [
    { ...base, id: 'u000000000001', kind: 'database', name: DEFAULT_DATABASE, dependents: 1, dependsOn: [], spec: {} },
    { ...base, id: 'u000000000002', kind: 'schema', name: DEFAULT_SCHEMA, dependsOn: ['u000000000001'], spec: { databaseId: 'u000000000001' } },
  ] as CatalogObject[];
  let n = 0;
  const ws = new Workspace(new CatalogSnapshot('t', boot), now);
  const planner = new Planner(ws, { principal: 'tester', now, newId: () => `u${++n}`, relationsReferenced, viewShape, occasional });
  for (const ps of parse(setup)) planner.plan(ps);
  return new CatalogSnapshot('t', [...ws.view().byId.values()]);
}
