/**
 * Warm-up, not measured: the DynamoDB Local JVM and V8 both compile hot paths as they run, and the
 * first seconds of a fresh run are several times slower than steady state. Four clients commit
 * CREATE TABLEs (raw, in-process and over HTTP) on the commit-only pipeline for a few seconds.
 */
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { makeLogger } from '../../shared/lambda/logger';
import { newTenant, sqlHttp, type Bench } from '../lib/harness';
import type { Pipeline } from '../../local/pipeline';
import { closedLoop } from '../lib/stats';
import { createTable, floorTransaction } from './commit';

export async function warmUp(bench: Bench, p: Pipeline = bench.commitOnly, seconds = bench.quick ? 3 : 10): Promise<{ seconds: number; requests: number }> {
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable);
  const api = new SqlApi({ store, logger: makeLogger('bench-warmup'), secrets: p.secrets });
  const logins = await Promise.all([0, 1, 2, 3].map((c) => newTenant(p, `${bench.tag}-warm-${c}-${Math.random().toString(36).slice(2, 6)}`)));
  const snapshots = await Promise.all(logins.map((l) => store.loadSnapshot(l.tenant)));
  let requests = 0;
  await closedLoop(4, seconds * 1000, async (c, i) => {
    const { tenant, password } = logins[c]!;
    switch (i % 3) {
      case 0:
        await p.clients.doc.send(floorTransaction(store, snapshots[c]!, tenant, createTable(`w_f_${i}`), new Date()));
        break;
      case 1:
        await api.handle(tenant, `${tenant}/bench`, JSON.stringify({ query: createTable(`w_i_${i}`) }), 'application/json');
        break;
      default:
        await sqlHttp(p.url!, password, createTable(`w_h_${i}`));
    }
    requests++;
  });
  bench.log(`warm-up: ${requests} commits in ${seconds} s`);
  return { seconds, requests };
}
