/**
 * The Postgres wire endpoint's container (ECS Fargate behind a Network Load Balancer,
 * cdk/constructs/pgwire-service.ts). Not a Lambda: a process that serves until SIGTERM. Its
 * configuration is the DDL function's (the same variables, the same loader) plus the pgwire task's
 * own (ENV.pg*); it builds the DDL function's SqlApi (the same stores, prober, secret store and
 * fast-path sender), checks app passwords against the catalog table as the authorizer does, and
 * serves shared/pgwire/server.ts on 6875 over TLS only.
 *
 * SIGTERM (an ECS stop, a deployment, a scale-in) drains: no new sessions, statements in flight are
 * answered, the rest are closed with 57P01; then the process exits 0.
 */

// The SQL engine starts first, on a thread of its own, before this task's own modules load: the
// first client's catalog read does not wait for it, and no client's login or DDL waits for
// another's catalog query (shared/api/engine-worker.ts).
const engine = import('../../shared/api/engine-worker').then((m) => m.WorkerEngineHost.open());
engine.catch(() => undefined);

async function main(): Promise<void> {
  const [{ loadConfig, loadPgwireConfig, secretArnRegion }, { sqlApiFor }, { appPasswords }, { makeSecretStringReader }, { makeLogger }, { awsSqlApiDependencies }, { startPgwireTask }, { secretTlsCertificate }] = await Promise.all([
    import('../../shared/config'),
    import('../../shared/lambda/api'),
    import('../../shared/lambda/authorizer'),
    import('../../shared/clients/secrets-manager'),
    import('../../shared/lambda/logger'),
    import('../../shared/lambda/sql-api-dependencies'),
    import('../../shared/pgwire/task'),
    import('../../shared/secrets/tls-certificate'),
  ]);
  const config = loadConfig(process.env);
  const pgwire = loadPgwireConfig(process.env);
  const logger = makeLogger('pgwire');
  const deps = awsSqlApiDependencies(config);
  const api = sqlApiFor(config, deps.clients, logger, deps.secrets, deps.prober, deps.fingerprintKey);
  api.startEngine(engine);
  const task = await startPgwireTask({
    api,
    passwords: appPasswords(config, deps.clients),
    logger,
    config: pgwire,
    // The secret is read in its own region (its ARN names it), like the data plane token.
    certificate: secretTlsCertificate(makeSecretStringReader({ region: secretArnRegion(pgwire.tlsSecretArn) ?? config.region }), pgwire.tlsSecretArn),
  });
  logger.info('serving', { port: task.port, healthPort: task.healthPort });
  const stop = (signal: string) => {
    logger.info('stop requested', { signal });
    task.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('drain failed', { error: err as Error });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  // Configuration and certificate problems end here, before the port opens: ECS shows the task stopped with this line in its log.
  console.error(err instanceof Error ? `pgwire task failed to start: ${err.message}` : err);
  process.exit(1);
});
