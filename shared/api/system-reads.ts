/**
 * Reads of the system catalog: a query goes to the SQL engine (./catalog-sql.ts) with the status,
 * effect and history items its tables need; SHOW (and `SELECT ... FROM (SHOW ...)`) is answered
 * from the request's view of the catalog. Only what a statement needs is fetched.
 */
import type { CatalogSnapshot, ItemObject } from '../catalog/model';
import type { OutboxStore } from '../catalog/outbox-store';
import type { StatusStore } from '../catalog/status-store';
import { ControlPlaneError, PlanError, SQLSTATE } from '../errors';
import { sessionScope, type Session } from '../planner/session';
import type { ObjectName, Statement } from '../sql/ast';
import { failingUpstream, type SystemInputs } from '../system/catalog-relations';
import { evaluateSelect, evaluateShow, inputsNeeded, showForSession, systemRelationName, systemSchemaOf } from '../system/evaluate';
import type { Input } from '../system/typed';
import { selectResult, WIRE_ROWS, type WireRows } from './answer';
import type { CatalogSql } from './catalog-sql';
import { jsonRows } from './json-values';
import { activeSilence, withDataPlaneSilence } from '../status/data-plane';
import type { StatementResult } from './wire';

type SystemRead = Extract<Statement, { kind: 'show' | 'select' | 'query' }>;

/** What the system tables read besides the catalog: effects, and statuses with their history. */
export interface SystemReadStores {
  readonly outbox: Pick<OutboxStore, 'listEffects'>;
  readonly statuses: Pick<StatusStore, 'list' | 'history' | 'listReplicaStatuses' | 'dataPlaneLiveness'>;
}

/** A query's Bind (extended protocol): parameters and formats as the client sent them. */
export interface QueryBind {
  readonly params: readonly (Buffer | null)[];
  readonly paramTypes: readonly number[];
  readonly paramFormats: readonly number[];
  readonly resultFormats: readonly number[];
  /** Describe only: the parameter types and columns, nothing run. */
  readonly describeOnly?: boolean;
}

export interface SystemReadContext {
  /** The SQL engine, started on the first query. */
  readonly catalogSql: () => Promise<CatalogSql>;
  readonly session: Session;
  readonly bind?: QueryBind;
}

export async function readSystemTables(store: SystemReadStores, tenant: string, snapshot: CatalogSnapshot, statement: SystemRead, now: Date, ctx: SystemReadContext): Promise<StatementResult> {
  if (statement.kind === 'query') {
    const answer = await (await ctx.catalogSql()).query({
      text: statement.text,
      position: statement.position,
      snapshot,
      session: ctx.session,
      ...(ctx.bind ?? {}),
      inputs: (needs) => readInputs(store, tenant, snapshot, needs, now),
      userRead: (item, name, position) => userRead(store, tenant, snapshot, item, name, position, now),
    });
    const fields = answer.fields ?? [];
    const wire: WireRows = { fields, rows: answer.rows, rowCount: answer.rowCount, paramTypes: answer.paramTypes };
    const result: StatementResult & { [WIRE_ROWS]: WireRows } = {
      [WIRE_ROWS]: wire,
      tag: answer.tag,
      // Binary columns (pgwire) have no JSON form; HTTP asks for text only.
      rows: ctx.bind?.resultFormats.some((f) => f === 1) ? [] : jsonRows(fields, answer.rows),
      desc: { columns: fields.map((f) => ({ name: f.name, type_oid: f.typeOid, type_len: f.typeLen, type_mod: f.typeMod })) },
      notices: answer.notices.map((n) => ({ message: n.message, severity: n.severity?.toLowerCase() === 'warning' ? ('warning' as const) : ('notice' as const) })),
    };
    return result;
  }
  try {
    const inputs = await readInputs(store, tenant, snapshot, inputsNeeded(statement, snapshot), now);
    const scope = sessionScope(ctx.session);
    const shown = statement.kind === 'select' ? statement.fromShow : statement;
    const show = shown && showForSession(shown, snapshot, scope);
    // Materialize's list of its system relations is loaded only for a SHOW that lists them.
    const systemItems = show && systemSchemaOf(show.from) ? (await import('../system/materialize-only')).materializeSchemaItems : undefined;
    if (statement.kind === 'select') return selectResult(evaluateSelect(statement, inputs, systemItems, scope));
    return selectResult(evaluateShow(statement, inputs, systemItems, scope));
  } catch (e) {
    // A relation or column Materialize has and we do not: 0A000, not "unknown" (loaded only here).
    if (statement.kind === 'select' && !statement.fromShow && e instanceof ControlPlaneError && (e.code === SQLSTATE.undefinedTable || e.code === SQLSTATE.undefinedColumn)) {
      throw (await import('../system/materialize-only')).materializeOnlyError(e, statement.from, systemRelationName(statement.from)) ?? e;
    }
    throw e;
  }
}

/**
 * A query that reads a user object: its rows are the data plane's. Reading a stalled or failed
 * source (or anything built on one) is the source's error, never stale rows.
 */
async function userRead(store: SystemReadStores, tenant: string, snapshot: CatalogSnapshot, user: ItemObject, name: ObjectName, position: number, now: Date): Promise<never> {
  const { connectorStatuses } = await readInputs(store, tenant, snapshot, new Set<Input>(['connectorStatuses']), now);
  const own = user.kind === 'source' || user.kind === 'subsource' ? connectorStatuses.find((x) => x.objectId === (user.kind === 'subsource' ? user.spec.sourceId : user.id)) : undefined;
  const failing = own && (own.status === 'stalled' || own.status === 'failed') ? own : failingUpstream(snapshot, connectorStatuses, user.id);
  if (failing) {
    throw new PlanError(`cannot read ${name.join('.')}: ${failing.kind} ${failing.name} is ${failing.status}: ${failing.error}`, {
      code: SQLSTATE.internalError,
      position,
      ...(failing.details?.hints?.length ? { hint: failing.details.hints.join(' ') } : {}),
    });
  }
  throw new PlanError(`reading the rows of ${name.join('.')} is outside the control plane: the data plane serves them`, {
    code: SQLSTATE.featureNotSupported,
    position,
    hint: 'SELECT here reads the system catalog (mz_sources, mz_internal.mz_source_statuses, ...).',
  });
}

async function readInputs({ outbox, statuses }: SystemReadStores, tenant: string, snapshot: CatalogSnapshot, needs: ReadonlySet<Input>, now: Date): Promise<SystemInputs> {
  const [replicaStatuses, effects, connectorStatuses, history, liveness] = await Promise.all([
    needs.has('replicaStatuses') ? statuses.listReplicaStatuses(tenant) : [],
    needs.has('effects') ? outbox.listEffects(tenant) : [],
    needs.has('connectorStatuses') ? statuses.list(tenant) : [],
    needs.has('history') ? statuses.history(tenant) : [],
    // One small read: while the whole data plane is silent, every watched status shows it at once.
    needs.has('connectorStatuses') ? statuses.dataPlaneLiveness() : undefined,
  ]);
  return { snapshot, replicaStatuses, effects, connectorStatuses: withDataPlaneSilence(connectorStatuses, activeSilence(liveness, now)), history };
}
