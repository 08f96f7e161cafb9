/** Direct reads of the tables, for assertions that must not go through the code under test. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Pipeline } from '../../local/pipeline';
import { ADMISSION_SK } from '../../shared/catalog/keys';
import { eventually } from './pipeline';

export async function partitionItems(p: Pipeline, pk: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await p.clients.doc.send(
      new QueryCommand({ TableName: p.config.catalogTable, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    out.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * The tenant's catalog items, less the default database and schema every tenant starts with
 * and the catalog version they start at (while untouched): what requests committed. The
 * executors' admission item is left out: its set and its floor move whenever an executor batch
 * runs (an earlier statement's effects still settling), which is no request's commit.
 */
export async function tenantItems(p: Pipeline, tenant: string) {
  return (await partitionItems(p, `T#${tenant}`)).filter(
    (i) =>
      i.sk !== ADMISSION_SK &&
      !(i.type === 'catalog_version' && i.v === 1) &&
      !(i.bootstrap && (i.type === 'name' || (i.version === 1 && !i.dropped && i.dependents === (i.kind === 'database' ? 1 : 0)))),
  );
}

/** Waits until every effect of the tenant settled; returns the data plane's resources for the tenant. */
export async function settledDataPlane(p: Pipeline, tenant: string) {
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
  return p.dataPlane.observe(tenant);
}

/** Present replicas in the reference data plane, by owner object id. */
export async function dataPlaneReplicas(p: Pipeline, tenant: string) {
  return (await p.dataPlane.observe(tenant)).filter((r) => r.kind === 'replica');
}
