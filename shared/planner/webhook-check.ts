/**
 * A webhook source's `CHECK`, planned as Materialize plans it (plan_webhook_validate_using in
 * src/sql/src/plan/query.rs, then plan_create_webhook_source): the `WITH` list makes the columns
 * the expression may read (`body`, `headers`, each secret under its name or alias), the expression
 * must read at least one of them, be boolean, use no subquery, aggregate, window, table function
 * or parameter, and call nothing non-deterministic but `now()`. Messages are Materialize's.
 *
 * Types are inferred as far as the expression shows them: a column's, a literal's, a cast's, an
 * operator's or a known function's result. Where the type is not known here (an unknown function,
 * arithmetic over mixed types) the expression is accepted and left to the data plane, which
 * evaluates it on every request. Pure.
 */
import { PlanError, SQLSTATE } from '../errors';
import type { DataType, ObjectName, WebhookCheck } from '../sql/ast';
import { parseScalar } from '../sql/parser';
import { dataType } from '../sql/printer';
import type { ScalarExpr } from '../sql/scalar';
import { builtinTypeName, typeDisplayName } from './types';
import { unmaterializableName } from './unmaterializable';

/** A secret the check reads: its catalog id and the column name the expression knows it by. */
export interface CheckSecret {
  readonly id: string;
  readonly column: string;
  readonly bytes: boolean;
}

export interface PlannedCheck {
  readonly secrets: readonly CheckSecret[];
}

interface ScopeColumn {
  readonly name: string;
  readonly type: string;
}

const BOOLEAN = 'boolean';
const TEXT = 'text';
const BYTEA = 'bytea';
const JSONB = 'jsonb';

function checkError(message: string, position: number, code: string = SQLSTATE.internalError): PlanError {
  return new PlanError(message, { code, position });
}

/**
 * Plans `check`; `resolveSecret` resolves a secret the `WITH` list names (throwing Materialize's
 * error when there is none) and answers its id and its own name.
 */
export function planWebhookCheck(check: WebhookCheck, resolveSecret: (name: ObjectName, position: number) => { id: string; name: string }): PlannedCheck {
  // Names first, as Materialize resolves them before it plans: an unknown secret is the first error.
  const options = check.options ?? { headers: [], bodies: [], secrets: [] };
  const secrets = options.secrets.map((s) => {
    const found = resolveSecret(s.secret, s.position);
    return { id: found.id, column: s.alias ?? found.name, bytes: s.bytes };
  });
  const scope: ScopeColumn[] = [
    ...options.bodies.map((b) => ({ name: b.alias ?? 'body', type: b.bytes ? BYTEA : TEXT })),
    ...options.headers.map((h) => ({ name: h.alias ?? 'headers', type: h.bytes ? 'map[text=>bytea]' : 'map[text=>text]' })),
    ...secrets.map((s) => ({ name: s.column, type: s.bytes ? BYTEA : TEXT })),
  ];
  const expr = parseScalar(check.expr);
  const at = check.expr.position;
  const seen: Seen = { column: false };
  resolve(expr, scope, seen);
  const type = typeOf(expr, scope);
  if (type !== undefined && type !== BOOLEAN) throw checkError(`CHECK must have type boolean, not type ${type}`, at);
  if (!seen.column) throw checkError('expression provided in CHECK does not reference any columns', at);
  // `now()` is allowed: some webhook providers ask to refuse requests older than a threshold.
  if (seen.nondeterministic !== undefined) throw checkError('expression provided in CHECK is not deterministic', seen.nondeterministic);
  return { secrets };
}

/** Functions that aggregate rows or produce them: neither has a place in a check of one request. */
const AGGREGATES = new Set([
  'array_agg', 'avg', 'bit_and', 'bit_or', 'bool_and', 'bool_or', 'count', 'every', 'jsonb_agg', 'jsonb_object_agg', 'list_agg', 'map_agg', 'max', 'min',
  'stddev', 'stddev_pop', 'stddev_samp', 'string_agg', 'sum', 'var_pop', 'var_samp', 'variance',
]);
const TABLE_FUNCTIONS = new Set([
  'generate_series', 'generate_subscripts', 'jsonb_array_elements', 'jsonb_array_elements_text', 'jsonb_each', 'jsonb_each_text', 'jsonb_object_keys',
  'regexp_extract', 'regexp_split_to_table', 'unnest',
]);

interface Seen {
  /** A column was read. */
  column: boolean;
  /** Where the first call a dataflow cannot repeat is (other than `now()`). */
  nondeterministic?: number;
}

/** Resolves every column the expression reads, in the order Materialize plans them, and refuses what a CHECK may not hold. */
function resolve(e: ScalarExpr, scope: readonly ScopeColumn[], seen: Seen): void {
  const walk = (x: ScalarExpr) => resolve(x, scope, seen);
  switch (e.kind) {
    case 'column': {
      const written = e.name.join('.');
      const matches = e.name.length === 1 ? scope.filter((c) => c.name === e.name[0]) : [];
      if (matches.length === 0) throw checkError(`column "${written}" does not exist`, e.position, SQLSTATE.undefinedColumn);
      if (matches.length > 1) throw checkError(`column reference "${written}" is ambiguous`, e.position, SQLSTATE.ambiguousColumn);
      seen.column = true;
      return;
    }
    case 'subquery':
      throw checkError('CHECK does not allow subqueries', e.position);
    case 'parameter':
      throw checkError(`there is no parameter $${e.number}`, e.position, SQLSTATE.undefinedParameter);
    case 'call': {
      const fn = e.name[e.name.length - 1]!;
      if (e.window) throw checkError(`window functions are not allowed in CHECK (function ${e.name.join('.')})`, e.position);
      if (AGGREGATES.has(fn)) throw checkError(`aggregate functions are not allowed in CHECK (function ${e.name.join('.')})`, e.position);
      if (TABLE_FUNCTIONS.has(fn)) throw checkError(`table functions are not allowed in CHECK (function ${e.name.join('.')})`, e.position);
      const unmaterializable = e.name.length === 1 || e.name[0] === 'pg_catalog' || e.name[0] === 'mz_catalog' ? unmaterializableName(fn) : undefined;
      if (unmaterializable !== undefined && unmaterializable !== 'current_timestamp') seen.nondeterministic ??= e.position;
      e.args.forEach(walk);
      return;
    }
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'typed_string':
      return;
    case 'op':
      e.args.forEach(walk);
      return;
    case 'not':
    case 'cast':
    case 'field':
      walk(e.expr);
      return;
    case 'and':
    case 'or':
    case 'quantified':
      walk(e.left);
      walk(e.right);
      return;
    case 'is':
      walk(e.expr);
      if (e.other) walk(e.other);
      return;
    case 'like':
      walk(e.expr);
      walk(e.pattern);
      if (e.escape) walk(e.escape);
      return;
    case 'between':
      walk(e.expr);
      walk(e.low);
      walk(e.high);
      return;
    case 'in':
      walk(e.expr);
      e.list.forEach(walk);
      return;
    case 'case':
      if (e.operand) walk(e.operand);
      for (const w of e.whens) {
        walk(w.when);
        walk(w.then);
      }
      if (e.else) walk(e.else);
      return;
    case 'array':
    case 'list':
    case 'row':
      e.items.forEach(walk);
      return;
    case 'map':
      for (const x of e.entries) {
        walk(x.key);
        walk(x.value);
      }
      return;
    case 'subscript':
      walk(e.expr);
      e.indexes.forEach(walk);
      return;
  }
}

/** Operators whose result is boolean whatever their operands. */
const BOOLEAN_OPERATORS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=', '@>', '<@', '?', '?|', '?&', '~', '~*', '!~', '!~*', '~~', '~~*', '!~~', '!~~*', '&&']);

/** Result types of functions that do not depend on their arguments' (`arg` for "the first argument's"). */
const FUNCTION_TYPES: Readonly<Record<string, string>> = {
  constant_time_eq: BOOLEAN, starts_with: BOOLEAN, isfinite: BOOLEAN, regexp_like: BOOLEAN,
  decode: BYTEA, hmac: BYTEA, digest: BYTEA, sha224: BYTEA, sha256: BYTEA, sha384: BYTEA, sha512: BYTEA, convert_to: BYTEA,
  encode: TEXT, convert_from: TEXT, lower: TEXT, upper: TEXT, btrim: TEXT, ltrim: TEXT, rtrim: TEXT, split_part: TEXT, concat: TEXT, concat_ws: TEXT,
  replace: TEXT, left: TEXT, right: TEXT, lpad: TEXT, rpad: TEXT, repeat: TEXT, reverse: TEXT, initcap: TEXT, translate: TEXT, md5: TEXT,
  to_char: TEXT, format: TEXT, chr: TEXT, to_hex: TEXT, regexp_replace: TEXT, quote_ident: TEXT, quote_literal: TEXT, jsonb_typeof: TEXT,
  jsonb_pretty: TEXT,
  length: 'integer', char_length: 'integer', character_length: 'integer', octet_length: 'integer', bit_length: 'integer', strpos: 'integer',
  position: 'integer', ascii: 'integer', array_length: 'integer', jsonb_array_length: 'integer',
  now: 'timestamp with time zone', current_timestamp: 'timestamp with time zone', transaction_timestamp: 'timestamp with time zone',
  statement_timestamp: 'timestamp with time zone', clock_timestamp: 'timestamp with time zone', to_timestamp: 'timestamp with time zone',
  to_jsonb: JSONB, jsonb_build_object: JSONB, jsonb_build_array: JSONB, jsonb_strip_nulls: JSONB, jsonb_extract_path: JSONB,
  jsonb_extract_path_text: TEXT, extract: 'numeric', date_part: 'double precision',
  substr: 'arg', substring: 'arg', trim: 'arg', abs: 'arg', round: 'arg', coalesce: 'arg', nullif: 'arg', greatest: 'arg', least: 'arg',
};

/** Materialize's name of a literal number's type. */
function numberType(text: string): string {
  if (!/^\d+$/.test(text)) return 'numeric';
  const n = BigInt(text);
  return n <= 2n ** 31n - 1n ? 'integer' : n <= 2n ** 63n - 1n ? 'bigint' : 'numeric';
}

/** A built-in type in Materialize's display form (`int` → `integer`); undefined for a user-defined or container type. */
function namedType(t: DataType): string | undefined {
  if (t.list || t.map || !builtinTypeName(t.name)) return undefined;
  return typeDisplayName(dataType({ ...t, typmod: [] }));
}

/** The expression's type where it can be told without the data plane's function catalog. */
function typeOf(e: ScalarExpr, scope: readonly ScopeColumn[]): string | undefined {
  const of = (x: ScalarExpr) => typeOf(x, scope);
  switch (e.kind) {
    case 'column':
      return scope.find((c) => c.name === e.name[0])?.type;
    case 'boolean':
    case 'not':
    case 'and':
    case 'or':
    case 'is':
    case 'like':
    case 'between':
    case 'in':
    case 'quantified':
      return BOOLEAN;
    case 'number':
      return numberType(e.value);
    case 'typed_string':
      return namedType({ name: [e.type], typmod: [], arrayDimensions: 0 });
    case 'cast':
      return namedType(e.type);
    case 'call': {
      const fn = e.name[e.name.length - 1]!;
      const t = Object.hasOwn(FUNCTION_TYPES, fn) ? FUNCTION_TYPES[fn] : undefined;
      if (t !== 'arg') return t;
      for (const a of e.args) {
        const at = of(a);
        if (at !== undefined) return at;
      }
      return undefined;
    }
    case 'case':
      for (const x of [...e.whens.map((w) => w.then), ...(e.else ? [e.else] : [])]) {
        const t = of(x);
        if (t !== undefined) return t;
      }
      return undefined;
    case 'op':
      return operatorType(e.op, e.args.map(of), e.args);
    default:
      // A string literal or NULL takes whatever type its place asks for; the rest is not typed here.
      return undefined;
  }
}

function operatorType(op: string, types: readonly (string | undefined)[], args: readonly ScalarExpr[]): string | undefined {
  if (BOOLEAN_OPERATORS.has(op)) return BOOLEAN;
  const [l, r] = types;
  if (args.length === 1) return op === '-' || op === '+' || op === '~' ? l : undefined;
  const untyped = (i: number) => types[i] === undefined && (args[i]!.kind === 'string' || args[i]!.kind === 'null');
  switch (op) {
    case '||':
      // Two string literals concatenate as text; bytea with bytea is bytea; jsonb with jsonb is jsonb.
      if ((l === TEXT || untyped(0)) && (r === TEXT || untyped(1))) return TEXT;
      if (l === BYTEA && (r === BYTEA || untyped(1))) return BYTEA;
      if (r === BYTEA && untyped(0)) return BYTEA;
      if (l === JSONB && (r === JSONB || untyped(1))) return JSONB;
      if (l === TEXT || r === TEXT) return TEXT;
      return undefined;
    case '->': {
      const map = l !== undefined ? /^map\[text=>(.+)\]$/.exec(l) : null;
      if (map) return map[1];
      return l === JSONB ? JSONB : undefined;
    }
    case '->>':
    case '#>>':
      return l === JSONB ? TEXT : undefined;
    case '#>':
      return l === JSONB ? JSONB : undefined;
    case 'AT TIME ZONE':
      return l === 'timestamp with time zone' ? 'timestamp without time zone' : l === 'timestamp without time zone' ? 'timestamp with time zone' : undefined;
    case 'COLLATE':
      return l;
    case '+':
    case '-':
      if ((l === 'timestamp with time zone' || l === 'timestamp without time zone') && r === 'interval') return l;
      return l !== undefined && l === r && ['integer', 'bigint', 'numeric', 'double precision', 'real', 'smallint', 'interval'].includes(l) ? l : undefined;
    case '*':
    case '/':
    case '%':
      return l !== undefined && l === r && ['integer', 'bigint', 'numeric', 'double precision', 'real', 'smallint'].includes(l) ? l : undefined;
    default:
      return undefined;
  }
}
