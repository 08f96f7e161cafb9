/**
 * The read-policy invariant (DESIGN.md invariant 3), checked after every test by
 * test/setup/invariants.ts: every collection-bearing object (source, subsource, table, materialized
 * view, index) whose effects have settled has its collection — or its index arrangement — in the
 * data plane WITH a read policy. Objects whose effects are still pending are skipped (the test may
 * have stopped the workers on purpose).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Pipeline } from '../../local/pipeline';

const BEARING: Record<string, string> = { source: 'collection', subsource: 'collection', table: 'collection', materialized_view: 'collection', index: 'dataflow' };

async function scanAll(p: Pipeline): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await p.clients.doc.send(new ScanCommand({ TableName: p.config.catalogTable, ExclusiveStartKey: start, ConsistentRead: true }));
    out.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

export async function missingReadPolicies(p: Pipeline): Promise<string[]> {
  const items = await scanAll(p);
  const effectsByObject = new Map<string, any[]>();
  for (const e of items.filter((i) => i.type === 'effect')) effectsByObject.set(`${e.tenant}/${e.objectId}`, [...(effectsByObject.get(`${e.tenant}/${e.objectId}`) ?? []), e]);
  const problems: string[] = [];
  const observed = new Map<string, Awaited<ReturnType<Pipeline['dataPlane']['observe']>>>();
  for (const o of items.filter((i) => i.type === 'object' && !i.dropped && BEARING[i.kind])) {
    const tenant = (o.pk as string).slice(2);
    const effects = effectsByObject.get(`${tenant}/${o.id}`) ?? [];
    if (effects.length === 0 || effects.some((e) => e.state === 'pending' || e.state === 'failed')) continue;
    if (!observed.has(tenant)) observed.set(tenant, await p.dataPlane.observe(tenant));
    const resource = observed.get(tenant)!.find((r) => r.resourceId === o.id && r.kind === BEARING[o.kind]);
    if (!resource?.readPolicy) problems.push(`${tenant}: ${o.kind} ${o.name} (${o.id}) has no ${BEARING[o.kind]} with a read policy`);
  }
  return problems;
}
