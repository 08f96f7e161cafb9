/**
 * The Postgres wire endpoint (protocol 3.0): psql, psycopg2 (dbt), lib/pq (the Terraform
 * provider), pgjdbc and node-postgres connect here as they connect to Materialize on port 6875.
 * It is a front door only: every statement runs through the same `SqlApi.run` as `POST /api/sql`
 * (parsing, planning, one DynamoDB transaction per commit, idempotent effects, the SQL engine over
 * the catalog) — this file maps messages onto it:
 *
 * - a simple Query with several statements is one implicit transaction, as one HTTP request is;
 * - `BEGIN ... COMMIT` across messages is one transaction too: each statement of the block is
 *   answered by planning the block so far without committing (a dry run), and COMMIT plans the
 *   whole block again and commits it once — so a client that disconnects mid-block leaves nothing;
 * - the extended protocol (Parse/Bind/Describe/Execute/Sync/Close/Flush) runs each Execute outside
 *   a block as its own transaction; a query's `$n` parameters and result formats go to the SQL
 *   engine as the client bound them (binary included: PostgreSQL encodes them).
 *
 * The adapter that owns the sockets. Limits: the HTTP body cap per message, a connection cap
 * (53300), a startup deadline, Materialize's idle-in-transaction timeout, and a cap on output a
 * client leaves unread.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { randomInt } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import { MAX_BODY_BYTES, MAX_STATEMENTS, type ApiResponse, type RunOptions, type SqlApi } from '../api/sql-api';
import { WIRE_ROWS, type WireRows } from '../api/answer';
import type { QueryBind } from '../api/system-reads';
import type { ErrorBody, Notice, StatementResult } from '../api/wire';
import { actorOf } from '../auth/app-passwords';
import { ControlPlaneError, PgFatalError, SQLSTATE } from '../errors';
import { MZ_VERSION, Session } from '../planner/session';
import type { ParsedStatement } from '../sql/ast';
import { parse } from '../sql/parser';
import {
  authenticationCleartextPassword,
  authenticationOk,
  authenticationSasl,
  authenticationSaslContinue,
  authenticationSaslFinal,
  backendKeyData,
  bindComplete,
  closeComplete,
  commandComplete,
  dataRow,
  emptyQueryResponse,
  errorResponse,
  messages,
  noData,
  noticeResponse,
  parameterDescription,
  parameterStatus,
  parseComplete,
  portalSuspended,
  readyForQuery,
  rowDescription,
  type ErrorFields,
  type FieldDesc,
} from '../wire/protocol';
import { readClientFirst, serverFirst, tenantSalt, verifyClientFinal, type ScramServerState } from '../wire/scram';

/** How app passwords are checked: the same table and records as HTTP's. */
export interface PgPasswords {
  verifyPassword(password: string, tenant?: string): Promise<{ tenant: string; tokenId: string; role?: string }>;
  scramVerifiers(tenant: string): Promise<readonly { tokenId: string; storedKey: string; serverKey: string; role?: string }[]>;
}

export interface PgServerOptions {
  readonly api: Pick<SqlApi, 'run'>;
  readonly passwords: PgPasswords;
  readonly logger: Logger;
  /**
   * The tenant of a connection that names none (`options=--tenant=NAME`). With a tenant known,
   * the password is checked by SCRAM-SHA-256; without one, by cleartext (the password itself names
   * its tenant) — send it over TLS.
   */
  readonly defaultTenant?: string;
  /** `cleartext`: always ask for the password itself (clients without SCRAM). @default 'scram' */
  readonly auth?: 'scram' | 'cleartext';
  /** A certificate: an SSLRequest is answered 'S' and the connection goes on over TLS. Otherwise 'N'. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  /** @default 1000 */
  readonly maxConnections?: number;
  /** The largest message a client may send (bytes). @default the HTTP body cap */
  readonly maxMessageBytes?: number;
  /** Startup and authentication must end within this. @default 10 s */
  readonly startupTimeoutMs?: number;
  /** Output a client leaves unread beyond this closes the connection. @default 64 MiB */
  readonly maxUnreadBytes?: number;
  /**
   * Refuse a session that did not start TLS first (28000), as PostgreSQL's `hostssl` does: for a
   * server on a public network, where a cleartext password or an unencrypted session must never
   * cross. A CancelRequest (which libpq before 17 sends without TLS) is still served. Needs `tls`.
   * @default false
   */
  readonly requireTls?: boolean;
  /**
   * TCP keepalive on every connection, first probe after this much idle time. A load balancer in
   * front drops a flow that stays silent past its idle timeout (an AWS NLB's is 350 s) without
   * telling either side; keepalive probes count as traffic and keep an idle session open.
   * @default - the OS default (no keepalive)
   */
  readonly tcpKeepAliveMs?: number;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

/** Statements whose answers are rows (Describe needs their columns before Execute). */
const ROW_KINDS: ReadonlySet<string> = new Set(['query', 'show', 'select', 'show_variable', 'show_create', 'explain_effects']);
const TXN_KINDS: ReadonlySet<string> = new Set(['start_transaction', 'commit', 'rollback']);

/** 57P01 admin_shutdown and 57P03 cannot_connect_now (not in SQLSTATE yet). */
const SQLSTATE_ADMIN_SHUTDOWN = '57P01';
const SQLSTATE_CANNOT_CONNECT_NOW = '57P03';

const fatal = (code: string, message: string, extra: Partial<ErrorFields> = {}) => new PgFatalError({ severity: 'FATAL', code, message, ...extra });

export interface PgServer {
  readonly port: number;
  readonly connections: number;
  /** Closes every connection at once: a statement in flight loses its answer. */
  close(): Promise<void>;
  /**
   * Shuts down gently: stops accepting at once; a connection that is idle (or in startup) is told
   * so and closed now (57P01 `terminating connection due to administrator command`, 57P03 during
   * startup), one running a statement once that statement has been answered. An open `BEGIN`
   * block is dropped (nothing of it was committed). Connections still open after `deadlineMs`
   * are closed as by {@link close}. Resolves when every connection is closed.
   */
  drain(deadlineMs: number): Promise<void>;
  /** Serves new TLS handshakes with this certificate (a renewed one); open sessions keep theirs. */
  setTls(tls: { readonly key: string | Buffer; readonly cert: string | Buffer }): void;
}

export async function startPgServer(o: PgServerOptions & { readonly port: number; readonly host?: string }): Promise<PgServer> {
  if (o.requireTls && !o.tls) throw new Error('requireTls needs a certificate (tls)');
  const open = new Set<Connection>();
  const byKey = new Map<string, Connection>();
  let secure = o.tls ? createSecureContext({ key: o.tls.key, cert: o.tls.cert }) : undefined;
  const server: Server = createServer({ noDelay: true }, (socket) => {
    if (o.tcpKeepAliveMs !== undefined) socket.setKeepAlive(true, o.tcpKeepAliveMs);
    const c = new Connection(socket, o, secure, {
      opened: (conn) => open.add(conn),
      keyed: (key, conn) => byKey.set(key, conn),
      closed: (conn, key) => {
        open.delete(conn);
        if (key) byKey.delete(key);
      },
      cancel: (key) => byKey.get(key)?.cancel(),
      count: () => open.size,
    });
    c.start();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return open.size;
    },
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const c of open) c.terminate();
      await closed;
    },
    async drain(deadlineMs: number) {
      // server.close stops accepting now and calls back once the last connection has closed.
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const c of open) c.drain();
      const deadline = setTimeout(() => {
        for (const c of open) c.terminate();
      }, deadlineMs);
      await closed;
      clearTimeout(deadline);
    },
    setTls(tls) {
      secure = createSecureContext({ key: tls.key, cert: tls.cert });
    },
  };
}

interface Registry {
  opened(c: Connection): void;
  keyed(key: string, c: Connection): void;
  closed(c: Connection, key: string | undefined): void;
  cancel(key: string): void;
  count(): number;
}

interface Prepared {
  readonly text: string;
  readonly statement: ParsedStatement | undefined;
  readonly paramTypes: readonly number[];
}

interface Portal {
  readonly prepared: Prepared;
  readonly bind: QueryBind;
  /** The answer, once run (Describe of a row statement runs it; Execute sends from it). */
  answer?: StatementResult;
  /** Rows already sent (Execute with a row limit, then PortalSuspended). */
  sent: number;
}

/** An open `BEGIN ... ` block: its statements so far (from BEGIN on), planned again at each one. */
interface Block {
  readonly statements: ParsedStatement[];
  failed: boolean;
}

class Connection {
  private buf: Buffer = Buffer.alloc(0);
  private stream: Socket | TLSSocket;
  private phase: 'startup' | 'auth' | 'ready' | 'closed' = 'startup';
  private pumping = false;
  private tenant = '';
  private principal = '';
  /** The role the connection's app password acts as, and whether it is a superuser. */
  private actor: { role: string; superuser: boolean } = actorOf({});
  private session = new Session();
  private block: Block | undefined;
  private readonly prepared = new Map<string, Prepared>();
  private readonly portals = new Map<string, Portal>();
  /** After an error in the extended protocol, messages are skipped until Sync. */
  private skipToSync = false;
  private key: string | undefined;
  private startupTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private auth: { kind: 'cleartext' } | { kind: 'scram'; state?: ScramServerState } | undefined;
  private cancelled = false;
  private running = false;
  /** The server is shutting down: no further message is run, and the connection closes when idle. */
  private draining = false;

  constructor(
    socket: Socket,
    private readonly o: PgServerOptions,
    private readonly secure: SecureContext | undefined,
    private readonly registry: Registry,
  ) {
    this.stream = socket;
  }

  start(): void {
    this.registry.opened(this);
    this.attach(this.stream);
    this.startupTimer = setTimeout(() => this.fail(fatal(SQLSTATE.connectionFailure, 'startup and authentication did not finish in time')), this.o.startupTimeoutMs ?? 10_000);
  }

  private attach(s: Socket | TLSSocket): void {
    s.on('data', (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      void this.pump();
    });
    s.on('error', () => this.terminate());
    s.on('close', () => this.terminate());
    s.on('end', () => this.terminate());
  }

  /** Closes at once; an open block is dropped (nothing of it was committed). */
  terminate(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    clearTimeout(this.startupTimer);
    clearTimeout(this.idleTimer);
    this.block = undefined;
    this.stream.destroy();
    this.registry.closed(this, this.key);
  }

  cancel(): void {
    if (this.running) this.cancelled = true;
  }

  /** Server shutdown ({@link PgServer.drain}): closes now when idle, else once the message being run is answered. */
  drain(): void {
    if (this.draining || this.phase === 'closed') return;
    this.draining = true;
    if (!this.pumping) this.sayShutdown();
  }

  /**
   * Tells the client why and half-closes; the connection counts as open until the client hangs up
   * (its 'end' closes it), so an answer still in the socket's buffer reaches the client first.
   */
  private sayShutdown(): void {
    if (this.phase === 'closed' || this.stream.writableEnded) return;
    clearTimeout(this.startupTimer);
    clearTimeout(this.idleTimer);
    const f =
      this.phase === 'ready'
        ? fatal(SQLSTATE_ADMIN_SHUTDOWN, 'terminating connection due to administrator command')
        : fatal(SQLSTATE_CANNOT_CONNECT_NOW, 'the database system is shutting down');
    this.send(errorResponse(f.fields));
    this.stream.end();
  }

  private send(...bufs: Buffer[]): void {
    if (this.phase === 'closed') return;
    this.stream.write(bufs.length === 1 ? bufs[0]! : Buffer.concat(bufs));
    // A client that never reads its answers: stop before its backlog costs memory.
    if (this.stream.writableLength > (this.o.maxUnreadBytes ?? 64 * 1024 * 1024)) {
      this.o.logger.warn('pgwire client does not read its answers; closing', { unread: this.stream.writableLength });
      this.terminate();
    }
  }

  private fail(f: PgFatalError): void {
    this.send(errorResponse(f.fields));
    this.stream.end();
    this.terminate();
  }

  private get maxMessage(): number {
    return this.o.maxMessageBytes ?? MAX_BODY_BYTES;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.phase !== 'closed' && !this.draining) {
        if (this.phase === 'startup') {
          if (this.buf.length < 4) break;
          const len = this.buf.readInt32BE(0);
          if (len < 8 || len > 10_000) throw fatal(SQLSTATE.protocolViolation, `invalid startup packet length ${len}`);
          if (this.buf.length < len) break;
          const body = this.buf.subarray(4, len);
          this.buf = this.buf.subarray(len);
          await this.startup(body);
          continue;
        }
        if (this.buf.length < 5) break;
        const type = this.buf[0]!;
        const len = this.buf.readInt32BE(1);
        if (len < 4) throw fatal(SQLSTATE.protocolViolation, `invalid message length ${len}`);
        if (len - 4 > this.maxMessage) throw fatal(SQLSTATE.programLimitExceeded, `message of ${len - 4} bytes exceeds the limit of ${this.maxMessage} bytes`);
        if (this.buf.length < len + 1) break;
        const body = this.buf.subarray(5, len + 1);
        this.buf = this.buf.subarray(len + 1);
        if (this.phase === 'auth') await this.authMessage(type, body);
        else await this.message(type, body);
      }
    } catch (e) {
      if (e instanceof PgFatalError) this.fail(e);
      // Before the session is ready (a startup parameter or a password that is not UTF-8), an error ends the connection.
      else if (e instanceof ControlPlaneError) this.fail(fatal(e.code, e.message));
      else {
        this.o.logger.error('pgwire connection failed', { error: e as Error });
        this.fail(fatal(SQLSTATE.internalError, `internal error: ${(e as Error).message}`));
      }
    } finally {
      this.pumping = false;
    }
    if (this.draining) this.sayShutdown();
    else if (this.phase !== 'closed' && this.buf.length >= 5 && !this.pumping) void this.pump();
  }

  // ---- startup and authentication ---------------------------------------------------------------

  private async startup(body: Buffer): Promise<void> {
    const code = body.readInt32BE(0);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      if (code === SSL_REQUEST && this.secure && this.stream instanceof Object && !(this.stream instanceof TLSSocket)) {
        if (this.buf.length) throw fatal(SQLSTATE.protocolViolation, 'data after SSLRequest before the TLS handshake');
        this.stream.write('S');
        const raw = this.stream as Socket;
        raw.removeAllListeners('data');
        raw.removeAllListeners('end');
        raw.removeAllListeners('close');
        raw.removeAllListeners('error');
        const tls = new TLSSocket(raw, { isServer: true, secureContext: this.secure });
        this.stream = tls;
        this.attach(tls);
        return;
      }
      this.stream.write('N');
      return;
    }
    if (code === CANCEL_REQUEST) {
      if (body.length >= 12) this.registry.cancel(`${body.readInt32BE(4)}:${body.readInt32BE(8)}`);
      this.stream.end();
      this.terminate();
      return;
    }
    if (code >> 16 !== 3) throw fatal(SQLSTATE.protocolViolation, `unsupported frontend protocol ${code >> 16}.${code & 0xffff}: the server supports 3.0`);
    if (this.o.requireTls && !(this.stream instanceof TLSSocket)) {
      throw fatal('28000', 'this server accepts TLS connections only: connect with sslmode=require (or verify-full)');
    }
    if (code !== PROTOCOL_3 && (code & 0xffff) > 0) {
      // A newer minor version: PostgreSQL answers NegotiateProtocolVersion; we take 3.0 and say so.
      this.send(Buffer.concat([Buffer.from([0x76]), int32(12), int32(PROTOCOL_3), int32(0)]));
    }
    const params = startupParams(body.subarray(4));
    const user = params.user;
    if (!user) throw fatal('28000', 'no PostgreSQL user name specified in startup packet');
    if (this.registry.count() > (this.o.maxConnections ?? 1000)) throw fatal('53300', 'sorry, too many clients already');
    const { tenant, settings } = readOptions(params.options ?? '');
    const overrides: Record<string, string> = { ...settings };
    for (const [k, v] of Object.entries(params)) if (!['user', 'options', 'replication'].includes(k)) overrides[k] = v;
    try {
      this.session = new Session(user, overrides);
    } catch (e) {
      if (e instanceof ControlPlaneError) throw fatal(e.code, e.message);
      throw e;
    }
    this.tenant = tenant ?? this.o.defaultTenant ?? '';
    this.phase = 'auth';
    if (this.tenant && this.o.auth !== 'cleartext') {
      this.auth = { kind: 'scram' };
      this.send(authenticationSasl(['SCRAM-SHA-256']));
    } else {
      this.auth = { kind: 'cleartext' };
      this.send(authenticationCleartextPassword());
    }
  }

  private async authMessage(type: number, body: Buffer): Promise<void> {
    if (type !== 0x70) throw fatal(SQLSTATE.protocolViolation, `expected a password message, got '${String.fromCharCode(type)}'`);
    const badPassword = fatal('28P01', `password authentication failed for user "${this.session.user}"`);
    if (this.auth?.kind === 'cleartext') {
      const password = cstring(body, 0)[0];
      try {
        const p = await this.o.passwords.verifyPassword(password, this.tenant || undefined);
        this.tenant = p.tenant;
        this.principal = `${p.tenant}/${p.tokenId}`;
        this.actor = actorOf(p);
      } catch {
        throw badPassword;
      }
      return this.ready();
    }
    const scram = this.auth!;
    if (scram.kind !== 'scram') throw badPassword;
    if (!scram.state) {
      const [mechanism, at] = cstring(body, 0);
      if (mechanism !== 'SCRAM-SHA-256') throw fatal('28000', `SASL authentication mechanism ${mechanism} is not supported: use SCRAM-SHA-256`);
      const len = body.readInt32BE(at);
      const first = readClientFirst(body.subarray(at + 4, at + 4 + Math.max(0, len)).toString('utf8'));
      if (!first) throw fatal(SQLSTATE.protocolViolation, 'malformed SCRAM client-first-message');
      scram.state = serverFirst(first, tenantSalt(this.tenant));
      this.send(authenticationSaslContinue(scram.state.serverFirst));
      return;
    }
    // Read every time: a revoked password stops working at once. An unknown tenant has none (no hint which).
    const verifiers = await this.o.passwords.scramVerifiers(this.tenant);
    const ok = verifyClientFinal(scram.state, body.toString('utf8'), verifiers);
    if (!ok) throw badPassword;
    this.principal = `${this.tenant}/${verifiers[ok.index]!.tokenId}`;
    this.actor = actorOf(verifiers[ok.index]!);
    this.send(authenticationSaslFinal(ok.serverFinal));
    return this.ready();
  }

  private ready(): void {
    clearTimeout(this.startupTimer);
    this.session.superuser = this.actor.superuser;
    this.phase = 'ready';
    const pid = randomInt(1, 2 ** 31 - 1);
    const secret = randomInt(1, 2 ** 31 - 1) | 0;
    this.key = `${pid}:${secret}`;
    this.registry.keyed(this.key, this);
    const reported = this.session.reported();
    const out = [authenticationOk(), ...reported.map((r) => parameterStatus(r.name, r.value))];
    if (!reported.some((r) => r.name === 'server_encoding')) out.push(parameterStatus('server_encoding', 'UTF8'));
    out.push(parameterStatus('session_authorization', this.session.user));
    out.push(backendKeyData(pid, secret));
    this.session.drainChanges();
    if (this.session.get('welcome_message') === 'on') {
      out.push(noticeResponse({ severity: 'NOTICE', code: '00000', message: `connected to Materialize ${MZ_VERSION} (the ddl-control-plane catalog)`, detail: `User: ${this.session.user}\nCluster: ${this.session.get('cluster')}\nDatabase: ${this.session.database}\nSchema: ${this.session.searchPath[0] ?? ''}` }));
    }
    out.push(readyForQuery('I'));
    this.send(...out);
  }

  // ---- the session's messages ------------------------------------------------------------------

  private async message(type: number, body: Buffer): Promise<void> {
    clearTimeout(this.idleTimer);
    const t = String.fromCharCode(type);
    if (t === 'X') {
      this.stream.end();
      this.terminate();
      return;
    }
    if (t === 'S') {
      this.skipToSync = false;
      this.readyForQuery();
      return;
    }
    if (t === 'H') return; // Flush: every answer is written as it is made.
    if (this.skipToSync && 'PBDEC'.includes(t)) return;
    this.running = true;
    this.cancelled = false;
    try {
      switch (t) {
        case 'Q':
          await this.simpleQuery(cstring(body, 0)[0]);
          this.readyForQuery();
          return;
        case 'P':
          return this.parseMessage(body);
        case 'B':
          return this.bindMessage(body);
        case 'D':
          return await this.describeMessage(body);
        case 'E':
          return await this.executeMessage(body);
        case 'C': {
          const [name] = cstring(body, 1);
          if (body[0] === 0x53) this.prepared.delete(name);
          else this.portals.delete(name);
          this.send(closeComplete());
          return;
        }
        case 'd':
        case 'c':
        case 'f':
          return; // COPY data outside COPY: ignored, as PostgreSQL does.
        default:
          throw fatal(SQLSTATE.protocolViolation, `invalid frontend message type '${t}'`);
      }
    } catch (e) {
      if (e instanceof PgFatalError) throw e;
      if (!(e instanceof ControlPlaneError)) throw e;
      this.sendError(errorOf(e));
      if ('PBDE'.includes(t)) this.skipToSync = true;
      if (t === 'Q') this.readyForQuery();
    } finally {
      this.running = false;
    }
  }

  private readyForQuery(): void {
    const state = this.block ? (this.block.failed ? 'E' : 'T') : 'I';
    this.send(readyForQuery(state));
    if (this.block) {
      const ms = idleMs(this.session.get('idle_in_transaction_session_timeout'));
      if (ms > 0) this.idleTimer = setTimeout(() => this.fail(fatal('25P03', 'terminating connection due to idle-in-transaction timeout')), ms);
    }
  }

  private sendError(err: ErrorBody, statementText = ''): void {
    if (this.block) this.block.failed = true;
    this.send(errorResponse(wireError(err, statementText)));
  }

  /** Simple query: statements outside a block run together as one transaction; inside one, each joins it. */
  private async simpleQuery(sql: string): Promise<void> {
    const statements = parseText(sql);
    if (statements.length === 0) {
      this.send(emptyQueryResponse());
      return;
    }
    let i = 0;
    while (i < statements.length) {
      const s = statements[i]!;
      if (this.block || TXN_KINDS.has(s.statement.kind)) {
        const r = await this.inBlock(s);
        if (!this.sendResult(r, { describe: true, text: sql })) return;
        i++;
        continue;
      }
      // The implicit transaction: up to the next BEGIN (or COMMIT/ROLLBACK).
      let j = i;
      while (j < statements.length && !TXN_KINDS.has(statements[j]!.statement.kind)) j++;
      const group = statements.slice(i, j);
      const response = await this.run(group, {});
      const results = resultsOf(response);
      for (const r of results) if (!this.sendResult(r, { describe: true, text: sql })) return;
      i = j;
    }
  }

  /** One statement with the block in mind: BEGIN opens it, COMMIT runs it, the rest join it. */
  private async inBlock(s: ParsedStatement, bind?: QueryBind): Promise<StatementResult> {
    const kind = s.statement.kind;
    if (!this.block) {
      if (kind === 'start_transaction') {
        this.block = { statements: [s], failed: false };
        this.session.begin();
        return { ok: 'BEGIN', notices: [] };
      }
      if (kind === 'commit' || kind === 'rollback') {
        return { ok: kind === 'commit' ? 'COMMIT' : 'ROLLBACK', notices: [{ message: 'there is no transaction in progress', severity: 'warning' }] };
      }
      return resultsOf(await this.run([s], bind ? { bind } : {})).at(-1)!;
    }
    const block = this.block;
    if (kind === 'start_transaction') return { ok: 'BEGIN', notices: [{ message: 'there is already a transaction in progress', severity: 'warning' }] };
    if (block.failed) {
      if (kind === 'commit' || kind === 'rollback') return this.endBlock(false);
      return { error: { code: '25P02', message: 'current transaction is aborted, commands ignored until end of transaction block' } };
    }
    if (kind === 'rollback') return this.endBlock(false);
    if (kind === 'commit') {
      // The whole block again, for real: one commit. Its answers were given; COMMIT's is the last.
      this.block = undefined;
      const session = this.session;
      session.end(false);
      const response = await this.run([...block.statements, s], {});
      const results = resultsOf(response);
      const last = results.at(-1)!;
      if ('error' in last) {
        const { position: _p, ...error } = last.error;
        return { error: { ...error, detail: error.detail ?? 'The transaction block was not committed: none of its statements took effect.' } };
      }
      return { ok: 'COMMIT', notices: last.notices ?? [] };
    }
    block.statements.push(s);
    const results = resultsOf(await this.run(block.statements, { dryRun: true, ...(bind ? { bind } : {}) }, true));
    const last = results.at(-1)!;
    if ('error' in last) block.statements.pop();
    return last;
  }

  private endBlock(_committed: boolean): StatementResult {
    this.block = undefined;
    this.session.end(false);
    return { ok: 'ROLLBACK', notices: [] };
  }

  /**
   * Runs statements through the SQL API with this connection's session. A dry run (a block's
   * statement) plans on a copy, so the session takes its SETs only when the block commits.
   */
  private async run(statements: readonly ParsedStatement[], o: Omit<RunOptions, 'session'>, copy = false): Promise<ApiResponse> {
    const session = copy ? this.session.clone() : this.session;
    const response = await this.o.api.run(this.tenant, this.principal, statements, { ...o, session, actor: this.actor });
    // A cancelled read answers 57014; a write that committed stays committed (its answer says so).
    if (this.cancelled && (o.dryRun || statements.every((s) => ROW_KINDS.has(s.statement.kind)))) {
      this.cancelled = false;
      return { status: 400, body: { results: [{ error: { code: '57014', message: 'canceling statement due to user request' } }] } };
    }
    return response;
  }

  /** Writes one statement's answer; false after an error (the rest of the message is not run). */
  private sendResult(r: StatementResult, o: { describe: boolean; text: string; maxRows?: number; portal?: Portal }): boolean {
    for (const n of r.notices ?? []) this.send(noticeResponse(noticeFields(n)));
    if ('error' in r) {
      this.sendError(r.error, o.text);
      return false;
    }
    if ('ok' in r) {
      this.sendChanges();
      this.send(commandComplete(r.ok));
      return true;
    }
    const wire = (r as { [WIRE_ROWS]?: WireRows })[WIRE_ROWS];
    const formats = o.portal?.bind.resultFormats ?? [];
    if (o.describe) this.send(rowDescription(wire ? wire.fields : fieldsOf(r, formats)));
    // The engine's DataRow messages go out as it wrote them (text or binary, as bound).
    const rows = wire ? [...messages(wire.rows)].map((m) => wire.rows.subarray(m.start, m.end)) : undefined;
    const total = rows ? rows.length : r.rows.length;
    const from = o.portal?.sent ?? 0;
    const to = o.maxRows ? Math.min(total, from + o.maxRows) : total;
    const out: Buffer[] = [];
    for (let k = from; k < to; k++) {
      if (rows) out.push(rows[k]!);
      else out.push(dataRow(r.rows[k]!.map((v, c) => encodeValue(v, r.desc.columns[c]!.type_oid, formatOf(formats, c)))));
    }
    if (out.length) this.send(...out);
    if (o.portal) o.portal.sent = to;
    if (to < total) {
      this.send(portalSuspended());
      return true;
    }
    this.sendChanges();
    this.send(commandComplete(r.tag));
    return true;
  }

  private sendChanges(): void {
    for (const c of this.session.drainChanges()) this.send(parameterStatus(c.name, c.value));
  }

  // ---- extended protocol -----------------------------------------------------------------------

  private parseMessage(body: Buffer): void {
    const [name, at] = cstring(body, 0);
    const [sql, at2] = cstring(body, at);
    const n = body.readInt16BE(at2);
    const paramTypes: number[] = [];
    for (let k = 0; k < n; k++) paramTypes.push(body.readInt32BE(at2 + 2 + 4 * k));
    const statements = parseText(sql);
    if (statements.length > 1) throw new ControlPlaneError('cannot insert multiple commands into a prepared statement', { code: SQLSTATE.syntaxError });
    if (name !== '' && this.prepared.has(name)) throw new ControlPlaneError(`prepared statement "${name}" already exists`, { code: '42P05' });
    this.prepared.set(name, { text: sql, statement: statements[0], paramTypes });
    this.send(parseComplete());
  }

  private bindMessage(body: Buffer): void {
    const [portal, a1] = cstring(body, 0);
    const [stmt, a2] = cstring(body, a1);
    const prepared = this.prepared.get(stmt);
    if (!prepared) throw new ControlPlaneError(`prepared statement "${stmt}" does not exist`, { code: '26000' });
    let p = a2;
    const nf = body.readInt16BE(p);
    p += 2;
    const paramFormats: number[] = [];
    for (let k = 0; k < nf; k++, p += 2) paramFormats.push(body.readInt16BE(p));
    const np = body.readInt16BE(p);
    p += 2;
    const params: (Buffer | null)[] = [];
    for (let k = 0; k < np; k++) {
      const len = body.readInt32BE(p);
      p += 4;
      if (len < 0) params.push(null);
      else {
        params.push(Buffer.from(body.subarray(p, p + len)));
        p += len;
      }
    }
    const nr = body.readInt16BE(p);
    p += 2;
    const resultFormats: number[] = [];
    for (let k = 0; k < nr; k++, p += 2) resultFormats.push(body.readInt16BE(p));
    const kind = prepared.statement?.statement.kind;
    if (params.length > 0 && kind !== 'query') {
      throw new ControlPlaneError(`there is no parameter $1: only queries (SELECT) take parameters, ${kind?.replace(/_/g, ' ') ?? 'an empty statement'} does not`, { code: '42P02' });
    }
    if (kind !== 'query' && resultFormats.some((f) => f === 1) && !ROW_KINDS.has(kind ?? '')) resultFormats.length = 0;
    if (portal !== '' && this.portals.has(portal)) throw new ControlPlaneError(`portal "${portal}" already exists`, { code: '42P03' });
    this.portals.set(portal, { prepared, bind: { params, paramTypes: prepared.paramTypes, paramFormats, resultFormats }, sent: 0 });
    this.send(bindComplete());
  }

  private async describeMessage(body: Buffer): Promise<void> {
    const [name] = cstring(body, 1);
    if (body[0] === 0x53) {
      const prepared = this.prepared.get(name);
      if (!prepared) throw new ControlPlaneError(`prepared statement "${name}" does not exist`, { code: '26000' });
      const kind = prepared.statement?.statement.kind;
      if (kind === 'query') {
        const d = await this.describeQuery(prepared, { params: [], paramTypes: prepared.paramTypes, paramFormats: [], resultFormats: [] });
        this.send(parameterDescription(d.paramTypes), d.fields.length ? rowDescription(d.fields) : noData());
        return;
      }
      this.send(parameterDescription([]));
      if (!prepared.statement || !ROW_KINDS.has(kind!)) {
        this.send(noData());
        return;
      }
      const r = await this.inBlockOrDry(prepared.statement);
      if ('error' in r) throw errorAsException(r.error);
      this.send('ok' in r ? noData() : rowDescription(fieldsOf(r, [])));
      return;
    }
    const portal = this.portals.get(name);
    if (!portal) throw new ControlPlaneError(`portal "${name}" does not exist`, { code: '34000' });
    const s = portal.prepared.statement;
    if (!s || !ROW_KINDS.has(s.statement.kind)) {
      this.send(noData());
      return;
    }
    // A row statement, a query included: run it now (it only reads) and keep its answer for Execute,
    // which clients send in the same batch (Bind, Describe, Execute, Sync): one catalog read, one
    // analysis and one engine run, not a describe-only run and then the same query again.
    const query = s.statement.kind === 'query';
    portal.answer ??= await this.inBlock(s, query ? portal.bind : undefined);
    const r = portal.answer;
    if ('error' in r) {
      portal.answer = undefined;
      throw errorAsException(r.error);
    }
    const wire = (r as { [WIRE_ROWS]?: WireRows })[WIRE_ROWS];
    if (query && wire) this.send(wire.fields.length ? rowDescription(wire.fields) : noData());
    else this.send('ok' in r ? noData() : rowDescription(wire ? wire.fields : fieldsOf(r, portal.bind.resultFormats)));
  }

  /** A row statement's answer for Describe, without joining (or opening) the block. */
  private async inBlockOrDry(s: ParsedStatement): Promise<StatementResult> {
    const statements = this.block ? [...this.block.statements, s] : [s];
    return resultsOf(await this.run(statements, { dryRun: true }, true)).at(-1)!;
  }

  private async describeQuery(prepared: Prepared, bind: QueryBind): Promise<{ paramTypes: readonly number[]; fields: readonly FieldDesc[] }> {
    const statements = this.block ? [...this.block.statements, prepared.statement!] : [prepared.statement!];
    const response = await this.run(statements, { dryRun: true, bind: { ...bind, describeOnly: true } }, true);
    const last = resultsOf(response).at(-1)!;
    if ('error' in last) throw errorAsException(last.error, prepared.text);
    const wire = (last as { [WIRE_ROWS]?: WireRows })[WIRE_ROWS];
    return { paramTypes: wire?.paramTypes ?? [], fields: wire?.fields ?? [] };
  }

  private async executeMessage(body: Buffer): Promise<void> {
    const [name, at] = cstring(body, 0);
    const maxRows = body.readInt32BE(at);
    const portal = this.portals.get(name);
    if (!portal) throw new ControlPlaneError(`portal "${name}" does not exist`, { code: '34000' });
    const s = portal.prepared.statement;
    if (!s) {
      this.send(emptyQueryResponse());
      return;
    }
    portal.answer ??= await this.inBlock(s, s.statement.kind === 'query' ? portal.bind : undefined);
    const ok = this.sendResult(portal.answer, { describe: false, text: portal.prepared.text, portal, ...(maxRows > 0 ? { maxRows } : {}) });
    if (!ok) this.skipToSync = true;
    // The unnamed portal lives until the next Bind; a finished one answers again only from the start.
  }
}

// ---- helpers (pure) --------------------------------------------------------------------------------

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A string of a message (a query, a statement or portal name, a startup parameter, a password):
 * invalid UTF-8 is 22021, as over HTTP — never replaced by U+FFFD. A lone surrogate cannot come
 * as itself on the wire, only as the bytes UTF-8 would give it (ED A0 80): invalid UTF-8 too.
 */
function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  if (end < 0) throw fatal(SQLSTATE.protocolViolation, 'invalid message: unterminated string');
  try {
    return [UTF8.decode(buf.subarray(at, end)), end + 1];
  } catch {
    throw new ControlPlaneError('invalid byte sequence for encoding "UTF8"', { code: SQLSTATE.characterNotInRepertoire });
  }
}

function parseText(sql: string): ParsedStatement[] {
  return parse(sql, { maxStatements: MAX_STATEMENTS });
}

function startupParams(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const [k, a1] = cstring(body, at);
    const [v, a2] = cstring(body, a1);
    out[k] = v;
    at = a2;
  }
  return out;
}

/** `options`: `-c name=value` and `--name=value`, as libpq sends PGOPTIONS; `tenant` picks the tenant. */
export function readOptions(options: string): { tenant?: string; settings: Record<string, string> } {
  const settings: Record<string, string> = {};
  let tenant: string | undefined;
  const words = options.match(/(?:\\.|[^\s\\])+/g)?.map((w) => w.replace(/\\(.)/g, '$1')) ?? [];
  for (let k = 0; k < words.length; k++) {
    let w = words[k]!;
    if (w === '-c') w = words[++k] ?? '';
    else if (w.startsWith('-c')) w = w.slice(2);
    else if (w.startsWith('--')) w = w.slice(2);
    else continue;
    const eq = w.indexOf('=');
    if (eq <= 0) continue;
    const name = w.slice(0, eq).replace(/-/g, '_');
    if (name === 'tenant') tenant = w.slice(eq + 1);
    else settings[name] = w.slice(eq + 1);
  }
  return { ...(tenant !== undefined ? { tenant } : {}), settings };
}

function resultsOf(r: ApiResponse): StatementResult[] {
  const body = r.body as { results?: StatementResult[]; error?: ErrorBody };
  if (body.results?.length) return body.results;
  return [{ error: body.error ?? { code: SQLSTATE.internalError, message: `request failed with HTTP ${r.status}` } }];
}

function errorOf(e: ControlPlaneError): ErrorBody {
  return { code: e.code, message: e.message, ...(e.detail ? { detail: e.detail } : {}), ...(e.hint ? { hint: e.hint } : {}), ...(e.position !== undefined ? { position: e.position } : {}) };
}

function errorAsException(err: ErrorBody, _text = ''): ControlPlaneError {
  return new ControlPlaneError(err.message, { code: err.code, ...(err.detail ? { detail: err.detail } : {}), ...(err.hint ? { hint: err.hint } : {}), ...(err.position !== undefined ? { position: err.position } : {}) });
}

/** Our error (a byte offset) as PostgreSQL's fields (a 1-based character position in the query string). */
export function wireError(err: ErrorBody, statementText: string): ErrorFields {
  const position = err.position !== undefined && statementText ? Buffer.from(statementText, 'utf8').subarray(0, err.position).toString('utf8').length + 1 : undefined;
  return { severity: 'ERROR', code: err.code, message: err.message, ...(err.detail ? { detail: err.detail } : {}), ...(err.hint ? { hint: err.hint } : {}), ...(position !== undefined ? { position } : {}) };
}

function noticeFields(n: Notice): ErrorFields {
  return { severity: n.severity === 'warning' ? 'WARNING' : 'NOTICE', code: n.severity === 'warning' ? '01000' : '00000', message: n.message };
}

const TYPE_LEN: Readonly<Record<number, number>> = { 16: 1, 20: 8, 21: 2, 23: 4, 26: 4, 700: 4, 701: 8, 1184: 8, 1114: 8 };

function fieldsOf(r: Extract<StatementResult, { rows: unknown }>, formats: readonly number[]): FieldDesc[] {
  return r.desc.columns.map((c, k) => ({ name: c.name, tableOid: 0, columnAttr: 0, typeOid: c.type_oid, typeLen: TYPE_LEN[c.type_oid] ?? c.type_len, typeMod: c.type_mod, format: formatOf(formats, k) }));
}

const formatOf = (formats: readonly number[], k: number): number => (formats.length === 1 ? formats[0]! : (formats[k] ?? 0));

/** A JSON value of an answer computed without the engine (SHOW, rows plans), in the column's format. */
export function encodeValue(v: unknown, typeOid: number, format: number): Buffer | null {
  if (v === null || v === undefined) return null;
  if (format === 1) {
    if (typeOid === 16) return Buffer.from([v === true || v === 't' ? 1 : 0]);
    if (typeOid === 20) {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(BigInt(v as number | string));
      return b;
    }
    if (typeOid === 23) return int32(Number(v));
  }
  if (typeof v === 'boolean') return Buffer.from(v ? 't' : 'f');
  if (Array.isArray(v)) return Buffer.from(arrayText(v));
  if (typeof v === 'object') return Buffer.from(JSON.stringify(v));
  return Buffer.from(String(v), 'utf8');
}

function arrayText(v: readonly unknown[]): string {
  return `{${v.map((x) => (x === null ? 'NULL' : Array.isArray(x) ? arrayText(x) : `"${String(x).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}

function idleMs(setting: string): number {
  const m = /^(\d+)\s*(ms|s)?$/.exec(setting.trim());
  if (!m) return 0;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : 1000);
}
