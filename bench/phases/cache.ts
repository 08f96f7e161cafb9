/**
 * 11. The DDL function's snapshot cache at 1 000 and 10 000 objects: a cache miss (a fresh
 * instance reads the whole catalog), a cache hit (a warm instance plans on its snapshot), and the
 * catch-up after a lost commit race (another instance committed first: the commit on the stale
 * snapshot is refused, the version item comes back with the refusal and its change log is
 * replayed onto the snapshot — nothing is read when the log holds the changes inline — and the
 * request is planned and committed again). Each is timed as the whole request (`SqlApi.handle` of
 * a CREATE TABLE) and as its basis step alone, and the refused commit's round trip alone (the
 * least a lost race adds to a hit). Hit and catch-up requests are interleaved (A hits, B commits,
 * A catches up), so drift falls on both alike.
 *
 * On a DynamoDB Local of its own (a 10 000-object catalog written through its stream would slow
 * every later phase on a shared one: see run.ts), tenants seeded through the DDL handler itself,
 * 100 CREATE TABLEs a request.
 */
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { makeLogger } from '../../shared/lambda/logger';
import { freshDynamo, type Bench } from '../lib/harness';
import { now, rounded, summarize, type Summary } from '../lib/stats';
import { createTable, TimedStore } from './commit';

export interface CacheSize {
  readonly objects: number;
  readonly seedSeconds: number;
  readonly miss: { request: Summary; basis: Summary };
  readonly hit: { request: Summary; basis: Summary };
  readonly catchUp: { request: Summary; basis: Summary; catchUps: number; wholeReads: number; logCatchUps?: number };
  /** The refused commit's round trip in a catch-up request, and the hit's commit. */
  readonly commits?: { refused: Summary; hit: Summary };
  /** Catch-up request p50 / cache-hit request p50 (goal ≤ 2 at 10 000 objects). */
  readonly catchUpOverHitP50: number;
  /** Miss request p50 / cache-hit request p50. */
  readonly missOverHitP50: number;
}

export async function cacheFigures(bench: Bench): Promise<CacheSize[]> {
  const dynamo = await freshDynamo(bench.log, '2g');
  let p: Pipeline | undefined;
  try {
    p = await startPipeline({ dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: bench.sqs.endpoint, prefix: `${bench.tag}-cache-`, workers: false, fastPath: false, fullPass: false, profile: 'deployed' });
    const out: CacheSize[] = [];
    // --quick: the target is judged at the largest size it measures.
    for (const objects of bench.quick ? [1000] : [1000, 10000]) out.push(await oneSize(bench, p, objects));
    return out;
  } finally {
    await p?.stop();
    await dynamo.stop();
  }
}

async function oneSize(bench: Bench, p: Pipeline, objects: number): Promise<CacheSize> {
  const logger = makeLogger('bench-cache');
  const tenant = `${bench.tag}cache${objects}`;
  await p.passwords.create(tenant);
  const seeder = new SqlApi({ store: new TimedStore(p.clients.doc, p.config.catalogTable), logger });
  const ask = async (api: SqlApi, query: string) => {
    const t0 = now();
    const r = await api.handle(tenant, `${tenant}/bench`, JSON.stringify({ query }), 'application/json');
    if (r.status !== 200) throw new Error(`${query.slice(0, 50)}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    return now() - t0;
  };
  const seedStart = now();
  // The default database and schema are two of the objects.
  for (let i = 0; i < objects - 2; i += 100) await ask(seeder, Array.from({ length: Math.min(100, objects - 2 - i) }, (_, k) => `CREATE TABLE base${i + k} (a int)`).join(';'));
  const seedSeconds = Math.round((now() - seedStart) / 100) / 10;
  bench.log(`cache: ${objects} objects seeded in ${seedSeconds} s`);

  // Misses: a fresh instance each time (a cold Lambda, or one whose cache dropped the tenant).
  const misses = bench.quick ? 5 : objects >= 10000 ? 15 : 30;
  const missRequest: number[] = [];
  const missBasis: number[] = [];
  for (let k = 0; k < misses + 2; k++) {
    const store = new TimedStore(p.clients.doc, p.config.catalogTable);
    const ms = await ask(new SqlApi({ store, logger }), createTable(`miss_${k}`));
    if (k < 2) continue; // warm-up
    missRequest.push(ms);
    missBasis.push(store.loadMs[0]!);
  }

  // Hits and catch-ups, interleaved: A (warm) hits; B commits; A's next request loses the race and catches up.
  const a = new TimedStore(p.clients.doc, p.config.catalogTable);
  const apiA = new SqlApi({ store: a, logger });
  const apiB = new SqlApi({ store: new TimedStore(p.clients.doc, p.config.catalogTable), logger });
  await ask(apiA, createTable('warm_a'));
  await ask(apiB, createTable('warm_b'));
  const rounds = bench.quick ? 20 : 40;
  const hitRequest: number[] = [];
  const hitBasis: number[] = [];
  const catchRequest: number[] = [];
  const catchBasis: number[] = [];
  const refusedCommit: number[] = [];
  const hitCommit: number[] = [];
  const loads0 = a.fullLoads;
  const catchUps0 = a.catchUps;
  const logCatchUps0 = a.logCatchUps;
  for (let k = 0; k < rounds + 3; k++) {
    const keep = k >= 3;
    let before = a.loadMs.length;
    let commitsBefore = a.commitMs.length;
    const hit = await ask(apiA, createTable(`hit_${k}`));
    if (keep) {
      hitRequest.push(hit);
      hitBasis.push(...a.loadMs.slice(before));
      hitCommit.push(...a.commitMs.slice(commitsBefore));
    }
    await ask(apiB, createTable(`other_${k}`));
    before = a.loadMs.length;
    commitsBefore = a.commitMs.length;
    const caught = await ask(apiA, createTable(`caught_${k}`));
    if (keep) {
      catchRequest.push(caught);
      // The first commit of the request is the one refused.
      refusedCommit.push(a.commitMs[commitsBefore]!);
      // The request's bases: the stale cached one (free), then the caught-up one.
      catchBasis.push(a.loadMs[a.loadMs.length - 1]!);
      if (a.loadMs.length - before < 2) throw new Error('the request after another instance committed did not lose its race: nothing measured a catch-up');
    }
  }
  const hitR = summarize(hitRequest);
  const catchR = summarize(catchRequest);
  const missR = summarize(missRequest);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const size: CacheSize = {
    objects,
    seedSeconds,
    miss: { request: rounded(missR), basis: rounded(summarize(missBasis)) },
    hit: { request: rounded(hitR), basis: rounded(summarize(hitBasis), 3) },
    catchUp: { request: rounded(catchR), basis: rounded(summarize(catchBasis)), catchUps: a.catchUps - catchUps0, wholeReads: a.fullLoads - loads0, logCatchUps: a.logCatchUps - logCatchUps0 },
    commits: { refused: rounded(summarize(refusedCommit)), hit: rounded(summarize(hitCommit)) },
    catchUpOverHitP50: r2(catchR.p50 / hitR.p50),
    missOverHitP50: r2(missR.p50 / hitR.p50),
  };
  bench.log(
    `cache @${objects}: miss p50 ${missR.p50.toFixed(1)} ms (basis ${size.miss.basis.p50} ms), hit p50 ${hitR.p50.toFixed(1)} ms, catch-up p50 ${catchR.p50.toFixed(1)} ms (basis ${size.catchUp.basis.p50} ms, refused commit ${size.commits!.refused.p50} ms vs the hit's commit ${size.commits!.hit.p50} ms) = ${size.catchUpOverHitP50}× hit; ${size.catchUp.catchUps} catch-ups (${size.catchUp.logCatchUps} from the change log alone), ${size.catchUp.wholeReads} whole reads`,
  );
  return size;
}
