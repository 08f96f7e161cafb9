/**
 * The chaos engine: runs a seeded workload (workload.ts) through the real local pipeline over
 * HTTP while it injects the workload's faults at every boundary — the router dying before and
 * after it sends, executors dying around the data-plane call and before the ack, data-plane
 * errors, duplicate and reordered deliveries, lost queue messages, SQS emulator and DynamoDB
 * Local restarts, two sweepers at once, staged commits dying around their commit point, readers
 * and sweepers stalled mid roll-forward or mid rollback and resumed after the holder finished,
 * leases running out while the holder writes, a second API instance (its own cache and turn queue,
 * its clock 30 s off) racing the first. Then it lets the system go quiet and runs the invariant
 * checker over every tenant, and the history checker (history.ts) over every answer it received.
 */
import { tableStores } from '../../shared/catalog/stores';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { PurgeQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { SqlApi } from '../../shared/api/sql-api';
import { tenantPk } from '../../shared/catalog/keys';
import { DEFAULT_LEASE_MS, StagedCommits } from '../../shared/catalog/staged';
import { CatalogStore } from '../../shared/catalog/store';
import { Checker, type CheckCounts } from '../../shared/checker/checker';
import { FaultInjector, type FaultKind } from '../../shared/dataplane/faults';
import { CONTROLLERS, type Controller } from '../../shared/definitions';
import type { RetryPolicy } from '../../shared/effects/retry-policies';
import { DataPlaneError, SimulatedCrash } from '../../shared/errors';
import { makeLogger } from '../../shared/lambda/logger';
import { routeRecord } from '../../shared/router/routing';
import type { SweepReport } from '../../shared/sweeper/sweeper';
import type { Pipeline } from '../../local/pipeline';
import { Environment } from './environment';
import { checkHistory, columnCommentFact, FACT, judgesRows, replicasFact, retainHistoryOf, statementsOf, type Answer, type Facts, type FinalCatalog, type HistoryEntry } from './history';
import { generateWorkload, type FaultOpKind, type Op, type Workload } from './workload';
import { isItemKind, type CatalogObject, type ClusterObject, type ReplicaObject } from '../../shared/catalog/model';
import { checkReplicaSets, checkResources } from './quiescence';

export interface ChaosOptions {
  readonly seed: number;
  readonly ops: number;
  readonly tenants: number;
  /** Shared emulators (the test suite's); absent → the run starts its own. */
  readonly dynamodbEndpoint?: string;
  readonly sqsEndpoint?: string;
  /** Table and queue name prefix (default `chaos-<seed>-`). */
  readonly prefix?: string;
  /** Queue visibility timeout: short, so that a dead executor's messages come back quickly. */
  readonly visibilityTimeoutSeconds?: number;
  /** Shorter executor retry policies (a test seam of the pipeline), for speed. */
  readonly retryPolicyOverrides?: Partial<Record<Controller, RetryPolicy>>;
  /**
   * Fault operations to leave out, by kind or sub-kind as the summary names them (`ddb-restart`,
   * `dataplane:terminal`, ...), and `twin` (a keyed request sent once instead of twice at once).
   * The workload stays the same; the skipped ones are counted.
   */
  readonly skip?: readonly string[];
  /** How long the quiet phase may take before the check runs anyway. */
  readonly quietTimeoutMs?: number;
  /** Progress lines (stderr in the CLI). */
  readonly progress?: (line: string) => void;
  /** Called after every finished step (each operation, each quiet-phase sweep, each check stage): a hang watchdog's heartbeat. */
  readonly step?: (what: string) => void;
  /**
   * How long a request waits for the graceful reconfigurations it depends on to settle (default
   * 180 s): past it the run records a violation and sends the request anyway.
   */
  readonly settleTimeoutMs?: number;
  /**
   * Wall-clock limit of one request to the API (default 60 s). A caller with a progress watchdog
   * (`step`) passes a longer one: on a loaded machine a request can take minutes and still be moving.
   */
  readonly requestTimeoutMs?: number;
}

export interface ChaosSummary {
  readonly seed: number;
  readonly ops: number;
  readonly tenants: number;
  /** sha256 of the generated operation list: the same seed must give the same hash. */
  readonly workloadHash: string;
  readonly config: {
    readonly visibilityTimeoutSeconds: number;
    readonly retryPolicyOverrides: Partial<Record<Controller, RetryPolicy>> | null;
    readonly ownDynamoDb: boolean;
    readonly ownSqs: boolean;
    readonly skip: readonly string[];
  };
  readonly requests: {
    readonly sent: number;
    readonly byStatus: Record<string, number>;
    readonly bySqlstate: Record<string, number>;
    readonly statements: number;
    readonly multiStatement: number;
    readonly idempotentRetries: number;
    readonly idempotentReplays: number;
    readonly twins: number;
    readonly predicted: { readonly matched: number; readonly mismatched: number };
  };
  readonly faults: {
    /** Scheduled by the seed, by kind (and sub-kind). */
    readonly scheduled: Record<string, number>;
    /** Crashes and data-plane errors that actually fired. */
    readonly fired: Record<string, number>;
    /** Scheduled but left out: asked to (`skip`), or not possible here (shared emulators cannot be restarted). */
    readonly skipped: Record<string, number>;
    readonly duplicateMessagesSent: number;
  };
  /** Sweeps run (workload and quiet phase), replays, and the full passes' repairs. */
  readonly sweeper: Record<string, number>;
  readonly quiet: { readonly settled: boolean; readonly sweeps: number; readonly redriven: number; readonly pendingLeft: number };
  /** The outbox at the end, by state (failed: a terminal data-plane error, visible on purpose). */
  readonly effects: Record<string, number>;
  readonly checker: { readonly tenants: number; readonly counts: CheckCounts };
  /**
   * The history checker (history.ts): requests recorded with their answers, and the answers no
   * serial order explains or the final catalog contradicts (first 10 of them in `first`).
   */
  readonly history: { readonly requests: number; readonly acknowledged: number; readonly unanswered: number; readonly anomalies: number; readonly first: readonly string[] };
  /**
   * After quiescence, each cluster runs one replica set: a managed cluster's replicas are r1..rN at
   * its size and schedule with nothing pending, and the data plane runs exactly the catalog's
   * replicas of every cluster, at their size, schedule and generation. Problems are violations.
   */
  readonly replicaSets: { readonly clusters: number; readonly reconfigured: number; readonly problems: number };
  /**
   * After quiescence, every resource of a live object is held at the object's generation with the
   * spec the executor would ensure from the catalog now (bench/chaos/quiescence.ts). Problems are violations.
   */
  readonly resources: { readonly checked: number; readonly problems: number };
  /** Checker problems, then contract violations seen by the harness (5xx, idempotency); first 20. */
  readonly problems: readonly string[];
  /** Harness-side contract violations (counted; the first ones are among `problems`). */
  readonly violations: number;
  /** Responses that differ from the workload model's prediction (first 10): model drift or a product bug, to read. */
  readonly mispredicted: readonly string[];
  readonly durationsMs: {
    readonly setup: number;
    readonly workload: number;
    readonly quiet: number;
    readonly check: number;
    readonly total: number;
    /** Where the workload's time went, by operation kind. */
    readonly workloadByOpKind: Record<string, number>;
  };
}

/** Counts the crashes and data-plane errors that fire (the injector itself only counts calls). */
class CountingFaults extends FaultInjector {
  readonly fired: Record<string, number> = {};

  private count(k: string): void {
    this.fired[k] = (this.fired[k] ?? 0) + 1;
  }

  override point(name: string): void {
    try {
      super.point(name);
    } catch (err) {
      this.count(`crash:${name}`);
      throw err;
    }
  }

  override async beforeCall(): Promise<FaultKind | undefined> {
    try {
      const after = await super.beforeCall();
      if (after) this.count(`dataplane:${after}`);
      return after;
    } catch (err) {
      if (err instanceof DataPlaneError) this.count(`dataplane:${err.transient ? 'transient' : 'terminal'}`);
      throw err;
    }
  }
}

interface Response {
  readonly status: number;
  readonly body: unknown;
  readonly replayed: boolean;
}

const bump = (rec: Record<string, number>, k: string, by = 1) => {
  rec[k] = (rec[k] ?? 0) + by;
};

function firstError(body: unknown): { code?: string; message?: string } | undefined {
  const results = (body as { results?: { error?: { code?: string; message?: string } }[] } | undefined)?.results;
  return Array.isArray(results) ? results.find((r) => r.error)?.error : undefined;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function workloadHash(w: Workload): string {
  return createHash('sha256').update(JSON.stringify(w.ops)).digest('hex');
}

export async function runChaos(o: ChaosOptions): Promise<ChaosSummary> {
  const t0 = Date.now();
  const log = o.progress ?? (() => undefined);
  const step = o.step ?? (() => undefined);
  const workload = generateWorkload({ seed: o.seed, ops: o.ops, tenants: o.tenants });
  const faults = new CountingFaults();
  // The staged-commit crash runs in its own "DDL process" (in-process SqlApi) with its own faults.
  const stagedFaults = new CountingFaults();
  const visibilityTimeoutSeconds = o.visibilityTimeoutSeconds ?? 2;
  const env = new Environment({
    ...(o.dynamodbEndpoint ? { dynamodbEndpoint: o.dynamodbEndpoint } : {}),
    ...(o.sqsEndpoint ? { sqsEndpoint: o.sqsEndpoint } : {}),
    prefix: o.prefix ?? `chaos-${o.seed}-`,
    faults,
    // Fixed per seed: secret values written before a restart stay readable after it.
    secretsKey: createHash('sha256').update(`ddl-chaos-${o.seed}`).digest(),
    visibilityTimeoutSeconds,
    ...(o.retryPolicyOverrides ? { retryPolicyOverrides: o.retryPolicyOverrides } : {}),
  });

  const byStatus: Record<string, number> = {};
  const bySqlstate: Record<string, number> = {};
  const scheduled: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  const timeByOp: Record<string, number> = {};
  /** What the sweeps (workload and quiet phase) found and did. */
  const sweeperWork: Record<string, number> = {};
  const noteSweep = (r: SweepReport) => {
    bump(sweeperWork, 'sweeps');
    bump(sweeperWork, 'replayed', r.replayed);
    bump(sweeperWork, 'deadLetteredSeen', r.deadLettered);
    if (r.full?.ran) {
      bump(sweeperWork, 'fullPasses');
      bump(sweeperWork, 'orphansCollected', r.full.orphans);
      bump(sweeperWork, 'missingRedriven', r.full.missing);
      bump(sweeperWork, 'readPoliciesRepaired', r.full.readPoliciesRepaired);
    }
  };
  const violations: string[] = [];
  const mispredicted: string[] = [];
  let sent = 0;
  let statements = 0;
  let multiStatement = 0;
  let idempotentRetries = 0;
  let idempotentReplays = 0;
  let twins = 0;
  let matched = 0;
  let mismatched = 0;
  let duplicateMessagesSent = 0;
  let dedup = 0;
  /** The run's sweep clock: always ahead of real time, never going back. */
  let sweepClock = Date.now();
  const answers = new Map<number, Response>();
  const history: HistoryEntry[] = [];
  const record = (op: number, tenant: number, body: string, r: Response | undefined, group?: number) => {
    const statements = statementsOf(body);
    history.push({ op, tenant, statements, answer: r && answerOf(r, statements), ...(group !== undefined ? { group } : {}) });
  };
  /** Readers and sweepers stalled in a staged commit, resumed some operations later. */
  const stalled: { resumeAt: number; what: string; resume: () => void; done: Promise<unknown> }[] = [];
  const resumeStalled = async (upTo: number) => {
    for (const s of stalled.filter((x) => x.resumeAt <= upTo)) {
      stalled.splice(stalled.indexOf(s), 1);
      s.resume();
      await s.done.catch((err: Error) => violations.push(`${s.what}, resumed, failed: ${err.message}`));
    }
  };
  /** The second API instance of the `instances` faults: its own store and cache, its clock off by `skew`. */
  let second: { pipeline: Pipeline; api: SqlApi } | undefined;
  let secondSkewMs = 0;
  const secondApi = () => {
    const p = env.pipeline;
    if (second?.pipeline !== p) {
      const clock = () => new Date(Date.now() + secondSkewMs);
      second = { pipeline: p, api: new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable, { clock }), logger: makeLogger('chaos-ddl-2'), secrets: p.secrets, clock }) };
    }
    return second.api;
  };
  const passwords: string[] = [];
  const tenants = Array.from({ length: o.tenants }, (_, i) => `chaos-${o.seed}-t${i}`);

  let setupMs = 0;
  let workloadMs = 0;
  let quietMs = 0;
  let checkMs = 0;
  try {
    await env.start();
    for (const t of tenants) passwords.push(await env.pipeline.passwords.create(t));
    setupMs = Date.now() - t0;

    let opIndex = 0;
    const mispredictedPush = (line: string) => {
      mismatched++;
      if (mispredicted.length < 10) mispredicted.push(line.slice(0, 600));
    };
    const post = async (tenant: number, body: string, key?: string): Promise<Response> => {
      const headers: Record<string, string> = { authorization: `Bearer ${passwords[tenant]}`, 'content-type': 'application/json' };
      if (key) headers['idempotency-key'] = key;
      const res = await fetch(`${env.pipeline.url}/api/sql`, { method: 'POST', headers, body, signal: AbortSignal.timeout(o.requestTimeoutMs ?? 60_000) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      const r = { status: res.status, body: parsed, replayed: res.headers.get('idempotent-replayed') === 'true' };
      sent++;
      bump(byStatus, String(r.status));
      const err = firstError(r.body);
      if (err?.code) bump(bySqlstate, err.code);
      if (r.replayed) idempotentReplays++;
      if (r.status >= 500) violations.push(`op ${opIndex}: HTTP ${r.status} ${text.slice(0, 200)}`);
      return r;
    };

    /** A request handled in this process by `api` (another API instance), counted like one over HTTP. */
    const direct = async (api: SqlApi, tenant: number, body: string): Promise<Response> => {
      const res = await api.handle(tenants[tenant]!, `${tenants[tenant]!}/chaos`, body, 'application/json');
      const r = { status: res.status, body: res.body, replayed: false };
      sent++;
      bump(byStatus, String(r.status));
      const err = firstError(r.body);
      if (err?.code) bump(bySqlstate, err.code);
      if (r.status >= 500) violations.push(`op ${opIndex}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return r;
    };
    const expectOk = (i: number, what: string, r: Response) => {
      if (r.status === 200) matched++;
      else mispredictedPush(`op ${i}: ${what} failed: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    };

    const predict = (i: number, op: Extract<Op, { kind: 'sql' }>, r: Response) => {
      const err = firstError(r.body);
      const ok = op.expect.ok ? r.status === 200 : r.status !== 200 && err?.code === op.expect.code;
      if (ok) {
        matched++;
        return;
      }
      mispredictedPush(
        `op ${i} (tenant ${op.tenant}): expected ${op.expect.ok ? 'success' : op.expect.code}, got ${r.status}${err ? ` ${err.code} ${err.message}` : ''} for ${(JSON.parse(op.body) as { query?: string }).query ?? op.body}`,
      );
    };

    /**
     * Waits until the graceful reconfigurations of these clusters have settled (the client of a
     * request whose answer depends on them waits, as a blocking ALTER in Materialize would have
     * made it), sweeping meanwhile with the run's clock moved on so that each replay of the
     * waiting step is due, as the sweeper's schedule would have replayed it.
     */
    const settle = async (i: number, tenant: number, names: readonly string[]): Promise<void> => {
      const t0s = Date.now();
      const timeout = o.settleTimeoutMs ?? 180_000;
      let swept = 0;
      for (;;) {
        const p = env.pipeline;
        const snapshot = await new CatalogStore(p.clients.doc, p.config.catalogTable).loadSnapshot(tenants[tenant]!);
        const left = snapshot.clusters().filter((c) => names.includes(c.name) && c.spec.reconfiguration);
        if (!left.length) break;
        if (Date.now() - t0s > timeout) {
          violations.push(`op ${i}: the reconfiguration of ${left.map((c) => c.name).join(', ')} did not settle within ${Math.round(timeout / 1000)} s`);
          break;
        }
        if (Date.now() - swept >= 1_000) {
          sweepClock = Math.max(sweepClock, Date.now()) + 600_000;
          const rep = await p.sweeper.sweep(new Date(sweepClock)).catch((err: Error) => {
            if (!(err instanceof SimulatedCrash)) violations.push(`op ${i}: sweep failed: ${err.message}`);
            return undefined;
          });
          if (rep) {
            noteSweep(rep);
            // The runbook's answer to dead-lettered effects, as in the quiet phase.
            if (rep.deadLettered > 0) for (const c of CONTROLLERS) await p.redrive(c);
          }
          swept = Date.now();
          step(`op ${i}: waiting for the reconfiguration of ${left.map((c) => c.name).join(', ')}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      bump(timeByOp, 'settle', Date.now() - t0s);
    };

    const tw = Date.now();
    for (; opIndex < workload.ops.length; opIndex++) {
      const op = workload.ops[opIndex]!;
      const i = opIndex;
      const started = Date.now();
      step(`op ${i} (${op.kind})`);
      if (i > 0 && i % 100 === 0) log(`op ${i}/${workload.ops.length} (${Math.round((Date.now() - tw) / 1000)} s)`);
      await resumeStalled(i);
      // A restart takes the clients a stalled reader holds: it resumes first.
      if (op.kind === 'process-restart' || op.kind === 'sqs-restart' || op.kind === 'ddb-restart') await resumeStalled(Infinity);
      if (op.kind !== 'sql' && op.kind !== 'retry') {
        const k = subKind(op);
        bump(scheduled, k);
        if (o.skip?.some((x) => x === op.kind || x === k)) {
          bump(skipped, k);
          continue;
        }
      }
      switch (op.kind) {
        case 'sql': {
          if (op.settle) await settle(i, op.tenant, op.settle);
          statements += op.statements;
          if (op.statements > 1) multiStatement++;
          const twinSkipped = op.twin && o.skip?.includes('twin');
          if (twinSkipped) bump(skipped, 'twin');
          if (op.twin && !twinSkipped) {
            twins++;
            const [a, b] = await Promise.all([post(op.tenant, op.body, op.key), post(op.tenant, op.body, op.key)]);
            if (a.status !== b.status || !isDeepStrictEqual(a.body, b.body)) {
              violations.push(`op ${i}: two concurrent requests with Idempotency-Key ${op.key} answered differently: ${a.status} ${JSON.stringify(a.body).slice(0, 150)} vs ${b.status} ${JSON.stringify(b.body).slice(0, 150)}`);
            }
            answers.set(i, a);
            predict(i, op, a);
            record(i, op.tenant, op.body, a);
          } else {
            const r = await post(op.tenant, op.body, op.key);
            if (op.key) answers.set(i, r);
            predict(i, op, r);
            record(i, op.tenant, op.body, r);
          }
          break;
        }
        case 'retry': {
          const first = workload.ops[op.of] as Extract<Op, { kind: 'sql' }>;
          const before = answers.get(op.of);
          idempotentRetries++;
          const r = await post(op.tenant, first.body, first.key);
          // A replayed answer is the first request's, not a second change.
          if (!r.replayed) record(i, op.tenant, first.body, r);
          // A request that changed nothing (say, SET CLUSTER to the cluster it is on) records no
          // answer and runs again: the answer must still be the first one.
          if (before?.status === 200 && first.writes && (r.status !== 200 || !isDeepStrictEqual(r.body, before.body))) {
            violations.push(`op ${i}: retry of op ${op.of} with Idempotency-Key ${first.key} got ${r.status} (replayed: ${r.replayed}) ${JSON.stringify(r.body).slice(0, 200)}, first answer was 200`);
          }
          break;
        }
        case 'crash':
          faults.crashAt(op.point, op.n);
          break;
        case 'dataplane':
          faults.failAfter(op.skip, op.n, op.fault, `chaos: injected ${op.fault} data-plane fault`);
          break;
        case 'latency':
          faults.latencyMs = op.ms;
          break;
        case 'duplicate':
          duplicateMessagesSent += await duplicate(env.pipeline, tenants[op.tenant]!, op.picks, op.reorder, () => ++dedup);
          break;
        case 'purge':
          for (const c of CONTROLLERS) await env.pipeline.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: env.pipeline.config.queueUrls[c] }));
          break;
        case 'sqs-restart':
          if (env.canRestartSqs) await env.restartSqs();
          else bump(skipped, op.kind);
          break;
        case 'ddb-restart':
          if (env.canRestartDynamo) await env.restartDynamo();
          else bump(skipped, op.kind);
          break;
        case 'process-restart':
          await env.restartProcess();
          break;
        case 'sweep': {
          sweepClock = Math.max(sweepClock, Date.now()) + op.aheadMs;
          if (op.crashAfterClaim) faults.crashAt('sweeper.after-claim', 1);
          const at = new Date(sweepClock);
          const p = env.pipeline;
          const runs = await Promise.allSettled(op.sweepers === 2 ? [p.sweeper.sweep(at), p.sweeper.sweep(at)] : [p.sweeper.sweep(at)]);
          for (const run of runs) {
            if (run.status === 'fulfilled') noteSweep(run.value);
            if (run.status === 'rejected' && !(run.reason instanceof SimulatedCrash)) violations.push(`op ${i}: sweep failed: ${(run.reason as Error).message}`);
          }
          break;
        }
        case 'staged': {
          const tenant = tenants[op.tenant]!;
          if (!op.crash) {
            const r = await post(op.tenant, op.body);
            record(i, op.tenant, op.body, r);
            if (r.status !== 200) mispredictedPush(`op ${i}: staged request failed: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
            break;
          }
          const p = env.pipeline;
          const store = new CatalogStore(p.clients.doc, p.config.catalogTable, { faults: stagedFaults });
          const api = new SqlApi({ store, logger: makeLogger('chaos-ddl'), secrets: p.secrets });
          stagedFaults.crashAt(op.crash, 1);
          const outcome = await api.handle(tenant, `${tenant}/chaos`, op.body, 'application/json').then(
            (r) => `answered ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`,
            (err) => (err instanceof SimulatedCrash ? 'crashed' : `failed: ${(err as Error).message}`),
          );
          stagedFaults.clear();
          // A crashed request has no answer: the history checker allows it either way.
          history.push({ op: i, tenant: op.tenant, statements: statementsOf(op.body), answer: outcome.startsWith('answered 409') ? { committed: false } : undefined });
          if (outcome.startsWith('answered 409')) {
            // Lost a race or ran out of lease before reaching the crash point: nothing to check.
            mispredictedPush(`op ${i}: staged request with a crash at ${op.crash} ${outcome}`);
            break;
          }
          if (outcome !== 'crashed') {
            violations.push(`op ${i}: staged request with a crash at ${op.crash} ${outcome}`);
            break;
          }
          // The next reader finishes the change (crashed after the commit point) or abandons it
          // (before): that reader's clock is one lease ahead, as if it came after the lease ran out.
          const reader = new CatalogStore(p.clients.doc, p.config.catalogTable, { clock: () => new Date(Date.now() + DEFAULT_LEASE_MS) });
          const locks = new StagedCommits(p.clients.doc, p.config.catalogTable);
          const settled = await waitFor(async () => {
            await reader.loadSnapshot(tenant);
            return (await locks.getLock(tenant)) === undefined;
          }, 15_000);
          if (!settled) violations.push(`op ${i}: the staged change crashed at ${op.crash} was neither finished nor abandoned within 15 s`);
          const schemas = await new SqlApi({ store: reader, logger: makeLogger('chaos-ddl') }).handle(tenant, `${tenant}/chaos`, JSON.stringify({ query: 'SHOW SCHEMAS' }), 'application/json');
          const names = ((schemas.body as { results: { rows: string[][] }[] }).results[0]?.rows ?? []).map((row) => row[0]);
          const schema = /SCHEMA (big\d+)/.exec(op.body)![1]!;
          const creates = op.body.includes('CREATE SCHEMA');
          const visible = names.includes(schema);
          if (visible !== (creates === op.commits)) {
            violations.push(`op ${i}: after a crash at ${op.crash}, schema ${schema} is ${visible ? '' : 'not '}visible; the change should ${op.commits ? '' : 'not '}have committed (atomicity)`);
          }
          break;
        }
        case 'staged-race': {
          const p = env.pipeline;
          const tenant = tenants[op.tenant]!;
          const holderFaults = new CountingFaults();
          const holderApi = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable, { faults: holderFaults }), logger: makeLogger('chaos-ddl'), secrets: p.secrets });
          const readerFaults = new CountingFaults();
          // A reader that wants to roll back must think the lease ran out: its clock is past it.
          const ahead = op.race === 'slow-roll-forward' ? 0 : DEFAULT_LEASE_MS + 30_000;
          const clock = () => new Date(Date.now() + ahead);
          const startReader = () =>
            op.by === 'reader'
              ? new CatalogStore(p.clients.doc, p.config.catalogTable, { faults: readerFaults, clock }).loadSnapshot(tenant)
              : (async () => {
                  // What the sweeper does with a lock it finds on the attention index.
                  const locks = new StagedCommits(p.clients.doc, p.config.catalogTable, { faults: readerFaults, clock });
                  await locks.settle(tenant, await locks.getLock(tenant));
                })();
          const holderPoint = op.race === 'slow-roll-forward' ? 'staged.after-commit-point' : 'staged.before-commit-point';
          const readerPoint = { 'slow-roll-forward': 'staged.mid-apply', 'paused-rollback': 'staged.rollback', 'mid-rollback': 'staged.mid-rollback', 'lease-expiry': undefined }[op.race];
          const holderPause = holderFaults.pauseAt(holderPoint);
          const afterPoint = op.race === 'paused-rollback' ? holderFaults.pauseAt('staged.after-commit-point') : undefined;
          const holder = holderApi.handle(tenant, `${tenant}/chaos`, op.body, 'application/json').then((r) => ({ status: r.status, body: r.body, replayed: false }));
          const reachedOrDone = async (pause: { reached: Promise<void> }, work: Promise<unknown>) => Promise.race([pause.reached.then(() => true), work.then(() => false)]);
          let racedBy: string | undefined;
          if (await reachedOrDone(holderPause, holder)) {
            if (readerPoint) {
              const readerPause = readerFaults.pauseAt(readerPoint);
              const reader = startReader();
              const what = `op ${i}: a ${op.by} stalled at ${readerPoint} (${op.race})`;
              if (await reachedOrDone(readerPause, reader)) stalled.push({ resumeAt: i + op.resumeAfter, what, resume: readerPause.resume, done: reader });
              else await reader.catch((err: Error) => violations.push(`${what} failed: ${err.message}`));
            } else {
              secondSkewMs = DEFAULT_LEASE_MS + 30_000;
              const r = await direct(secondApi(), op.tenant, op.racer!);
              secondSkewMs = 0;
              record(i, op.tenant, op.racer!, r);
              expectOk(i, 'the request of an instance whose clock is past the lease', r);
              racedBy = 'racer';
            }
            holderPause.resume();
            if (afterPoint && (await reachedOrDone(afterPoint, holder))) afterPoint.resume();
          } else {
            afterPoint?.resume();
          }
          const answer = await holder;
          holderFaults.clear();
          record(i, op.tenant, op.body, answer);
          expectOk(i, `a staged request raced by ${racedBy ?? `a ${op.by}`} (${op.race})`, answer);
          for (const [k, v] of Object.entries({ ...holderFaults.fired, ...readerFaults.fired })) bump(stagedFaults.fired, k, v);
          break;
        }
        case 'instances': {
          secondSkewMs = op.skewMs;
          const group = i;
          const [a, b] = await Promise.all([post(op.tenant, op.bodies[0]), direct(secondApi(), op.tenant, op.bodies[1])]);
          secondSkewMs = 0;
          record(i, op.tenant, op.bodies[0], a, group);
          record(i, op.tenant, op.bodies[1], b, group);
          expectOk(i, 'a request through the HTTP API at once with another instance', a);
          expectOk(i, 'a request through a second API instance', b);
          break;
        }
      }
      bump(timeByOp, op.kind, Date.now() - started);
    }
    await resumeStalled(Infinity);
    workloadMs = Date.now() - tw;

    // ---- quiet: no more faults; sweep with future clocks until nothing is pending ----------------
    log(`workload done in ${Math.round(workloadMs / 1000)} s; going quiet`);
    const tq = Date.now();
    faults.clear();
    const p = env.pipeline;
    const quietTimeoutMs = o.quietTimeoutMs ?? 180_000;
    let sweeps = 0;
    let redriven = 0;
    let settled = false;
    const pendingNow = async () => {
      let pending = 0;
      let deadLettered = 0;
      for (const t of tenants) {
        for (const e of await effects(p, t)) {
          if (e.state !== 'pending') continue;
          pending++;
          if (e.deadLettered) deadLettered++;
        }
      }
      return { pending, deadLettered };
    };
    while (Date.now() - tq < quietTimeoutMs) {
      sweepClock = Math.max(sweepClock, Date.now()) + 600_000;
      const before = await pendingNow();
      const rep = await p.sweeper.sweep(new Date(sweepClock));
      noteSweep(rep);
      sweeps++;
      step(`quiet sweep ${sweeps}`);
      if (rep.deadLettered > 0) {
        // What the runbook says for dead-lettered effects: fix the cause (the faults stopped), redrive.
        for (const c of CONTROLLERS) redriven += await p.redrive(c);
      }
      const drained = await waitFor(async () => (await pendingNow()).pending === 0, Math.min(5_000, Math.max(0, quietTimeoutMs - (Date.now() - tq))), 200);
      const full = rep.full;
      const fullClean = full?.ran === true && full.completed && full.orphans === 0 && full.missing === 0 && full.readPoliciesRepaired === 0;
      if (drained && before.pending === 0 && rep.replayed === 0 && fullClean) {
        settled = true;
        break;
      }
    }
    const left = await pendingNow();
    quietMs = Date.now() - tq;
    log(`quiet after ${sweeps} sweeps in ${Math.round(quietMs / 1000)} s (pending left: ${left.pending})`);

    // ---- check ---------------------------------------------------------------------------------
    const tc = Date.now();
    step('checking');
    const report = await new Checker(tableStores(p.clients.doc, p.config.catalogTable, { snapshotCacheObjects: 0 }), p.dataPlane).check();
    step('checked');
    const effectStates: Record<string, number> = {};
    /** Graceful reconfigurations the run started (each has one reconfiguration step in the outbox). */
    let reconfigurations = 0;
    for (const t of tenants) {
      for (const e of await effects(p, t)) {
        bump(effectStates, e.state);
        if (e.kind === 'reconfiguration') reconfigurations++;
        if (e.state === 'failed') bump(effectStates, `failed:${String(e.intent)} ${String(e.controller)}.${String(e.kind)}`);
      }
    }
    const finals: FinalCatalog[] = [];
    const replicaProblems: string[] = [];
    const resourceProblems: string[] = [];
    let clustersChecked = 0;
    let resourcesChecked = 0;
    for (const t of tenants) {
      const objects = (await new CatalogStore(p.clients.doc, p.config.catalogTable).loadSnapshot(t)).all();
      finals.push(finalCatalog(objects));
      const [observed, outbox] = [await p.dataPlane.observe(t), await effects(p, t)];
      const sets = checkReplicaSets(t, objects, observed, outbox);
      clustersChecked += sets.clusters;
      replicaProblems.push(...sets.problems);
      const held = await checkResources(t, objects, observed, outbox);
      resourcesChecked += held.resources;
      resourceProblems.push(...held.problems);
    }
    violations.push(...replicaProblems, ...resourceProblems);
    const hist = checkHistory(history, finals);
    checkMs = Date.now() - tc;

    const fired = { ...faults.fired };
    for (const [k, v] of Object.entries(stagedFaults.fired)) bump(fired, k, v);
    return {
      seed: o.seed,
      ops: o.ops,
      tenants: o.tenants,
      workloadHash: workloadHash(workload),
      config: {
        visibilityTimeoutSeconds,
        retryPolicyOverrides: o.retryPolicyOverrides ?? null,
        ownDynamoDb: env.canRestartDynamo,
        ownSqs: env.canRestartSqs,
        skip: o.skip ?? [],
      },
      requests: {
        sent,
        byStatus,
        bySqlstate,
        statements,
        multiStatement,
        idempotentRetries,
        idempotentReplays,
        twins,
        predicted: { matched, mismatched },
      },
      faults: { scheduled, fired, skipped, duplicateMessagesSent },
      sweeper: sweeperWork,
      quiet: { settled, sweeps, redriven, pendingLeft: left.pending },
      effects: effectStates,
      checker: { tenants: report.tenants, counts: report.counts },
      history: { requests: hist.requests, acknowledged: hist.acknowledged, unanswered: hist.unanswered, anomalies: hist.anomalies.length, first: hist.anomalies.slice(0, 10) },
      replicaSets: { clusters: clustersChecked, reconfigured: reconfigurations, problems: replicaProblems.length },
      resources: { checked: resourcesChecked, problems: resourceProblems.length },
      problems: [...report.problems, ...violations].slice(0, 20),
      violations: violations.length,
      mispredicted,
      durationsMs: { setup: setupMs, workload: workloadMs, quiet: quietMs, check: checkMs, total: Date.now() - t0, workloadByOpKind: timeByOp },
    };
  } finally {
    await env.close();
  }
}

function subKind(op: Exclude<Op, { kind: 'sql' | 'retry' }>): string {
  switch (op.kind) {
    case 'crash':
      return `crash:${op.point}`;
    case 'dataplane':
      return `dataplane:${op.fault}`;
    case 'staged':
      return `staged:${op.crash ?? 'no-crash'}`;
    case 'sweep':
      return `sweep:${op.sweepers === 2 ? 'two-at-once' : 'one'}${op.crashAfterClaim ? '+crash:sweeper.after-claim' : ''}`;
    case 'duplicate':
      return `duplicate:${op.reorder ? 'reordered' : 'copies'}`;
    case 'staged-race':
      return `staged-race:${op.race}${op.race === 'lease-expiry' ? '' : `+${op.by}`}`;
    case 'instances':
      return `instances:skew${op.skewMs > 0 ? '+' : ''}${op.skewMs / 1000}s`;
    default:
      return op.kind satisfies FaultOpKind;
  }
}

interface EffectItem {
  readonly sk: string;
  readonly state: string;
  readonly deadLettered?: boolean;
  readonly objectId: string;
  readonly generation: number;
  readonly [k: string]: unknown;
}

async function effects(p: Pipeline, tenant: string): Promise<EffectItem[]> {
  const out: EffectItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await p.clients.doc.send(
      new QueryCommand({
        TableName: p.config.catalogTable,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':p': 'EFF#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    out.push(...((r.Items ?? []) as EffectItem[]));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * Sends copies of existing effect messages (as the router would have), with fresh deduplication
 * ids so SQS does not drop them. `reorder`: all effects of one object, newest first — the older
 * generations arrive later.
 */
async function duplicate(p: Pipeline, tenant: string, picks: readonly number[], reorder: boolean, nextId: () => number): Promise<number> {
  const all = (await effects(p, tenant)).sort((a, b) => (a.sk < b.sk ? -1 : 1));
  if (all.length === 0) return 0;
  let chosen = picks.map((x) => all[Math.floor(x * all.length)]!);
  if (reorder) {
    const objectId = chosen[0]!.objectId;
    chosen = all.filter((e) => e.objectId === objectId).reverse();
  }
  let sent = 0;
  for (const e of chosen) {
    const m = routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(e, { removeUndefinedValues: true }) as never } });
    if (!m) continue;
    await p.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: p.config.queueUrls[m.controller], MessageBody: m.body, MessageGroupId: m.groupId, MessageDeduplicationId: `${m.deduplicationId.slice(0, 100)}:chaos${nextId()}` }),
    );
    sent++;
  }
  return sent;
}

/**
 * What an answer tells the history checker: committed (with the rows of the reads it judges),
 * refused (with the failing statement), or nothing (5xx).
 */
function answerOf(r: Response, statements: readonly string[]): Answer | undefined {
  if (r.status >= 500) return undefined;
  if (r.status === 200) {
    const results = (r.body as { results?: { rows?: unknown[][] }[] } | undefined)?.results ?? [];
    if (!statements.some(judgesRows)) return { committed: true };
    return { committed: true, rows: statements.map((q, i) => (judgesRows(q) ? results[i]?.rows : undefined)) };
  }
  const results = (r.body as { results?: { error?: { code?: string } }[] } | undefined)?.results ?? [];
  const index = results.findIndex((x) => x.error);
  const code = results[index]?.error?.code;
  return index >= 0 && code ? { committed: false, error: { index, code } } : { committed: false };
}

/**
 * The final catalog as the history checker compares it: names, each item's cluster, and the facts
 * the acknowledged requests set (history.ts, FACT), read from the catalog as it is stored — the
 * spec the data plane gets, and the definition SHOW CREATE shows.
 */
function finalCatalog(objects: readonly CatalogObject[]): FinalCatalog {
  const byId = new Map(objects.map((o) => [o.id, o]));
  const items: Record<string, string | null> = {};
  const itemFacts: Record<string, Facts> = {};
  const clusterFacts: Record<string, Facts> = {};
  for (const o of objects) {
    if (o.kind === 'cluster') clusterFacts[o.name] = factsOfCluster(o, objects);
    if (!isItemKind(o.kind)) continue;
    const spec = o.spec as { schemaId: string; clusterId?: string };
    const schema = byId.get(spec.schemaId)?.name;
    const name = schema && schema !== 'public' ? `${schema}.${o.name}` : o.name;
    items[name] = spec.clusterId ? (byId.get(spec.clusterId)?.name ?? null) : null;
    itemFacts[name] = factsOfItem(o);
  }
  return {
    clusters: objects.filter((o) => o.kind === 'cluster').map((o) => o.name),
    schemas: objects.filter((o) => o.kind === 'schema' && o.name !== 'public').map((o) => o.name),
    items,
    facts: { clusters: clusterFacts, items: itemFacts },
  };
}

function factsOfCluster(c: ClusterObject, objects: readonly CatalogObject[]): Facts {
  const facts: Record<string, string> = { [FACT.managed]: String(c.spec.managed) };
  if (c.comment !== undefined) facts[FACT.comment] = c.comment;
  if (c.spec.managed) {
    facts[FACT.size] = c.spec.size ?? '';
    facts[FACT.replicationFactor] = String(c.spec.replicationFactor);
    facts[FACT.schedule] = c.spec.schedule ? 'on refresh' : 'manual';
  } else {
    const replicas = objects.filter((o): o is ReplicaObject => o.kind === 'cluster_replica' && o.spec.clusterId === c.id);
    facts[FACT.replicas] = replicasFact(replicas.map((r) => [r.name, r.spec.size] as const));
  }
  return facts;
}

function factsOfItem(o: CatalogObject): Facts {
  const facts: Record<string, string> = {};
  if (o.comment !== undefined) facts[FACT.comment] = o.comment;
  for (const [column, text] of Object.entries(o.columnComments ?? {})) facts[columnCommentFact(column)] = text;
  const spec = o.spec as { retainHistoryMs?: number; createSql?: string };
  if (spec.retainHistoryMs !== undefined) facts[FACT.retain] = String(spec.retainHistoryMs);
  const shown = spec.createSql ? retainHistoryOf(spec.createSql) : undefined;
  if (shown !== undefined) facts[FACT.retainShown] = shown;
  switch (o.kind) {
    case 'table':
      if (!o.spec.fromSource) facts[FACT.columns] = o.spec.columns.map((c) => c.name).join(', ');
      break;
    case 'connection': {
      const host = o.spec.connector.options.HOST ?? o.spec.connector.options.BROKER;
      if (host !== undefined) facts[FACT.host] = host;
      break;
    }
    case 'source': {
      const interval = o.spec.options['TIMESTAMP INTERVAL'];
      if (interval !== undefined) facts[FACT.timestampInterval] = interval;
      break;
    }
    case 'materialized_view':
      facts[FACT.refresh] = o.spec.refresh ? 'scheduled' : 'on commit';
      break;
  }
  return facts;
}

