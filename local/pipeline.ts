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
import { apiHandler, authorizerHandler, executorHandler, makeSweeper, routerHandler } from '../shared/lambda/wiring';
import type { Sweeper } from '../shared/sweeper/sweeper';
import type { RetryPolicy } from '../shared/effects/retry-policies';
import type { Prober } from '../shared/probes/types';
import type { FullPassOptions } from '../shared/sweeper/full-pass';
import { redriveDeadLetters } from '../shared/effects/redrive';
import { localFingerprintKey } from '../shared/secrets/fingerprint-key';
import { LocalSecretStore } from '../shared/secrets/local-store';
import { randomBytes } from 'node:crypto';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators';
import { consoleFallback } from './console';
import { startHttpServer } from './http-server';
import { QueuePoller, type QueuePollerOptions } from './queue-poller';
import { ensureLocalResources } from './resources';
import { StreamPoller } from './stream-poller';

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
  /** The executors' event source mappings: batch size, concurrent invocations, long-poll wait (QUEUE_POLLER_DEFAULTS). */
  readonly queuePolling?: Pick<QueuePollerOptions, 'batchSize' | 'maxConcurrency' | 'waitSeconds'>;
}

export interface Pipeline {
  readonly config: Config;
  readonly clients: Clients;
  readonly url?: string;
  readonly faults: FaultInjector;
  readonly dataPlane: ReferenceDataPlane;
  readonly secrets: LocalSecretStore;
  readonly passwords: AppPasswords;
  readonly router: StreamPoller;
  readonly sweeper: Sweeper;
  readonly pollers: Readonly<Record<Controller, QueuePoller>>;
  readonly dlqUrls: Readonly<Record<Controller, string>>;
  readonly secretsTable: string;
  /** Moves a controller's dead-lettered effects back to its queue. */
  redrive(controller: Controller): Promise<number>;
  stop(): Promise<void>;
}

export async function startPipeline(o: PipelineOptions): Promise<Pipeline> {
  const region = LOCAL_REGION;
  const clients = makeClients({ region, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: o.dynamodbEndpoint, sqs: o.sqsEndpoint } });
  const res = await ensureLocalResources(clients.ddb, clients.sqs, o.prefix ?? 'ddl-', region, {
    ...(o.visibilityTimeoutSeconds !== undefined ? { visibilityTimeoutSeconds: o.visibilityTimeoutSeconds } : {}),
    maxReceiveCount: Object.fromEntries(Object.entries(o.retryPolicyOverrides ?? {}).map(([c, p]) => [c, p.budget])),
  });
  const cfg = res.config;
  const faults = o.faults ?? new FaultInjector();
  const dataPlane = new ReferenceDataPlane(clients.doc, cfg.dataPlaneTable!, { faults });
  const secretsKey = o.secretsKey ?? randomBytes(32);
  const secrets = new LocalSecretStore(clients.doc, res.secretsTable, secretsKey);

  const router = new StreamPoller({
    streams: clients.streams,
    doc: clients.doc,
    streamArn: res.streamArn,
    checkpointTable: res.checkpointTable,
    handler: routerHandler(cfg, clients, makeLogger('stream-router'), faults),
    logger: makeLogger('local-stream-mapping'),
  });
  const pollers = {} as Record<Controller, QueuePoller>;
  for (const c of CONTROLLERS) {
    pollers[c] = new QueuePoller({
      sqs: clients.sqs,
      queueUrl: cfg.queueUrls[c],
      handler: executorHandler(cfg, clients, c, makeLogger(`executor-${c}`), faults, dataPlane, o.retryPolicyOverrides?.[c], secrets),
      logger: makeLogger(`local-sqs-mapping-${c}`),
      functionName: `executor-${c}`,
      region,
      ...o.queuePolling,
    });
  }
  if (o.workers !== false) {
    router.start();
    for (const c of CONTROLLERS) pollers[c].start();
  }

  const sweeper = makeSweeper(cfg, clients, makeLogger('sweeper'), { dataPlane, secrets, faults, ...(o.prober ? { prober: o.prober } : {}), ...(o.fullPass !== undefined ? { fullPass: o.fullPass } : {}) });
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
      api: apiHandler(cfg, clients, makeLogger('ddl-api'), secrets, o.prober, localFingerprintKey(secretsKey)),
      authorizer: authorizerHandler(cfg, clients, makeLogger('authorizer')),
      // The console at `/` (built on first request; see local/console.ts).
      fallback: consoleFallback(),
      port: o.port,
      ...(o.host ? { host: o.host } : {}),
    });
  }

  return {
    config: cfg,
    clients,
    ...(http ? { url: http.url } : {}),
    faults,
    dataPlane,
    secrets,
    passwords,
    router,
    sweeper,
    pollers,
    dlqUrls: res.dlqUrls,
    secretsTable: res.secretsTable,
    redrive: async (controller) =>
      (await redriveDeadLetters({ sqs: clients.sqs, doc: clients.doc, catalogTable: cfg.catalogTable, dlqUrl: res.dlqUrls[controller], queueUrl: cfg.queueUrls[controller] })).moved,
    async stop() {
      // Stop accepting and drain the API first: its requests still need the workers' tables.
      if (sweepTimer) clearInterval(sweepTimer);
      await http?.stop();
      await sweeping;
      await Promise.all([router.stop(), ...CONTROLLERS.map((c) => pollers[c].stop())]);
      // A long poll left open by a stop gives back what it receives; let it, before the client goes.
      await Promise.all(CONTROLLERS.map((c) => pollers[c].settled()));
      clients.ddb.destroy();
      clients.sqs.destroy();
      clients.streams.destroy();
    },
  };
}
