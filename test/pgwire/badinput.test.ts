/**
 * Bad input on the wire gets a clear error and costs nothing: oversized and malformed messages,
 * wrong passwords (28P01, the same answer whether the tenant exists or not), too many connections
 * (53300), a block left idle (25P03), a client that never reads, a half-closed socket, a cancel.
 * The server is the real one (shared/pgwire/server.ts) over a stand-in SQL API, so each limit is
 * shown alone; test/pgwire/clients.test.ts runs it on the real pipeline.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiResponse, RunOptions } from '../../shared/api/sql-api';
import { startPgServer, type PgServer, type PgServerOptions } from '../../shared/pgwire/server';
import type { ParsedStatement } from '../../shared/sql/ast';
import { fakePasswords, TEST_APP_PASSWORD } from '../helpers/pgwire';

const PASSWORD = TEST_APP_PASSWORD;
const logger = new Logger({ serviceName: 'pgwire-test', logLevel: 'ERROR' });

const passwords = fakePasswords;

/** Answers every statement `ok` with its kind; `rows` answers a query with that many rows. */
function fakeApi(o: { rows?: number; gate?: Promise<void>; calls?: ParsedStatement[][] } = {}) {
  return {
    async run(_t: string, _p: string, statements: readonly ParsedStatement[], _o: RunOptions = {}): Promise<ApiResponse> {
      o.calls?.push([...statements]);
      await o.gate;
      const results = statements.map((s) =>
        s.statement.kind === 'query'
          ? { tag: `SELECT ${o.rows ?? 1}`, rows: Array.from({ length: o.rows ?? 1 }, (_, i) => [`row ${i} ${'x'.repeat(200)}`]), desc: { columns: [{ name: 'v', type_oid: 25, type_len: -1, type_mod: -1 }] }, notices: [] }
          : { ok: s.statement.kind === 'set_variable' ? 'SET' : 'CREATE SCHEMA', notices: [] },
      );
      return { status: 200, body: { results } };
    },
  };
}

let server: PgServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(o: Partial<PgServerOptions> = {}) {
  server = await startPgServer({ api: fakeApi(), passwords, logger, defaultTenant: 't1', port: 0, ...o });
  return server;
}

const client = (extra: Partial<pg.ClientConfig> = {}) => new pg.Client({ host: '127.0.0.1', port: server!.port, user: 'materialize', password: PASSWORD, ...extra });

/** A raw socket: what the server writes, and whether it closed. */
function raw(): { socket: Socket; received: () => Buffer; closed: Promise<void> } {
  const socket = connect(server!.port, '127.0.0.1');
  let got = Buffer.alloc(0);
  socket.on('data', (d) => (got = Buffer.concat([got, d])));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  return { socket, received: () => got, closed };
}

function startup(user = 'materialize', extra: Record<string, string> = {}): Buffer {
  const parts = Object.entries({ user, ...extra }).flatMap(([k, v]) => [Buffer.from(`${k}\0${v}\0`)]);
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), ...parts, Buffer.from([0])]);
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length + 4);
  return Buffer.concat([len, body]);
}

/** The SQLSTATE of the last error or notice the server sent. */
const errorCode = (b: Buffer) => [...b.toString('latin1').matchAll(/C([0-9A-Z]{5})\0/g)].at(-1)?.[1];

async function stillServes() {
  const c = client();
  await c.connect();
  expect((await c.query('SELECT 1')).rows.length).toBeGreaterThan(0);
  await c.end();
}

describe('authentication', () => {
  it('refuses a wrong password with 28P01, by SCRAM and by cleartext, the same for a tenant that does not exist', async () => {
    await start();
    for (const cfg of [{ password: 'wrong' }, { password: 'wrong', options: '--tenant=nobody' }, { password: PASSWORD, options: '--tenant=nobody' }]) {
      const e = await client(cfg).connect().then(() => undefined, (x: { code?: string; message: string }) => x);
      expect(e?.code, JSON.stringify(cfg)).toBe('28P01');
      expect(e?.message).toBe('password authentication failed for user "materialize"');
    }
    await server!.close();
    server = undefined;
    // Cleartext (no tenant known, or a server told so): the password names its tenant.
    await start({ auth: 'cleartext' });
    const bad = await client({ password: 'wrong' }).connect().then(() => undefined, (x: { code?: string }) => x);
    expect(bad?.code).toBe('28P01');
    await stillServes();
  });

  it('refuses a startup without a user (28000), a startup packet of absurd length, and a client that never finishes its startup', async () => {
    await start({ startupTimeoutMs: 300 });
    const a = raw();
    a.socket.write(Buffer.concat([Buffer.from([0, 0, 0, 9, 0, 3, 0, 0]), Buffer.from([0])]));
    await a.closed;
    expect(errorCode(a.received())).toBe('28000');
    const b = raw();
    b.socket.write(Buffer.from([0x7f, 0xff, 0xff, 0xff]));
    await b.closed;
    expect(errorCode(b.received())).toBe('08P01');
    const c = raw();
    c.socket.write(Buffer.from([0, 0]));
    await c.closed;
    await stillServes();
  });
});

describe('limits', () => {
  it('answers 53300 past the connection cap', async () => {
    await start({ maxConnections: 2 });
    const [a, b] = [client(), client()];
    await a.connect();
    await b.connect();
    const e = await client().connect().then(() => undefined, (x: { code?: string }) => x);
    expect(e?.code).toBe('53300');
    await a.end();
    await b.end();
  });

  it('closes a connection whose message exceeds the cap (54000), before reading it, and goes on serving', async () => {
    await start({ maxMessageBytes: 1024 });
    const c = client();
    c.on('error', () => undefined);
    await c.connect();
    const e = await c.query(`SELECT '${'x'.repeat(5000)}'`).then(() => undefined, (x: { code?: string }) => x);
    expect(e?.code).toBe('54000');
    await stillServes();
  });

  it('closes a malformed message stream with 08P01', async () => {
    await start({ auth: 'cleartext' });
    const r = raw();
    r.socket.write(startup());
    r.socket.write(Buffer.from(`p\0\0\0${String.fromCharCode(4 + PASSWORD.length + 1)}${PASSWORD}\0`, 'latin1'));
    r.socket.write(Buffer.from([0x51, 0, 0, 0, 2]));
    await r.closed;
    expect(errorCode(r.received())).toBe('08P01');
    await stillServes();
  });

  it('ends a transaction block left idle past idle_in_transaction_session_timeout (25P03), with nothing committed', async () => {
    const calls: ParsedStatement[][] = [];
    await start({ api: fakeApi({ calls }) });
    // Materialize's variable, set at startup as libpq's PGOPTIONS sets it.
    const c = client({ options: '-c idle_in_transaction_session_timeout=200ms' });
    const errors: { code?: string }[] = [];
    c.on('error', (e) => errors.push(e as { code?: string }));
    await c.connect();
    await c.query('BEGIN');
    await c.query('CREATE SCHEMA s');
    const closed = new Promise<void>((r) => c.on('end', () => r()));
    await closed;
    expect(errors[0]?.code).toBe('25P03');
    // The block's statement was only ever planned (a dry run): no run without dryRun holds it.
    expect(calls.filter((s) => s.some((x) => x.statement.kind === 'create_schema'))).toHaveLength(1);
  });

  it('closes a client that never reads its answers, and goes on serving', async () => {
    const pw = Buffer.from(`${PASSWORD}\0`);
    const len = Buffer.alloc(4);
    len.writeInt32BE(pw.length + 4);
    await start({ api: fakeApi({ rows: 5000 }), maxUnreadBytes: 64 * 1024, auth: 'cleartext' });
    const s = raw();
    s.socket.pause();
    s.socket.write(startup());
    s.socket.write(Buffer.concat([Buffer.from('p'), len, pw]));
    const q = Buffer.from('SELECT 1\0');
    const ql = Buffer.alloc(4);
    ql.writeInt32BE(q.length + 4);
    for (let i = 0; i < 200; i++) s.socket.write(Buffer.concat([Buffer.from('Q'), ql, q]));
    // The server lets go of it (the client, paused, sees the close only once it reads).
    await expect.poll(() => server!.connections, { timeout: 30_000 }).toBe(0);
    s.socket.destroy();
    await stillServes();
  });

  it('drops a half-closed connection, and a block it left open is never committed', async () => {
    const calls: ParsedStatement[][] = [];
    await start({ api: fakeApi({ calls }), auth: 'cleartext' });
    const c = client();
    c.on('error', () => undefined);
    await c.connect();
    await c.query('BEGIN');
    await c.query('CREATE SCHEMA half');
    const socket = (c as unknown as { connection: { stream: Socket } }).connection.stream;
    socket.end();
    await new Promise<void>((r) => socket.on('close', () => r()));
    await expect.poll(() => server!.connections).toBe(0);
    expect(calls.every((s) => s.length === 2)).toBe(true); // BEGIN + CREATE, planned only
  });
});

/** A frontend message: type byte, length, body. */
function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), len, body]);
}

/** The SQLSTATEs of every error the server sent, in order. */
const errorCodes = (b: Buffer) => [...b.toString('latin1').matchAll(/E....S[A-Z]+\0(?:V[A-Z]+\0)?C([0-9A-Z]{5})\0/gs)].map((m) => m[1]);

describe('text that is not UTF-8', () => {
  // A lone surrogate cannot come as itself on the wire: only as the three bytes UTF-8 would give it (ED A0 80).
  const surrogate = Buffer.from([0xed, 0xa0, 0x80]);
  const invalid = Buffer.from([0xff, 0xfe]);

  it('is refused with 22021 in a query, a Parse and a statement name; the session goes on and nothing reaches the API', async () => {
    const calls: ParsedStatement[][] = [];
    await start({ api: fakeApi({ calls }), auth: 'cleartext' });
    const r = raw();
    r.socket.write(startup());
    r.socket.write(message('p', Buffer.from(`${PASSWORD}\0`)));
    r.socket.write(message('Q', Buffer.from('CREATE SCHEMA "'), surrogate, Buffer.from('x"\0')));
    r.socket.write(message('Q', Buffer.from('CREATE SCHEMA "'), invalid, Buffer.from('"\0')));
    r.socket.write(Buffer.concat([message('P', Buffer.from('\0CREATE SCHEMA "'), surrogate, Buffer.from('"\0'), Buffer.from([0, 0])), message('S')]));
    r.socket.write(Buffer.concat([message('P', Buffer.from('s'), invalid, Buffer.from('\0SELECT 1\0'), Buffer.from([0, 0])), message('S')]));
    r.socket.write(message('Q', Buffer.from('SELECT 1\0')));
    // Five answers, each ending with ReadyForQuery: the session was never ended.
    await expect.poll(() => r.received().toString('latin1').match(/Z\0\0\0\x05I/g)?.length ?? 0, { timeout: 10_000 }).toBe(6);
    expect(errorCodes(r.received())).toEqual(['22021', '22021', '22021', '22021']);
    expect(calls.map((c) => c.map((x) => x.statement.kind))).toEqual([['query']]);
    r.socket.destroy();
  });

  it('is refused with 22021 in a startup parameter (the connection ends), and the server goes on serving', async () => {
    await start({ auth: 'cleartext' });
    for (const bad of [surrogate, invalid]) {
      const r = raw();
      const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), Buffer.from('user\0materialize\0application_name\0'), bad, Buffer.from('\0\0')]);
      const len = Buffer.alloc(4);
      len.writeInt32BE(body.length + 4);
      r.socket.write(Buffer.concat([len, body]));
      await r.closed;
      expect(errorCode(r.received())).toBe('22021');
    }
    await stillServes();
  });
});

describe('cancel', () => {
  it('answers a running read 57014 when the client cancels it', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    await start({ api: fakeApi({ gate }) });
    const c = client();
    await c.connect();
    const pending = c.query('SELECT 1').then(() => undefined, (x: { code?: string }) => x);
    await new Promise((r) => setTimeout(r, 50));
    const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
    const body = Buffer.alloc(16);
    body.writeInt32BE(16, 0);
    body.writeInt32BE(80877102, 4);
    body.writeInt32BE(processID, 8);
    body.writeInt32BE(secretKey, 12);
    const k = raw();
    k.socket.write(body);
    await k.closed;
    open();
    expect((await pending)?.code).toBe('57014');
    // The connection goes on.
    expect((await c.query('SELECT 1')).rows).toHaveLength(1);
    await c.end();
  });
});
