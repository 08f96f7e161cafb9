/**
 * The planner: statement + catalog (a Workspace) → catalog changes, or a read. Pure: ids and
 * the clock come in through the context, errors are PlanErrors with SQLSTATEs.
 */
import type { ClusterObject, ReplicaObject } from '../catalog/model';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import type { ObjectName, ParsedStatement, ReplicaDefinition, SqlOption, Statement } from '../sql/ast';
import { optionString, readOptions, type OptionSpec } from './options';
import type { Workspace } from './workspace';

export interface PlanContext {
  readonly principal: string;
  readonly now: string;
  readonly newId: () => string;
}

export type StatementPlan =
  | { readonly kind: 'write'; readonly tag: string; readonly notices: readonly string[] }
  | { readonly kind: 'read'; readonly statement: Extract<Statement, { kind: 'show' | 'select' }> };

/** Replica sizes we provision, Materialize's credit sizes (legacy t-shirt sizes are not offered). */
export const REPLICA_SIZES = ['25cc', '50cc', '100cc', '200cc', '300cc', '400cc', '600cc', '800cc', '1200cc', '1600cc', '3200cc', '6400cc', '128C', '256C', '512C'] as const;

/** Materialize caps identifiers at 255 bytes. */
export const MAX_IDENTIFIER_BYTES = 255;
/** A managed cluster's replicas are provisioned one item each; keep a request well inside DynamoDB's 100-item transaction. */
export const MAX_REPLICATION_FACTOR = 32;

const CLUSTER_OPTIONS: OptionSpec = {
  SIZE: 'string',
  'REPLICATION FACTOR': 'uint',
  'INTROSPECTION INTERVAL': 'any',
  'INTROSPECTION DEBUGGING': 'boolean',
  'AVAILABILITY ZONES': 'any',
  MANAGED: 'boolean',
  DISK: 'boolean',
  SCHEDULE: 'any',
  'WORKLOAD CLASS': 'any',
};
const REPLICA_OPTIONS: OptionSpec = {
  SIZE: 'string',
  'AVAILABILITY ZONE': 'string',
  'INTROSPECTION INTERVAL': 'any',
  'INTROSPECTION DEBUGGING': 'boolean',
  DISK: 'boolean',
  'BILLED AS': 'string',
  INTERNAL: 'boolean',
};

export function planStatement(ws: Workspace, parsed: ParsedStatement, ctx: PlanContext): StatementPlan {
  const s = parsed.statement;
  const at = parsed.start;
  switch (s.kind) {
    case 'create_cluster':
      return planCreateCluster(ws, s, at, ctx);
    case 'create_cluster_replica':
      return planCreateReplica(ws, s, at, ctx);
    case 'drop':
      return planDrop(ws, s, at);
    case 'show':
    case 'select':
      return { kind: 'read', statement: s };
    default:
      throw new NotSupportedError(`${parsed.text.split(/\s+/).slice(0, 3).join(' ').toUpperCase()} is not supported yet`, { position: at });
  }
}

export function validateName(name: string, position: number, what: string): void {
  if (name.includes('\u0000')) {
    throw new PlanError(`${what} name contains a NUL character`, { code: SQLSTATE.characterNotInRepertoire, position });
  }
  if (Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) {
    throw new PlanError(`identifier length exceeds ${MAX_IDENTIFIER_BYTES} bytes`, { code: SQLSTATE.nameTooLong, position });
  }
  if (name.startsWith('mz_')) {
    throw new PlanError(`${what} name ${JSON.stringify(name)} is reserved`, {
      code: SQLSTATE.reservedName,
      position,
      hint: 'Names that begin with "mz_" are reserved for system objects.',
    });
  }
}

function parseSize(value: string | undefined, position: number): string {
  if (value === undefined) {
    throw new PlanError('SIZE option is required', { code: SQLSTATE.invalidParameterValue, position, hint: `Valid sizes: ${REPLICA_SIZES.join(', ')}.` });
  }
  if (!(REPLICA_SIZES as readonly string[]).includes(value)) {
    throw new PlanError(`unknown cluster replica size ${value}`, {
      code: SQLSTATE.invalidParameterValue,
      position,
      hint: `Valid sizes: ${REPLICA_SIZES.join(', ')}.`,
    });
  }
  return value;
}

function otherOptions(options: readonly SqlOption[], skip: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of options) if (!skip.includes(o.name)) out[o.name] = optionString(o.value) ?? '';
  return out;
}

function optionPosition(options: readonly SqlOption[], name: string, fallback: number): number {
  return options.find((o) => o.name === name)?.position ?? fallback;
}

function planCreateCluster(ws: Workspace, s: Extract<Statement, { kind: 'create_cluster' }>, at: number, ctx: PlanContext): StatementPlan {
  validateName(s.name, at, 'cluster');
  const opts = readOptions(s.options, CLUSTER_OPTIONS, 'cluster');
  if (ws.view().cluster(s.name)) {
    throw new PlanError(`cluster '${s.name}' already exists`, { code: SQLSTATE.duplicateObject, position: at });
  }
  const managedOpt = opts.get('MANAGED');
  const managed = s.replicas === undefined && !(managedOpt?.kind === 'boolean' && !managedOpt.value);
  const clusterId = ctx.newId();
  const base = { id: clusterId, name: s.name, generation: 1, version: 1, createdAt: ctx.now, updatedAt: ctx.now, owner: ctx.principal };
  if (managed) {
    const size = parseSize(optionString(opts.get('SIZE')), optionPosition(s.options, 'SIZE', at));
    const rfValue = opts.get('REPLICATION FACTOR');
    const replicationFactor = rfValue ? Number(optionString(rfValue)) : 1;
    if (replicationFactor > MAX_REPLICATION_FACTOR) {
      throw new PlanError(`REPLICATION FACTOR ${replicationFactor} exceeds the maximum of ${MAX_REPLICATION_FACTOR}`, {
        code: SQLSTATE.invalidParameterValue,
        position: optionPosition(s.options, 'REPLICATION FACTOR', at),
      });
    }
    const cluster: ClusterObject = {
      ...base,
      kind: 'cluster',
      spec: { managed: true, size, replicationFactor, options: otherOptions(s.options, ['SIZE', 'REPLICATION FACTOR']) },
    };
    ws.create(cluster);
    for (let i = 1; i <= replicationFactor; i++) {
      ws.create(newReplica(ctx, clusterId, `r${i}`, size, true, {}));
    }
  } else {
    if (opts.has('SIZE') || opts.has('REPLICATION FACTOR')) {
      throw new PlanError('SIZE and REPLICATION FACTOR apply to managed clusters only', {
        code: SQLSTATE.invalidParameterValue,
        position: optionPosition(s.options, opts.has('SIZE') ? 'SIZE' : 'REPLICATION FACTOR', at),
        hint: 'Give each replica its own SIZE in REPLICAS (...), or drop REPLICAS to create a managed cluster.',
      });
    }
    const cluster: ClusterObject = { ...base, kind: 'cluster', spec: { managed: false, options: otherOptions(s.options, ['MANAGED']) } };
    ws.create(cluster);
    const seen = new Set<string>();
    for (const r of s.replicas ?? []) {
      if (seen.has(r.name)) {
        throw new PlanError(`replica '${r.name}' specified more than once`, { code: SQLSTATE.duplicateObject, position: at });
      }
      seen.add(r.name);
      ws.create(replicaFromDefinition(ctx, clusterId, r, at));
    }
  }
  return { kind: 'write', tag: 'CREATE CLUSTER', notices: [] };
}

function replicaFromDefinition(ctx: PlanContext, clusterId: string, r: ReplicaDefinition, at: number): ReplicaObject {
  validateName(r.name, at, 'cluster replica');
  const opts = readOptions(r.options, REPLICA_OPTIONS, 'cluster replica');
  const size = parseSize(optionString(opts.get('SIZE')), optionPosition(r.options, 'SIZE', at));
  return newReplica(ctx, clusterId, r.name, size, false, otherOptions(r.options, ['SIZE']));
}

function newReplica(ctx: PlanContext, clusterId: string, name: string, size: string, managed: boolean, options: Record<string, string>): ReplicaObject {
  return {
    id: ctx.newId(),
    kind: 'cluster_replica',
    name,
    generation: 1,
    version: 1,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    owner: ctx.principal,
    spec: { size, clusterId, managed, options },
  };
}

function unknownCluster(name: string, position: number): PlanError {
  return new PlanError(`unknown cluster '${name}'`, { code: SQLSTATE.undefinedObject, position });
}

function planCreateReplica(ws: Workspace, s: Extract<Statement, { kind: 'create_cluster_replica' }>, at: number, ctx: PlanContext): StatementPlan {
  const view = ws.view();
  const cluster = view.cluster(s.cluster);
  if (!cluster) throw unknownCluster(s.cluster, at);
  if (cluster.spec.managed) {
    throw new PlanError(`cannot create more replicas in a managed cluster`, {
      code: SQLSTATE.featureNotSupported,
      position: at,
      hint: `Use ALTER CLUSTER ${s.cluster} SET (REPLICATION FACTOR = ...) to change the replica count of a managed cluster.`,
    });
  }
  if (view.replicas(cluster.id).some((r) => r.name === s.name)) {
    throw new PlanError(`cluster replica '${s.cluster}.${s.name}' already exists`, { code: SQLSTATE.duplicateObject, position: at });
  }
  ws.create(replicaFromDefinition(ctx, cluster.id, { name: s.name, options: s.options }, at));
  // Fences a concurrent DROP CLUSTER that did not see this replica.
  ws.touch(cluster.id);
  return { kind: 'write', tag: 'CREATE CLUSTER REPLICA', notices: [] };
}

function planDrop(ws: Workspace, s: Extract<Statement, { kind: 'drop' }>, at: number): StatementPlan {
  const notices: string[] = [];
  const tag = `DROP ${s.objectType.toUpperCase()}`;
  for (const name of s.names) {
    switch (s.objectType) {
      case 'cluster':
        dropCluster(ws, name, s.ifExists, s.cascade, at, notices);
        break;
      case 'cluster replica':
        dropReplica(ws, name, s.ifExists, at, notices);
        break;
      default:
        throw new NotSupportedError(`DROP ${s.objectType.toUpperCase()} is not supported yet`, { position: at });
    }
  }
  return { kind: 'write', tag, notices };
}

function dropCluster(ws: Workspace, name: ObjectName, ifExists: boolean, _cascade: boolean, at: number, notices: string[]): void {
  const clusterName = name[0]!;
  const view = ws.view();
  const cluster = view.cluster(clusterName);
  if (!cluster) {
    if (ifExists) {
      notices.push(`cluster "${clusterName}" does not exist, skipping`);
      return;
    }
    throw unknownCluster(clusterName, at);
  }
  // Replicas belong to their cluster and go with it; objects that run on the cluster (indexes,
  // materialized views, sources) are dependents that need CASCADE: none exist yet in this catalog.
  for (const r of view.replicas(cluster.id)) ws.drop(r.id);
  ws.drop(cluster.id);
}

function dropReplica(ws: Workspace, name: ObjectName, ifExists: boolean, at: number, notices: string[]): void {
  const [clusterName, replicaName] = name as [string, string];
  const view = ws.view();
  const cluster = view.cluster(clusterName);
  const replica = cluster ? view.replicas(cluster.id).find((r) => r.name === replicaName) : undefined;
  if (!cluster || !replica) {
    if (ifExists) {
      notices.push(`cluster replica "${clusterName}.${replicaName}" does not exist, skipping`);
      return;
    }
    if (!cluster) throw unknownCluster(clusterName, at);
    throw new PlanError(`unknown cluster replica '${clusterName}.${replicaName}'`, { code: SQLSTATE.undefinedObject, position: at });
  }
  if (cluster.spec.managed) {
    throw new PlanError(`cannot drop replicas from a managed cluster`, {
      code: SQLSTATE.featureNotSupported,
      position: at,
      hint: `Use ALTER CLUSTER ${clusterName} SET (REPLICATION FACTOR = ...) to change the replica count of a managed cluster.`,
    });
  }
  ws.drop(replica.id);
  ws.touch(cluster.id);
}
