/**
 * Request validation for `POST /api/sql`: the HTTP body, its content type and the Idempotency-Key
 * header, read into the statements to run. Pure: no catalog access.
 */
import * as z from 'zod/mini';
import { RequestError, SQLSTATE } from '../errors';
import type { ParsedStatement } from '../sql/ast';
import { parse } from '../sql/parser';

/** API Gateway's payload cap is 10 MB; ours is the product's, documented in the README. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_STATEMENTS = 1000;

const simpleSchema = z.strictObject({ query: z.string() });
const extendedSchema = z.strictObject({ queries: z.array(z.strictObject({ query: z.string(), params: z.optional(z.array(z.union([z.string(), z.null()]))) })) });

/** Throws a 400 unless the header is usable as a key of the idempotency record. */
export function checkIdempotencyKey(idempotencyKey: string | undefined): void {
  if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw new RequestError(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters', { code: SQLSTATE.invalidParameterValue });
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
