/**
 * A source's ingestion and a sink's export: the data-plane resource, with the connector's status
 * marked `starting` before a new generation is asked for, and `failed` after a terminal error.
 */
import { connectorKind, type CatalogObject } from '../../catalog/model';
import { reportState } from '../../catalog/status-store';
import type { EffectRecord } from '../../effects/model';
import { reportDueAt } from '../../status/reports';
import { transition } from '../../status/transition';
import { reconcileResource } from './data-plane';
import type { EffectContext, ResourceHandler } from './types';

/** Writers racing on one status (a report, the sweeper) settle within a few rounds (as in shared/status-ingest/ingest.ts). */
const MARK_STARTING_ROUNDS = 8;

/**
 * Before the data plane is asked to run a new generation of an ingestion or export, its status
 * says `starting`; from then on the data plane's reports move it (shared/status-ingest/ingest.ts).
 * Written before the call, so no report about the new generation can be overwritten by it; and
 * it must land before the call (retried when another writer moved the status in between), since
 * status-ingest refuses a report about a generation the status has not started.
 */
async function markStarting(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined): Promise<void> {
  const kind = object ? connectorKind(object) : undefined;
  if (!object || object.dropped || !kind) return;
  const store = x.deps.statuses;
  for (let round = 0; round < MARK_STARTING_ROUNDS; round++) {
    const prev = await store.get(effect.tenant, object.id);
    if (!prev || prev.status === 'dropped') return;
    // Only a status that has not seen this generation yet: a redelivery must not undo a report.
    if (prev.status !== 'created' && prev.generation === object.generation) return;
    // Ahead of this executor's object: a newer generation's executor marked it — or the status is
    // ahead of the catalog itself (a report from a generation nobody issued, accepted before
    // such reports were refused), which only a generation of the catalog's may replace.
    if (prev.generation > object.generation && !(await aheadOfCatalog(x, effect.tenant, prev.generation, object.id))) return;
    const now = x.now();
    const t = transition(prev, { kind, dropped: false, generation: object.generation, resourcePresent: false, replicas: 1, report: { status: 'starting', error: null, details: null } }, now.toISOString());
    const due = reportDueAt('starting', now);
    // A report mark from beyond this generation (that same forged report) is dropped with it.
    const { reportGeneration, reportSequence, ...rest } = reportState(prev);
    const mark = reportGeneration !== undefined && reportGeneration <= object.generation ? { reportGeneration, ...(reportSequence !== undefined ? { reportSequence } : {}) } : {};
    if (await store.apply(effect.tenant, { id: object.id, kind, name: object.name }, t, prev.version, { ...rest, ...mark, ...(due ? { reportDueAt: due } : {}) })) return;
  }
  throw new Error(`the status of ${object.id} kept changing while generation ${object.generation} was being marked starting; the delivery will be retried`);
}

/** Whether a status generation is beyond what the catalog holds now (read again: this executor's read may be older). */
async function aheadOfCatalog(x: EffectContext, tenant: string, generation: number, id: string): Promise<boolean> {
  const now = await x.getObject(tenant, id);
  return now !== undefined && !now.dropped && generation > now.generation;
}

/** A terminal error on a source's ingestion or a sink's export puts the connector in `failed`, in front of the user. */
async function failConnector(x: EffectContext, effect: EffectRecord, object: CatalogObject | undefined, message: string): Promise<void> {
  const kind = object ? connectorKind(object) : undefined;
  if (!object || !kind) return;
  const prev = await x.deps.statuses.get(effect.tenant, effect.objectId);
  const t = transition(prev, { kind, dropped: false, generation: object.generation, effectError: message, resourcePresent: false, replicas: 1 }, x.now().toISOString());
  const { reportDueAt: _due, ...report } = reportState(prev);
  await x.deps.statuses.apply(effect.tenant, { id: object.id, kind, name: object.name }, t, prev?.version, report);
}

export const CONNECTOR: ResourceHandler = { shape: 'resource', before: markStarting, reconcile: reconcileResource, failed: failConnector };
