/**
 * 8. Cost meter: what one statement of each kind costs on AWS, measured on the local pipeline in
 * its deployed profile (fast path on). Every DynamoDB call asks for `ReturnConsumedCapacity` and
 * the consumed read and write units are summed per statement (the local-only checkpoint and
 * secret tables excluded); SQS requests are the sends (fast path and router), the deletes and one
 * receive per executor invocation, counted by the SDK call recorder; Lambda invocations are the
 * API's and the authorizer's (one each per request: the authorizer cache TTL is 0), the router's
 * and the executors'; GB-seconds are their time in the handler times their memory (ddl-api
 * 512 MB, the others 256 MB, cdk/constructs). The time of an HTTP request counts for the DDL
 * function and the authorizer together, at the DDL function's memory (an upper bound). Dollars at
 * the us-east-1 on-demand prices in PRICES.
 */
import { LOCAL_REGION } from '../../local/emulators';
import { startPipeline, type Pipeline } from '../../local/pipeline';
import { OutboxStore } from '../../shared/catalog/outbox-store';
import { CONTROLLERS } from '../../shared/definitions';
import { CallRecorder } from '../../shared/clients/call-recorder';
import { freshDynamo, newTenant, sqlHttp, type Bench } from '../lib/harness';
import { now } from '../lib/stats';
import { KINDS } from './kinds';

/** us-east-1 on-demand list prices (USD) used for the dollar figures. */
export const PRICES = {
  /** DynamoDB on-demand, per million write / read request units (since the November 2024 cut). */
  writeUnitPerMillion: 0.625,
  readUnitPerMillion: 0.125,
  /** SQS FIFO, per million requests (each 64 KB chunk of a payload is one request). */
  sqsFifoPerMillion: 0.5,
  /** Lambda, per million requests and per GB-second on arm64. */
  lambdaRequestPerMillion: 0.2,
  lambdaGbSecondArm: 0.0000133334,
} as const;

export interface CostRow {
  readonly kind: string;
  readonly samples: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly sqsRequests: number;
  readonly lambdaInvocations: number;
  readonly gbSeconds: number;
  readonly dollarsPerMillion: number;
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const METERED = new Set([...READS, 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** Sums the capacity every DynamoDB call of `p` consumed (it asks each for ReturnConsumedCapacity). */
function capacityMeter(p: Pipeline, localOnly: readonly string[]) {
  const total = { read: 0, write: 0 };
  p.clients.ddb.middlewareStack.add(
    (next: any, context: any) => async (args: any) => {
      const op = String(context.commandName ?? '').replace(/Command$/, '');
      if (METERED.has(op)) args.input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      const consumed = [result.output?.ConsumedCapacity ?? []].flat() as { TableName?: string; CapacityUnits?: number }[];
      for (const c of consumed) {
        if (c.TableName && localOnly.includes(c.TableName)) continue;
        total[READS.has(op) ? 'read' : 'write'] += c.CapacityUnits ?? 0;
      }
      return result;
    },
    { step: 'initialize', name: 'benchCapacityMeter' },
  );
  return total;
}

export async function costMeter(bench: Bench): Promise<CostRow[]> {
  const recorder = new CallRecorder({ region: LOCAL_REGION, accountId: '000000000000' });
  // A DynamoDB Local of its own: after the recovery phase's 1 000 tables and their effects on the
  // shared one, its 150-object staged commit outlasted the DDL function's timeout (a PutItem there
  // took 39 ms p50; DynamoDB Local slows every stream-enabled table by the stream records before it).
  const dynamo = await freshDynamo(bench.log);
  const p = await startPipeline({ dynamodbEndpoint: dynamo.endpoint, sqsEndpoint: bench.sqs.endpoint, prefix: `${bench.tag}-cost-`, port: 0, profile: 'deployed', recorder, fullPass: false }).catch(async (err: unknown) => {
    await dynamo.stop();
    throw err;
  });
  try {
    const capacity = capacityMeter(p, [`${bench.tag}-cost-router-checkpoints`, p.secretsTable]);
    const outbox = new OutboxStore(p.clients.doc, p.config.catalogTable);
    const { tenant, password } = await newTenant(p, `${bench.tag}cost`);
    const sql = async (q: string) => {
      const r = await sqlHttp(p.url!, password, q);
      if (r.status !== 200) throw new Error(`${q.slice(0, 60)}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    };
    const settled = async () => {
      for (let i = 0; i < 600; i++) {
        if ((await outbox.listEffects(tenant)).every((e) => e.state !== 'pending')) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('effects did not settle');
    };
    for (const k of KINDS) if (k.once) await sql(k.once);
    await settled();

    const counters = () => ({
      ...capacity,
      sqs: recorder.calls.filter((c) => c.action === 'sqs:SendMessage' || c.action === 'sqs:DeleteMessage').length + CONTROLLERS.reduce((n, c) => n + p.pollers[c].invocations, 0),
      invocations: p.router.invocations + CONTROLLERS.reduce((n, c) => n + p.pollers[c].invocations, 0),
      gbs: (p.router.busyMs * 0.25 + CONTROLLERS.reduce((n, c) => n + p.pollers[c].busyMs * 0.25, 0)) / 1000,
    });
    // The same statements the kinds phase times against their floors (phases/kinds.ts), fewer samples.
    const samples: Record<string, number> = { 'CREATE SOURCE (3 subsources)': 3, 'DROP ... CASCADE (10 objects)': 3, 'staged commit (150 objects)': 2 };
    const kinds: { kind: string; samples: number; setup?: (i: number) => string; statement: (i: number) => string }[] = [
      { kind: 'CREATE TABLE', samples: 5, statement: (i) => `CREATE TABLE t${i} (id bigint NOT NULL, name text)` },
      ...KINDS.map((k) => ({ kind: k.kind, samples: samples[k.kind] ?? 2, ...(k.setup ? { setup: k.setup } : {}), statement: k.statement })),
    ];
    const rows: CostRow[] = [];
    for (const k of kinds) {
      let httpMs = 0;
      const sums = { read: 0, write: 0, sqs: 0, invocations: 0, gbs: 0 };
      for (let i = 0; i < k.samples; i++) {
        if (k.setup) {
          await sql(k.setup(i));
          await settled();
        }
        const before = counters();
        const t0 = now();
        await sql(k.statement(i));
        httpMs += now() - t0;
        await settled();
        const after = counters();
        sums.read += after.read - before.read;
        sums.write += after.write - before.write;
        sums.sqs += after.sqs - before.sqs;
        sums.invocations += after.invocations - before.invocations + 2; // + the DDL function and the authorizer
        sums.gbs += after.gbs - before.gbs;
      }
      sums.gbs += (httpMs / 1000) * 0.5;
      const per = (x: number) => x / k.samples;
      const row = {
        kind: k.kind,
        samples: k.samples,
        readUnits: per(sums.read),
        writeUnits: per(sums.write),
        sqsRequests: per(sums.sqs),
        lambdaInvocations: per(sums.invocations),
        gbSeconds: per(sums.gbs),
      };
      const dollars =
        row.writeUnits * PRICES.writeUnitPerMillion +
        row.readUnits * PRICES.readUnitPerMillion +
        row.sqsRequests * PRICES.sqsFifoPerMillion +
        row.lambdaInvocations * PRICES.lambdaRequestPerMillion +
        row.gbSeconds * 1e6 * PRICES.lambdaGbSecondArm;
      rows.push({ ...row, dollarsPerMillion: Math.round(dollars * 100) / 100 });
      bench.log(`cost: ${k.kind}: ${row.readUnits.toFixed(1)} RRU, ${row.writeUnits.toFixed(1)} WRU, ${row.sqsRequests.toFixed(1)} SQS, ${row.lambdaInvocations.toFixed(1)} invocations, ${row.gbSeconds.toFixed(4)} GB-s → $${dollars.toFixed(2)} per million`);
    }
    return rows;
  } finally {
    await p.stop();
    await dynamo.stop();
  }
}
