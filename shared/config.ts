/**
 * Configuration: read from the environment once, validated, and passed in explicitly. Handlers
 * call `loadConfig(process.env)` in their module scope; nothing else reads `process.env`.
 */
// zod/mini: the same validation at a fraction of the bundle (every Lambda loads this module).
import * as z from 'zod/mini';
import { CONTROLLERS, ENV, type Controller } from './definitions';

export interface Config {
  readonly region: string;
  readonly catalogTable: string;
  /** The reference data plane's table; absent when an external data plane is used. */
  readonly dataPlaneTable?: string;
  /** An external data plane speaking the controller contract over HTTP. */
  readonly dataPlaneUrl?: string;
  /** Bearer token for the HTTP data plane (env `DATAPLANE_TOKEN`); unset sends no Authorization header. */
  readonly dataPlaneToken?: string;
  readonly queueUrls: Readonly<Record<Controller, string>>;
  readonly dlqUrls: Readonly<Partial<Record<Controller, string>>>;
  /** How long the authorizer remembers a found password record (env `PASSWORD_CACHE_SECONDS`; default 60, 0 = off). */
  readonly passwordCacheSeconds?: number;
}

/** The HTTP data plane's bearer token. Candidate for ENV (shared/definitions.ts) next to DATAPLANE_URL. */
const DATAPLANE_TOKEN_ENV = 'DATAPLANE_TOKEN';
const PASSWORD_CACHE_ENV = 'PASSWORD_CACHE_SECONDS';

const nonEmpty = z.string().check(z.minLength(1));

export function loadConfig(env: Record<string, string | undefined>): Config {
  const schema = z.object({
    region: nonEmpty,
    catalogTable: nonEmpty,
    dataPlaneTable: z.optional(nonEmpty),
    dataPlaneUrl: z.optional(z.url()),
    dataPlaneToken: z.optional(nonEmpty),
    queueUrls: z.object(Object.fromEntries(CONTROLLERS.map((c) => [c, nonEmpty])) as Record<Controller, typeof nonEmpty>),
    dlqUrls: z.object(Object.fromEntries(CONTROLLERS.map((c) => [c, z.optional(nonEmpty)]))),
    passwordCacheSeconds: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(3600))),
  });
  const raw = {
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    catalogTable: env[ENV.catalogTable],
    dataPlaneTable: env[ENV.dataPlaneTable] || undefined,
    dataPlaneUrl: env[ENV.dataPlaneUrl] || undefined,
    dataPlaneToken: env[DATAPLANE_TOKEN_ENV] || undefined,
    queueUrls: Object.fromEntries(CONTROLLERS.map((c) => [c, env[ENV.queueUrl(c)]])),
    dlqUrls: Object.fromEntries(CONTROLLERS.map((c) => [c, env[ENV.dlqUrl(c)] || undefined])),
    passwordCacheSeconds: env[PASSWORD_CACHE_ENV] ? Number(env[PASSWORD_CACHE_ENV]) : undefined,
  };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const cfg = parsed.data;
  if (!cfg.dataPlaneTable && !cfg.dataPlaneUrl) {
    throw new Error(`invalid configuration: set ${ENV.dataPlaneTable} (reference data plane) or ${ENV.dataPlaneUrl}`);
  }
  return cfg as Config;
}

/** The environment a handler needs for a given config (used by the local runtime and CDK). */
export function configToEnv(cfg: Config): Record<string, string> {
  const env: Record<string, string> = { AWS_REGION: cfg.region, [ENV.catalogTable]: cfg.catalogTable };
  if (cfg.dataPlaneTable) env[ENV.dataPlaneTable] = cfg.dataPlaneTable;
  if (cfg.dataPlaneUrl) env[ENV.dataPlaneUrl] = cfg.dataPlaneUrl;
  if (cfg.dataPlaneToken) env[DATAPLANE_TOKEN_ENV] = cfg.dataPlaneToken;
  if (cfg.passwordCacheSeconds !== undefined) env[PASSWORD_CACHE_ENV] = String(cfg.passwordCacheSeconds);
  for (const c of CONTROLLERS) {
    env[ENV.queueUrl(c)] = cfg.queueUrls[c];
    const dlq = cfg.dlqUrls[c];
    if (dlq) env[ENV.dlqUrl(c)] = dlq;
  }
  return env;
}
