/**
 * Request validation for `POST /api/sql`: the HTTP body, its content type and the Idempotency-Key
 * header, read into the statements to run. Pure: no catalog access.
 */
import * as z from 'zod/mini';
import { ControlPlaneError, RequestError, SQLSTATE } from '../errors';
import { normalizeSetting } from '../planner/session';
import type { ParsedStatement } from '../sql/ast';
import { parse } from '../sql/parser';

/** API Gateway's payload cap is 10 MB; ours is the product's, documented in the README. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_STATEMENTS = 1000;

const buildSchemas = () => ({
  simpleSchema: z.strictObject({ query: z.string() }),
  extendedSchema: z.strictObject({ queries: z.array(z.strictObject({ query: z.string(), params: z.optional(z.array(z.union([z.string(), z.null()]))) })) }),
});
// Built by the first body that is not plainly `{"query": "<text>"}` (readRequest), not at import.
let schemas: ReturnType<typeof buildSchemas> | undefined;
type SimpleRequest = z.infer<ReturnType<typeof buildSchemas>['simpleSchema']>;
type ExtendedRequest = z.infer<ReturnType<typeof buildSchemas>['extendedSchema']>;

function bodySchema(extended: boolean) {
  const { simpleSchema, extendedSchema } = (schemas ??= buildSchemas());
  return extended ? extendedSchema : simpleSchema;
}

/** `{"query": "<text>"}` and nothing else: what the simple schema accepts, checked without it. */
function plainlySimple(json: unknown): json is SimpleRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const keys = Object.keys(json);
  return keys.length === 1 && keys[0] === 'query' && typeof (json as { query: unknown }).query === 'string';
}

/** Throws a 400 unless the header is usable as a key of the idempotency record. */
export function checkIdempotencyKey(idempotencyKey: string | undefined): void {
  if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw new RequestError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters', { code: SQLSTATE.invalidParameterValue });
  }
}

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one not after a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Refuses a body whose strings or keys hold a lone surrogate (`"\ud800"` is valid JSON, but no
 * UTF-8 can carry what it parses into): 22021, as for NUL bytes and invalid UTF-8. Kept in a name,
 * it would make every catalog answer unreadable to strict JSON parsers (jq). Neither the message
 * nor the detail echoes the text. Iterative and linear: a body may nest 100 000 levels deep.
 */
function refuseLoneSurrogates(json: unknown): void {
  interface Node {
    readonly v: unknown;
    readonly parent?: Node;
    readonly key?: string | number;
  }
  const pathOf = (n: Node | undefined): string => {
    const parts: (string | number)[] = [];
    for (let x = n; x?.key !== undefined; x = x.parent) parts.push(x.key);
    return parts.reverse().join('.');
  };
  const refuse = (text: string, where: string, position?: number): never => {
    const unit = text.charCodeAt(text.search(LONE_SURROGATE)).toString(16);
    throw new RequestError(400, `request body holds a lone UTF-16 surrogate \\u${unit} in ${where}: text must be well-formed Unicode (a surrogate escape needs its pair)`, {
      code: SQLSTATE.characterNotInRepertoire,
      ...(position !== undefined ? { position } : {}),
    });
  };
  const stack: Node[] = [{ v: json }];
  while (stack.length) {
    const n = stack.pop()!;
    if (typeof n.v === 'string') {
      const at = n.v.search(LONE_SURROGATE);
      if (at < 0) continue;
      const path = pathOf(n);
      // The simple mode's SQL: where in it, as a byte offset like every position.
      refuse(n.v, path || 'the body', path === 'query' ? Buffer.byteLength(n.v.slice(0, at), 'utf8') : undefined);
    } else if (Array.isArray(n.v)) {
      for (let i = n.v.length - 1; i >= 0; i--) stack.push({ v: n.v[i], parent: n, key: i });
    } else if (n.v !== null && typeof n.v === 'object') {
      for (const [k, v] of Object.entries(n.v)) {
        if (LONE_SURROGATE.test(k)) refuse(k, n.key === undefined ? 'a key' : `a key of ${pathOf(n)}`);
        stack.push({ v, parent: n, key: k });
      }
    }
  }
}

/** The value at a path of an issue, and whether anything is there. */
function valueAt(json: unknown, path: readonly PropertyKey[]): { present: boolean; value?: unknown } {
  let v = json;
  for (const k of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return { present: false };
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return { present: true, value: v };
}

/**
 * Refuses a body whose object has one key twice (`{"query": "a", "query": "b"}`): JSON.parse keeps
 * the last, another parser the first, so which statement runs would depend on who reads it. Keys
 * compare as parsed (`"\u0071uery"` is `"query"`). A scan of text JSON.parse accepted: linear
 * and iterative, whatever the nesting.
 */
function refuseDuplicateKeys(body: string): void {
  /** An open object (its keys so far) or array; `at`: the key or index of the value being read in it. */
  interface Frame {
    readonly keys?: Set<string>;
    at: string | number;
    expectKey: boolean;
  }
  const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA, QUOTE, BACKSLASH] = [0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x22, 0x5c];
  const stack: Frame[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === OPEN_OBJECT) stack.push({ keys: new Set(), at: '', expectKey: true });
    else if (c === OPEN_ARRAY) stack.push({ at: 0, expectKey: false });
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) stack.pop();
    else if (c === COMMA) {
      const top = stack.at(-1)!;
      if (top.keys) top.expectKey = true;
      else top.at = (top.at as number) + 1;
    } else if (c === QUOTE) {
      let end = i + 1;
      while (body.charCodeAt(end) !== QUOTE) end += body.charCodeAt(end) === BACKSLASH ? 2 : 1;
      const top = stack.at(-1);
      if (top?.keys && top.expectKey) {
        const raw = body.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(body.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) {
          const path = stack.slice(0, -1).map((f) => f.at).join('.');
          throw new RequestError(400, `request body has the key ${JSON.stringify(key)} more than once (in ${path || '(root)'}): send each key once`, { code: '08P01' });
        }
        top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
      i = end;
    }
  }
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
  refuseLoneSurrogates(json);
  refuseDuplicateKeys(body);
  // One schema chosen by shape (not a union), so the detail names the field that is wrong.
  const extended = typeof json === 'object' && json !== null && !Array.isArray(json) && 'queries' in json && !('query' in json);
  const parsed = plainlySimple(json) ? { success: true as const, data: { query: json.query } } : bodySchema(extended).safeParse(json);
  if (!parsed.success) {
    throw new RequestError(400, 'request body must be {"query": "<sql>"} or {"queries": [{"query": "<sql>", "params": [...]}]}', {
      code: '08P01',
      detail: parsed.error.issues
        .map((i) => {
          const issue = i as { keys?: string[]; expected?: string };
          // zod/mini keeps no input on its issues: what came is read from the body at the issue's path.
          const at = valueAt(json, i.path);
          const what = issue.keys?.length
            ? `unrecognized key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
            : i.code === 'invalid_type'
              ? at.present
                ? `expected ${issue.expected}, got ${at.value === null ? 'null' : Array.isArray(at.value) ? 'array' : typeof at.value}`
                : 'missing'
              : i.message;
          return `${i.path.join('.') || '(root)'}: ${what}`;
        })
        .join('; '),
    });
  }
  const req = parsed.data as SimpleRequest | ExtendedRequest;
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

/**
 * The `options` query parameter of `POST /api/sql`: session variables the request's session starts
 * with, a JSON object of strings, as Materialize's HTTP API takes them (`?options={"search_path":
 * "s"}`, URL-encoded). What is not such an object is Materialize's 400; each variable is checked as
 * `SET` would check it, and a name or value SET refuses is refused here with SET's SQLSTATE (42704
 * unknown, 55P02 read-only, 22023 invalid) before anything runs — where Materialize would only add a
 * notice, since a request whose session is not the one asked for would run its DDL elsewhere.
 * Returns the canonical names and normalized values.
 */
export function readSessionOptions(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined || raw === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json) || Object.values(json).some((v) => typeof v !== 'string')) {
    throw new RequestError(400, 'Failed to deserialize "options" map', { code: '08P01', hint: 'options must be a JSON object of strings, such as {"search_path": "s"}' });
  }
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(json as Record<string, string>)) {
    try {
      const n = normalizeSetting(name, [value]);
      settings[n.name] = n.value;
    } catch (err) {
      if (!(err instanceof ControlPlaneError)) throw err;
      throw new RequestError(400, `options: ${err.message}`, { code: err.code });
    }
  }
  return settings;
}
