import { describe, expect, it } from 'vitest';
import { AuthError } from '../../shared/errors';
import { AppPasswords, generateAppPassword, parseAuthorization, tokenId } from '../../shared/auth/app-passwords';
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { escapeKeyPart, nameSk } from '../../shared/catalog/keys';
import { configToEnv, corsAllowOriginsProblems, loadConfig, loadCorsAllowOrigins } from '../../shared/config';
import { backoffMs, budgetSpent, RETRY_POLICIES } from '../../shared/effects/retry-policies';
import { EFFECT_QUEUES } from '../../shared/definitions';
import { likeToRegExp } from '../../shared/system/tables';

describe('retry policies', () => {
  it('back off exponentially up to the cap', () => {
    const p = RETRY_POLICIES['executor.compute'];
    expect([1, 2, 3, 4].map((a) => backoffMs(p, a))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(p, 30)).toBe(p.capMs);
    expect(budgetSpent(p, p.budget - 1)).toBe(false);
    expect(budgetSpent(p, p.budget)).toBe(true);
  });

  it('set each queue’s maxReceiveCount to its executor’s budget', () => {
    for (const q of EFFECT_QUEUES) expect(q.maxReceiveCount).toBe(RETRY_POLICIES[`executor.${q.controller}`].budget);
  });
});

describe('app passwords', () => {
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

describe('catalog keys', () => {
  it('escape the characters that could make two names share a key', () => {
    expect(escapeKeyPart('a.b#c%d')).toBe('a%2eb%23c%25d');
    const a = nameSk({ ns: 'replica', clusterId: 'u1', name: 'a#b' });
    const b = nameSk({ ns: 'replica', clusterId: 'u1#a', name: 'b' });
    expect(a).not.toBe(b);
  });
});

describe('config', () => {
  const env = {
    AWS_REGION: 'eu-west-1',
    CATALOG_TABLE: 'cat',
    DATAPLANE_TABLE: 'dp',
    QUEUE_URL_COMPUTE: 'q1',
    QUEUE_URL_STORAGE: 'q2',
    QUEUE_URL_SECRETS: 'q3',
  };
  it('loads and validates the environment once', () => {
    expect(loadConfig(env)).toMatchObject({ region: 'eu-west-1', catalogTable: 'cat', queueUrls: { compute: 'q1', storage: 'q2', secrets: 'q3' } });
  });
  it('names every missing variable in one message', () => {
    expect(() => loadConfig({ ...env, CATALOG_TABLE: undefined, QUEUE_URL_SECRETS: '' })).toThrow(/catalogTable.*queueUrls\.secrets|queueUrls\.secrets.*catalogTable/);
    expect(() => loadConfig({ ...env, DATAPLANE_TABLE: undefined })).toThrow(/DATAPLANE_TABLE/);
  });
  it('reads the password cache TTL in whole seconds, 0 to 3600', () => {
    expect(loadConfig(env).passwordCacheSeconds).toBeUndefined();
    expect(loadConfig({ ...env, PASSWORD_CACHE_SECONDS: '0' }).passwordCacheSeconds).toBe(0);
    expect(loadConfig({ ...env, PASSWORD_CACHE_SECONDS: '300' }).passwordCacheSeconds).toBe(300);
    expect(() => loadConfig({ ...env, PASSWORD_CACHE_SECONDS: 'soon' })).toThrow(/passwordCacheSeconds/);
    expect(() => loadConfig({ ...env, PASSWORD_CACHE_SECONDS: '7200' })).toThrow(/passwordCacheSeconds/);
  });
  it('reads CORS_ALLOW_ORIGINS: exact origins, comma separated, trimmed, without repeats; "*" alone; unset means none', () => {
    expect(loadConfig(env).corsAllowOrigins).toBeUndefined();
    expect(loadConfig({ ...env, CORS_ALLOW_ORIGINS: '' }).corsAllowOrigins).toBeUndefined();
    expect(loadConfig({ ...env, CORS_ALLOW_ORIGINS: ' , ' }).corsAllowOrigins).toBeUndefined();
    expect(loadConfig({ ...env, CORS_ALLOW_ORIGINS: 'https://console.example.com' }).corsAllowOrigins).toEqual(['https://console.example.com']);
    expect(loadConfig({ ...env, CORS_ALLOW_ORIGINS: ' https://a.example.com, http://localhost:5173,https://a.example.com ' }).corsAllowOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:5173',
    ]);
    expect(loadConfig({ ...env, CORS_ALLOW_ORIGINS: 'http://[::1]:8080' }).corsAllowOrigins).toEqual(['http://[::1]:8080']);
    expect(loadConfig({ ...env, CORS_ALLOW_ORIGINS: '*' }).corsAllowOrigins).toEqual(['*']);
  });
  it.each([
    ['a trailing slash', 'https://console.example.com/', /"https:\/\/console\.example\.com\/" is not an origin as a browser sends it: write "https:\/\/console\.example\.com"/],
    ['a path', 'https://example.com/console', /write "https:\/\/example\.com"/],
    ['upper case', 'HTTPS://Console.Example.com', /write "https:\/\/console\.example\.com"/],
    ['a default port', 'https://example.com:443', /write "https:\/\/example\.com"/],
    ['an IDN host', 'https://bücher.example', /write "https:\/\/xn--bcher-kva\.example"/],
    ['no scheme', 'console.example.com', /"console\.example\.com" is not an origin: write scheme:\/\/host\[:port\]/],
    ['another scheme', 'ftp://files.example.com', /"ftp:\/\/files\.example\.com" is not an origin/],
    ['"null"', 'null', /"null" is not an origin/],
    ['"*" with others', '*,https://a.example.com', /"\*" allows every origin: it cannot be combined with other origins/],
  ])('refuses CORS_ALLOW_ORIGINS with %s, naming the variable and the entry', (_case, value, message) => {
    expect(() => loadConfig({ ...env, CORS_ALLOW_ORIGINS: value })).toThrow(/^invalid configuration: CORS_ALLOW_ORIGINS: /);
    expect(() => loadConfig({ ...env, CORS_ALLOW_ORIGINS: value })).toThrow(message);
    expect(() => loadCorsAllowOrigins({ CORS_ALLOW_ORIGINS: value })).toThrow(message);
  });
  it('names every bad CORS origin, and every other problem, in one message', () => {
    expect(() => loadConfig({ ...env, CATALOG_TABLE: undefined, CORS_ALLOW_ORIGINS: 'https://a.example.com/,https://ok.example.com,b.example.com' })).toThrow(
      /catalogTable: .*CORS_ALLOW_ORIGINS: "https:\/\/a\.example\.com\/".*CORS_ALLOW_ORIGINS: "b\.example\.com"/,
    );
    expect(corsAllowOriginsProblems(['https://ok.example.com', 'http://localhost:3000'])).toEqual([]);
    expect(corsAllowOriginsProblems(['https://a.example.com/', 'b'])).toHaveLength(2);
  });
  it('reads CORS_ALLOW_ORIGINS alone for the local gateway, and writes it back with configToEnv', () => {
    expect(loadCorsAllowOrigins({})).toBeUndefined();
    expect(loadCorsAllowOrigins({ CORS_ALLOW_ORIGINS: 'https://a.example.com' })).toEqual(['https://a.example.com']);
    const cfg = loadConfig({ ...env, CORS_ALLOW_ORIGINS: 'https://a.example.com, http://localhost:5173' });
    expect(configToEnv(cfg).CORS_ALLOW_ORIGINS).toBe('https://a.example.com,http://localhost:5173');
    expect(loadConfig({ ...env, ...configToEnv(cfg) }).corsAllowOrigins).toEqual(cfg.corsAllowOrigins);
    expect(configToEnv(loadConfig(env))).not.toHaveProperty('CORS_ALLOW_ORIGINS');
  });
});

describe('LIKE', () => {
  it.each([
    ['r%', 'r1', true],
    ['r_', 'r10', false],
    ['a\\%b', 'a%b', true],
    ['a.c', 'abc', false],
  ])('%s matches %s: %s', (pattern, value, expected) => {
    expect(likeToRegExp(pattern, false).test(value)).toBe(expected);
  });
});

describe('byte offsets', () => {
  it('match Buffer.byteLength at every character boundary, for any text', async () => {
    const fc = (await import('fast-check')).default;
    const { byteOffsets } = await import('../../shared/sql/lexer');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const table = byteOffsets(s);
        for (let i = 0; i <= s.length; i++) {
          const insidePair = (s.charCodeAt(i - 1) & 0xfc00) === 0xd800 && (s.charCodeAt(i) & 0xfc00) === 0xdc00;
          if (!insidePair && (table ? table[i] : i) !== Buffer.byteLength(s.slice(0, i))) return false;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});
