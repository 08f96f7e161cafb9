/**
 * Builds one Lambda bundle with esbuild: `node esbuild-bundle.mjs '<request as JSON>'`, where the
 * request is `{ options, runtimeModules, moduleAssets, moduleFolders }`: esbuild build options
 * (JSON, `outdir` included), the module prefixes the Lambda runtime provides, the files some
 * bundled modules read beside themselves at run time (module path → file names in its folder),
 * copied beside each output file that holds such a module, and the folders some modules read
 * beside themselves (module path → the folder's name and the script that writes it). Prints the
 * metafile as JSON when `options.metafile`.
 *
 * Run by `bundleFunction` (cdk/constructs/ddl-function.ts) for the CDK stack and the benchmark
 * alike. A process of its own because the CDK's local bundling is synchronous and esbuild runs
 * plugins only in its asynchronous API.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

/**
 * Leaves the modules the Lambda runtime provides (the AWS SDK v3) out of the bundle and loads them
 * with `require()` (the banner's `createRequire`) rather than with an `import` statement.
 *
 * Why: Node.js (20.19+, 22) loads a CommonJS package that an ES module imports through the ES
 * module loader's CommonJS translator, and every `require()` inside that package too: each file
 * is read, has its format detected and its exports lexed, then is compiled by the CommonJS loader.
 * The SDK's clients are hundreds of CommonJS files: in a fresh Node 20 process, importing
 * client-dynamodb, lib-dynamodb and client-sqs took 113–131 ms where requiring them took 50–59 ms,
 * and the functions' cold init (bench/phases/bundles.ts) fell by 20–40 ms. `require()` takes the
 * plain CommonJS loader, as a CommonJS handler would, and finds the runtime's copy the same way
 * (through NODE_PATH, which `import` ignores).
 *
 * Each such import becomes a one-line CommonJS module, `module.exports = require("<path>")`, whose
 * `require` is external: esbuild's CommonJS interop then gives the importer the same named exports.
 *
 * @param {readonly string[]} prefixes module names starting with one of these are the runtime's
 * @returns {esbuild.Plugin}
 */
function runtimeRequire(prefixes) {
  const NS = 'lambda-runtime';
  const filter = new RegExp(`^(?:${prefixes.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})`);
  return {
    name: 'lambda-runtime-require',
    setup(build) {
      build.onResolve({ filter }, (args) => (args.namespace === NS ? { path: args.path, external: true } : { path: args.path, namespace: NS }));
      build.onLoad({ filter: /.*/, namespace: NS }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };
}

/**
 * Copies each module's assets beside every output file whose inputs include the module (with
 * code splitting, the chunk that holds it), so that the module finds them in its output's folder.
 * Paths in the metafile are relative to `absWorkingDir`. A `node_modules` that is a symlink (a git
 * worktree sharing another checkout's, a linked workspace) shows in the metafile under its real
 * path (`../main/node_modules/...`): an input matches a module by its `node_modules/...` tail too,
 * and the files are copied from where the input really is.
 *
 * @param {esbuild.Metafile} metafile
 * @param {Readonly<Record<string, readonly string[]>>} moduleAssets
 * @param {string} cwd
 */
function copyModuleAssets(metafile, moduleAssets, cwd) {
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    for (const [module, files] of Object.entries(moduleAssets)) {
      const input = Object.keys(inputs).find((i) => i === module || i.endsWith(`/${module}`));
      if (input === undefined) continue;
      for (const f of files) copyFileSync(join(cwd, dirname(input), f), join(dirname(resolve(cwd, output)), basename(f)));
    }
  }
}

/**
 * Writes a folder beside every output file that holds one of `moduleFolders`' modules, by running
 * that module's writer script (`node --import tsx <script> <dest>`, from the repository root) once
 * and copying its result beside the other outputs: the SQL engine's template beside the chunk
 * holding shared/pglite/host.ts (cdk/scripts/engine-template.ts), which the engine opens from there.
 *
 * @param {esbuild.Metafile} metafile
 * @param {Readonly<Record<string, { readonly folder: string; readonly script: string }>>} moduleFolders
 * @param {string} cwd
 */
function writeModuleFolders(metafile, moduleFolders, cwd) {
  for (const [module, { folder, script }] of Object.entries(moduleFolders)) {
    let first;
    for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
      if (!Object.keys(inputs).some((i) => i === module || i.endsWith(`/${module}`))) continue;
      const dest = join(dirname(resolve(cwd, output)), folder);
      if (first !== undefined) {
        cpSync(first, dest, { recursive: true });
        continue;
      }
      const r = spawnSync(process.execPath, ['--import', 'tsx', script, dest], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status ?? r.signal}): ${r.error?.message ?? r.stderr}`);
      first = dest;
    }
  }
}

const { options, runtimeModules, moduleAssets = {}, moduleFolders = {} } = JSON.parse(process.argv[2] ?? '{}');
const result = await esbuild.build({ ...options, metafile: true, plugins: runtimeModules?.length ? [runtimeRequire(runtimeModules)] : [] });
copyModuleAssets(result.metafile, moduleAssets, options.absWorkingDir ?? process.cwd());
writeModuleFolders(result.metafile, moduleFolders, options.absWorkingDir ?? process.cwd());
if (options.metafile) process.stdout.write(JSON.stringify(result.metafile));
