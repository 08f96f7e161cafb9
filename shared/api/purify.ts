/**
 * Purification: every new connection (unless WITH (VALIDATE = false), or of a kind Materialize does
 * not validate by default), source and sink is checked against its upstream before anything
 * commits, so an unreachable upstream is the user's answer now, not a status later.
 */
import type { CatalogObject, ObjectOf } from '../catalog/model';
import { ControlPlaneError, SQLSTATE } from '../errors';
import type { SecretWrite } from '../planner/plan';
import type { Prober, ProbeResult, UpstreamReferences } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import type { Workspace } from '../planner/workspace';
import { resolveConnection } from '../catalog/connections';

export interface PurifyInput {
  readonly tenant: string;
  readonly changes: ReturnType<Workspace['diff']>;
  /** An object as the request leaves it, else as the catalog holds it. */
  readonly getObject: (id: string) => Promise<CatalogObject | undefined>;
  /** Secret values this request writes: a new connection may use them before they are stored. */
  readonly secretWrites: readonly SecretWrite[];
  /** The upstream tables each new source names, by source id (Planner.upstreamReferences). */
  readonly references?: ReadonlyMap<string, UpstreamReferences>;
}

/** The first upstream that refused, as the error the request answers; none: all passed. */
export async function purify(prober: Prober, secrets: SecretStore | undefined, p: PurifyInput): Promise<ControlPlaneError | undefined> {
  const pending = new Map(p.secretWrites.map((w) => [w.secretId, w.value]));
  const input = (conn: ObjectOf<'connection'>) => resolveConnection(p.tenant, conn, p.getObject, secrets, pending);
  for (const w of p.changes.ops) {
    // ALTER CONNECTION with validation: the connection as altered is checked before the change commits.
    if (w.op === 'update_object' && w.after.kind === 'connection' && w.before.kind === 'connection' && w.after.spec.validate) {
      if (JSON.stringify(w.before.spec.connector) === JSON.stringify(w.after.spec.connector)) continue;
      const result = await prober.probeConnection(await input(w.after));
      if (!result.ok) return upstreamError(result, 'Fix the upstream, or alter the connection WITH (VALIDATE = false) to skip this check.');
      continue;
    }
    if (w.op !== 'create_object') continue;
    const o = w.object;
    let result: ProbeResult | undefined;
    if (o.kind === 'connection' && o.spec.validate) {
      result = await prober.probeConnection(await input(o));
    } else if ((o.kind === 'source' || o.kind === 'sink') && (o.spec as { connectionId?: string }).connectionId) {
      // Whatever the connection's VALIDATE said: Materialize's purification of CREATE SOURCE reads
      // the publication or topic from the upstream (src/sql/src/pure.rs), and of a Kafka sink
      // fetches the brokers' metadata, so an unreachable upstream is refused here too.
      const conn = (await p.getObject((o.spec as { connectionId: string }).connectionId)) as ObjectOf<'connection'> | undefined;
      if (!conn) continue;
      result = o.kind === 'source' ? await prober.probeSource(await input(conn), o.spec.options, p.references?.get(o.id)) : await prober.probeSink(await input(conn), o.spec.options);
    }
    if (result && !result.ok) {
      if (o.kind === 'connection') return upstreamError(result, 'Fix the upstream, or create the connection WITH (VALIDATE = false) to skip this check.');
      return upstreamError(result, `Fix the upstream: a ${o.kind} reads it when it is created, as in Materialize, whether or not its connection was validated.`);
    }
  }
  return undefined;
}

function upstreamError(result: ProbeResult, hint: string): ControlPlaneError {
  return new ControlPlaneError(`${result.namespace}: ${result.error ?? 'the upstream check failed'}`, {
    code: result.sqlstate ?? (result.fatal ? SQLSTATE.connectionException : SQLSTATE.sqlclientUnableToEstablish),
    ...(result.detail ? { detail: result.detail } : {}),
    hint: result.hint ?? hint,
  });
}

/**
 * `VALIDATE CONNECTION`: the connection's own check (the one CREATE CONNECTION runs), now.
 * Undefined: the upstream accepted it. The error is Materialize's SQLSTATE for a failed
 * validation (58000, system error) with the upstream's words.
 */
export async function validateConnection(
  prober: Prober | undefined,
  secrets: SecretStore | undefined,
  v: { readonly tenant: string; readonly connection: ObjectOf<'connection'>; readonly getObject: (id: string) => Promise<CatalogObject | undefined> },
): Promise<ControlPlaneError | undefined> {
  // Without a prober nothing is checked, as at CREATE (the deployed API and `npm start` always have one).
  if (!prober) return undefined;
  const result = await prober.probeConnection(await resolveConnection(v.tenant, v.connection, v.getObject, secrets));
  if (result.ok) return undefined;
  return new ControlPlaneError(`${result.namespace}: ${result.error ?? 'the upstream check failed'}`, {
    code: SQLSTATE.systemError,
    ...(result.detail ? { detail: result.detail } : {}),
    ...(result.hint ? { hint: result.hint } : {}),
  });
}
