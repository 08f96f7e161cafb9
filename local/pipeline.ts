/**
 * The whole pipeline on one machine: tables and queues, the stream router (as an event source
 * mapping would run it), one queue poller per controller, and the HTTP API. Used by `npm start`
 * (local/main.ts) and by the integration tests, each with its own table/queue prefix.
 */
import { makeClients, type Clients } from '../shared/aws';
import type { Config } from '../shared/config';
import { CONTROLLERS, type Controller } from '../shared/definitions';
import { FaultInjector } from '../shared/dataplane/faults';
import { ReferenceDataPlane } from '../shared/dataplane/reference';
import { AppPasswords } from '../shared/auth/app-passwords';
import { makeLogger } from '../shared/lambda/logger';
import { startPgServer, type PgServer, type PgServerOptions } from '../shared/pgwire/server';
import { sqlApiFor } from '../shared/lambda/api';
import { apiHandler, authorizerHandler, executorHandler, makeSweeper, routerHandler, statusIngestHandler } from '../shared/lambda/wiring';
import { OutboxStore } from '../shared/catalog/outbox-store';
import { HealthMonitor } from '../shared/dataplane/health-monitor';
import type { StatusReport } from '../shared/dataplane/contract';
import type { Sweeper } from '../shared/sweeper/sweeper';
import type { RetryPolicy } from '../shared/effects/retry-policies';
import type { Prober } from '../shared/probes/types';
import type { FullPassOptions } from '../shared/sweeper/full-pass';
import { redriveDeadLetters } from '../shared/router/redrive';
import { localFingerprintKey } from '../shared/secrets/fingerprint-key';
import { LocalSecretStore } from '../shared/secrets/local-store';
import { runAs, type CallRecorder } from '../shared/clients/call-recorder';
import { randomBytes } from 'node:crypto';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators';
import { consoleFallback } from './console';
import { startHttpServer } from './http-server';
import { QueuePoller, type QueuePollerOptions } from './queue-poller';
import { ensureLocalResources } from './resources';
import { StreamPoller } from './stream-poller';
import { EventLog } from './event-log';
import { PROFILES, type ProfileName, type RuntimeProfile } from './profiles';

export interface PipelineOptions {
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  /** Prefix of every table and queue name (tests isolate themselves with it). */
  readonly prefix?: string;
  /** HTTP port; 0 picks a free one; undefined serves no HTTP. */
  readonly port?: number;
  readonly host?: string;
  /** Faults for tests and the chaos run; a fresh injector (no faults) otherwise. */
  readonly faults?: FaultInjector;
  /** Start the router and executors (default true). */
  readonly workers?: boolean;
  /** The sweeper's full pass (hourly by default); `false` turns it off. */
  readonly fullPass?: FullPassOptions | false;
  /** Probes the connectors' upstreams (purification and the sweeper's runtime checks). */
  readonly prober?: Prober;
  /** The local secret store's 32-byte AES key (a fresh random one when absent: fine for tests). */
  readonly secretsKey?: Buffer;
  /** Run the sweeper every this many seconds (the AWS stack runs it every minute); 0 = never. */
  readonly sweepIntervalSeconds?: number;
  /**
   * The reference data plane checks every live connector every this many seconds and reports
   * changes (and heartbeats) to the status queue; 0 = only when a resource changes and on
   * `reportHealth()`.
   */
  readonly healthIntervalSeconds?: number;
  /** How often a running connector repeats its health (HEARTBEAT_INTERVAL_SECONDS). */
  readonly heartbeatIntervalSeconds?: number;
  /**
   * The settings profile (local/profiles.ts): `deployed` runs the stack's mapping, queue and
   * authorizer settings; `fast` the quicker local ones. The options below override single settings.
   * @default 'deployed'
   */
  readonly profile?: ProfileName;
  /**
   * Records every AWS call each function makes (shared/clients/call-recorder.ts), for the
   * IAM sufficiency test; off when absent.
   */
  readonly recorder?: CallRecorder;
  /**
   * The DDL function sends committed effects to their queues itself (shared/router/fast-path.ts);
   * `false` leaves them to the stream and the router alone.
   * @default true when the workers run; false with `workers: false` (tests that deliver effects
   *   themselves, in the order they choose, and commit-only benchmarks)
   */
  readonly fastPath?: boolean;
  /** Queue visibility timeout override (see LocalResourceOptions). */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Test seam: replaces an executor's named retry policy (and its queue's maxReceiveCount) so a
   * test can spend a budget in seconds. Production code always runs the policies as written.
   */
  readonly retryPolicyOverrides?: Partial<Record<Controller, RetryPolicy>>;
  /**
   * Runs after the workers started and before the HTTP server listens (`npm start` puts the
   * bootstrap password in place here), so a health check's first 200 means ready for requests.
   */
  readonly beforeServing?: (passwords: AppPasswords) => Promise<void>;
  /** The executors' event source mappings: batch size, concurrent invocations, long-poll wait (default: the profile's). */
  readonly queuePolling?: Pick<QueuePollerOptions, 'batchSize' | 'maxConcurrency' | 'waitSeconds'>;
  /** Where the router publishes status events (the stack's bus, locally); default: a log in memory. */
  readonly eventLog?: EventLog;
  /** Effects of one tenant admitted to the queues at a time (default EFFECT_CAPACITY.perTenantInQueue, as in the stack). */
  readonly perTenantInQueue?: number;
  /** The Postgres wire endpoint's port (0 picks one); undefined serves none. */
  readonly pgPort?: number;
  /** Its settings beyond the port (the tenant of connections that name none, TLS, limits). */
  readonly pg?: Omit<PgServerOptions, 'api' | 'passwords' | 'logger'>;
  /** Start the SQL engine with the Postgres wire endpoint, on a worker thread (`npm start`), rather than on its first query. */
  readonly pgEngineAtStart?: boolean;
}

export interface Pipeline {
  readonly config: Config;
  /** The settings profile the pipeline runs with. */
  readonly profile: RuntimeProfile;
  readonly clients: Clients;
  readonly url?: string;
  /** The Postgres wire endpoint's port, when it listens. */
  readonly pgPort?: number;
  readonly pgServer?: PgServer;
  readonly faults: FaultInjector;
  readonly dataPlane: ReferenceDataPlane;
  readonly secrets: LocalSecretStore;
  readonly passwords: AppPasswords;
  readonly router: StreamPoller;
  /** The status events the router published (`GET /api/events`, `ddlctl events`). */
  readonly events: EventLog;
  /** The name the event log stands for as a bus (what the call recorder names the router's PutEvents with). */
  readonly eventBusName: string;
  readonly sweeper: Sweeper;
  /** The reference data plane's health checks, which report to the status queue. */
  readonly health: HealthMonitor;
  /** The status queue's consumer (the status-ingest function's event source mapping). */
  readonly statusPoller: QueuePoller;
  readonly statusQueueUrl: string;
  readonly statusDlqUrl: string;
  /**
   * Runs one health round that reports every live connector, and waits until the status-ingest
   * function has handled each report: afterwards the statuses say what the data plane sees now.
   * `timeoutMs` is a hang guard, not a budget (default 120 s): on a loaded 2-core machine a round
   * over every connector of a busy test pipeline took longer than 15 s.
   */
  reportHealth(timeoutMs?: number): Promise<StatusReport[]>;
  readonly pollers: Readonly<Record<Controller, QueuePoller>>;
  readonly dlqUrls: Readonly<Record<Controller, string>>;
  readonly secretsTable: string;
  /** Moves a controller's dead-lettered effects back to its queue. */
  redrive(controller: Controller): Promise<number>;
  stop(): Promise<void>;
}

/**
 * SDK attempts per DynamoDB call against DynamoDB Local (AWS's standard mode makes 3; SQS calls
 * keep 3). 8 attempts (about 6 s of backoff on average) still let the emulator's lock timeouts
 * through as 500s at a load average of 20 on 2 cores (the IAM test's workload, and executor retries
 * with backoff that skewed the fairness test's waits); 12 wait about 40 s before giving up.
 */
const LOCAL_DYNAMO_MAX_ATTEMPTS = 12;

export async function startPipeline(o: PipelineOptions): Promise<Pipeline> {
  const region = LOCAL_REGION;
  // DynamoDB Local serializes the writes to a table behind a lock with a timeout; on a loaded
  // machine it answers 500 "timed out waiting for a lock. This request will succeed in actual
  // DynamoDB API". The SDK retries a 500 with backoff (transactions keep their client request
  // token, so a retried one is applied once); more attempts than in AWS keep that emulator
  // artifact from surfacing as an internal error.
  const clients = makeClients({ region, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: o.dynamodbEndpoint, sqs: o.sqsEndpoint }, dynamoMaxAttempts: LOCAL_DYNAMO_MAX_ATTEMPTS, ...(o.recorder ? { recorder: o.recorder } : {}) });
  /** A handler run as its function: its AWS calls are attributed to it (when recording). */
  const as = <A extends unknown[], R>(name: string, h: (...a: A) => Promise<R>) => (...a: A) => runAs(name, () => h(...a));
  const profile = PROFILES[o.profile ?? 'deployed'];
  const visibilityTimeoutSeconds = o.visibilityTimeoutSeconds ?? profile.visibilityTimeoutSeconds;
  const res = await ensureLocalResources(clients.ddb, clients.sqs, o.prefix ?? 'ddl-', region, {
    ...(visibilityTimeoutSeconds !== undefined ? { visibilityTimeoutSeconds } : {}),
    maxReceiveCount: Object.fromEntries(Object.entries(o.retryPolicyOverrides ?? {}).map(([c, p]) => [c, p.budget])),
  });
  const cfg: Config = o.perTenantInQueue !== undefined ? { ...res.config, perTenantInQueue: o.perTenantInQueue } : res.config;
  const faults = o.faults ?? new FaultInjector();
  const dataPlane = new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable!, { faults });
  const secretsKey = o.secretsKey ?? randomBytes(32);
  const localSecrets = new LocalSecretStore(clients.doc, res.secretsTable, secretsKey);
  const secrets = o.recorder ? o.recorder.secretStore(localSecrets) : localSecrets;

  const events = o.eventLog ?? new EventLog();
  const eventBusName = `${o.prefix ?? 'ddl-'}status-events`;
  const router = new StreamPoller({
    streams: clients.streams,
    doc: clients.doc,
    streamArn: res.streamArn,
    checkpointTable: res.checkpointTable,
    handler: as('stream-router', routerHandler(cfg, clients, makeLogger('stream-router'), faults, o.recorder ? o.recorder.eventBus(events, eventBusName) : events)),
    logger: makeLogger('local-stream-mapping'),
    functionTimeoutMs: profile.functionTimeoutMs,
    ...profile.stream,
  });
  const pollers = {} as Record<Controller, QueuePoller>;
  for (const c of CONTROLLERS) {
    pollers[c] = new QueuePoller({
      sqs: clients.sqs,
      queueUrl: cfg.queueUrls[c],
      handler: as(`executor-${c}`, executorHandler({ config: cfg, clients, controller: c, logger: makeLogger(`executor-${c}`), faults, dataPlane, policy: o.retryPolicyOverrides?.[c], secrets })),
      logger: makeLogger(`local-sqs-mapping-${c}`),
      functionName: `executor-${c}`,
      functionTimeoutMs: profile.functionTimeoutMs,
      region,
      ...profile.queuePolling,
      ...o.queuePolling,
    });
  }
  // The event source mappings read with their function's role: their reads count as its calls.
  if (o.workers !== false) {
    runAs('stream-router', () => router.start());
    for (const c of CONTROLLERS) runAs(`executor-${c}`, () => pollers[c].start());
  }

  const ingested = new Set<string>();
  const reportKey = (r: Pick<StatusReport, 'tenant' | 'objectId' | 'generation' | 'sequence'>) => `${r.tenant}/${r.objectId}/${r.generation}/${r.sequence}`;
  const statusPoller = new QueuePoller({
    sqs: clients.sqs,
    queueUrl: res.statusQueueUrl,
    handler: statusIngestHandler(cfg, clients, makeLogger('status-ingest'), {
      onIngested: (body) => {
        const r = JSON.parse(body) as StatusReport;
        ingested.add(reportKey(r));
      },
    }),
    logger: makeLogger('local-sqs-mapping-status'),
    functionName: 'status-ingest',
    region,
    batchSize: 10,
    maxConcurrency: 4,
  });
  const health = new HealthMonitor({
    dataPlane,
    sqs: clients.sqs,
    queueUrl: res.statusQueueUrl,
    logger: makeLogger('reference-data-plane-health'),
    secrets,
    ...(o.prober ? { prober: o.prober } : {}),
    ...(o.heartbeatIntervalSeconds !== undefined ? { heartbeatIntervalSeconds: o.heartbeatIntervalSeconds } : {}),
  });
  // A check on apply runs from inside an executor's call here; in AWS the reporter function does
  // the checks, so their calls are the reporter's (what the IAM check evaluates).
  const onApplied = dataPlane.onChange;
  if (onApplied) dataPlane.onChange = (...a) => runAs('reference-reporter', () => onApplied(...a));
  if (o.workers !== false) {
    runAs('status-ingest', () => statusPoller.start());
    // The reference data plane's health rounds are the stack's reference-reporter function.
    if (o.healthIntervalSeconds) runAs('reference-reporter', () => health.start(o.healthIntervalSeconds!));
  }

  const sweeper = makeSweeper(cfg, clients, makeLogger('sweeper'), { dataPlane, secrets, faults, ...(o.prober ? { prober: o.prober } : {}), ...(o.fullPass !== undefined ? { fullPass: o.fullPass } : {}) });
  if (o.recorder) {
    // The sweeper is run by the schedule below and by tests and tools calling sweep(): either way, as its function.
    const sweep = sweeper.sweep.bind(sweeper);
    sweeper.sweep = (now?: Date) => runAs('sweeper', () => sweep(now));
  }
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();
  if (o.sweepIntervalSeconds) {
    const sweepLogger = makeLogger('local-sweeper-schedule');
    const tick = () => {
      sweeping = sweeper.sweep().catch((err) => sweepLogger.error('sweep failed', { error: err as Error }));
    };
    tick();
    sweepTimer = setInterval(tick, o.sweepIntervalSeconds * 1000);
  }

  const passwords = new AppPasswords(clients.doc, cfg.catalogTable);
  await o.beforeServing?.(passwords);
  let http: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  if (o.port !== undefined) {
    http = await startHttpServer({
      api: as('ddl-api', apiHandler(cfg, (o.fastPath ?? o.workers !== false) ? clients : { doc: clients.doc }, makeLogger('ddl-api'), secrets, o.prober, localFingerprintKey(secretsKey), faults)),
      authorizer: as('authorizer', authorizerHandler(cfg, clients, makeLogger('authorizer'))),
      // The console at `/` (built on first request; see local/console.ts).
      fallback: consoleFallback(),
      events,
      port: o.port,
      authorizerCacheTtlSeconds: profile.authorizerCacheTtlSeconds,
      functionTimeoutMs: profile.functionTimeoutMs,
      ...(o.host ? { host: o.host } : {}),
    });
  }
  // The Postgres wire endpoint: the DDL function's SQL API, in this process (the stack runs it on Fargate).
  let pg: PgServer | undefined;
  if (o.pgPort !== undefined) {
    const sqlApi = sqlApiFor(cfg, (o.fastPath ?? o.workers !== false) ? clients : { doc: clients.doc }, makeLogger('pgwire'), secrets, o.prober, localFingerprintKey(secretsKey), faults);
    // Its AWS calls, statements and logins alike, are the pgwire task's (the IAM test holds them to its role).
    // `npm start` starts the engine with the server, on its own thread (a test's pipeline, on its first query).
    if (o.pgEngineAtStart) sqlApi.startEngine();
    const api = { run: (...a: Parameters<typeof sqlApi.run>) => runAs('pgwire', () => sqlApi.run(...a)) };
    const pgPasswords = {
      verifyPassword: (...a: Parameters<AppPasswords['verifyPassword']>) => runAs('pgwire', () => passwords.verifyPassword(...a)),
      scramVerifiers: (tenant: string) => runAs('pgwire', () => passwords.scramVerifiers(tenant)),
    };
    pg = await startPgServer({ ...(o.pg ?? {}), api, passwords: pgPasswords, logger: makeLogger('pgwire'), port: o.pgPort, ...(o.host ? { host: o.host } : {}) });
  }

  return {
    config: cfg,
    profile,
    clients,
    ...(http ? { url: http.url } : {}),
    ...(pg ? { pgPort: pg.port, pgServer: pg } : {}),
    faults,
    dataPlane,
    secrets,
    passwords,
    router,
    events,
    eventBusName,
    sweeper,
    pollers,
    health,
    statusPoller,
    statusQueueUrl: res.statusQueueUrl,
    statusDlqUrl: res.statusDlqUrl,
    async reportHealth(timeoutMs = 120_000) {
      await health.idle();
      const reports = await runAs('reference-reporter', () => health.checkAll(true));
      const deadline = Date.now() + timeoutMs;
      while (!reports.every((r) => ingested.has(reportKey(r)))) {
        if (Date.now() > deadline) throw new Error(`status reports not ingested within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return reports;
    },
    dlqUrls: res.dlqUrls,
    secretsTable: res.secretsTable,
    redrive: async (controller) =>
      (await redriveDeadLetters({ sqs: clients.sqs, outbox: new OutboxStore(clients.doc, cfg.catalogTable), dlqUrl: res.dlqUrls[controller], queueUrl: cfg.queueUrls[controller] })).moved,
    async stop() {
      // Stop accepting and drain the API first: its requests still need the workers' tables.
      if (sweepTimer) clearInterval(sweepTimer);
      await http?.stop();
      await pg?.close();
      await sweeping;
      await Promise.all([router.stop(), ...CONTROLLERS.map((c) => pollers[c].stop())]);
      await health.stop();
      await statusPoller.stop();
      // A long poll left open by a stop gives back what it receives; let it, before the client goes.
      await Promise.all([...CONTROLLERS.map((c) => pollers[c].settled()), statusPoller.settled()]);
      clients.ddb.destroy();
      clients.sqs.destroy();
      clients.streams.destroy();
    },
  };
}
