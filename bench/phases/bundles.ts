/**
 * 7. The Lambda bundles: built by the CDK stack's own code (cdk/constructs/ddl-function.ts:
 *    `bundleFunction` with FUNCTION_DEFAULTS.bundling — ESM, minified, node22, the AWS SDK bundled
 *    in (beside it, the same function with the runtime's SDK loaded with require(), the stack's
 *    choice until issue 32), the createRequire banner, source maps; code splitting
 *    for the functions whose construct sets `splitChunks`), minified size per function (entry and chunks), and cold
 *    initialisation: a fresh `node` per run imports the bundle with the function's environment
 *    (configToEnv of the live pipeline, AWS_ENDPOINT_URL_* at the emulators, NODE_OPTIONS as the
 *    construct sets it) and serves one real event against the local tables and queues.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type * as esbuild from 'esbuild';
import { marshall } from '@aws-sdk/util-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { newObjectId, SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { configToEnv } from '../../shared/config';
import { CATALOG_TABLE, CONTROLLERS } from '../../shared/definitions';
import { makeLogger } from '../../shared/lambda/logger';
import { routeRecord } from '../../shared/router/routing';
import { LOCAL_CREDENTIALS } from '../../local/emulators';
import { ensureTable } from '../../local/resources';
import { newTenant, pauseWorkers, type Bench } from '../lib/harness';
import { summarize } from '../lib/stats';
import { sameCallsRounds, type CapturedCall } from '../lib/same-calls';
import { summarizeProfile, type Profile, type ProfileSummary } from '../lib/profile';

// The sweeper first: its event is then a quiet sweep (the other functions' events leave pending effects behind).
const FUNCTIONS = ['sweeper', 'ddl-api', 'authorizer', 'stream-router', 'executor-compute', 'executor-storage', 'executor-secrets'] as const;
type Fn = (typeof FUNCTIONS)[number];
const TARGET_COLD_INIT_MS = 150;

/**
 * The AWS SDK packages each function's handler calls (read from functions/<name>: the clients it
 * builds, shared/clients/*, and its secret store). The entry should load no more than these
 * at cold start (the DDL API and the sweeper load Secrets Manager on first use, from a chunk).
 */
const SDK_NEEDED: Record<Fn, readonly string[]> = {
  sweeper: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb', '@aws-sdk/client-sqs', '@aws-sdk/client-secrets-manager'],
  'ddl-api': ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-secrets-manager'],
  authorizer: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  'stream-router': ['@aws-sdk/client-sqs', '@aws-sdk/util-dynamodb'],
  'executor-compute': ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs'],
  'executor-storage': ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs'],
  'executor-secrets': ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs', '@aws-sdk/client-secrets-manager'],
};

export interface BundleFigure {
  readonly function: Fn;
  readonly splitChunks: boolean;
  /** Minified entry file (index.mjs), bytes and KiB; source maps not counted. */
  readonly entryBytes: number;
  readonly entryKiB: number;
  readonly chunks: { file: string; bytes: number }[];
  readonly totalKiB: number;
  /** The largest inputs in the entry file (from esbuild's metafile), KiB. */
  readonly largestInputs: { input: string; kib: number }[];
  readonly coldInit: ColdInit;
  /**
   * The same with NODE_OPTIONS=--enable-source-maps (Node reads every loaded module's map at load),
   * what the functions ran with before their traces were mapped lazily (shared/lambda/stack-traces.ts),
   * its runs alternated with `coldInit`'s. Absent from runs before that change.
   */
  readonly coldInitEagerSourceMaps?: ColdInit;
  /**
   * The AWS SDK packages the import loads, as packages: seen in a traced run of the build with the
   * runtime's SDK (a package loaded on first use, with `import()`, is not one), else the packages
   * its entry names as external; and requiring only them from node_modules in a fresh process (p50
   * ms), what they cost when the runtime provides them.
   */
  readonly externalImports: string[];
  /** The SDK packages the traced run loaded after the import, while serving the first event. */
  readonly sdkLoadedOnFirstEvent?: string[];
  readonly sdkImportMsP50: number;
  /** Importing only the SDK packages the handler calls (SDK_NEEDED), p50 ms: the difference is spent on clients it never uses. */
  readonly sdkNeededImports: string[];
  readonly sdkNeededImportMsP50: number;
  /**
   * The same function with the Lambda runtime's AWS SDK (`@aws-sdk/*` external, loaded with
   * require()), against the construct's choice: entry size and cold init (p50, as deployed).
   */
  readonly sdkRuntime: { entryKiB: number; totalKiB: number; coldInit: ColdInit };
  /**
   * The baseline on the same machine in the same run (bench/baseline-handler.mjs: imports only
   * `@aws-sdk/client-dynamodb`, answers one event with one GetItem), and this function's cold init
   * (import + first event, p50) as a multiple of it (goal ≤ 1.5).
   */
  readonly baselineColdInit: ColdInit;
  readonly coldInitRatio: number;
  /** When cold init misses its target: a `node --cpu-prof` run of it, summarised. */
  readonly coldProfile?: ProfileSummary;
  readonly firstEvent: string;
  /** The AWS calls of the first event, from a traced run of its own (not a timed one). */
  readonly firstEventCalls?: FirstEventCalls;
  /**
   * The same-calls floor (bench/lib/same-calls.ts, bench/same-calls-handler.mjs): the first event's
   * own AWS calls, in the same rounds, made by bare SDK clients loaded like the baseline's —
   * alternated run by run with the function's cold starts. Only when the first event needs more
   * than one round of calls (else the baseline is that floor).
   */
  readonly sameCallsColdInit?: ColdInit;
  /** The floor's own calls, traced (the same operations; its rounds' durations). */
  readonly sameCallsFirstEventCalls?: FirstEventCalls;
  /** The same for the baseline (its one GetItem). */
  readonly baselineFirstEventCalls?: FirstEventCalls;
}

/**
 * The AWS calls a first event made (bench/call-trace.cjs): in order, grouped into sequential
 * rounds (a call that starts after every call before it ended begins a new round), with each
 * round's duration. A round after the first is time the baseline's one GetItem does not wait for.
 */
export interface FirstEventCalls {
  readonly ops: string[];
  readonly rounds: number;
  /** Each round's duration (ms: its first start to its last end), in order. */
  readonly roundMs: number[];
  /** Each call, in start order: its operation, start and end in ms from the first call's start. */
  readonly calls: { op: string; at: number; ms: number | null }[];
}

export interface ColdInit {
  readonly runs: number;
  readonly importMsP50: number;
  readonly firstEventMsP50: number;
  /** import + first event, p50 and worst. */
  readonly totalMsP50: number;
  readonly totalMsMax: number;
  readonly nodeBootMsP50: number;
  readonly errors: string[];
}

/** Which functions the CDK constructs bundle with code splitting (`splitChunks: true` in their `new DdlFunction(...)`). */
function splitFunctions(repoRoot: string): Set<string> {
  const out = new Set<string>();
  const dir = join(repoRoot, 'cdk', 'constructs');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const src = readFileSync(join(dir, f), 'utf8');
    for (const block of src.split('new DdlFunction(').slice(1)) {
      const body = block.slice(0, block.indexOf('});') + 1);
      const entry = /functionEntry\((?:'([a-z-]+)'|`(executor)-\$\{[^}]+\}`)\)/.exec(body);
      if (!entry || !/splitChunks:\s*true/.test(body)) continue;
      if (entry[1]) out.add(entry[1]);
      else for (const c of CONTROLLERS) out.add(`executor-${c}`);
    }
  }
  return out;
}

function largestInputs(meta: esbuild.Metafile, outputFile: string): { input: string; kib: number }[] {
  const key = Object.keys(meta.outputs).find((k) => k.endsWith(outputFile));
  if (!key) return [];
  const byPackage = new Map<string, number>();
  for (const [input, v] of Object.entries(meta.outputs[key]!.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const name = m ? m[1]! : input.split('/').slice(0, 2).join('/');
    byPackage.set(name, (byPackage.get(name) ?? 0) + v.bytesInOutput);
  }
  return [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([input, bytes]) => ({ input, kib: Math.round((bytes / 1024) * 10) / 10 }));
}

export async function bundles(bench: Bench, tmpDir: string): Promise<BundleFigure[]> {
  const { bundleFunction, REPO_ROOT, functionEntry } = await import('../../cdk/constructs/ddl-function');
  const split = splitFunctions(REPO_ROOT);
  const root = join(tmpDir, 'bundles');
  rmSync(root, { recursive: true, force: true });
  const p = bench.live;
  await pauseWorkers(p);

  // The events' subjects: a tenant with an app password; real pending effects for the executors.
  const login = await newTenant(p, `${bench.tag}-cold`);
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable);
  async function pendingEffect(statement: string, kind: string): Promise<Record<string, unknown>> {
    const ids: string[] = [];
    const api = new SqlApi({ store, logger: makeLogger('bench'), secrets: p.secrets, newId: () => (ids.push(newObjectId()), ids[ids.length - 1]!) });
    const r = await api.handle(login.tenant, `${login.tenant}/bench`, JSON.stringify({ query: statement }), 'application/json');
    if (r.status !== 200) throw new Error(`cold-start subject failed: ${JSON.stringify(r.body)}`);
    const effects = (
      await p.clients.doc.send(
        new QueryCommand({ TableName: p.config.catalogTable, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)', ExpressionAttributeValues: { ':pk': `T#${login.tenant}`, ':e': 'EFF#' }, ConsistentRead: true }),
      )
    ).Items!;
    return effects.find((e) => ids.includes(e.objectId as string) && e.kind === kind && e.state === 'pending')!;
  }
  const sqsEvent = (effect: Record<string, unknown>) => {
    const msg = routeRecord({ eventName: 'INSERT', dynamodb: { NewImage: marshall(effect, { removeUndefinedValues: true }) as never } })!;
    return {
      Records: [
        {
          messageId: randomUUID(),
          receiptHandle: 'bench-receipt',
          body: msg.body,
          attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), MessageGroupId: msg.groupId, MessageDeduplicationId: msg.deduplicationId, SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${msg.controller}.fifo`,
          awsRegion: 'us-east-1',
        },
      ],
    };
  };
  let n = 0;
  const eventFor: Record<Fn, () => Promise<unknown>> = {
    'ddl-api': async () => ({
      resource: '/api/sql',
      path: '/api/sql',
      httpMethod: 'POST',
      headers: { 'content-type': 'application/json' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: JSON.stringify({ query: `CREATE TABLE cold_${n++} (id bigint NOT NULL, name text)` }),
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        apiId: 'bench',
        authorizer: { tenant: login.tenant, tokenId: 'bench', principalId: `${login.tenant}/bench` },
        httpMethod: 'POST',
        path: '/v1/api/sql',
        protocol: 'HTTP/1.1',
        requestId: randomUUID(),
        requestTimeEpoch: Date.now(),
        resourceId: 'bench',
        resourcePath: '/api/sql',
        stage: 'v1',
        identity: { sourceIp: '127.0.0.1' },
      },
    }),
    authorizer: async () => ({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:bench/v1/POST/api/sql',
      resource: '/api/sql',
      path: '/api/sql',
      httpMethod: 'POST',
      headers: { authorization: `Bearer ${login.password}`, 'content-type': 'application/json' },
      multiValueHeaders: {},
      pathParameters: null,
      queryStringParameters: {},
      multiValueQueryStringParameters: null,
      stageVariables: null,
      requestContext: { requestId: randomUUID() },
    }),
    'stream-router': async () => {
      const effect = await pendingEffect(`CREATE TABLE cold_r_${n++} (a int)`, 'collection');
      return {
        Records: [
          {
            eventID: randomUUID(),
            eventName: 'INSERT',
            eventVersion: '1.1',
            eventSource: 'aws:dynamodb',
            awsRegion: 'us-east-1',
            eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${p.config.catalogTable}/stream/bench`,
            dynamodb: {
              ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
              Keys: marshall({ pk: effect.pk, sk: effect.sk }),
              NewImage: marshall(effect, { removeUndefinedValues: true }),
              SequenceNumber: String(1000 + n),
              SizeBytes: 500,
              StreamViewType: 'NEW_IMAGE',
            },
          },
        ],
      };
    },
    'executor-compute': async () => sqsEvent(await pendingEffect(`CREATE CLUSTER cold_c_${n++} (SIZE = '25cc', REPLICATION FACTOR = 1)`, 'replica')),
    'executor-storage': async () => sqsEvent(await pendingEffect(`CREATE TABLE cold_s_${n++} (a int)`, 'collection')),
    // Its secret store is Secrets Manager, which has no local emulator here: the event names an
    // effect that is already gone (the duplicate-delivery path: one catalog read, no secret call).
    'executor-secrets': async () => {
      const e = { pk: `T#${login.tenant}`, sk: `EFF#000000000gone${n++}#0001`, type: 'effect', controller: 'secrets', kind: 'secret', intent: 'ensure', objectId: 'u000000000999', objectName: 's', generation: 1, effectId: 'gone-1', tenant: login.tenant };
      return sqsEvent(e);
    },
    sweeper: async () => ({ version: '0', id: randomUUID(), 'detail-type': 'Scheduled Event', source: 'aws.events', account: '000000000000', time: new Date().toISOString(), region: 'us-east-1', resources: [], detail: {} }),
  };

  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...configToEnv(p.config),
    AWS_ENDPOINT_URL_DYNAMODB: bench.dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: bench.sqs.endpoint,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_NAMESPACE: 'DdlControlPlaneBench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };

  // The baseline runs before and after the functions, so drift in the machine's load falls on both.
  const baselineFile = join(import.meta.dirname, '..', 'baseline-handler.mjs');
  // 9 cold starts a figure (5 until 7 December 2026): with 5, one function's p50 moved by 5-10 ms
  // between two quiet runs (executor-compute 87 and 93 ms), as much as a row's margin.
  const baselineRuns = bench.quick ? 3 : 9;
  // As the stack runs them: no NODE_OPTIONS (cdk/constructs/ddl-function.ts; traces are mapped when printed).
  const baselineEnv = { ...baseEnv, AWS_LAMBDA_FUNCTION_NAME: 'baseline' };
  const before = await coldStarts(baselineFile, 'baseline', baselineEnv, baselineRuns, async () => ({}), tmpDir);
  const out: Omit<BundleFigure, 'baselineColdInit' | 'coldInitRatio'>[] = [];
  // The same-calls floors' writes: a table like the catalog's (keys, indexes, stream), made once.
  const sameCallsFile = join(import.meta.dirname, '..', 'same-calls-handler.mjs');
  let floorTable: string | undefined;
  const sameCallsTable = async () => {
    const name = `${p.config.catalogTable}-same-calls`;
    await ensureTable(p.clients.ddb, CATALOG_TABLE, name);
    return name;
  };
  // BENCH_FUNCTIONS=a,b: only these functions (a diagnostic run; the baseline still runs).
  const only = process.env.BENCH_FUNCTIONS?.split(',').filter(Boolean);
  for (const fn of FUNCTIONS.filter((f) => !only || only.includes(f))) {
    const dir = join(root, fn);
    mkdirSync(dir, { recursive: true });
    const isSplit = split.has(fn);
    // Built by the construct's own code (cdk/constructs/ddl-function.ts), with a metafile.
    const request = { entry: functionEntry(fn), splitChunks: isSplit };
    const metafile = bundleFunction(request, dir, { metafile: true })!;
    const files = listFiles(dir).filter((f) => f.endsWith('.mjs'));
    const entryBytes = statSync(join(dir, 'index.mjs')).size;
    const chunks = files.filter((f) => !f.endsWith('/index.mjs') && f !== join(dir, 'index.mjs')).map((f) => ({ file: relative(dir, f), bytes: statSync(f).size }));
    const totalBytes = entryBytes + chunks.reduce((a, c) => a + c.bytes, 0);

    const runs = bench.quick ? 3 : 9;
    const env = { ...baseEnv, AWS_LAMBDA_FUNCTION_NAME: fn, POWERTOOLS_SERVICE_NAME: fn };
    // The first event's requests, from a run of the deployed build of its own before the timed ones:
    // with more than one round of calls, the same calls made by bare SDK clients are its floor.
    const bodiesFile = join(tmpDir, `calls-${fn}.json`);
    rmSync(bodiesFile, { force: true });
    const recorded = await tracedCalls(join(dir, 'index.mjs'), fn, { ...env, CALL_TRACE_BODIES: bodiesFile }, eventFor[fn], tmpDir);
    const captured = recorded?.calls && recorded.calls.rounds > 1 && existsSync(bodiesFile) ? (JSON.parse(readFileSync(bodiesFile, 'utf8')) as CapturedCall[]) : undefined;
    floorTable ??= captured ? await sameCallsTable() : undefined;
    const floorSpec: ColdStartSpec | undefined =
      captured && floorTable
        ? { bundle: sameCallsFile, fn: `${fn}-same-calls`, env: { ...baselineEnv, AWS_LAMBDA_FUNCTION_NAME: `${fn}-same-calls` }, event: async () => ({ rounds: sameCallsRounds(captured, { floorTable: floorTable!, runId: randomUUID() }) }) }
        : undefined;
    // As deployed, alternated run by run with Node's eager source maps (what the stack ran until 7
    // December 2026) and with the same-calls floor: drift in the machine's load falls on all three.
    const specs: ColdStartSpec[] = [
      { bundle: join(dir, 'index.mjs'), fn, env, event: eventFor[fn] },
      { bundle: join(dir, 'index.mjs'), fn, env: { ...env, NODE_OPTIONS: '--enable-source-maps' }, event: eventFor[fn] },
      ...(floorSpec ? [floorSpec] : []),
    ];
    const figures = await alternatedColdStarts(specs, runs, tmpDir);
    const [withMaps, eagerMaps] = [figures[0]!, figures[1]!];
    const sameCalls = floorSpec ? figures[2] : undefined;
    const sameCallsCalls = floorSpec ? (await tracedCalls(floorSpec.bundle, floorSpec.fn, floorSpec.env, floorSpec.event, tmpDir))?.calls : undefined;
    const runtimeDir = join(root, `${fn}-sdk-runtime`);
    const runtimeMeta = bundleFunction({ ...request, sdk: 'runtime' }, runtimeDir, { metafile: true })!;
    const runtimeFiles = listFiles(runtimeDir).filter((f) => f.endsWith('.mjs'));
    const runtimeBuilt = await coldStarts(join(runtimeDir, 'index.mjs'), fn, env, bench.quick ? 1 : 3, eventFor[fn], tmpDir);
    const sdkRuntime = {
      entryKiB: kib(statSync(join(runtimeDir, 'index.mjs')).size),
      totalKiB: kib(runtimeFiles.reduce((a, f) => a + statSync(f).size, 0)),
      coldInit: runtimeBuilt.figure,
    };
    // The first event's calls from the deployed build, timed after the cold starts (the run above was
    // the first after the build); which SDK packages the import loads, from the runtime-SDK build (a
    // bundled package leaves no require() to see).
    const traced = await tracedCalls(join(dir, 'index.mjs'), fn, env, eventFor[fn], tmpDir);
    const tracedRuntime = await tracedCalls(join(runtimeDir, 'index.mjs'), fn, env, eventFor[fn], tmpDir);
    const runtimeEntry = Object.keys(runtimeMeta.outputs).find((k) => k.endsWith(`${fn}-sdk-runtime/index.mjs`))!;
    const externalImports = tracedRuntime?.sdk
      ? tracedRuntime.sdk.atImport
      : [...new Set(runtimeMeta.outputs[runtimeEntry]!.imports.filter((i) => i.external && !i.path.startsWith('node:')).map((i) => i.path))].sort();
    const sdkNeededImports = externalImports.filter((m) => SDK_NEEDED[fn].includes(m));
    const importTimes = async (modules: readonly string[]) => {
      const times: number[] = [];
      for (let i = 0; i < (bench.quick ? 1 : 3); i++) {
        const r = await run(process.execPath, [join(import.meta.dirname, '..', 'cold-start.mjs'), '--modules', modules.join(',')], env, 60_000);
        const o = JSON.parse(r.stdout.trim().split('\n').pop() || '{}') as { importMs?: number };
        if (o.importMs !== undefined) times.push(o.importMs);
      }
      return times;
    };
    const sdk = await importTimes(externalImports);
    const sdkNeeded = await importTimes(sdkNeededImports);
    let coldProfile: ProfileSummary | undefined;
    // Profiled when it misses either goal: the absolute one, or 1.5x the baseline measured before the functions.
    if (withMaps.figure.totalMsP50 > Math.min(TARGET_COLD_INIT_MS, 1.5 * before.figure.totalMsP50)) {
      const profDir = join(tmpDir, `cold-profile-${fn}`);
      rmSync(profDir, { recursive: true, force: true });
      const eventFile = join(tmpDir, `event-${fn}.json`);
      writeFileSync(eventFile, JSON.stringify(await eventFor[fn]()));
      await run(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', profDir, join(import.meta.dirname, '..', 'cold-start.mjs'), join(dir, 'index.mjs'), eventFile, fn], env, 60_000);
      const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) coldProfile = summarizeProfile(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as Profile, join(profDir, file));
    }
    const firstEventCalls = traced?.calls;
    out.push({
      function: fn,
      splitChunks: isSplit,
      entryBytes,
      entryKiB: kib(entryBytes),
      chunks,
      totalKiB: kib(totalBytes),
      largestInputs: largestInputs(metafile, `${fn}/index.mjs`),
      coldInit: withMaps.figure,
      coldInitEagerSourceMaps: eagerMaps.figure,
      externalImports,
      ...(tracedRuntime?.sdk ? { sdkLoadedOnFirstEvent: tracedRuntime.sdk.onFirstEvent } : {}),
      sdkImportMsP50: Math.round(summarize(sdk).p50 * 10) / 10,
      sdkNeededImports,
      sdkNeededImportMsP50: Math.round(summarize(sdkNeeded).p50 * 10) / 10,
      sdkRuntime,
      ...(coldProfile ? { coldProfile } : {}),
      firstEvent: withMaps.lastResult,
      ...(firstEventCalls ? { firstEventCalls } : {}),
      ...(sameCalls ? { sameCallsColdInit: sameCalls.figure, ...(sameCallsCalls ? { sameCallsFirstEventCalls: sameCallsCalls } : {}) } : {}),
    });
    if (sameCalls) bench.log(`bundle ${fn}: the same calls by bare SDK clients: cold init p50 ${sameCalls.figure.totalMsP50} ms (import ${sameCalls.figure.importMsP50} + first event ${sameCalls.figure.firstEventMsP50})${sameCalls.figure.errors.length ? `; errors: ${sameCalls.figure.errors[0]}` : ''}`);
    bench.log(`bundle ${fn}${isSplit ? ' (split)' : ''}: entry ${kib(entryBytes)} KiB, ${chunks.length} chunks, total ${kib(totalBytes)} KiB; cold init p50 ${withMaps.figure.totalMsP50} ms (import ${withMaps.figure.importMsP50} + first event ${withMaps.figure.firstEventMsP50}); with Node's eager source maps ${eagerMaps.figure.totalMsP50} ms; SDK import alone ${summarize(sdk).p50.toFixed(1)} ms (only what it calls ${summarize(sdkNeeded).p50.toFixed(1)} ms); with the runtime's SDK: entry ${sdkRuntime.entryKiB} KiB, cold init ${sdkRuntime.coldInit.totalMsP50} ms; ${withMaps.lastResult.slice(0, 80)}`);
  }
  const after = await coldStarts(baselineFile, 'baseline', baselineEnv, baselineRuns, async () => ({}), tmpDir);
  const baselineFirstEventCalls = (await tracedCalls(baselineFile, 'baseline', baselineEnv, async () => ({}), tmpDir))?.calls;
  const baselineColdInit = mergeColdInits(before.figure, after.figure, before.samples, after.samples);
  if (floorTable) await p.clients.ddb.send(new DeleteTableCommand({ TableName: floorTable }));
  bench.log(`cold-init baseline (client-dynamodb + one GetItem): p50 ${baselineColdInit.totalMsP50} ms (before the functions ${before.figure.totalMsP50}, after ${after.figure.totalMsP50})`);
  // The router's cold runs sent real messages to the (paused) live queues: drop them.
  await Promise.all(CONTROLLERS.map((c) => p.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: p.config.queueUrls[c] }))));
  // The executors' cold runs must have applied their effects for real.
  const settled = await p.clients.doc.send(
    new QueryCommand({ TableName: p.config.catalogTable, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)', ExpressionAttributeValues: { ':pk': `T#${login.tenant}`, ':e': 'EFF#' }, ConsistentRead: true }),
  );
  bench.log(`cold-start effects: ${JSON.stringify(countBy((settled.Items ?? []).map((e) => `${e.kind}:${e.state}`)))}`);
  return out.map((b) => ({ ...b, baselineColdInit, ...(baselineFirstEventCalls ? { baselineFirstEventCalls } : {}), coldInitRatio: Math.round((b.coldInit.totalMsP50 / baselineColdInit.totalMsP50) * 100) / 100 }));
}

/**
 * One more cold run of `bundle`, untimed, with bench/call-trace.cjs preloaded: the first event's AWS
 * calls, and the SDK packages the bundle loaded during its import and after it.
 */
async function tracedCalls(
  bundle: string,
  fn: string,
  env: Record<string, string>,
  event: () => Promise<unknown>,
  tmpDir: string,
): Promise<{ calls?: FirstEventCalls; sdk?: { atImport: string[]; onFirstEvent: string[] } } | undefined> {
  const eventFile = join(tmpDir, `event-${fn}.json`);
  writeFileSync(eventFile, JSON.stringify(await event()));
  const r = await run(process.execPath, ['--require', join(import.meta.dirname, '..', 'call-trace.cjs'), join(import.meta.dirname, '..', 'cold-start.mjs'), bundle, eventFile, fn], env, 60_000);
  const lines = r.stderr.split('\n');
  const callsLine = lines.find((l) => l.startsWith('CALLS '));
  const sdkLine = lines.find((l) => l.startsWith('SDK '));
  let imported: number | undefined;
  try {
    const o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { bootMs: number; importMs: number };
    imported = o.bootMs + o.importMs;
  } catch {
    imported = undefined;
  }
  const loads = sdkLine ? (JSON.parse(sdkLine.slice('SDK '.length)) as { module: string; at: number }[]) : undefined;
  return {
    ...(callsLine ? { calls: callRounds(JSON.parse(callsLine.slice('CALLS '.length)) as { op: string; start: number; end: number | null }[]) } : {}),
    ...(loads && imported !== undefined
      ? { sdk: { atImport: loads.filter((l) => l.at <= imported).map((l) => l.module).sort(), onFirstEvent: loads.filter((l) => l.at > imported).map((l) => l.module).sort() } }
      : {}),
  };
}

/** Calls grouped into sequential rounds: a call that starts after every earlier call ended begins a new one. Pure. */
export function callRounds(calls: readonly { op: string; start: number; end: number | null }[]): FirstEventCalls {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  const rounds: { start: number; end: number }[] = [];
  for (const c of sorted) {
    const end = c.end ?? c.start;
    const last = rounds[rounds.length - 1];
    if (last && c.start < last.end) last.end = Math.max(last.end, end);
    else rounds.push({ start: c.start, end });
  }
  const t0 = sorted[0]?.start ?? 0;
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return {
    ops: sorted.map((c) => c.op),
    rounds: rounds.length,
    roundMs: rounds.map((w) => r1(w.end - w.start)),
    calls: sorted.map((c) => ({ op: c.op, at: r1(c.start - t0), ms: c.end === null ? null : r1(c.end - c.start) })),
  };
}

/** Cold starts of one kind, as they are run. */
interface ColdStartSamples {
  readonly imports: number[];
  readonly firsts: number[];
  readonly totals: number[];
  readonly boots: number[];
  readonly errors: string[];
  lastResult: string;
}

const noSamples = (): ColdStartSamples => ({ imports: [], firsts: [], totals: [], boots: [], errors: [], lastResult: '' });

/** One cold start (bench/cold-start.mjs in a fresh process), its figures added to `into`. */
async function coldStartInto(into: ColdStartSamples, bundle: string, fn: string, env: Record<string, string>, event: () => Promise<unknown>, tmpDir: string): Promise<void> {
  const child = join(import.meta.dirname, '..', 'cold-start.mjs');
  const eventFile = join(tmpDir, `event-${fn}.json`);
  writeFileSync(eventFile, JSON.stringify(await event()));
  // Asynchronously: the SQS emulator answers from this very process.
  const r = await run(process.execPath, [child, bundle, eventFile, fn], env, 60_000);
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    const o = JSON.parse(line) as { bootMs: number; importMs: number; firstEventMs: number; result: string; error?: string };
    into.imports.push(o.importMs);
    into.firsts.push(o.firstEventMs);
    into.totals.push(o.importMs + o.firstEventMs);
    into.boots.push(o.bootMs);
    into.lastResult = o.error ? `error: ${o.error}` : o.result;
    if (o.error) into.errors.push(o.error);
  } catch {
    into.errors.push(`no result (exit ${r.status}): ${(r.stderr || r.stdout).slice(0, 300)}`);
  }
}

function coldStartFigure(s: ColdStartSamples) {
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return {
    samples: { imports: s.imports, firsts: s.firsts, totals: s.totals, boots: s.boots },
    figure: {
      runs: s.totals.length + s.errors.length,
      importMsP50: r1(summarize(s.imports).p50),
      firstEventMsP50: r1(summarize(s.firsts).p50),
      totalMsP50: r1(summarize(s.totals).p50),
      totalMsMax: r1(summarize(s.totals).max),
      nodeBootMsP50: r1(summarize(s.boots).p50),
      errors: [...new Set(s.errors)],
    },
    lastResult: s.lastResult,
  };
}

async function coldStarts(bundle: string, fn: string, env: Record<string, string>, runs: number, event: () => Promise<unknown>, tmpDir: string) {
  return (await alternatedColdStarts([{ bundle, fn, env, event }], runs, tmpDir))[0]!;
}

/** What one kind of cold start runs: a bundle (or handler module), its environment and its event. */
interface ColdStartSpec {
  readonly bundle: string;
  readonly fn: string;
  readonly env: Record<string, string>;
  readonly event: () => Promise<unknown>;
}

/**
 * Cold starts of several kinds alternated run by run (a, b, c, a, b, c, ...): a difference between
 * them that drift in the machine's load does not fall on one side of.
 */
async function alternatedColdStarts(specs: readonly ColdStartSpec[], runs: number, tmpDir: string) {
  const samples = specs.map(() => noSamples());
  for (let i = 0; i < runs; i++) {
    for (const [k, s] of specs.entries()) await coldStartInto(samples[k]!, s.bundle, s.fn, s.env, s.event, tmpDir);
  }
  return samples.map(coldStartFigure);
}

/** A child process, awaited without blocking this process's event loop. */
export function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? listFiles(join(dir, d.name)) : [join(dir, d.name)]));
}

const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

function countBy(xs: string[]): Record<string, number> {
  const o: Record<string, number> = {};
  for (const x of xs) o[x] = (o[x] ?? 0) + 1;
  return o;
}

type ColdSamples = { imports: number[]; firsts: number[]; totals: number[]; boots: number[] };

/** One ColdInit from two sets of runs of the same handler. */
function mergeColdInits(a: ColdInit, b: ColdInit, sa: ColdSamples, sb: ColdSamples): ColdInit {
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const both = (k: keyof ColdSamples) => summarize([...sa[k], ...sb[k]]);
  return {
    runs: a.runs + b.runs,
    importMsP50: r1(both('imports').p50),
    firstEventMsP50: r1(both('firsts').p50),
    totalMsP50: r1(both('totals').p50),
    totalMsMax: r1(both('totals').max),
    nodeBootMsP50: r1(both('boots').p50),
    errors: [...new Set([...a.errors, ...b.errors])],
  };
}
