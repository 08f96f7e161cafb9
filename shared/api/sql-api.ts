/**
 * `POST /api/sql`, Materialize's request and response shapes. One request is one implicit
 * transaction: parse → plan every statement against a working copy of the catalog → one commit.
 * The first error stops the request and nothing is committed.
 *
 * This class is the facade that sequences the stages, each in its own file: request validation
 * (`request.ts`), Idempotency-Key answers (`idempotency.ts`), the per-tenant turn
 * (`tenant-turn.ts`), planning (`planning.ts`), purification (`purify.ts`), secret values
 * (`secret-writes.ts`) and system-table reads (`system-reads.ts`).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { CommitConflictError, type CatalogBasis, type CatalogStore, type TxnRecord } from '../catalog/store';
import { effectItem, OutboxStore } from '../catalog/outbox-store';
import { StatusStore } from '../catalog/status-store';
import type { EffectSender } from '../router/fast-path';
import { backoffMs, RETRY_POLICIES, type RetryPolicy } from '../effects/retry-policies';
import { ControlPlaneError, SerializationError } from '../errors';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import type { FingerprintKey } from '../secrets/fingerprint-key';
import type { ParsedStatement } from '../sql/ast';
import { print } from '../sql/printer';
import { errorBody, errorResponse, NOTHING_COMMITTED, statusFor, type ApiResponse } from './answer';
import { IdempotentAnswers, type IdempotencyClaim } from './idempotency';
import { newObjectId, newTxnId } from '../catalog/ids';
import { planRequest } from './planning';
import { purify, validateConnection } from './purify';
import { checkIdempotencyKey, readRequest, readSessionOptions } from './request';
import { writeSecretValues } from './secret-writes';
import type { SystemReadStores } from './system-reads';
import type { CatalogSql, SqlEngineHost } from './catalog-sql';
import { TenantTurns } from './tenant-turn';
import { Session } from '../planner/session';
import type { QueryBind } from './system-reads';

export type { ColumnDesc, ErrorBody, Notice, StatementResult } from './wire';
export { MAX_ANSWER_BYTES, errorBody, type ApiResponse } from './answer';
export { newObjectId, newTxnId } from '../catalog/ids';
export { MAX_BODY_BYTES, MAX_STATEMENTS, readRequest } from './request';

export interface SqlApiDeps {
  readonly store: CatalogStore;
  /** Effects for mz_pending_effects. @default an OutboxStore on the catalog store's client and table */
  readonly outbox?: SystemReadStores['outbox'];
  /** Statuses and their history for the mz_internal status tables. @default a StatusStore on the catalog store's client and table */
  readonly statuses?: SystemReadStores['statuses'];
  /** Where secret values go (before the commit that references them). */
  readonly secrets?: SecretStore;
  /** Checks new connections, sources and sinks against their upstream before commit (purification). */
  readonly prober?: Prober;
  readonly logger: Logger;
  /** Sends a commit's effects to their queues right after it (the fast path); none: the router alone does. */
  readonly sendEffects?: EffectSender;
  readonly clock?: () => Date;
  readonly newId?: () => string;
  /** The key of the Idempotency-Key fingerprint (the Lambda and the local runtime always give one). */
  readonly fingerprintKey?: FingerprintKey;
  /** The SQL engine for queries over the catalog. @default one PGlite in this process, started by the first query */
  readonly catalogSql?: CatalogSql;
}

/** Statements that only read the catalog: they are answered from a confirmed-current snapshot. */
const READ_ONLY_KINDS: ReadonlySet<string> = new Set(['show', 'select', 'query', 'set_variable', 'reset_variable', 'show_variable', 'show_create', 'explain_effects', 'start_transaction', 'commit', 'rollback', 'validate_connection']);

/** How a pgwire connection runs statements: its session, a dry run inside a transaction block, a query's bound parameters. */
export interface RunOptions {
  /** The connection's session (SET, SHOW, search_path, the transaction block). @default a fresh one */
  readonly session?: Session;
  /** Plan and answer, commit nothing (a statement inside a pgwire transaction block, before its COMMIT). */
  readonly dryRun?: boolean;
  /** The extended protocol's Bind of a query: parameters and formats, passed to the SQL engine as they came. */
  readonly bind?: QueryBind;
  readonly idempotency?: { readonly key: string; readonly body: string };
  /** The role the statements act as (the app password's), and whether it is a superuser. @default materialize, not a superuser */
  readonly actor?: { readonly role: string; readonly superuser: boolean };
}

/** An attempt's answer, and whether it committed (a commit on a basis validates everything the plan read). */
interface Outcome {
  readonly response: ApiResponse;
  readonly committed: boolean;
  /** A keyed request that changed nothing: its answer is recorded once the basis is confirmed. */
  readonly recordAnswer?: boolean;
}

export class SqlApi {
  private readonly clock: () => Date;
  private readonly newId: () => string;
  private readonly turns = new TenantTurns();
  private readonly idempotency: IdempotentAnswers;
  private readonly systemStores: SystemReadStores;
  private catalogSqlPromise: Promise<CatalogSql> | undefined;

  constructor(private readonly deps: SqlApiDeps) {
    this.systemStores = { outbox: deps.outbox ?? new OutboxStore(deps.store.doc, deps.store.table), statuses: deps.statuses ?? new StatusStore(deps.store.doc, deps.store.table) };
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? newObjectId;
    this.idempotency = new IdempotentAnswers(deps.store, this.clock, deps.fingerprintKey);
  }

  /** The SQL engine over the catalog: the one given, or one in this process, loaded by the first query. */
  catalogSql(): Promise<CatalogSql> {
    this.catalogSqlPromise ??= this.deps.catalogSql ? Promise.resolve(this.deps.catalogSql) : import('./catalog-sql').then((m) => m.inProcessCatalogSql());
    return this.catalogSqlPromise;
  }

  /**
   * Starts the SQL engine now rather than on the first query, on a worker thread of its own
   * (engine-worker.ts): for a server of many connections (the pgwire endpoint), whose first client
   * should not wait for the engine to start, nor every client for each query the engine runs. A
   * DDL request never calls this. Does nothing when an engine was given or has started. `engine`:
   * one already starting (a process that starts its worker before its own modules load).
   */
  startEngine(engine?: Promise<SqlEngineHost>): void {
    this.catalogSqlPromise ??= this.deps.catalogSql ? Promise.resolve(this.deps.catalogSql) : import('./catalog-sql').then((m) => m.inProcessCatalogSql(engine ? { engine } : { worker: true }));
    this.catalogSqlPromise.then((c) => c.start({ parser: false }), () => undefined);
  }

  async handle(
    tenant: string,
    principal: string,
    body: string | null | undefined,
    contentType: string | undefined,
    idempotencyKey?: string,
    actor?: RunOptions['actor'],
    /** The `options` query parameter: session variables as a JSON object of strings (Materialize's). */
    options?: string,
  ): Promise<ApiResponse> {
    let groups: ParsedStatement[][];
    let settings: Record<string, string> | undefined;
    try {
      checkIdempotencyKey(idempotencyKey);
      settings = readSessionOptions(options);
      groups = readRequest(body, contentType);
    } catch (err) {
      if (err instanceof ControlPlaneError) return errorResponse(err);
      throw err;
    }
    // The request's session starts from its options (the session's defaults are still read from the catalog under them).
    const session = settings ? new Session(undefined, settings) : undefined;
    // An Idempotency-Key's answer holds for the same body under the same options.
    const keyed = options ? `${body ?? ''}\u0000options=${options}` : (body ?? '');
    return this.run(tenant, principal, groups.flat(), { ...(idempotencyKey === undefined ? {} : { idempotency: { key: idempotencyKey, body: keyed } }), ...(actor ? { actor } : {}), ...(session ? { session } : {}) });
  }

  /**
   * Runs parsed statements as one transaction: the HTTP request's, or a pgwire message's (simple
   * query), statement (extended protocol) or transaction block (its statements again at COMMIT).
   */
  async run(tenant: string, principal: string, statements: readonly ParsedStatement[], o: RunOptions = {}): Promise<ApiResponse> {
    const policy = RETRY_POLICIES['ddl.commit'];
    const started = performance.now();
    // A query's engine starts while the catalog is read (its first start is most of a cold query).
    if (statements.some((s) => s.statement.kind === 'query')) void this.catalogSql().then((c) => c.start(), () => undefined);
    const idem = o.idempotency === undefined ? undefined : await this.idempotency.claim(o.idempotency.key, o.idempotency.body);
    for (let attempt = 1; ; attempt++) {
      try {
        if (idem) {
          const seen = await this.idempotency.recorded(tenant, idem);
          if (seen) return seen;
        }
        const readOnly = o.dryRun || statements.every((s) => READ_ONLY_KINDS.has(s.statement.kind));
        // Each attempt plans on its own copy of the session: a replanned attempt starts from the same values.
        const session = o.session?.clone();
        const run = (ro: boolean) => this.execute(tenant, principal, statements, ro, { ...o, ...(session ? { session } : {}) }, idem);
        const response = readOnly ? await run(true) : await this.turns.run(tenant, () => run(false));
        if (session && response.status === 200) o.session!.adopt(session);
        if (idem && response.status !== 200) {
          const twin = await this.idempotency.twin(tenant, idem);
          if (twin) return twin;
        }
        return response;
      } catch (err) {
        if (!(err instanceof CommitConflictError)) throw err;
        // Out of attempts and of patience: each refusal means another request committed (the tenant
        // moves on), so a request keeps its place while it has both.
        if (attempt >= policy.budget && performance.now() - started >= DDL_COMMIT_PATIENCE_MS) {
          return errorResponse(new SerializationError('could not commit: concurrent changes to the same catalog objects', { detail: err.message }));
        }
        this.deps.logger.info('commit conflict, replanning', { attempt, reasons: err.reasons });
        await new Promise((r) => setTimeout(r, conflictWaitMs(policy, attempt, err.missed)));
      }
    }
  }

  /**
   * Plans on the tenant's snapshot and commits once; throws CommitConflictError to be replanned.
   * The snapshot may be this process's cached one: a commit on it holds only if the catalog is
   * still at its version, and any answer given without a commit (an error, a read, a no-op) is
   * given only after the snapshot is confirmed current — else planned again on a fresh one.
   */
  private async execute(tenant: string, principal: string, statements: readonly ParsedStatement[], readOnly: boolean, o: RunOptions, idem?: IdempotencyClaim): Promise<ApiResponse> {
    const store = this.deps.store;
    let basis = await store.basis(tenant);
    if (basis.cached && readOnly) {
      // Nothing to commit: confirm first rather than plan twice.
      const c = await store.confirm(tenant, basis);
      basis = c.current ? { ...basis, cached: false } : c.fresh;
    }
    for (;;) {
      const outcome = await this.attempt(tenant, principal, statements, basis, o, idem);
      if (!outcome.committed && basis.cached) {
        const c = await store.confirm(tenant, basis);
        if (!c.current) {
          basis = c.fresh;
          continue;
        }
      }
      if (outcome.recordAnswer && idem) {
        const recorded = await this.idempotency.record(tenant, idem, outcome.response);
        if (recorded) return recorded;
      }
      return outcome.response;
    }
  }

  private async attempt(tenant: string, principal: string, statements: readonly ParsedStatement[], basis: CatalogBasis, o: RunOptions, idem?: IdempotencyClaim): Promise<Outcome> {
    const { store, secrets, prober } = this.deps;
    const now = this.clock();
    const planned = await planRequest({
      statements,
      snapshot: basis.snapshot,
      principal,
      now,
      newId: this.newId,
      remembered: idem !== undefined,
      ...(o.session ? { session: o.session } : {}),
      ...(o.actor ? { actor: o.actor } : {}),
      // Reads (and the SQL engine behind queries) load on the first read: a DDL request never pays for them.
      readSystem: async (view, statement, session) =>
        (await import('./system-reads')).readSystemTables(this.systemStores, tenant, view, statement, this.clock(), { catalogSql: () => this.catalogSql(), session, ...(o.bind ? { bind: o.bind } : {}) }),
      validateConnection: async (view, connection) => {
        const problem = await validateConnection(prober, secrets, { tenant, connection, getObject: async (id) => view.get(id) ?? (await store.getObject(tenant, id)) });
        if (problem) throw problem;
      },
    });
    if (planned.kind === 'refused') return { response: planned.response, committed: false };
    const { ws, planner, ctx, results, writeTags } = planned;
    const changes = ws.diff();
    // A statement of an open pgwire transaction block: answered as planned; its COMMIT runs them all again.
    if (o.dryRun) return { response: { status: 200, body: { results } }, committed: false };
    if (prober) {
      const view = ws.view();
      const problem = await purify(prober, secrets, {
        tenant,
        changes,
        getObject: async (id) => view.get(id) ?? (await store.getObject(tenant, id)),
        secretWrites: planner.secretWrites(),
        references: planner.upstreamReferences(),
      });
      if (problem) {
        // The upstream's own detail (which settings are off) says more than that nothing committed, which the 4xx says too.
        results.push({ error: { ...errorBody(problem), ...(problem.detail === undefined ? { detail: NOTHING_COMMITTED } : {}) } });
        return { response: { status: 400, body: { results } }, committed: false };
      }
    }
    if (changes.ops.length === 0) return { response: { status: 200, body: { results } }, committed: false, recordAnswer: idem !== undefined };
    // Statement history never holds a secret value.
    const txn: TxnRecord = { txnId: newTxnId(now), principal, statements: statements.map((s) => print(s.statement, { redacted: true })), tags: writeTags, createdAt: ctx.now };
    // The records the commit writes (the same ids as the outbox's), so the router's copies are duplicates.
    const effects = this.deps.sendEffects && changes.effects.length ? changes.effects.map((e, i) => effectItem(tenant, txn, e, i + 1)) : [];
    // Their admission rides in the commit's transaction when the tenant has room: no round trip of its own.
    const admitting = effects.length ? this.deps.sendEffects!.admitWithCommit(tenant, effects) : undefined;
    let committed: { optional: boolean };
    try {
      await writeSecretValues(secrets, tenant, planner.secretWrites());
      const committing = store.commit(tenant, changes, txn, idem && { ...idem, status: 200, body: JSON.stringify({ results }) }, basis, admitting && { optional: admitting });
      // Once the commit's request is out (setImmediate runs after the SDK's pipeline has written
      // it), a cold function loads its SQS client during the wait instead of after it.
      if (effects.length) setImmediate(() => this.deps.sendEffects!.prepare());
      committed = await committing;
    } catch (err) {
      if (err instanceof CommitConflictError || !(err instanceof ControlPlaneError)) throw err;
      return { response: { status: statusFor(err), body: { results: [{ error: errorBody(err) }] } }, committed: false };
    }
    this.deps.logger.info('committed', { tenant, txnId: txn.txnId, writes: changes.ops.length, effects: changes.effects.length, tags: writeTags });
    if (effects.length) await this.deps.sendEffects!.send(effects, { admitted: committed.optional });
    return { response: { status: 200, body: { results } }, committed: true };
  }
}

/**
 * How long a request whose commit races keep refusing goes on trying past the `ddl.commit` budget's
 * attempts: with many instances on one tenant, each refusal's retry is cheap (no read) and comes
 * without a read, so the budget's attempts can pass in about a second while the others take their turns; a
 * few seconds is far inside API Gateway's 29 s and the function's timeout.
 */
export const DDL_COMMIT_PATIENCE_MS = 5_000;

/**
 * How long a request whose commit was refused waits before it plans again. A lone stale basis (the
 * first refusal showed one commit since it) is replanned at once: the refusal brought the snapshot
 * up to date (the version item's change log), so the replan is on the catalog as it is, and a
 * backoff would cost more than the request (`npm run bench -- --only cache`). Otherwise other
 * writers are busy on the tenant: the policy's exponential backoff, which bounds how often the
 * contenders try whatever their number. (A wait scaled to the commits the refusal showed missed, and
 * not growing with the attempts, let 16 instances on one tenant retry faster than they committed:
 * 11 attempts per commit and 15 × 40001 in the same bench.)
 */
export function conflictWaitMs(policy: RetryPolicy, attempt: number, missed: number | undefined): number {
  if (attempt === 1 && missed !== undefined && missed <= 1) return 0;
  return backoffMs(policy, attempt) * (0.5 + Math.random());
}
