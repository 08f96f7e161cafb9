/**
 * SHOW and SELECT over the system tables: fetch only the status, effect and history items the
 * statement needs, then evaluate it on them and the request's view of the catalog.
 */
import type { CatalogSnapshot } from '../catalog/model';
import type { OutboxStore } from '../catalog/outbox-store';
import type { StatusStore } from '../catalog/status-store';
import { ControlPlaneError, SQLSTATE } from '../errors';
import { evaluateSelect, evaluateShow, inputsNeeded, systemRelationName, systemSchemaOf } from '../system/evaluate';
import type { SystemInputs } from '../system/relations';
import { selectResult } from './answer';
import { activeSilence, withDataPlaneSilence } from '../status/data-plane';
import type { StatementResult } from './wire';

type SystemRead = Parameters<typeof inputsNeeded>[0];

/** What the system tables read besides the catalog: effects, and statuses with their history. */
export interface SystemReadStores {
  readonly outbox: Pick<OutboxStore, 'listEffects'>;
  readonly statuses: Pick<StatusStore, 'list' | 'history' | 'listReplicaStatuses' | 'dataPlaneLiveness'>;
}

export async function readSystemTables(store: SystemReadStores, tenant: string, snapshot: CatalogSnapshot, statement: SystemRead, now: Date = new Date()): Promise<StatementResult> {
  try {
    const inputs = await readInputs(store, tenant, snapshot, statement, now);
    const show = statement.kind === 'select' ? statement.fromShow : statement;
    // Materialize's list of its system relations is loaded only for a SHOW that lists them.
    const systemItems = show && systemSchemaOf(show.from) ? (await import('../system/materialize-only')).materializeSchemaItems : undefined;
    if (statement.kind === 'select') return selectResult(evaluateSelect(statement, inputs, systemItems));
    return selectResult(evaluateShow(statement, inputs, systemItems));
  } catch (e) {
    // A relation or column Materialize has and we do not: 0A000, not "unknown" (loaded only here).
    if (statement.kind === 'select' && !statement.fromShow && e instanceof ControlPlaneError && (e.code === SQLSTATE.undefinedTable || e.code === SQLSTATE.undefinedColumn)) {
      throw (await import('../system/materialize-only')).materializeOnlyError(e, statement.from, systemRelationName(statement.from)) ?? e;
    }
    throw e;
  }
}

async function readInputs({ outbox, statuses }: SystemReadStores, tenant: string, snapshot: CatalogSnapshot, s: SystemRead, now: Date): Promise<SystemInputs> {
  const needs = inputsNeeded(s, snapshot);
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
