/** Direct reads of the tables, for assertions that must not go through the code under test. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Pipeline } from '../../local/pipeline';

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

export async function tenantItems(p: Pipeline, tenant: string) {
  return partitionItems(p, `T#${tenant}`);
}

/** Present replicas in the reference data plane, by owner object id. */
export async function dataPlaneReplicas(p: Pipeline, tenant: string) {
  return (await p.dataPlane.observe(tenant)).filter((r) => r.kind === 'replica');
}
