import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, Duration, type ILocalBundling, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type * as esbuild from 'esbuild';
import type { Controller } from '../../shared/definitions';
import { SHIPPED_TEMPLATE } from '../../shared/pglite/host';
import { PropsValidator } from './props-validation';

/** The repository root: `functions/`, `shared/` and the lock file live here. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every Lambda of the control plane, by its folder under `functions/`. */
export type FunctionName = 'stream-router' | 'ddl-api' | 'authorizer' | 'sweeper' | 'status-ingest' | 'reference-reporter' | `executor-${Controller}`;

/** `functions/<name>/handler.ts`, the entry file of a Lambda (it exports `handler`). */
export function functionEntry(name: FunctionName): string {
  return join(REPO_ROOT, 'functions', name, 'handler.ts');
}

/**
 * An ESM bundle has no `require`; CommonJS dependencies bundled into it still call it (for
 * Node built-ins). This banner gives them one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The defaults every control-plane Lambda shares, in one place. */
export const FUNCTION_DEFAULTS = {
  runtime: lambda.Runtime.NODEJS_22_X,
  architecture: lambda.Architecture.ARM_64,
  memorySize: 256,
  timeout: Duration.seconds(10),
  logRetention: logs.RetentionDays.ONE_MONTH,
  bundling: {
    format: 'esm',
    target: 'node22',
    minify: true,
    sourceMap: true,
    // The maps serve stack traces, mapped when one is printed (shared/lambda/stack-traces.ts, which
    // every handler imports first; Node's own --enable-source-maps would read every loaded chunk's
    // map at cold start: 3-10 ms of a function's first invocation in the bench). They need the mappings and
    // names only. Without the sources' text a function's map is about a fifth of the size (1 MB
    // down to 230 KB for an executor), and Node reads and parses every map when it loads the
    // module: the cold start pays for its size.
    sourcesContent: false,
    // Prefer the ES module build of dependencies: it tree-shakes, the CommonJS one does not.
    mainFields: ['module', 'main'],
    banner: ESM_REQUIRE_BANNER,
    // The AWS SDK v3 is bundled in, tree-shaken from its ES module build and pinned by the lock
    // file, as AWS's Lambda best practices advise: in bench/phases/bundles.ts's runs, every
    // function's cold init was as short or 3-40 ms shorter than with the runtime's copy loaded
    // through require() (the import alone 7-25 ms shorter; the DDL function 193 ms against 217,
    // the router 109 against 121 in one run). A build with `sdk: 'runtime'` (the bench's
    // comparison) leaves modules whose name starts with one of these out of the bundle and loads
    // them from the runtime with require() (esbuild-bundle.mjs says why require()).
    runtimeModules: ['@aws-sdk/'],
    // Files a bundled module reads from its own folder at run time, copied beside every output
    // file that holds the module (esbuild-bundle.mjs): libpg-query's Emscripten loader reads its
    // WebAssembly from `__dirname` (the second reader of view bodies, shared/sql/pg-parser.ts).
    // PGlite (the SQL engine of catalog queries, shared/pglite/host.ts) reads its WebAssembly and
    // its file system image beside its chunk (`new URL('./pglite.wasm', import.meta.url)`); the
    // chunk's name is PGlite's build's, pinned with the version in package.json.
    moduleAssets: {
      'node_modules/libpg-query/wasm/libpg-query.js': ['libpg-query.wasm'],
      'node_modules/@electric-sql/pglite/dist/chunk-CTPU3OXM.js': ['pglite.wasm', 'pglite.data', 'initdb.wasm'],
    },
    // Folders a bundled module reads from its own folder, written by a script at bundling: the SQL
    // engine's prebuilt template (its tables and functions, ~26 MB, most of it a WAL segment of
    // zeros), so that a cold Lambda's or pgwire task's first catalog query opens it instead of
    // running initdb (2 s and more) in a fresh /tmp.
    moduleFolders: {
      'shared/pglite/host.ts': { folder: SHIPPED_TEMPLATE, script: 'cdk/scripts/engine-template.ts' },
    },
  },
} as const;

export interface DdlFunctionProps {
  /** Path of the TypeScript entry file; it must export `handler`. */
  readonly entry: string;
  /**
   * Shown in the console next to the function.
   * @default - none
   */
  readonly description?: string;
  /**
   * Memory in MB (CPU is allotted in proportion).
   * @default 256
   */
  readonly memorySize?: number;
  /**
   * Hard limit on one invocation.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * Environment variables (the control plane's wiring, see `ENV` in shared/definitions.ts).
   * @default {}
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * How long the function's log group keeps logs.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Bundle with esbuild code splitting: every dynamic `import()` of the function's code becomes
   * its own chunk file (`chunks/<name>-<hash>.mjs`), loaded on the first call that reaches it
   * instead of at cold start. For a function whose large dependencies serve only some requests
   * (the SQL parser library for view bodies, the upstream probes). Built by {@link functionCode}
   * with the same defaults as the others.
   * @default false
   */
  readonly splitChunks?: boolean;
}

const ENV_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Where a function built with `splitChunks` has its chunks, relative to `index.mjs`. */
export const CHUNKS_DIR = 'chunks';

/**
 * The esbuild options of a function's bundle, from {@link FUNCTION_DEFAULTS}`.bundling`: the one
 * source of them, for the stack ({@link functionCode}) and the benchmark (bench/phases/bundles.ts)
 * alike. The output is `index.mjs` (the handler module Lambda loads, `index.handler`) with its
 * source map; with `splitChunks`, every dynamic `import()` of the function's code becomes
 * `chunks/<name>-<hash>.mjs`, loaded on the first call that reaches it instead of at cold start.
 */
export function functionBuildOptions(entry: string, splitChunks: boolean): Readonly<Omit<esbuild.BuildOptions, 'outdir' | 'outfile'>> {
  const b = FUNCTION_DEFAULTS.bundling;
  return {
    absWorkingDir: REPO_ROOT,
    entryPoints: { index: entry },
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // esbuild splits ESM output only (as FUNCTION_DEFAULTS.bundling.format is anyway).
    format: b.format,
    platform: 'node',
    target: b.target,
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    mainFields: [...b.mainFields],
    // Every output file (entry and chunks) gets it: a chunk may hold CommonJS code too.
    banner: { js: b.banner },
    // CommonJS code bundled into an ES module still reads `__dirname`/`__filename` (Emscripten's
    // loaders do, to find their .wasm): the output file's own, as Node gives an ES module.
    define: { __dirname: 'import.meta.dirname', __filename: 'import.meta.filename' },
    logLevel: 'warning',
    ...(splitChunks ? { splitting: true, chunkNames: `${CHUNKS_DIR}/[name]-[hash]` } : {}),
  };
}

export interface BundleRequest {
  /** Path of the TypeScript entry file. */
  readonly entry: string;
  readonly splitChunks: boolean;
  /**
   * `bundled` (what the stack deploys, and the pgwire image): the AWS SDK is bundled in, tree-shaken.
   * `runtime`: the SDK is the Lambda runtime's, loaded with require() (the benchmark's comparison).
   * @default 'bundled'
   */
  readonly sdk?: 'runtime' | 'bundled';
}

/**
 * Builds a function's bundle into `outdir` with {@link functionBuildOptions}, in a child process
 * (cdk/constructs/esbuild-bundle.mjs: esbuild runs plugins only asynchronously, and CDK's local
 * bundling is synchronous). Returns esbuild's metafile when asked for.
 */
export function bundleFunction(request: BundleRequest, outdir: string, o: { metafile?: boolean } = {}): esbuild.Metafile | undefined {
  const options = { ...functionBuildOptions(request.entry, request.splitChunks), outdir, metafile: o.metafile === true };
  const runtimeModules = request.sdk === 'runtime' ? FUNCTION_DEFAULTS.bundling.runtimeModules : [];
  const { moduleAssets, moduleFolders } = FUNCTION_DEFAULTS.bundling;
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'cdk', 'constructs', 'esbuild-bundle.mjs'), JSON.stringify({ options, runtimeModules, moduleAssets, moduleFolders })], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`esbuild failed for ${request.entry} (exit ${r.status ?? r.signal}): ${r.error?.message ?? r.stderr}`);
  if (r.stderr) process.stderr.write(r.stderr); // esbuild's warnings
  return o.metafile ? (JSON.parse(r.stdout) as esbuild.Metafile) : undefined;
}

/**
 * esbuild run locally (no Docker). The request is a field on purpose: CDK keys its asset cache on
 * the JSON of the bundling options, where a function (`tryBundle`) counts for nothing, so without
 * the entry in there two functions would share one bundle.
 */
class FunctionBundling implements ILocalBundling {
  constructor(readonly request: BundleRequest) {}

  tryBundle(outputDir: string): boolean {
    bundleFunction(this.request, outputDir);
    return true;
  }
}

/**
 * The code of a function: `index.mjs` and, with `splitChunks`, `chunks/*.mjs`, each with its source
 * map, built by {@link bundleFunction}. The asset hash is the output's, so an unchanged bundle is
 * not uploaded again.
 */
export function functionCode(entry: string, splitChunks: boolean): lambda.Code {
  return lambda.Code.fromAsset(REPO_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the API, never pulled: local bundling below either builds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      local: new FunctionBundling({ entry, splitChunks }),
    },
  });
}

/**
 * A control-plane Lambda with the shared defaults: Node.js 22 on ARM64, a minified ESM bundle
 * with source maps, the AWS SDK bundled in, active tracing, its
 * own log group with a retention, and its own role with no managed policy (only the grants made to
 * it).
 */
export class DdlFunction extends Construct {
  /** The function, its code built by {@link functionCode}. */
  readonly function: lambda.Function;
  /** The function's execution role. */
  readonly role: iam.Role;
  /** The function's log group. */
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: DdlFunctionProps) {
    super(scope, id);
    const v = new PropsValidator(scope, id)
      .check(props.entry.endsWith('.ts'), `entry must be a .ts file, got ${props.entry}`)
      .check(existsSync(props.entry), `entry ${props.entry} does not exist`)
      .integerInRange('memorySize', props.memorySize, 128, 10_240)
      .durationInRange('timeout', props.timeout, Duration.seconds(1), Duration.minutes(15));
    for (const name of Object.keys(props.environment ?? {})) {
      v.check(ENV_NAME.test(name), `environment variable name ${name} must match ${ENV_NAME}`);
    }
    v.throwIfInvalid();

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? FUNCTION_DEFAULTS.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role instead of the default one: the default attaches the managed policy
    // AWSLambdaBasicExecutionRole (logs:CreateLogGroup/CreateLogStream/PutLogEvents on `*`).
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}`,
    });
    this.logGroup.grantWrite(this.role);

    const common = {
      description: props.description,
      runtime: FUNCTION_DEFAULTS.runtime,
      architecture: FUNCTION_DEFAULTS.architecture,
      memorySize: props.memorySize ?? FUNCTION_DEFAULTS.memorySize,
      timeout: props.timeout ?? FUNCTION_DEFAULTS.timeout,
      role: this.role,
      logGroup: this.logGroup,
      // No NODE_OPTIONS=--enable-source-maps: traces are mapped lazily (shared/lambda/stack-traces.ts).
      environment: { ...props.environment },
    };
    this.function = new lambda.Function(this, 'Function', { ...common, handler: 'index.handler', code: functionCode(props.entry, props.splitChunks === true) });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The runtime is pinned to nodejs22.x on purpose, with the esbuild target (node22) that must move with it; Node.js 22 is an LTS line supported by Lambda. Moving to a newer runtime is a deliberate, tested change, not a drift to "latest".',
    });

    // Active tracing, with its IAM statement in a policy of its own. `tracing: ACTIVE` would
    // add `xray:PutTraceSegments` on `*` to the role's default policy, and the acknowledgement
    // below would then cover every `*` resource in that policy; here it covers this one only.
    (this.function.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: 'Active' };
    const xray = new iam.Policy(this, 'XRayWrite', {
      roles: [this.role],
      statements: [
        new iam.PolicyStatement({
          actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
          resources: ['*'],
        }),
      ],
    });
    // Lambda checks at CreateFunction that an actively traced function's role may write traces.
    this.function.node.addDependency(xray);
    Validations.of(xray).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions; AWS requires Resource "*" (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsx-ray.html).',
    });
  }

  /** Adds an environment variable to the function. */
  addEnvironment(name: string, value: string): this {
    this.function.addEnvironment(name, value);
    return this;
  }
}
