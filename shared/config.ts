/**
 * Configuration: read from the environment once, validated, and passed in explicitly. Handlers
 * call `loadConfig(process.env)` in their module scope; nothing else reads `process.env`.
 */
// zod/mini: the same validation at a fraction of the bundle (every Lambda loads this module).
import * as z from 'zod/mini';
import { CONTROLLERS, EFFECT_CAPACITY, ENV, PGWIRE_DEFAULTS, type Controller } from './definitions';

export interface Config {
  readonly region: string;
  readonly catalogTable: string;
  /** The reference data plane's table; absent when an external data plane is used. */
  readonly dataPlaneTable?: string;
  /** An external data plane speaking the controller contract over HTTP. */
  readonly dataPlaneUrl?: string;
  /**
   * Bearer token for the HTTP data plane, in plain (env `DATAPLANE_TOKEN`): for the local runtime
   * and tests. In AWS use {@link Config.dataPlaneTokenSecretArn}. Neither set: no Authorization header.
   */
  readonly dataPlaneToken?: string;
  /**
   * The Secrets Manager secret whose SecretString is the HTTP data plane's bearer token (env
   * `DATAPLANE_TOKEN_SECRET_ARN`): read on the first data plane call, cached, read again once
   * after a 401 (shared/lambda/data-plane-token.ts). Exclusive with `dataPlaneToken`.
   */
  readonly dataPlaneTokenSecretArn?: string;
  readonly queueUrls: Readonly<Record<Controller, string>>;
  readonly dlqUrls: Readonly<Partial<Record<Controller, string>>>;
  /** How long the authorizer remembers a found password record (env `PASSWORD_CACHE_SECONDS`; default 60, 0 = off). */
  readonly passwordCacheSeconds?: number;
  /** The prefix of every secret's name in Secrets Manager (env `SECRET_NAME_PREFIX`; default `ddl-control-plane`). */
  readonly secretNamePrefix?: string;
  /**
   * The DDL function checks the app password itself (env `AUTHENTICATE_IN_FUNCTION=true`): where
   * no API Gateway authorizer runs in front of it (the stack's LocalStack mode).
   */
  readonly authenticateInFunction?: boolean;
  /**
   * Browser origins allowed to call the API from another origin (env `CORS_ALLOW_ORIGINS`, comma
   * separated): exact origins as browsers send them (`https://console.example.com`), or `['*']`
   * for any. Absent: no CORS headers at all (shared/api/cors.ts).
   */
  readonly corsAllowOrigins?: readonly string[];
  /**
   * Where connection probes may connect (env `PROBE_NETWORKS`): `public` (the default: no
   * loopback, link-local, instance-metadata or private addresses, and network errors that read
   * only "could not connect"), `private` (private ranges allowed too, for upstreams in the VPC),
   * or `local` (anything, with detailed errors: the local runtime). See shared/probes/addresses.ts.
   */
  readonly probeNetworks?: ProbeNetworks;
  /**
   * The EventBridge bus the stream router publishes status events to (env `EVENT_BUS_NAME`; the
   * stack sets it on the router alone). Absent: no events are published (shared/events/).
   */
  readonly eventBusName?: string;
  /**
   * Effects of one tenant admitted to the effect queues at a time (env
   * `EFFECTS_PER_TENANT_IN_QUEUE`; default EFFECT_CAPACITY.perTenantInQueue, 50): see
   * shared/router/admission.ts.
   */
  readonly perTenantInQueue?: number;
}

export type ProbeNetworks = 'public' | 'private' | 'local';
export const PROBE_NETWORKS_ENV = 'PROBE_NETWORKS';

/** The HTTP data plane's bearer token in plain (local runtime, tests). Candidate for ENV (shared/definitions.ts) next to DATAPLANE_URL. */
const DATAPLANE_TOKEN_ENV = 'DATAPLANE_TOKEN';
/** The ARN of the Secrets Manager secret holding the HTTP data plane's bearer token (AWS). */
export const DATAPLANE_TOKEN_SECRET_ARN_ENV = 'DATAPLANE_TOKEN_SECRET_ARN';

/** `arn:<partition>:secretsmanager:<region>:<account>:secret:<name>`, the form GetSecretValue takes as a SecretId. */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):\d{12}:secret:[\w/+=.@-]+$/;

/** The region of a Secrets Manager secret ARN, or undefined when `value` is not one. */
export function secretArnRegion(value: string): string | undefined {
  return SECRET_ARN.exec(value)?.[1];
}
const PASSWORD_CACHE_ENV = ENV.passwordCacheSeconds;
/** Origins allowed to call the API from a browser on another origin (see Config.corsAllowOrigins). */
export const CORS_ALLOW_ORIGINS_ENV = 'CORS_ALLOW_ORIGINS';

/** What is wrong with one CORS_ALLOW_ORIGINS entry, or undefined when it is `*` or an origin exactly as a browser sends it. */
function originProblem(entry: string): string | undefined {
  if (entry === '*') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return `"${entry}" is not an origin: write scheme://host[:port] with http or https, e.g. https://console.example.com`;
  }
  // A browser's Origin header is the URL's serialized origin: lower-case host, no default port,
  // no path, no trailing slash. Anything else would never match.
  return url.origin === entry ? undefined : `"${entry}" is not an origin as a browser sends it: write "${url.origin}"`;
}

// The schemas are built on first use, not at import: a valid environment is read without them (loadConfig).
let schemas: ReturnType<typeof buildSchemas> | undefined;
function buildSchemas() {
  const nonEmpty = z.string().check(z.minLength(1));
  const corsOrigin = z.string().check(z.refine((entry) => originProblem(entry) === undefined, { error: (issue) => originProblem(String(issue.input)) }));
  const corsAllowOrigins = z.array(corsOrigin).check(
    z.minLength(1),
    z.refine((list) => !list.includes('*') || list.length === 1, '"*" allows every origin: it cannot be combined with other origins'),
  );
  return { nonEmpty, corsAllowOrigins };
}
const zs = () => (schemas ??= buildSchemas());

/** The entries of a comma-separated CORS_ALLOW_ORIGINS value, trimmed and without repeats; undefined when it names none. */
export function splitCorsAllowOrigins(value: string | undefined): string[] | undefined {
  const entries = [...new Set((value ?? '').split(',').map((e) => e.trim()).filter(Boolean))];
  return entries.length ? entries : undefined;
}

/** Every problem with a list of allowed CORS origins (none when valid): for props and context values that bypass loadConfig. */
export function corsAllowOriginsProblems(origins: readonly string[]): string[] {
  const parsed = zs().corsAllowOrigins.safeParse(origins);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.message);
}

/**
 * CORS_ALLOW_ORIGINS alone, validated like loadConfig does, for the local API Gateway stand-in
 * (local/http-server.ts), which needs no other setting.
 */
export function loadCorsAllowOrigins(env: Record<string, string | undefined>): readonly string[] | undefined {
  const origins = splitCorsAllowOrigins(env[CORS_ALLOW_ORIGINS_ENV]);
  const problems = origins ? corsAllowOriginsProblems(origins) : [];
  if (problems.length) throw new Error(`invalid configuration: ${CORS_ALLOW_ORIGINS_ENV}: ${problems.join('; ')}`);
  return origins;
}

/** A Secrets Manager name path without a trailing `/` (SECRET_NAME_PREFIX). */
const SECRET_NAME_PATH = /^[\w+=.@-]+(\/[\w+=.@-]+)*$/;

/**
 * Whether the raw settings certainly pass loadConfig's schema, by plain checks: every function
 * loads its config at cold start, and building the zod schema costs more than reading a valid
 * environment. Conservative: a setting it does not check itself (an HTTP data plane's URL, a
 * secret ARN, CORS origins) or any doubt sends the settings to the schema, which gives the
 * answer and, for invalid ones, the messages. True only where the schema accepts them unchanged.
 */
function plainlyValid(raw: Record<string, unknown> & { queueUrls: Record<string, unknown>; dlqUrls: Record<string, unknown> }): boolean {
  const text = (v: unknown) => typeof v === 'string' && v.length >= 1;
  const optionalText = (v: unknown) => v === undefined || text(v);
  const optionalInt = (v: unknown, min: number, max: number) => v === undefined || (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max);
  return (
    text(raw.region) &&
    text(raw.catalogTable) &&
    optionalText(raw.dataPlaneTable) &&
    raw.dataPlaneUrl === undefined &&
    optionalText(raw.dataPlaneToken) &&
    raw.dataPlaneTokenSecretArn === undefined &&
    CONTROLLERS.every((c) => text(raw.queueUrls[c]) && optionalText(raw.dlqUrls[c])) &&
    optionalInt(raw.passwordCacheSeconds, 0, 3600) &&
    raw.corsAllowOrigins === undefined &&
    (raw.secretNamePrefix === undefined || (typeof raw.secretNamePrefix === 'string' && SECRET_NAME_PATH.test(raw.secretNamePrefix))) &&
    (raw.authenticateInFunction === undefined || typeof raw.authenticateInFunction === 'boolean') &&
    (raw.probeNetworks === undefined || raw.probeNetworks === 'public' || raw.probeNetworks === 'private' || raw.probeNetworks === 'local') &&
    optionalText(raw.eventBusName) &&
    optionalInt(raw.perTenantInQueue, 1, 100_000)
  );
}

/** The settings as loadConfig reads them from the environment, before any check. */
export function rawConfig(env: Record<string, string | undefined>) {
  return {
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    catalogTable: env[ENV.catalogTable],
    dataPlaneTable: env[ENV.dataPlaneTable] || undefined,
    dataPlaneUrl: env[ENV.dataPlaneUrl] || undefined,
    dataPlaneToken: env[DATAPLANE_TOKEN_ENV] || undefined,
    dataPlaneTokenSecretArn: env[DATAPLANE_TOKEN_SECRET_ARN_ENV] || undefined,
    queueUrls: Object.fromEntries(CONTROLLERS.map((c) => [c, env[ENV.queueUrl(c)]])),
    dlqUrls: Object.fromEntries(CONTROLLERS.map((c) => [c, env[ENV.dlqUrl(c)] || undefined])),
    passwordCacheSeconds: env[PASSWORD_CACHE_ENV] ? Number(env[PASSWORD_CACHE_ENV]) : undefined,
    corsAllowOrigins: splitCorsAllowOrigins(env[CORS_ALLOW_ORIGINS_ENV]),
    secretNamePrefix: env[ENV.secretNamePrefix] || undefined,
    authenticateInFunction: env[ENV.authenticateInFunction] ? env[ENV.authenticateInFunction] === 'true' : undefined,
    probeNetworks: env[PROBE_NETWORKS_ENV] || undefined,
    eventBusName: env[ENV.eventBusName] || undefined,
    perTenantInQueue: env[ENV.perTenantInQueue] ? Number(env[ENV.perTenantInQueue]) : undefined,
  };
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const raw = rawConfig(env);
  const cfg = plainlyValid(raw) ? (raw as unknown as Config) : parseConfig(raw);
  if (!cfg.dataPlaneTable && !cfg.dataPlaneUrl) {
    throw new Error(`invalid configuration: set ${ENV.dataPlaneTable} (reference data plane) or ${ENV.dataPlaneUrl}`);
  }
  if (cfg.dataPlaneToken && cfg.dataPlaneTokenSecretArn) {
    throw new Error(
      `invalid configuration: set ${DATAPLANE_TOKEN_SECRET_ARN_ENV} (the token in Secrets Manager, for AWS) or ${DATAPLANE_TOKEN_ENV} (the token in plain, for local use), not both`,
    );
  }
  return cfg;
}

/** The raw settings through loadConfig's schema: the parsed config, or an error naming every problem. Exported for the test that holds the plain checks to it. */
export function parseConfig(raw: Record<string, unknown>): Config {
  const { nonEmpty, corsAllowOrigins } = zs();
  const schema = z.object({
    region: nonEmpty,
    catalogTable: nonEmpty,
    dataPlaneTable: z.optional(nonEmpty),
    dataPlaneUrl: z.optional(z.url()),
    dataPlaneToken: z.optional(nonEmpty),
    dataPlaneTokenSecretArn: z.optional(
      z.string().check(
        z.refine((v) => secretArnRegion(v) !== undefined, {
          error: (issue) =>
            `must be the ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>), got "${String(issue.input)}"`,
        }),
      ),
    ),
    queueUrls: z.object(Object.fromEntries(CONTROLLERS.map((c) => [c, nonEmpty])) as Record<Controller, typeof nonEmpty>),
    dlqUrls: z.object(Object.fromEntries(CONTROLLERS.map((c) => [c, z.optional(nonEmpty)]))),
    passwordCacheSeconds: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(3600))),
    corsAllowOrigins: z.optional(corsAllowOrigins),
    secretNamePrefix: z.optional(z.string().check(z.regex(SECRET_NAME_PATH, 'must be a Secrets Manager name path without a trailing /'))),
    authenticateInFunction: z.optional(z.boolean()),
    probeNetworks: z.optional(z.enum(['public', 'private', 'local'])),
    eventBusName: z.optional(nonEmpty),
    perTenantInQueue: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(100_000))),
  });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // Name the CORS entries by the variable people set (its entries have no names of their own).
    // (The token itself is never echoed: a nonEmpty check's message does not quote its input.)
    const where = (path: PropertyKey[]) =>
      path[0] === 'corsAllowOrigins' ? CORS_ALLOW_ORIGINS_ENV : path[0] === 'dataPlaneTokenSecretArn' ? DATAPLANE_TOKEN_SECRET_ARN_ENV : path[0] === 'probeNetworks' ? PROBE_NETWORKS_ENV : path[0] === 'perTenantInQueue' ? ENV.perTenantInQueue : path.join('.');
    const problems = parsed.error.issues.map((i) => `${where(i.path)}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data as Config;
}

/** The Postgres wire endpoint's task settings (functions/pgwire-server/main.ts), beside its {@link Config}. */
export interface PgwireConfig {
  readonly port: number;
  readonly healthPort: number;
  /** The complete ARN of the secret with the TLS certificate and key (shared/secrets/tls-certificate.ts). */
  readonly tlsSecretArn: string;
  readonly drainSeconds: number;
  readonly maxConnections: number;
}

/** Reads and checks the pgwire task's settings (ENV.pg*; PGWIRE_DEFAULTS for the unset ones). */
export function loadPgwireConfig(env: Record<string, string | undefined>): PgwireConfig {
  const port = z.number().check(z.int(), z.minimum(1), z.maximum(65_535));
  const schema = z.object({
    port,
    healthPort: port,
    tlsSecretArn: z.string().check(
      z.refine((v) => secretArnRegion(v) !== undefined, {
        error: (issue) => `must be the ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>), got "${String(issue.input)}"`,
      }),
    ),
    drainSeconds: z.number().check(z.minimum(0), z.maximum(3600)),
    maxConnections: z.number().check(z.int(), z.minimum(1), z.maximum(100_000)),
  });
  const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
  const names = { port: ENV.pgPort, healthPort: ENV.pgwireHealthPort, tlsSecretArn: ENV.pgwireTlsSecretArn, drainSeconds: ENV.pgwireDrainSeconds, maxConnections: ENV.pgwireMaxConnections } as const;
  const parsed = schema.safeParse({
    port: num(names.port, PGWIRE_DEFAULTS.port),
    healthPort: num(names.healthPort, PGWIRE_DEFAULTS.healthPort),
    tlsSecretArn: env[names.tlsSecretArn] ?? '',
    drainSeconds: num(names.drainSeconds, PGWIRE_DEFAULTS.drainSeconds),
    maxConnections: num(names.maxConnections, PGWIRE_DEFAULTS.maxConnections),
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${names[i.path[0] as keyof typeof names] ?? i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  if (parsed.data.port === parsed.data.healthPort) throw new Error(`invalid configuration: ${names.port} and ${names.healthPort} must differ, both are ${parsed.data.port}`);
  return parsed.data;
}

/** The environment a handler needs for a given config (used by the local runtime and CDK). */
export function configToEnv(cfg: Config): Record<string, string> {
  const env: Record<string, string> = { AWS_REGION: cfg.region, [ENV.catalogTable]: cfg.catalogTable };
  if (cfg.dataPlaneTable) env[ENV.dataPlaneTable] = cfg.dataPlaneTable;
  if (cfg.dataPlaneUrl) env[ENV.dataPlaneUrl] = cfg.dataPlaneUrl;
  if (cfg.dataPlaneToken) env[DATAPLANE_TOKEN_ENV] = cfg.dataPlaneToken;
  if (cfg.dataPlaneTokenSecretArn) env[DATAPLANE_TOKEN_SECRET_ARN_ENV] = cfg.dataPlaneTokenSecretArn;
  if (cfg.passwordCacheSeconds !== undefined) env[PASSWORD_CACHE_ENV] = String(cfg.passwordCacheSeconds);
  if (cfg.corsAllowOrigins?.length) env[CORS_ALLOW_ORIGINS_ENV] = cfg.corsAllowOrigins.join(',');
  if (cfg.secretNamePrefix) env[ENV.secretNamePrefix] = cfg.secretNamePrefix;
  if (cfg.authenticateInFunction) env[ENV.authenticateInFunction] = 'true';
  if (cfg.probeNetworks) env[PROBE_NETWORKS_ENV] = cfg.probeNetworks;
  if (cfg.eventBusName) env[ENV.eventBusName] = cfg.eventBusName;
  if (cfg.perTenantInQueue !== undefined) env[ENV.perTenantInQueue] = String(cfg.perTenantInQueue);
  for (const c of CONTROLLERS) {
    env[ENV.queueUrl(c)] = cfg.queueUrls[c];
    const dlq = cfg.dlqUrls[c];
    if (dlq) env[ENV.dlqUrl(c)] = dlq;
  }
  return env;
}

/** Effects of one tenant admitted to the queues at a time: the config's, or the stack's default. */
export function perTenantInQueue(cfg: Pick<Config, 'perTenantInQueue'>): number {
  return cfg.perTenantInQueue ?? EFFECT_CAPACITY.perTenantInQueue;
}
