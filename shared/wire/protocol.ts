/**
 * PostgreSQL protocol 3.0 messages, both ways: what our server writes to clients (backend
 * messages) and sends to the SQL engine (frontend messages), and readers of the backend messages
 * the engine answers with. Framing (type byte, length, C strings) is pg-protocol's `Writer`, the
 * one node-postgres writes its messages with; the message layouts are PostgreSQL's
 * (https://www.postgresql.org/docs/current/protocol-message-formats.html). Pure: buffers in,
 * buffers out.
 */
import { Writer } from 'pg-protocol/dist/buffer-writer.js';

/** A column of a RowDescription. */
export interface FieldDesc {
  readonly name: string;
  readonly tableOid: number;
  readonly columnAttr: number;
  readonly typeOid: number;
  readonly typeLen: number;
  readonly typeMod: number;
  /** 0 text, 1 binary. */
  readonly format: number;
}

/** The fields of an ErrorResponse or NoticeResponse, by PostgreSQL's field codes. */
export interface ErrorFields {
  readonly severity: string;
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based, in characters of the query string, as PostgreSQL counts. */
  readonly position?: number;
  readonly [field: string]: string | number | undefined;
}

const FIELD_CODES: Readonly<Record<string, string>> = { S: 'severity', V: 'severityNonLocalized', C: 'code', M: 'message', D: 'detail', H: 'hint', P: 'position', p: 'internalPosition', q: 'internalQuery', W: 'where', s: 'schema', t: 'table', c: 'column', d: 'dataType', n: 'constraint', F: 'file', L: 'line', R: 'routine' };

// ---- backend messages (server → client) ---------------------------------------------------------

const w = () => new Writer();

export const authenticationOk = (): Buffer => w().addInt32(0).flush(0x52);
export const authenticationCleartextPassword = (): Buffer => w().addInt32(3).flush(0x52);
export const authenticationSasl = (mechanisms: readonly string[]): Buffer => {
  const out = w().addInt32(10);
  for (const m of mechanisms) out.addCString(m);
  return out.addCString('').flush(0x52);
};
export const authenticationSaslContinue = (data: string): Buffer => w().addInt32(11).addString(data).flush(0x52);
export const authenticationSaslFinal = (data: string): Buffer => w().addInt32(12).addString(data).flush(0x52);
export const parameterStatus = (name: string, value: string): Buffer => w().addCString(name).addCString(value).flush(0x53);
export const backendKeyData = (pid: number, secret: number): Buffer => w().addInt32(pid).addInt32(secret).flush(0x4b);
export const readyForQuery = (status: 'I' | 'T' | 'E'): Buffer => w().add(Buffer.from(status)).flush(0x5a);
export const parseComplete = (): Buffer => w().flush(0x31);
export const bindComplete = (): Buffer => w().flush(0x32);
export const closeComplete = (): Buffer => w().flush(0x33);
export const noData = (): Buffer => w().flush(0x6e);
export const portalSuspended = (): Buffer => w().flush(0x73);
export const emptyQueryResponse = (): Buffer => w().flush(0x49);
export const commandComplete = (tag: string): Buffer => w().addCString(tag).flush(0x43);

export function parameterDescription(oids: readonly number[]): Buffer {
  const out = w().addInt16(oids.length);
  for (const o of oids) out.addInt32(o);
  return out.flush(0x74);
}

export function rowDescription(fields: readonly FieldDesc[]): Buffer {
  const out = w().addInt16(fields.length);
  for (const f of fields) out.addCString(f.name).addInt32(f.tableOid).addInt16(f.columnAttr).addInt32(f.typeOid).addInt16(f.typeLen).addInt32(f.typeMod).addInt16(f.format);
  return out.flush(0x54);
}

/** A DataRow of values already encoded (text as UTF-8, or binary); `null` is SQL NULL. */
export function dataRow(values: readonly (Buffer | null)[]): Buffer {
  const out = w().addInt16(values.length);
  for (const v of values) {
    if (v === null) out.addInt32(-1);
    else out.addInt32(v.length).add(v);
  }
  return out.flush(0x44);
}

function fieldsMessage(code: number, f: ErrorFields): Buffer {
  const out = w();
  const put = (k: string, v: string | number | undefined) => {
    if (v === undefined || v === '') return;
    out.add(Buffer.from(k));
    out.addCString(String(v));
  };
  put('S', f.severity);
  put('V', f.severity);
  put('C', f.code);
  put('M', f.message);
  put('D', f.detail);
  put('H', f.hint);
  put('P', f.position);
  out.add(Buffer.from([0]));
  return out.flush(code);
}

export const errorResponse = (f: ErrorFields): Buffer => fieldsMessage(0x45, f);
export const noticeResponse = (f: ErrorFields): Buffer => fieldsMessage(0x4e, f);

// ---- frontend messages (to the SQL engine) --------------------------------------------------------

export const fQuery = (text: string): Buffer => w().addCString(text).flush(0x51);

export function fParse(text: string, paramTypes: readonly number[] = [], name = ''): Buffer {
  const out = w().addCString(name).addCString(text).addInt16(paramTypes.length);
  for (const t of paramTypes) out.addInt32(t);
  return out.flush(0x50);
}

/** Bind with PostgreSQL's own format-code rules: none (all text), one (for all) or one per value. */
export function fBind(values: readonly (Buffer | null)[], paramFormats: readonly number[], resultFormats: readonly number[], portal = '', statement = ''): Buffer {
  const out = w().addCString(portal).addCString(statement).addInt16(paramFormats.length);
  for (const f of paramFormats) out.addInt16(f);
  out.addInt16(values.length);
  for (const v of values) {
    if (v === null) out.addInt32(-1);
    else out.addInt32(v.length).add(v);
  }
  out.addInt16(resultFormats.length);
  for (const f of resultFormats) out.addInt16(f);
  return out.flush(0x42);
}

export const fDescribe = (type: 'S' | 'P', name = ''): Buffer => w().add(Buffer.from(type)).addCString(name).flush(0x44);
export const fExecute = (maxRows = 0, portal = ''): Buffer => w().addCString(portal).addInt32(maxRows).flush(0x45);
export const fSync = (): Buffer => w().flush(0x53);
export const fClose = (type: 'S' | 'P', name = ''): Buffer => w().add(Buffer.from(type)).addCString(name).flush(0x43);

// ---- reading backend messages (the engine's answers) ----------------------------------------------

export interface RawMessage {
  readonly type: string;
  /** The message body (after the length), a view into the answer. */
  readonly body: Buffer;
  /** Offset of the whole message (type byte) in the answer, and its end. */
  readonly start: number;
  readonly end: number;
}

/** Splits a buffer of complete backend messages. */
export function* messages(buf: Buffer): Generator<RawMessage> {
  let i = 0;
  while (i + 5 <= buf.length) {
    const len = buf.readInt32BE(i + 1);
    const end = i + 1 + len;
    if (end > buf.length) throw new Error(`truncated ${String.fromCharCode(buf[i]!)} message`);
    yield { type: String.fromCharCode(buf[i]!), body: buf.subarray(i + 5, end), start: i, end };
    i = end;
  }
}

function cstring(b: Buffer, at: number): [string, number] {
  const z = b.indexOf(0, at);
  return [b.toString('utf8', at, z), z + 1];
}

export function readRowDescription(body: Buffer): FieldDesc[] {
  const n = body.readInt16BE(0);
  let at = 2;
  const fields: FieldDesc[] = [];
  for (let k = 0; k < n; k++) {
    const [name, next] = cstring(body, at);
    at = next;
    fields.push({
      name,
      tableOid: body.readUInt32BE(at),
      columnAttr: body.readInt16BE(at + 4),
      typeOid: body.readUInt32BE(at + 6),
      typeLen: body.readInt16BE(at + 10),
      typeMod: body.readInt32BE(at + 12),
      format: body.readInt16BE(at + 16),
    });
    at += 18;
  }
  return fields;
}

export function readParameterDescription(body: Buffer): number[] {
  const n = body.readInt16BE(0);
  return Array.from({ length: n }, (_, k) => body.readUInt32BE(2 + 4 * k));
}

export function readFields(body: Buffer): ErrorFields {
  const out: Record<string, string | number> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const code = String.fromCharCode(body[at]!);
    const [value, next] = cstring(body, at + 1);
    at = next;
    const key = FIELD_CODES[code] ?? code;
    out[key] = key === 'position' || key === 'internalPosition' ? Number(value) : value;
  }
  return out as unknown as ErrorFields;
}

export const readCommandTag = (body: Buffer): string => cstring(body, 0)[0];

/** The values of a DataRow: raw bytes per column (`null` for SQL NULL). */
export function readDataRow(body: Buffer): (Buffer | null)[] {
  const n = body.readInt16BE(0);
  let at = 2;
  const out: (Buffer | null)[] = [];
  for (let k = 0; k < n; k++) {
    const len = body.readInt32BE(at);
    at += 4;
    if (len < 0) out.push(null);
    else {
      out.push(body.subarray(at, at + len));
      at += len;
    }
  }
  return out;
}
