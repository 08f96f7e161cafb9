/** App passwords (shared/auth/app-passwords.ts): generation, parsing the Authorization header, the lookup cache. */
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../shared/errors';
import { actorOf, AppPasswords, generateAppPassword, parseAuthorization, tokenId } from '../../shared/auth/app-passwords';
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

describe('app passwords', () => {
  it('act as materialize with superuser rights, as their role, or as mz_system, a superuser as Materialize\'s system user is', () => {
    expect(actorOf({})).toEqual({ role: 'materialize', superuser: true });
    expect(actorOf({ role: 'joe' })).toEqual({ role: 'joe', superuser: false });
    expect(actorOf({ role: 'materialize' })).toEqual({ role: 'materialize', superuser: false });
    expect(actorOf({ role: 'mz_system' })).toEqual({ role: 'mz_system', superuser: true });
    expect(actorOf({ role: 'mz_support' })).toEqual({ role: 'mz_support', superuser: false });
  });
  it('generate 256-bit secrets with a public lookup id', () => {
    const pw = generateAppPassword();
    expect(pw).toMatch(/^ddlp_[0-9a-f]{80}$/);
    expect(tokenId(pw)).toBe(pw.slice(5, 21));
    expect(generateAppPassword()).not.toBe(pw);
    // A password of another shape still gets a stable id.
    expect(tokenId('hunter2')).toBe(tokenId('hunter2'));
  });

  it('read Bearer and Basic credentials', () => {
    expect(parseAuthorization('Bearer abc')).toEqual({ password: 'abc' });
    expect(parseAuthorization(`Basic ${Buffer.from('acme:pw:with:colons').toString('base64')}`)).toEqual({ tenant: 'acme', password: 'pw:with:colons' });
    expect(() => parseAuthorization(undefined)).toThrow(AuthError);
    expect(() => parseAuthorization('Digest x')).toThrow(/unsupported Authorization scheme/);
    expect(() => parseAuthorization(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toThrow(/malformed/);
  });

  it('remember a found record for the TTL, still check every password, and never remember an absent one', async () => {
    const pw = generateAppPassword();
    const records = new Map<string, { tenant: string; hash: string }>();
    let reads = 0;
    const doc = {
      send: async (cmd: { input: { Key: { pk: string } } }) => {
        reads++;
        return { Item: records.get(cmd.input.Key.pk) };
      },
    } as unknown as DynamoDBDocumentClient;
    let t = 0;
    const passwords = new AppPasswords(doc, 'catalog', { cacheTtlMs: 60_000, clock: () => t });
    const bearer = (p: string) => `Bearer ${p}`;
    // Unknown: refused, and not remembered — once created it works at once.
    await expect(passwords.verify(bearer(pw))).rejects.toThrow(AuthError);
    records.set(`AUTH#${tokenId(pw)}`, { tenant: 'acme', hash: createHash('sha256').update(pw).digest('hex') });
    expect(await passwords.verify(bearer(pw))).toEqual({ tenant: 'acme', tokenId: tokenId(pw) });
    expect(reads).toBe(2);
    // Within the TTL: no read; a wrong secret under the same id is still refused.
    t = 59_000;
    expect((await passwords.verify(bearer(pw))).tenant).toBe('acme');
    await expect(passwords.verify(bearer(`${pw.slice(0, -1)}${pw.endsWith('0') ? '1' : '0'}`))).rejects.toThrow(AuthError);
    expect(reads).toBe(2);
    // After it: read again (a revoked record is then refused).
    t = 61_000;
    records.clear();
    await expect(passwords.verify(bearer(pw))).rejects.toThrow(AuthError);
    expect(reads).toBe(3);
  });
});
