/**
 * The value of `CREATE SECRET s AS <expression>` when the expression is not a plain string: the
 * constant forms Materialize's documentation and tests use — `decode('…', 'base64' | 'hex' |
 * 'escape')`, `convert_from(…, 'utf8')`, casts to `bytea` / `text`, `||` and parentheses.
 * Evaluated here, once, at plan time (a secret's value is a constant in Materialize too); anything
 * else answers 0A000 at its position. Pure.
 */
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import { byteOffset, lex, type Token } from './lexer';

const TYPES = new Set(['bytea', 'text', 'varchar', 'string']);
/** Parentheses and calls nest at most this deep (the evaluator recurses on them). */
const MAX_DEPTH = 100;

/** `text` is the expression as typed; `position` its byte offset in the request (for errors). */
export function evaluateSecretExpr(text: string, position: number): Buffer {
  const tokens = lex(text);
  let i = 0;
  const at = (t: Token) => position + byteOffset(text, t.start);
  const peek = () => tokens[i]!;
  const isOp = (v: string) => peek().kind === 'op' && peek().value === v;
  const unsupported = (t: Token): never => {
    throw new NotSupportedError(`secret values may be string literals or constant expressions of decode(), convert_from(), casts and ||; ${t.kind === 'eof' ? 'the expression ends early' : `found ${t.raw}`}`, {
      position: at(t),
      hint: "Write the value as a string (CREATE SECRET s AS 'value') or decode one (CREATE SECRET s AS decode('c2VjcmV0', 'base64')).",
    });
  };
  const expectOp = (v: string) => {
    if (!isOp(v)) unsupported(peek());
    i++;
  };
  const stringArg = (): { value: string; token: Token } => {
    const t = peek();
    if (t.kind !== 'string') unsupported(t);
    i++;
    return { value: t.value, token: t };
  };

  let depth = 0;
  const nested = <T>(f: () => T, t: Token): T => {
    if (++depth > MAX_DEPTH) throw new PlanError(`secret value expression is nested too deeply (more than ${MAX_DEPTH} levels)`, { code: SQLSTATE.statementTooComplex, position: at(t) });
    try {
      return f();
    } finally {
      depth--;
    }
  };
  const primary = (): Buffer => {
    const t = peek();
    if (t.kind === 'string') {
      i++;
      return Buffer.from(t.value, 'utf8');
    }
    if (isOp('(')) {
      i++;
      const v = nested(expr, t);
      expectOp(')');
      return v;
    }
    if (t.kind === 'word' && (t.value === 'decode' || t.value === 'convert_from')) {
      i++;
      expectOp('(');
      const arg = nested(expr, t);
      expectOp(',');
      const format = stringArg();
      expectOp(')');
      return t.value === 'decode' ? decode(arg.toString('utf8'), format.value.toLowerCase(), at(format.token)) : convertFrom(arg, format.value.toLowerCase(), at(format.token));
    }
    return unsupported(t);
  };
  const cast = (): Buffer => {
    let v = primary();
    while (isOp('::')) {
      i++;
      const t = peek();
      if (t.kind !== 'word' || !TYPES.has(t.value)) unsupported(t);
      i++;
      v = Buffer.from(v);
    }
    return v;
  };
  const expr = (): Buffer => {
    const parts = [cast()];
    while (isOp('||')) {
      i++;
      parts.push(cast());
    }
    return Buffer.concat(parts);
  };

  const value = expr();
  if (peek().kind !== 'eof') unsupported(peek());
  return value;
}

function decode(s: string, format: string, position: number): Buffer {
  switch (format) {
    case 'base64': {
      const clean = s.replace(/[\s]/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw invalid('invalid base64 input', position);
      return Buffer.from(clean, 'base64');
    }
    case 'hex': {
      const clean = s.replace(/\s/g, '');
      const bad = /[^0-9a-fA-F]/.exec(clean);
      if (bad) throw invalid(`invalid hexadecimal digit: "${bad[0]}"`, position);
      if (clean.length % 2) throw invalid('invalid hexadecimal data: odd number of digits', position);
      return Buffer.from(clean, 'hex');
    }
    case 'escape': {
      const out: number[] = [];
      for (let k = 0; k < s.length; k++) {
        if (s[k] === '\\' && s[k + 1] === '\\') {
          out.push(0x5c);
          k++;
        } else if (s[k] === '\\' && /^[0-7]{3}$/.test(s.slice(k + 1, k + 4))) {
          out.push(parseInt(s.slice(k + 1, k + 4), 8));
          k += 3;
        } else if (s[k] === '\\') {
          throw invalid('invalid input syntax for type bytea', position);
        } else {
          out.push(...Buffer.from(s[k]!, 'utf8'));
        }
      }
      return Buffer.from(out);
    }
    default:
      throw invalid(`unrecognized encoding: "${format}"`, position);
  }
}

function convertFrom(bytes: Buffer, encoding: string, position: number): Buffer {
  if (!['utf8', 'utf-8'].includes(encoding)) throw new NotSupportedError(`encoding "${encoding}" is not supported: secret values are UTF-8`, { position });
  return bytes;
}

function invalid(message: string, position: number): PlanError {
  return new PlanError(message, { code: SQLSTATE.invalidParameterValue, position });
}
