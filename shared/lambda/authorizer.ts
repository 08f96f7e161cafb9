/** The API Gateway authorizer's handler (app passwords), built from a Config and its clients. */
import type { Logger } from '@aws-lambda-powertools/logger';
import { createAuthorizerHandler } from '../api/handlers';
import { AppPasswords } from '../auth/app-passwords';
import type { Clients } from '../aws';
import type { Config } from '../config';

export function authorizerHandler(cfg: Config, clients: Pick<Clients, 'doc'>, logger: Logger) {
  const ttl = cfg.passwordCacheSeconds;
  return createAuthorizerHandler({ passwords: new AppPasswords(clients.doc, cfg.catalogTable, ttl === undefined ? {} : { cacheTtlMs: ttl * 1000 }), logger });
}
