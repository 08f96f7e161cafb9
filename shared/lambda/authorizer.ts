/** The API Gateway authorizer's handler (app passwords), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import { createAuthorizerHandler } from '../api/handlers';
import { AppPasswords } from '../auth/app-passwords';
import type { Clients } from '../aws';
import type { Config } from '../config';

/** The app-password check of a deployment, with its password cache (`PASSWORD_CACHE_SECONDS`). */
export function appPasswords(cfg: Config, clients: Pick<Clients, 'doc'>): AppPasswords {
  const ttl = cfg.passwordCacheSeconds;
  return new AppPasswords(clients.doc, cfg.catalogTable, ttl === undefined ? {} : { cacheTtlMs: ttl * 1000 });
}

export function authorizerHandler(cfg: Config, clients: Pick<Clients, 'doc'>, logger: Logger) {
  return createAuthorizerHandler({ passwords: appPasswords(cfg, clients), logger });
}
