/**
 * Which side effects a catalog change implies: a pure function of (before, after) per object.
 * Reconciliation collapses history: an object created and dropped in one request is nothing.
 */
import type { CatalogObject, ObjectKind } from './model';
import type { EffectIntent, EffectKind, Intent } from '../effects/model';

type Resource = Pick<Exclude<EffectKind, { kind: 'reconfiguration' }>, 'controller' | 'kind'>;

/** The data-plane resources each kind of object owns, in creation order. */
export const RESOURCES_OF: Readonly<Record<ObjectKind, readonly Resource[]>> = {
  database: [],
  schema: [],
  // A cluster is a catalog concept; its replicas are what the data plane runs.
  cluster: [],
  cluster_replica: [{ controller: 'compute', kind: 'replica' }],
  secret: [{ controller: 'secrets', kind: 'secret' }],
  connection: [],
  // The collection (with its read policy) comes first, then what writes into it.
  source: [
    { controller: 'storage', kind: 'collection' },
    { controller: 'storage', kind: 'ingestion' },
  ],
  subsource: [{ controller: 'storage', kind: 'collection' }],
  sink: [{ controller: 'storage', kind: 'export' }],
  table: [{ controller: 'storage', kind: 'collection' }],
  view: [],
  materialized_view: [
    { controller: 'storage', kind: 'collection' },
    { controller: 'compute', kind: 'dataflow' },
  ],
  index: [{ controller: 'compute', kind: 'dataflow' }],
  // A user-defined type lives in the catalog alone, and so do roles and privileges.
  type: [],
  role: [],
  role_membership: [],
  default_privilege: [],
  network_policy: [],
  system_parameter: [],
};

/**
 * The resources one object owns: its kind's, plus the ingestion export of a table fed by a source
 * or a webhook. A replacement materialized view has a dataflow and no collection of its own: it
 * hydrates beside its target's, and writes into the target's collection once applied.
 */
export function resourcesOf(o: CatalogObject): readonly Resource[] {
  if (o.kind === 'table' && (o.spec.fromSource || o.spec.webhook)) return SOURCE_TABLE_RESOURCES;
  if (o.kind === 'materialized_view' && o.spec.replacementFor) return REPLACEMENT_RESOURCES;
  return RESOURCES_OF[o.kind];
}
const REPLACEMENT_RESOURCES: readonly Resource[] = [{ controller: 'compute', kind: 'dataflow' }];
const SOURCE_TABLE_RESOURCES: readonly Resource[] = [...RESOURCES_OF.table, { controller: 'storage', kind: 'ingestion' }];

export function deriveEffects(before: CatalogObject | undefined, after: CatalogObject | undefined): EffectIntent[] {
  const subject = after ?? before;
  if (!subject) return [];
  const existedBefore = before !== undefined && !before.dropped;
  const existsAfter = after !== undefined && !after.dropped;
  if (!existedBefore && !existsAfter) return [];
  if (existedBefore && existsAfter && before!.generation === after!.generation) return [];
  const intent: Intent = existsAfter ? 'ensure' : 'drop';
  const generation = after?.generation ?? before!.generation;
  // Drops go in reverse: stop what writes into a collection before the collection goes.
  const resources = intent === 'ensure' ? resourcesOf(subject) : [...resourcesOf(subject)].reverse();
  const effects = resources.map((r) => ({ ...r, intent, objectId: subject.id, objectName: subject.name, generation }) as EffectIntent);
  // A cluster's new generation that starts a graceful reconfiguration: the step that settles it.
  if (after?.kind === 'cluster' && existsAfter && after.spec.reconfiguration) {
    effects.push({ controller: 'compute', kind: 'reconfiguration', intent: 'ensure', objectId: subject.id, objectName: subject.name, generation });
  }
  return effects;
}
