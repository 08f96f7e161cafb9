/**
 * `POST /api/sql`, Materialize's request and response shapes. One request is one implicit
 * transaction: parse → plan every statement against a working copy of the catalog → one commit.
 * The first error stops the request and nothing is committed.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { CommitConflictError, effectItem, MAX_IDEMPOTENT_ANSWER_BYTES, type CatalogBasis, type CatalogStore, type TxnRecord } from '../catalog/store';
import type { EffectSender } from '../effects/fast-path';
import { ControlPlaneError, PlanError, RequestError, SerializationError, SQLSTATE } from '../errors';
import { backoffMs, RETRY_POLICIES } from '../effects/retry-policies';
import { Planner, type PlanContext, type PlanValue } from '../planner/plan';
import type { FingerprintKey } from '../secrets/fingerprint-key';
import type { SecretStore } from '../secrets/store';
import { StatusStore } from '../status/store';
import type { Prober, ProbeResult } from '../probes/types';
import { resolveConnection } from '../sweeper/connectors';
import type { ObjectOf } from '../catalog/model';
import { print } from '../sql/printer';
import { Workspace } from '../planner/workspace';
import type { ParsedStatement } from '../sql/ast';
import { parse } from '../sql/parser';
import { evaluateSelect, evaluateShow, inputsNeeded, type ColumnType, type Relation, type SystemInputs } from '../system/tables';

/** API Gateway's payload cap is 10 MB; ours is the product's, documented in the README. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_STATEMENTS = 1000;

export type { ColumnDesc, ErrorBody, Notice, StatementResult } from './wire';
import type { ErrorBody, Notice, StatementResult } from './wire';

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
  /** The response was recorded for this Idempotency-Key by an earlier request. */
  readonly replayed?: boolean;
}

export interface SqlApiDeps {
  readonly store: CatalogStore;
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
}

const simpleSchema = z.strictObject({ query: z.string() });
const extendedSchema = z.strictObject({ queries: z.array(z.strictObject({ query: z.string(), params: z.optional(z.array(z.union([z.string(), z.null()]))) })) });

/** PostgreSQL type oids for the columns we return. */
const TYPE_OIDS: Record<ColumnType, [number, number]> = { text: [25, -1], int8: [20, 8], bool: [16, 1], timestamptz: [1184, 8] };

/**
 * The largest answer, in bytes of the Lambda response's escaped body: Lambda refuses a response
 * over 6 MB (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); the rest is
 * room for the error entry, headers and the proxy envelope.
 */
export const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** Object ids: `u` + 12 hex chars of randomness, unique per object for the data plane's fencing. */
export function newObjectId(): string {
  return `u${randomBytes(6).toString('hex')}`;
}

/** Transaction ids sort by time, so the outbox (EFF#<txn>#<seq>) reads in commit order. */
export function newTxnId(now: Date): string {
  return `${now.getTime().toString(36).padStart(9, '0')}${randomBytes(5).toString('hex')}`;
}

export function requestError(status: number, message: string, code: string = SQLSTATE.syntaxError, hint?: string): ApiResponse {
  return { status, body: { error: { message, code, ...(hint ? { hint } : {}) } } };
}

/** Reads and validates the HTTP body into the statements to run. */
export function readRequest(body: string | null | undefined, contentType: string | undefined): ParsedStatement[][] {
  if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType.trim())) {
    throw new RequestError(415, `unsupported content type ${JSON.stringify(contentType)}: send application/json`, { code: '08P01' });
  }
  if (body === null || body === undefined || body === '') throw new RequestError(400, 'request body is empty: send {"query": "..."}', { code: '08P01' });
  if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
    throw new RequestError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`, { code: SQLSTATE.programLimitExceeded });
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    throw new RequestError(400, `request body is not valid JSON: ${(err as Error).message}`, { code: '08P01' });
  }
  // One schema chosen by shape (not a union), so the detail names the field that is wrong.
  const extended = typeof json === 'object' && json !== null && !Array.isArray(json) && 'queries' in json && !('query' in json);
  const parsed = (extended ? extendedSchema : simpleSchema).safeParse(json);
  if (!parsed.success) {
    throw new RequestError(400, 'request body must be {"query": "<sql>"} or {"queries": [{"query": "<sql>", "params": [...]}]}', {
      code: '08P01',
      detail: parsed.error.issues
        .map((i) => {
          const issue = i as { keys?: string[]; expected?: string; input?: unknown };
          const what = issue.keys?.length
            ? `unrecognized key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
            : i.code === 'invalid_type'
              ? `expected ${issue.expected}, got ${issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input}`
              : i.message;
          return `${i.path.join('.') || '(root)'}: ${what}`;
        })
        .join('; '),
    });
  }
  const req = parsed.data as z.infer<typeof simpleSchema> | z.infer<typeof extendedSchema>;
  const groups: ParsedStatement[][] = [];
  if ('query' in req) {
    groups.push(parse(req.query, { maxStatements: MAX_STATEMENTS }));
  } else {
    for (const q of req.queries) {
      if (q.params && q.params.length > 0) {
        throw new RequestError(400, 'parameters are not supported by DDL statements', { code: SQLSTATE.featureNotSupported });
      }
      const stmts = parse(q.query);
      if (stmts.length !== 1) {
        throw new RequestError(400, `each query in extended mode must hold exactly one statement, found ${stmts.length}`, { code: SQLSTATE.syntaxError });
      }
      groups.push(stmts);
    }
  }
  const count = groups.reduce((n, g) => n + g.length, 0);
  if (count > MAX_STATEMENTS) {
    throw new RequestError(400, `request holds ${count} statements; at most ${MAX_STATEMENTS} are allowed`, { code: SQLSTATE.tooManyStatements });
  }
  return groups;
}

export function errorBody(err: ControlPlaneError): ErrorBody {
  return {
    message: err.message,
    code: err.code,
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
    ...(err.hint !== undefined ? { hint: err.hint } : {}),
    ...(err.position !== undefined ? { position: err.position } : {}),
  };
}

/** Statements that only read the catalog: they are answered from a confirmed-current snapshot. */
const READ_ONLY_KINDS: ReadonlySet<string> = new Set(['show', 'select', 'show_create', 'explain_effects', 'start_transaction', 'commit', 'rollback']);

/** An attempt's answer, and whether it committed (a commit on a basis validates everything the plan read). */
interface Outcome {
  readonly response: ApiResponse;
  readonly committed: boolean;
  /** A keyed request that changed nothing: its answer is recorded once the basis is confirmed. */
  readonly recordAnswer?: boolean;
}

function statusFor(code: string): number {
  return code === SQLSTATE.serializationFailure ? 409 : 400;
}

export class SqlApi {
  private readonly clock: () => Date;
  private readonly newId: () => string;
  /** Per tenant, the tail of the chain of this process's writing requests (see `inTurn`). */
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: SqlApiDeps) {
    this.clock = deps.clock ?? (() => new Date());
    this.newId = deps.newId ?? newObjectId;
  }

  async handle(tenant: string, principal: string, body: string | null | undefined, contentType: string | undefined, idempotencyKey?: string): Promise<ApiResponse> {
    if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
      const e = new RequestError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters', { code: SQLSTATE.invalidParameterValue });
      return { status: 400, body: { results: [{ error: errorBody(e) }] } };
    }
    let groups: ParsedStatement[][];
    try {
      groups = readRequest(body, contentType);
    } catch (err) {
      if (err instanceof RequestError) return { status: err.status, body: { results: [{ error: errorBody(err) }] } };
      if (err instanceof ControlPlaneError) return { status: statusFor(err.code), body: { results: [{ error: errorBody(err) }] } };
      throw err;
    }
    const statements = groups.flat();
    const policy = RETRY_POLICIES['ddl.commit'];
    const idem = idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: await this.fingerprint(body ?? '') };
    for (let attempt = 1; ; attempt++) {
      try {
        if (idem) {
          // Checked on every attempt: a concurrent request with the same key may have just committed.
          const seen = await this.deps.store.getIdempotency(tenant, idem.key, this.clock());
          if (seen) {
            if (seen.fingerprint !== idem.fingerprint) {
              const e = new RequestError(422, 'Idempotency-Key was already used with a different request body', {
                code: SQLSTATE.invalidParameterValue,
                hint: 'Use a new key for a new request.',
              });
              return { status: 422, body: { results: [{ error: errorBody(e) }] } };
            }
            return { status: seen.status, body: JSON.parse(seen.body), replayed: true };
          }
        }
        const readOnly = statements.every((s) => READ_ONLY_KINDS.has(s.statement.kind));
        const response = readOnly ? await this.execute(tenant, principal, statements, true, idem) : await this.inTurn(tenant, () => this.execute(tenant, principal, statements, false, idem));
        if (idem && response.status !== 200) {
          // A twin request with this key may have committed between our check and our plan (and
          // made ours fail, e.g. on its own new name): its recorded answer is the answer.
          const twin = await this.deps.store.getIdempotency(tenant, idem.key, this.clock());
          if (twin && twin.fingerprint === idem.fingerprint) return { status: twin.status, body: JSON.parse(twin.body), replayed: true };
        }
        return response;
      } catch (err) {
        if (!(err instanceof CommitConflictError)) throw err;
        if (attempt >= policy.budget) {
          const e = new SerializationError('could not commit: concurrent changes to the same catalog objects', { detail: err.message });
          return { status: 409, body: { results: [{ error: errorBody(e) }] } };
        }
        this.deps.logger.info('commit conflict, replanning', { attempt, reasons: err.reasons });
        await new Promise((r) => setTimeout(r, backoffMs(policy, attempt) * (0.5 + Math.random())));
      }
    }
  }

  /**
   * What an Idempotency-Key's record remembers of the body: an HMAC under the deployment's key
   * (shared/secrets/fingerprint-key.ts), so the table never holds a plain hash of a body that may
   * carry a secret value. Without a key (in-process test harnesses only) a plain SHA-256.
   */
  private async fingerprint(body: string): Promise<string> {
    const key = await this.deps.fingerprintKey?.();
    return (key ? createHmac('sha256', key) : createHash('sha256')).update(body, 'utf8').digest('hex');
  }

  /**
   * One request's writes at a time per tenant in this process: they would only conflict on the
   * catalog version and replan. (A Lambda instance serves one request at a time; this matters for
   * the local API and any long-lived host.)
   */
  private async inTurn<T>(tenant: string, fn: () => Promise<T>): Promise<T> {
    const before = this.turns.get(tenant) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(tenant, tail);
    try {
      return await run;
    } finally {
      if (this.turns.get(tenant) === tail) this.turns.delete(tenant);
    }
  }

  /**
   * Plans on the tenant's snapshot and commits once; throws CommitConflictError to be replanned.
   * The snapshot may be this process's cached one: a commit on it holds only if the catalog is
   * still at its version, and any answer given without a commit (an error, a read, a no-op) is
   * given only after the snapshot is confirmed current — else planned again on a fresh one.
   */
  private async execute(tenant: string, principal: string, statements: readonly ParsedStatement[], readOnly: boolean, idem?: { key: string; fingerprint: string }): Promise<ApiResponse> {
    const store = this.deps.store;
    let basis = await store.basis(tenant);
    if (basis.cached && readOnly) {
      // Nothing to commit: confirm first rather than plan twice.
      const c = await store.confirm(tenant, basis);
      basis = c.current ? { ...basis, cached: false } : c.fresh;
    }
    for (;;) {
      const outcome = await this.attempt(tenant, principal, statements, basis, idem);
      if (!outcome.committed && basis.cached) {
        const c = await store.confirm(tenant, basis);
        if (!c.current) {
          basis = c.fresh;
          continue;
        }
      }
      if (outcome.recordAnswer && idem) {
        // A keyed request that changed nothing still records its answer, so that a retry — or a
        // concurrent twin that planned after another twin committed — answers the same.
        const recorded = await store.recordIdempotency(tenant, { ...idem, status: outcome.response.status, body: JSON.stringify(outcome.response.body) }, this.clock());
        if (recorded) return { status: recorded.status, body: JSON.parse(recorded.body), replayed: true };
      }
      return outcome.response;
    }
  }

  private async attempt(tenant: string, principal: string, statements: readonly ParsedStatement[], basis: CatalogBasis, idem?: { key: string; fingerprint: string }): Promise<Outcome> {
    const now = this.clock();
    // The SQL parser library that reads view bodies is a third of the bundle: load it only when needed.
    const needsViewDeps = statements.some((s) => /^(create_view|create_materialized_view|explain_effects)$/.test(s.statement.kind));
    const viewDeps = needsViewDeps ? await import('../sql/view-deps') : undefined;
    const ctx: PlanContext = {
      principal,
      now: now.toISOString(),
      newId: this.newId,
      ...(viewDeps ? { relationsReferenced: viewDeps.relationsReferenced, viewShape: viewDeps.viewShape } : {}),
    };
    const ws = new Workspace(basis.snapshot, ctx.now);
    const planner = new Planner(ws, ctx);
    const results: StatementResult[] = [];
    const writeTags: string[] = [];
    const size = new AnswerSize();
    for (const ps of statements) {
      try {
        const plan = planner.plan(ps);
        let result: StatementResult;
        if (plan.kind === 'write') {
          result = { ok: plan.tag, notices: plan.notices.map((message) => ({ message, severity: 'notice' as const })) };
          writeTags.push(plan.tag);
        } else if (plan.kind === 'txn') {
          result = { ok: plan.tag, notices: [] };
        } else if (plan.kind === 'rows') {
          result = rowsResult(plan.columns, plan.rows);
        } else {
          const inputs = await this.readInputs(tenant, ws, plan.statement);
          const rel = plan.statement.kind === 'select' ? evaluateSelect(plan.statement, inputs) : evaluateShow(plan.statement, inputs);
          result = selectResult(rel);
        }
        size.add(result, ps.start, idem !== undefined);
        results.push(result);
      } catch (err) {
        if (!(err instanceof ControlPlaneError) || err instanceof CommitConflictError) throw err;
        // A view body the first reader could not read: load PostgreSQL's parser and plan again.
        if (err.name === 'UnreadableViewBody' && !(err as { triedPostgres?: boolean }).triedPostgres) {
          if (await (await import('../sql/pg-parser')).loadPgParser()) return this.attempt(tenant, principal, statements, basis, idem);
        }
        const detail = results.length > 0 ? 'The request runs as one transaction: no statement in it was committed.' : undefined;
        results.push({ error: { ...errorBody(err), ...(detail && err.detail === undefined ? { detail } : {}) } });
        return { response: { status: statusFor(err.code), body: { results } }, committed: false };
      }
    }
    const changes = ws.diff();
    if (this.deps.prober) {
      // Purification: check every new connection, source and sink against its upstream before
      // anything commits; an unreachable upstream is the user's answer now, not a status later.
      const problem = await this.purify(tenant, ws, planner, changes);
      if (problem) {
        results.push({ error: { ...errorBody(problem), detail: 'The request runs as one transaction: no statement in it was committed.' } });
        return { response: { status: 400, body: { results } }, committed: false };
      }
    }
    if (changes.writes.length > 0) {
      // Statement history never holds a secret value.
      const txn: TxnRecord = { txnId: newTxnId(now), principal, statements: statements.map((s) => print(s.statement, { redacted: true })), tags: writeTags, createdAt: ctx.now };
      try {
        // Values first: a crash after this and before the commit leaves an unreferenced version
        // the sweeper removes; the reverse order could commit a secret without its value.
        const secretWrites = planner.secretWrites();
        if (secretWrites.length && !this.deps.secrets) throw new ControlPlaneError('no secret store is configured', { code: SQLSTATE.featureNotSupported });
        for (const w of secretWrites) await this.deps.secrets!.put(tenant, w.secretId, w.generation, w.value);
        await this.deps.store.commit(tenant, changes, txn, idem && { ...idem, status: 200, body: JSON.stringify({ results }) }, basis);
      } catch (err) {
        if (err instanceof CommitConflictError || !(err instanceof ControlPlaneError)) throw err;
        return { response: { status: statusFor(err.code), body: { results: [{ error: errorBody(err) }] } }, committed: false };
      }
      this.deps.logger.info('committed', { tenant, txnId: txn.txnId, writes: changes.writes.length, effects: changes.effects.length, tags: writeTags });
      // The records the commit wrote (the same ids as the outbox's), so the router's copies are duplicates.
      if (this.deps.sendEffects && changes.effects.length) await this.deps.sendEffects(changes.effects.map((e, i) => effectItem(tenant, txn, e, i + 1)));
      return { response: { status: 200, body: { results } }, committed: true };
    }
    return { response: { status: 200, body: { results } }, committed: false, recordAnswer: idem !== undefined };
  }

  private async purify(tenant: string, ws: Workspace, planner: Planner, changes: ReturnType<Workspace['diff']>): Promise<ControlPlaneError | undefined> {
    const view = ws.view();
    const pending = new Map(planner.secretWrites().map((w) => [w.secretId, w.value]));
    const get = async (id: string) => view.get(id) ?? (await this.deps.store.getObject(tenant, id));
    const input = (conn: ObjectOf<'connection'>) => resolveConnection(tenant, conn, get, this.deps.secrets, pending);
    for (const w of changes.writes) {
      if (w.op !== 'put_object') continue;
      const o = w.object;
      let result: ProbeResult | undefined;
      let what = '';
      if (o.kind === 'connection' && o.spec.validate) {
        result = await this.deps.prober!.probeConnection(await input(o));
        what = `connection ${o.name}`;
      } else if ((o.kind === 'source' || o.kind === 'sink') && (o.spec as { connectionId?: string }).connectionId) {
        const conn = (await get((o.spec as { connectionId: string }).connectionId)) as ObjectOf<'connection'> | undefined;
        if (!conn || !conn.spec.validate) continue;
        result = o.kind === 'source' ? await this.deps.prober!.probeSource(await input(conn), o.spec.options) : await this.deps.prober!.probeSink(await input(conn), o.spec.options);
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

  private async readInputs(tenant: string, ws: Workspace, s: Parameters<typeof inputsNeeded>[0]): Promise<SystemInputs> {
    const needs = inputsNeeded(s, ws.view());
    const statuses = new StatusStore(this.deps.store.doc, this.deps.store.table);
    const [replicaStatuses, effects, connectorStatuses, history] = await Promise.all([
      needs.has('replicaStatuses') ? this.deps.store.listReplicaStatuses(tenant) : [],
      needs.has('effects') ? this.deps.store.listEffects(tenant) : [],
      needs.has('connectorStatuses') ? statuses.list(tenant) : [],
      needs.has('history') ? statuses.history(tenant) : [],
    ]);
    return { snapshot: ws.view(), replicaStatuses, effects, connectorStatuses, history };
  }
}

/**
 * Bytes of an answer as a Lambda response carries it: its JSON, escaped once more into the proxy
 * response's `body` string. Past MAX_ANSWER_BYTES (or, with an Idempotency-Key, past what one
 * DynamoDB item can remember) the statement that crosses the line answers 54000 instead.
 */
class AnswerSize {
  private total = 0;

  add(result: StatementResult, position: number, remembered: boolean): void {
    this.total += Buffer.byteLength(JSON.stringify(JSON.stringify(result)), 'utf8');
    if (this.total > MAX_ANSWER_BYTES) {
      throw new PlanError(`answer exceeds ${MAX_ANSWER_BYTES} bytes, the most one response can carry`, {
        code: SQLSTATE.programLimitExceeded,
        position,
        hint: 'Read fewer rows or columns (WHERE, LIMIT, a column list), or split the statements over several requests.',
      });
    }
    if (remembered && this.total > MAX_IDEMPOTENT_ANSWER_BYTES) {
      throw new PlanError(`answer exceeds ${MAX_IDEMPOTENT_ANSWER_BYTES} bytes, the most an Idempotency-Key can remember`, {
        code: SQLSTATE.programLimitExceeded,
        position,
        hint: 'Send a request that only reads without an Idempotency-Key, or split the statements over several requests.',
      });
    }
  }
}

function rowsResult(columns: readonly string[], rows: readonly (readonly PlanValue[])[]): StatementResult {
  return {
    tag: `SELECT ${rows.length}`,
    rows,
    desc: { columns: columns.map((name) => ({ name, type_oid: TYPE_OIDS.text[0], type_len: TYPE_OIDS.text[1], type_mod: -1 })) },
    notices: [],
  };
}

function selectResult(rel: Relation): StatementResult {
  return {
    tag: `SELECT ${rel.rows.length}`,
    rows: rel.rows,
    desc: { columns: rel.columns.map((c) => ({ name: c.name, type_oid: TYPE_OIDS[c.type][0], type_len: TYPE_OIDS[c.type][1], type_mod: -1 })) },
    notices: [],
  };
}
