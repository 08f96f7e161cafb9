/** Configuration from the environment, loaded once and validated (shared/config.ts). */
import { describe, expect, it } from 'vitest';
import { configToEnv, corsAllowOriginsProblems, loadConfig, loadCorsAllowOrigins, loadPgwireConfig, parseConfig, rawConfig } from '../shared/config';

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
  it('reads a valid environment exactly as its schema does, without building the schema for the settings it checks plainly', () => {
    const envs = [
      env,
      { ...env, DLQ_URL_COMPUTE: 'd1', PASSWORD_CACHE_SECONDS: '0', SECRET_NAME_PREFIX: 'ddl/prod', AUTHENTICATE_IN_FUNCTION: 'true', PROBE_NETWORKS: 'private', EVENT_BUS_NAME: 'bus', EFFECTS_PER_TENANT_IN_QUEUE: '7', DATAPLANE_TOKEN: 't' },
      { ...env, AWS_REGION: undefined, AUTHENTICATE_IN_FUNCTION: 'no', PASSWORD_CACHE_SECONDS: '3600' },
      // Settings the plain checks leave to the schema.
      { ...env, CORS_ALLOW_ORIGINS: 'https://a.example.com', DATAPLANE_URL: 'https://dp.example.com' },
    ];
    for (const e of envs) expect(loadConfig(e)).toStrictEqual(parseConfig(rawConfig(e)));
    // What the schema refuses, the plain checks never pass.
    for (const bad of [{ PASSWORD_CACHE_SECONDS: '1.5' }, { PASSWORD_CACHE_SECONDS: '3601' }, { EFFECTS_PER_TENANT_IN_QUEUE: '0' }, { SECRET_NAME_PREFIX: 'a/' }, { PROBE_NETWORKS: 'any' }, { QUEUE_URL_STORAGE: '' }]) {
      expect(() => loadConfig({ ...env, ...bad })).toThrow(/^invalid configuration: /);
    }
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

describe('pgwire task config (loadPgwireConfig)', () => {
  const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pgwire-tls-AbCdEf';

  it('needs the TLS secret; the ports, drain and connection cap default to PGWIRE_DEFAULTS', () => {
    // Act + Assess
    expect(loadPgwireConfig({ PGWIRE_TLS_SECRET_ARN: ARN })).toEqual({ port: 6875, healthPort: 8080, tlsSecretArn: ARN, drainSeconds: 25, maxConnections: 1000 });
    expect(loadPgwireConfig({ PGWIRE_TLS_SECRET_ARN: ARN, PG_PORT: '5433', PGWIRE_HEALTH_PORT: '9000', PGWIRE_DRAIN_SECONDS: '5', PGWIRE_MAX_CONNECTIONS: '10' })).toEqual({
      port: 5433,
      healthPort: 9000,
      tlsSecretArn: ARN,
      drainSeconds: 5,
      maxConnections: 10,
    });
  });

  it('names every bad variable by its name in one message', () => {
    // Act
    let message = '';
    try {
      loadPgwireConfig({ PGWIRE_TLS_SECRET_ARN: 'pgwire-tls', PG_PORT: '70000', PGWIRE_MAX_CONNECTIONS: '0' });
    } catch (e) {
      message = (e as Error).message;
    }

    // Assess
    expect(message).toMatch(/^invalid configuration: /);
    for (const name of ['PG_PORT', 'PGWIRE_TLS_SECRET_ARN', 'PGWIRE_MAX_CONNECTIONS']) expect(message).toContain(`${name}: `);
    expect(() => loadPgwireConfig({})).toThrow(/PGWIRE_TLS_SECRET_ARN: must be the ARN of a Secrets Manager secret/);
    expect(() => loadPgwireConfig({ PGWIRE_TLS_SECRET_ARN: ARN, PGWIRE_HEALTH_PORT: '6875' })).toThrow('PG_PORT and PGWIRE_HEALTH_PORT must differ, both are 6875');
  });
});
