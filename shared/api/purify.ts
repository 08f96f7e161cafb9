/**
 * Purification: every new connection, source and sink is checked against its upstream before
 * anything commits, so an unreachable upstream is the user's answer now, not a status later.
 */
import type { CatalogObject, ObjectOf } from '../catalog/model';
import { ControlPlaneError, SQLSTATE } from '../errors';
import type { SecretWrite } from '../planner/plan';
import type { Prober, ProbeResult } from '../probes/types';
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
}

/** The first upstream that refused, as the error the request answers; none: all passed. */
export async function purify(prober: Prober, secrets: SecretStore | undefined, p: PurifyInput): Promise<ControlPlaneError | undefined> {
  const pending = new Map(p.secretWrites.map((w) => [w.secretId, w.value]));
  const input = (conn: ObjectOf<'connection'>) => resolveConnection(p.tenant, conn, p.getObject, secrets, pending);
  for (const w of p.changes.ops) {
    if (w.op !== 'create_object') continue;
    const o = w.object;
    let result: ProbeResult | undefined;
    let what = '';
    if (o.kind === 'connection' && o.spec.validate) {
      result = await prober.probeConnection(await input(o));
      what = `connection ${o.name}`;
    } else if ((o.kind === 'source' || o.kind === 'sink') && (o.spec as { connectionId?: string }).connectionId) {
      const conn = (await p.getObject((o.spec as { connectionId: string }).connectionId)) as ObjectOf<'connection'> | undefined;
      if (!conn || !conn.spec.validate) continue;
      result = o.kind === 'source' ? await prober.probeSource(await input(conn), o.spec.options) : await prober.probeSink(await input(conn), o.spec.options);
      what = `${o.kind} ${o.name}`;
    }
    if (result && !result.ok) {
      return new ControlPlaneError(`${result.namespace}: ${result.error ?? 'the upstream check failed'}`, {
        code: result.fatal ? SQLSTATE.connectionException : SQLSTATE.sqlclientUnableToEstablish,
        hint: result.hint ?? `Fix the upstream, or create the ${what.split(' ')[0]} WITH (VALIDATE = false) on its connection to skip this check.`,
      });
    }
  }
  return undefined;
}
