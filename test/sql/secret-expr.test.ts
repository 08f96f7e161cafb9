/** Secret values given by a constant expression (CREATE SECRET s AS decode(...)): evaluated once, at plan time. */
import { describe, expect, it } from 'vitest';
import { NotSupportedError, PlanError } from '../../shared/errors';
import { evaluateSecretExpr } from '../../shared/sql/secret-expr';

const value = (text: string) => evaluateSecretExpr(text, 0).toString('utf8');

describe('secret value expressions', () => {
  it.each([
    ["decode('c2VjcmV0Cg==', 'base64')", 'secret\n'],
    ["decode('c2Vj\ncmV0', 'BASE64')", 'secret'],
    ["decode('736563726574', 'hex')", 'secret'],
    ["decode('a\\\\b\\101', 'escape')", 'a\\bA'],
    ["convert_from(decode('6869', 'hex'), 'utf8')", 'hi'],
    ["'sec' || 'ret'", 'secret'],
    ["('sec' || decode('726574', 'hex'))::bytea", 'secret'],
    ["'secret'::text", 'secret'],
    ["E'line\\none'", 'line\none'],
  ])('%s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it.each([
    ["decode('zz', 'hex')", PlanError, 'invalid hexadecimal digit: "z"', 13],
    ["decode('abc', 'hex')", PlanError, 'invalid hexadecimal data: odd number of digits', 14],
    ["decode('!!', 'base64')", PlanError, 'invalid base64 input', 13],
    ["decode('x', 'rot13')", PlanError, 'unrecognized encoding: "rot13"', 12],
    ["upper('x')", NotSupportedError, 'found upper', 0],
    ["'a' || now()", NotSupportedError, 'found now', 7],
    ["'a'::int", NotSupportedError, 'found int', 5],
    ["decode('x'", NotSupportedError, 'the expression ends early', 10],
    [`${'('.repeat(101)}'x'${')'.repeat(101)}`, PlanError, 'nested too deeply (more than 100 levels)', 100],
    [`${'('.repeat(100_000)}`, PlanError, 'nested too deeply', 100],
  ])('%s is refused at its position', (text, type, message, position) => {
    let err: unknown;
    try {
      evaluateSecretExpr(text, 0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(type);
    expect((err as Error).message).toContain(message);
    expect((err as { position?: number }).position).toBe(position);
  });
});
