/**
 * The Postgres wire endpoint as a long-running task: the ECS Fargate service behind a Network Load
 * Balancer (cdk/constructs/pgwire-service.ts) runs it from functions/pgwire-server/main.ts. Around
 * the same server the local runtime runs (./server.ts, over the DDL function's `SqlApi`) it adds
 * what a task on a public network needs:
 *
 * - TLS only (`requireTls`): the load balancer passes TCP through and the task ends TLS itself,
 *   with the certificate from its secret, read again every `tlsRefreshMs` so a renewal needs no
 *   restart (a failed re-read keeps the certificate in use and logs why);
 * - TCP keepalive under the load balancer's idle timeout, so an idle session is not cut silently;
 * - `GET /health` on its own port for the load balancer and the container health check: 200 while
 *   the task takes sessions, 503 from the moment it drains;
 * - `stop()`, for SIGTERM: drain (stop accepting, let statements in flight be answered, close the
 *   rest with 57P01), then close the health port.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SqlApi } from '../api/sql-api';
import type { PgwireConfig } from '../config';
import { PGWIRE_DEFAULTS } from '../definitions';
import type { TlsCertificate } from '../secrets/tls-certificate';
import { type PgPasswords, startPgServer } from './server';

/** Days before its end from which a certificate in use is logged as a warning at each read. */
const EXPIRY_WARNING_DAYS = 14;

export interface PgwireTaskOptions {
  readonly api: Pick<SqlApi, 'run'>;
  readonly passwords: PgPasswords;
  readonly logger: Logger;
  readonly config: PgwireConfig;
  /** Reads the TLS certificate and key (shared/secrets/tls-certificate.ts); the task does not start without one. */
  readonly certificate: () => Promise<TlsCertificate>;
  /** Where both ports listen. @default '0.0.0.0' (in a task, the load balancer reaches it on its private address) */
  readonly host?: string;
  /** @default PGWIRE_DEFAULTS.tlsRefreshSeconds */
  readonly tlsRefreshMs?: number;
  /** @default PGWIRE_DEFAULTS.tcpKeepAliveSeconds */
  readonly tcpKeepAliveMs?: number;
}

export interface PgwireTask {
  readonly port: number;
  readonly healthPort: number;
  readonly connections: number;
  /** Drains (see {@link PgServer.drain}) within the configured drain time, then closes the health port. */
  stop(): Promise<void>;
}

export async function startPgwireTask(o: PgwireTaskOptions): Promise<PgwireTask> {
  const host = o.host ?? '0.0.0.0';
  const first = await o.certificate();
  logCertificate(o.logger, first);
  const pg = await startPgServer({
    api: o.api,
    passwords: o.passwords,
    logger: o.logger,
    port: o.config.port,
    host,
    tls: first,
    requireTls: true,
    maxConnections: o.config.maxConnections,
    tcpKeepAliveMs: o.tcpKeepAliveMs ?? PGWIRE_DEFAULTS.tcpKeepAliveSeconds * 1000,
  });

  let serving = true;
  const health: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    res.writeHead(serving ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: serving ? 'ok' : 'draining', connections: pg.connections }));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      health.once('error', reject);
      health.listen(o.config.healthPort, host, () => {
        health.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await pg.close();
    throw err;
  }

  let current = first;
  const refresh = setInterval(() => {
    o.certificate().then(
      (next) => {
        if (next.cert !== current.cert || next.key !== current.key) {
          pg.setTls(next);
          o.logger.info('TLS certificate replaced', { subject: next.subject, notAfter: next.notAfter.toISOString() });
        }
        current = next;
        logCertificate(o.logger, next, false);
      },
      (err: unknown) => o.logger.error('TLS certificate could not be read again; serving the one in use', { error: err as Error }),
    );
  }, o.tlsRefreshMs ?? PGWIRE_DEFAULTS.tlsRefreshSeconds * 1000);
  refresh.unref();

  let stopping: Promise<void> | undefined;
  return {
    port: pg.port,
    healthPort: (health.address() as AddressInfo).port,
    get connections() {
      return pg.connections;
    },
    stop() {
      stopping ??= (async () => {
        serving = false;
        clearInterval(refresh);
        o.logger.info('draining', { connections: pg.connections, drainSeconds: o.config.drainSeconds });
        await pg.drain(o.config.drainSeconds * 1000);
        await new Promise<void>((r) => health.close(() => r()));
        o.logger.info('stopped');
      })();
      return stopping;
    },
  };
}

function logCertificate(logger: Logger, c: TlsCertificate, always = true): void {
  const daysLeft = (c.notAfter.getTime() - Date.now()) / 86_400_000;
  const fields = { subject: c.subject, notAfter: c.notAfter.toISOString(), daysLeft: Math.floor(daysLeft) };
  if (daysLeft < EXPIRY_WARNING_DAYS) logger.warn(daysLeft < 0 ? 'TLS certificate has expired: clients with sslmode=verify-full refuse it' : 'TLS certificate expires soon', fields);
  else if (always) logger.info('TLS certificate', fields);
}
