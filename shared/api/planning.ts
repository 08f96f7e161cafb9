/**
 * Planning a request: every statement in order against one working copy of the catalog, each
 * answered (a write's tag, computed rows, a system-table read) or the first error, which stops
 * the request with nothing committed.
 */
import type { CatalogSnapshot } from '../catalog/model';
import { CommitConflictError } from '../catalog/store';
import { ControlPlaneError, SQLSTATE } from '../errors';
import { occasionalNeeded, Planner, type PlanContext } from '../planner/plan';
import { actorNamed, type Actor } from '../planner/roles';
import { searchPathSchemas } from '../planner/names';
import { Session, sessionScope, variableName } from '../planner/session';
import { Workspace } from '../planner/workspace';
import type { ParsedStatement } from '../sql/ast';
import { AnswerSize, errorBody, errorResponse, NOTHING_COMMITTED, rowsResult, statusFor, type ApiResponse } from './answer';
import type { Notice, StatementResult } from './wire';

type SystemRead = Extract<ReturnType<Planner['plan']>, { kind: 'read' }>['statement'];
type ValidatedConnection = Extract<ReturnType<Planner['plan']>, { kind: 'validate' }>['connection'];

export interface PlanRequestInput {
  readonly statements: readonly ParsedStatement[];
  readonly snapshot: CatalogSnapshot;
  readonly principal: string;
  readonly now: Date;
  readonly newId: () => string;
  /** The answer is kept under an Idempotency-Key, so it must fit in one item. */
  readonly remembered: boolean;
  /** Answers a SHOW or SELECT over the system tables as the request's catalog view sees them. */
  readonly readSystem: (view: CatalogSnapshot, statement: SystemRead, session: Session) => Promise<StatementResult>;
  /** `VALIDATE CONNECTION`: runs the connection's upstream check; throws the upstream's error. */
  readonly validateConnection: (view: CatalogSnapshot, connection: ValidatedConnection) => Promise<void>;
  /** The session its SET, SHOW and queries read and write: a pgwire connection's, or the request's own. @default a fresh session */
  readonly session?: Session;
  /** The role the request acts as (its app password's) and whether it is a superuser. @default materialize, not a superuser */
  readonly actor?: { readonly role: string; readonly superuser: boolean };
}

export type PlanOutcome =
  | {
      readonly kind: 'planned';
      readonly ws: Workspace;
      readonly planner: Planner;
      readonly ctx: PlanContext;
      readonly results: StatementResult[];
      /** The command tags of the statements that write, for the transaction record. */
      readonly writeTags: string[];
    }
  | { readonly kind: 'refused'; readonly response: ApiResponse };

/** Throws CommitConflictError and anything that is not a ControlPlaneError; every other error is the answer. */
export async function planRequest(input: PlanRequestInput): Promise<PlanOutcome> {
  const { statements } = input;
  // The SQL parser library that reads view bodies is a third of the bundle: load it only when needed.
  const needsViewDeps = statements.some((s) => /^(create_view|create_materialized_view|explain_effects)$/.test(s.statement.kind));
  const viewDeps = needsViewDeps ? await import('../sql/view-deps') : undefined;
  // So are the planner's parts for REFRESH options, webhook CHECKs and renames (planner/occasional.ts).
  const occasional = statements.some((s) => occasionalNeeded(s.statement)) ? await import('../planner/occasional') : undefined;
  let actor: Actor | undefined;
  if (input.actor) {
    actor = actorNamed(input.snapshot, input.actor.role, input.actor.superuser);
    // A password made for a role that was dropped since: it authenticates, and may do nothing (PostgreSQL's words for a login).
    if (!actor) return { kind: 'refused', response: errorResponse(new ControlPlaneError(`role "${input.actor.role}" does not exist`, { code: SQLSTATE.invalidAuthorization })) };
  }
  const ctx: PlanContext = {
    principal: input.principal,
    ...(actor ? { actor } : {}),
    currentCluster: () => session.get('cluster'),
    nameScope: () => sessionScope(session),
    now: input.now.toISOString(),
    newId: input.newId,
    ...(viewDeps ? { relationsReferenced: viewDeps.relationsReferenced, viewShape: viewDeps.viewShape } : {}),
    ...(occasional ? { occasional } : {}),
  };
  const session = input.session ?? new Session();
  // The session's temporary items (a pgwire connection's earlier statements made them).
  const ws = new Workspace(input.snapshot, ctx.now, session.temporaries);
  if (actor) session.superuser = actor.superuser;
  // A session starts from the system's defaults (ALTER SYSTEM SET), then its role's (ALTER ROLE ... SET).
  if (!session.defaultsLoaded) {
    const system = Object.fromEntries(input.snapshot.ofKind('system_parameter').map((p) => [p.name, p.spec.value]));
    const role = actor ? input.snapshot.get(actor.id) : undefined;
    session.loadDefaults(system, role?.kind === 'role' ? (role.spec.vars ?? {}) : {});
  }
  const planner = new Planner(ws, ctx);
  const results: StatementResult[] = [];
  const writeTags: string[] = [];
  const size = new AnswerSize();
  for (const ps of statements) {
    try {
      const plan = planner.plan(ps);
      let result: StatementResult;
      if (plan.kind === 'write') {
        result = { ok: plan.tag, notices: plan.notices.map((message) => ({ message, severity: 'notice' as const })) };
        writeTags.push(plan.tag);
      } else if (plan.kind === 'txn') {
        if (plan.tag === 'BEGIN') session.begin();
        else session.end(plan.tag === 'COMMIT');
        result = { ok: plan.tag, notices: [] };
      } else if (plan.kind === 'session') {
        result = sessionStatement(session, plan.statement, ws.view());
      } else if (plan.kind === 'rows') {
        result = rowsResult(plan.columns, plan.rows);
      } else if (plan.kind === 'validate') {
        await input.validateConnection(ws.view(), plan.connection);
        result = { ok: 'VALIDATE CONNECTION', notices: [] };
      } else {
        result = await input.readSystem(ws.view(), plan.statement, session);
      }
      size.add(result, ps.start, input.remembered);
      results.push(result);
    } catch (err) {
      if (!(err instanceof ControlPlaneError) || err instanceof CommitConflictError) throw err;
      // A view body the first reader could not read: load PostgreSQL's parser and plan again.
      if (err.name === 'UnreadableViewBody' && !(err as { triedPostgres?: boolean }).triedPostgres) {
        if (await (await import('../sql/pg-parser')).loadPgParser()) return planRequest(input);
      }
      const detail = results.length > 0 ? NOTHING_COMMITTED : undefined;
      results.push({ error: { ...errorBody(err), ...(detail && err.detail === undefined ? { detail } : {}) } });
      return { kind: 'refused', response: { status: statusFor(err), body: { results } } };
    }
  }
  session.temporaries = ws.temporaryItems();
  return { kind: 'planned', ws, planner, ctx, results, writeTags };
}

/**
 * SET, RESET and SHOW of a session variable, as Materialize answers them (its sequencer): a
 * `database` or `cluster` that does not exist is taken, with a notice; `SHOW schema` is the
 * session's current schema (the first of search_path that exists), NULL with a notice when none does.
 */
function sessionStatement(session: Session, s: Extract<ReturnType<Planner['plan']>, { kind: 'session' }>['statement'], view: CatalogSnapshot): StatementResult {
  const missing = (): Notice[] => {
    const name = variableName(s.name);
    if (name === 'database' && !view.database(session.database)) return [{ message: `database "${session.database}" does not exist`, severity: 'notice' }];
    if (name === 'cluster' && !view.cluster(session.get('cluster'))) return [{ message: `cluster "${session.get('cluster')}" does not exist`, severity: 'notice' }];
    return [];
  };
  switch (s.kind) {
    case 'set_variable':
      session.set(s.name, s.value, s.local);
      return { ok: 'SET', notices: missing() };
    case 'reset_variable':
      session.reset(s.name);
      return { ok: 'RESET', notices: s.name === 'all' ? [] : missing() };
    case 'show_variable': {
      if (s.name === 'all') return rowsResult(['name', 'setting', 'description'], session.showAll());
      if (s.name.toLowerCase() === 'schema') {
        const first = searchPathSchemas(view, sessionScope(session))[0];
        if (first) return rowsResult(['schema'], [['schema' in first ? first.schema.name : first.system]]);
        return { ...rowsResult(['schema'], [[null]]), notices: [{ message: `no schema on the search path exists: ${session.searchPath.join(', ')}`, severity: 'notice' }] };
      }
      const { column, value } = session.show(s.name);
      return rowsResult([column], [[value]]);
    }
  }
}
