/** Configuration from the environment, loaded once and validated (shared/config.ts). */
import { describe, expect, it } from 'vitest';
import { configToEnv, corsAllowOriginsProblems, loadConfig, loadCorsAllowOrigins } from '../shared/config';

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
