/**
 * Golden-file tests for the planner: SQL and a catalog in, catalog operations and effects out.
 *
 * Every `test/planner/golden/*.txt` file holds cases in the parser goldens' format
 * (test/helpers/golden.ts): cases separated by `====`, optional `#` comments, the input, `----`,
 * the expected output. In the input, lines starting with `> ` build the catalog first: each is a
 * request planned and committed as it stands (ids `u1`, `u2`, ... in order; the default database
 * and schema are `u000000000001` and `u000000000002`). The remaining lines are the request under
 * test, planned as one transaction the way the SQL API plans it.
 *
 * The expected output is, on success:
 *   - one line per statement: `write <tag>` (then `  notice: ...`), `read <kind>`, `txn <tag>`,
 *     or `rows <columns>` followed by one `  [...]` line per row;
 *   - the request's catalog operations (`shared/catalog/ops.ts`), one per line: created objects
 *     with their fields, changed objects as `field: before -> after`, names with their namespace;
 *   - the effects the commit would record, and the secret values it would write first.
 * On failure: `error: <SQLSTATE> <message>`, the request line holding the position, and a caret.
 *
 * `REWRITE_GOLDEN=1 npx vitest run test/planner/golden.test.ts` rewrites the expected outputs from
 * what the planner does now. Review the diff line by line: the expected outputs are the assertions.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogSnapshot, DEFAULT_DATABASE, DEFAULT_SCHEMA, type CatalogObject } from '../../shared/catalog/model';
import { objectsAfter, type CatalogOp, type NameSpace } from '../../shared/catalog/ops';
import { ControlPlaneError } from '../../shared/errors';
import { occasionalNeeded, Planner, type PlanContext, type StatementPlan } from '../../shared/planner/plan';
import { Session, sessionScope } from '../../shared/planner/session';
import { Workspace } from '../../shared/planner/workspace';
import type { Statement } from '../../shared/sql/ast';
import { parse } from '../../shared/sql/parser';
import * as occasional from '../../shared/planner/occasional';
import { relationsReferenced, viewShape } from '../../shared/sql/view-deps';
import { caret, formatGoldenFile, parseGoldenFile, type GoldenCase } from '../helpers/golden';

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const REWRITE = process.env.REWRITE_GOLDEN === '1';
const NOW = '2026-01-01T00:00:00.000Z';

/** Every statement kind; the type makes a new kind a compile error here until a golden case covers it. */
const STATEMENT_KINDS: Record<Statement['kind'], true> = {
  query: true,
  set_variable: true,
  reset_variable: true,
  show_variable: true,
  create_cluster: true,
  create_cluster_replica: true,
  create_database: true,
  create_schema: true,
  create_secret: true,
  alter_secret: true,
  alter_source: true,
  create_connection: true,
  alter_connection: true,
  validate_connection: true,
  create_source: true,
  create_webhook_source: true,
  create_sink: true,
  create_table: true,
  create_table_from_source: true,
  create_type: true,
  create_view: true,
  create_materialized_view: true,
  create_index: true,
  drop: true,
  alter_rename: true,
  alter_owner: true,
  alter_set_cluster: true,
  alter_swap: true,
  alter_retain_history: true,
  alter_table_add_column: true,
  comment: true,
  alter_restart: true,
  alter_cluster: true,
  alter_apply_replacement: true,
  show_create: true,
  show: true,
  select: true,
  start_transaction: true,
  commit: true,
  rollback: true,
  explain_effects: true,
  create_role: true,
  alter_role: true,
  drop_role: true,
  grant_role: true,
  revoke_role: true,
  grant_privileges: true,
  revoke_privileges: true,
  alter_default_privileges: true,
  drop_owned: true,
  reassign_owned: true,
  create_network_policy: true,
  alter_network_policy: true,
  drop_network_policy: true,
  alter_sink_from: true,
  alter_system_set: true,
  alter_system_reset: true,
};

function bootstrap(): CatalogObject[] {
  const base = { generation: 1, version: 1, dependents: 0, createdAt: NOW, updatedAt: NOW, owner: 'system' };
  return [
    { ...base, id: 'u000000000001', kind: 'database', name: DEFAULT_DATABASE, dependents: 1, dependsOn: [], spec: {} },
    { ...base, id: 'u000000000002', kind: 'schema', name: DEFAULT_SCHEMA, dependsOn: ['u000000000001'], spec: { databaseId: 'u000000000001' } },
  ] as CatalogObject[];
}

const json = (v: unknown) => JSON.stringify(v);

function nameLine(n: NameSpace): string {
  const { ns, name, ...scope } = n;
  return `${ns}${Object.values(scope).map((s) => ` in ${s}`).join('')} ${json(name)}`;
}

/** Fields that always move with a write and say nothing about the plan. */
const NOISE = new Set(['updatedAt', 'droppedAt', 'createdAt']);

function changes(before: Record<string, unknown>, after: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (NOISE.has(key)) continue;
    const [b, a] = [before[key], after[key]];
    if (json(b) === json(a)) continue;
    if (key === 'spec' && typeof a === 'object' && typeof b === 'object') out.push(...changes(b as Record<string, unknown>, a as Record<string, unknown>, 'spec.'));
    else out.push(`${prefix}${key}: ${json(b) ?? '-'} -> ${json(a) ?? '-'}`);
  }
  return out;
}

function opLines(op: CatalogOp): string[] {
  switch (op.op) {
    case 'create_object': {
      const { id, kind, name, createdAt: _c, updatedAt: _u, ...rest } = op.object;
      return [`create_object ${kind} ${id} ${json(name)} ${json(rest)}`];
    }
    case 'update_object':
    case 'drop_object': {
      const o = op.before;
      return [`${op.op} ${o.kind} ${o.id} ${json(o.name)}`, ...changes(o as unknown as Record<string, unknown>, op.after as unknown as Record<string, unknown>).map((c) => `  ${c}`)];
    }
    case 'adjust_dependents':
      return [`adjust_dependents ${op.before.kind} ${op.id} ${json(op.before.name)} ${op.delta > 0 ? '+' : ''}${op.delta}`];
    case 'claim_name':
      return [`claim_name ${nameLine(op.name)} -> ${op.objectId}${op.replaces ? ` (from ${op.replaces})` : ''}`];
    case 'release_name':
      return [`release_name ${nameLine(op.name)} (from ${op.objectId})`];
  }
}

function planLines(plan: StatementPlan): string[] {
  switch (plan.kind) {
    case 'write':
      return [`write ${plan.tag}`, ...plan.notices.map((n) => `  notice: ${n}`)];
    case 'read':
      return [`read ${plan.statement.kind}`];
    case 'txn':
      return [`txn ${plan.tag}`];
    case 'rows':
      return [`rows ${plan.columns.join(', ')}`, ...plan.rows.map((r) => `  ${json(r)}`)];
    case 'validate':
      return [`validate connection ${plan.connection.id}`];
    case 'session':
      return [`session ${plan.statement.kind}`];
  }
}

interface Outcome {
  readonly output: string;
  readonly kinds: readonly Statement['kind'][];
}

/** The statements of `sql`, or none when it does not parse (the case then expects the parser's error). */
function tryParse(sql: string): ReturnType<typeof parse> {
  try {
    return parse(sql);
  } catch {
    return [];
  }
}

/** SET and RESET as the SQL API applies them to the request's session. */
function applySession(session: Session, plan: StatementPlan): void {
  if (plan.kind !== 'session') return;
  if (plan.statement.kind === 'set_variable') session.set(plan.statement.name, plan.statement.value, plan.statement.local);
  else if (plan.statement.kind === 'reset_variable') session.reset(plan.statement.name);
}

function run(input: string): Outcome {
  const lines = input.split('\n');
  const setup = lines.filter((l) => l.startsWith('> ')).map((l) => l.slice(2));
  const request = lines.filter((l) => !l.startsWith('> ')).join('\n');
  let n = 0;
  // The occasional planner parts only where the API would load them: every case checks occasionalNeeded().
  // Each request is a session of its own, as over HTTP: its SETs move where its later statements resolve names.
  let session = new Session();
  const ctxFor = (sql: string): PlanContext => ({
    principal: 'tester',
    now: NOW,
    newId: () => `u${++n}`,
    currentCluster: () => session.get('cluster'),
    nameScope: () => sessionScope(session),
    relationsReferenced,
    viewShape,
    ...(tryParse(sql).some((ps) => occasionalNeeded(ps.statement)) ? { occasional } : {}),
  });
  let snapshot = new CatalogSnapshot('t', bootstrap());
  for (const sql of setup) {
    session = new Session();
    const ws = new Workspace(snapshot, NOW);
    const planner = new Planner(ws, ctxFor(sql));
    for (const ps of parse(sql)) applySession(session, planner.plan(ps));
    // What the commit writes, as the store applies it (a temporary item is in no commit).
    snapshot = new CatalogSnapshot('t', [...CatalogSnapshot.derive(snapshot, objectsAfter(ws.diff())).byId.values()]);
  }
  session = new Session();
  const ws = new Workspace(snapshot, NOW);
  const planner = new Planner(ws, ctxFor(request));
  const out: string[] = [];
  const kinds: Statement['kind'][] = [];
  try {
    for (const ps of parse(request)) {
      kinds.push(ps.statement.kind);
      if (ps.statement.kind === 'explain_effects') kinds.push(ps.statement.statement.kind);
      const plan = planner.plan(ps);
      applySession(session, plan);
      out.push(...planLines(plan));
    }
  } catch (e) {
    if (!(e instanceof ControlPlaneError)) throw e;
    const err = [`error: ${e.code} ${e.message}`];
    if (e.position !== undefined) err.push(...caret(request, e.position));
    return { output: err.join('\n'), kinds };
  }
  const diff = ws.diff();
  for (const op of diff.ops) out.push(...opLines(op));
  for (const e of diff.effects) {
    const { intent, controller, kind, objectId, objectName, generation, ...rest } = e;
    out.push(`effect ${intent} ${controller}.${kind} ${objectId} ${json(objectName)} generation ${generation}${Object.keys(rest).length ? ` ${json(rest)}` : ''}`);
  }
  for (const w of planner.secretWrites()) out.push(`secret ${w.secretId} generation ${w.generation} ${json(w.value)}`);
  return { output: out.join('\n'), kinds };
}

const files = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.txt'))
  .sort();
const covered = new Set<string>();

describe.each(files)('planner golden %s', (file) => {
  const path = join(GOLDEN_DIR, file);
  const cases = parseGoldenFile(readFileSync(path, 'utf8'));
  const rewritten: GoldenCase[] = cases.map((c) => ({ ...c }));

  if (REWRITE) {
    afterAll(() => {
      writeFileSync(path, formatGoldenFile(rewritten));
    });
  }

  cases.forEach((c, k) => {
    const first = c.input.split('\n').find((l) => !l.startsWith('> ')) ?? '';
    it(`${file}:${c.line} ${first.slice(0, 80)}`, () => {
      const outcome = run(c.input);
      for (const kind of outcome.kinds) covered.add(kind);
      if (REWRITE) rewritten[k] = { ...c, expected: outcome.output };
      else expect(outcome.output).toBe(c.expected);
    });
  });
});

describe('planner goldens', () => {
  it('cover every statement kind the planner plans', () => {
    expect(Object.keys(STATEMENT_KINDS).filter((kind) => !covered.has(kind))).toEqual([]);
  });
});
