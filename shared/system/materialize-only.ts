/**
 * What Materialize's catalog has and ours does not: a SELECT of such a relation or column is
 * valid Materialize SQL that this control plane does not serve, so it gets 0A000 "not supported"
 * (with what we do have) rather than "unknown catalog item" or "column does not exist", which
 * would tell a Materialize user something false. Loaded only on that error path (its table of
 * names is not part of the DDL function's cold start). Pure.
 */
import { ControlPlaneError, NotSupportedError, SQLSTATE } from '../errors';
import type { ObjectName } from '../sql/ast';
import { MATERIALIZE_SYSTEM_RELATIONS } from '../sql/materialize-relations';

/** Schemas searched for an unqualified name, in Materialize's order (mz_internal is not). */
const SEARCHED = ['mz_catalog', 'pg_catalog'];

/** The Materialize system relation `name` resolves to (`schema.name`), if it names one. */
export function materializeRelation(name: ObjectName): string | undefined {
  const parts = name.length === 3 && name[0] === 'materialize' ? name.slice(1) : name;
  if (parts.length === 2) return MATERIALIZE_SYSTEM_RELATIONS[`${parts[0]}.${parts[1]}`] !== undefined ? `${parts[0]}.${parts[1]}` : undefined;
  if (parts.length !== 1) return undefined;
  return SEARCHED.map((s) => `${s}.${parts[0]}`).find((q) => MATERIALIZE_SYSTEM_RELATIONS[q] !== undefined);
}

/** The columns Materialize declares for a system relation (`schema.name`); empty when unknown. */
export function materializeColumns(qualified: string): readonly string[] {
  return (MATERIALIZE_SYSTEM_RELATIONS[qualified] ?? '').split(' ').slice(1);
}

/** The kind of a Materialize system relation (`table`, `view`, `source`, ...). */
export function materializeKind(qualified: string): string | undefined {
  return MATERIALIZE_SYSTEM_RELATIONS[qualified]?.split(' ')[0];
}

/**
 * The 0A000 error to answer instead of `err` when a SELECT's unknown relation or column exists
 * in Materialize's catalog; `undefined` when `err` is not that (it stands as it is).
 * `relation` is the qualified name of our relation the SELECT read, when it resolved.
 */
export function materializeOnlyError(err: unknown, from: ObjectName, relation: string | undefined): ControlPlaneError | undefined {
  if (!(err instanceof ControlPlaneError)) return undefined;
  if (err.code === SQLSTATE.undefinedTable && relation === undefined) {
    const theirs = materializeRelation(from);
    if (!theirs) return undefined;
    return new NotSupportedError(`system ${materializeKind(theirs)} ${theirs} is not supported by this control plane`, {
      ...(err.position !== undefined ? { position: err.position } : {}),
      ...(err.hint ? { hint: err.hint } : {}),
    });
  }
  const column = err.code === SQLSTATE.undefinedColumn ? /^column "(.+)" does not exist$/.exec(err.message)?.[1] : undefined;
  if (column !== undefined && relation !== undefined && materializeColumns(relation).includes(column)) {
    return new NotSupportedError(`column "${column}" of ${relation} is not supported by this control plane`, {
      ...(err.position !== undefined ? { position: err.position } : {}),
      ...(err.hint ? { hint: err.hint } : {}),
    });
  }
  return undefined;
}

/** The system relations Materialize has in `schema`, with their kinds. */
export function materializeSchemaItems(schema: string): { name: string; kind: string }[] {
  return Object.entries(MATERIALIZE_SYSTEM_RELATIONS)
    .filter(([q]) => q.startsWith(`${schema}.`))
    .map(([q, v]) => ({ name: q.slice(schema.length + 1), kind: v.split(' ')[0]! }));
}
