/**
 * Stack traces that name the TypeScript source (`shared/api/sql-api.ts:212:9`) instead of a
 * minified chunk (`chunks/chunk-3BOX52NW.mjs:1:48213`), paid for when a trace is formatted rather
 * than at every cold start.
 *
 * Node's own `--enable-source-maps` reads and parses the source map of every module it loads, and
 * scans each module's text for its line lengths, whether or not a trace is ever printed: in
 * CPU profiles of bench/phases/bundles.ts's cold starts that was 8–12 ms of CPU, the DDL function's
 * most (66 chunks, 5 MB of maps); cold starts alternated with it were 3–10 ms shorter without it for
 * six of the seven functions (the DDL function's import alone 8 ms). Here V8's
 * `Error.prepareStackTrace` hook maps each frame when an error's `.stack` is first read (V8 formats
 * lazily): the map of a file is read the first time one of its frames is printed, and kept.
 *
 * The functions import this module first (functions/* /handler.ts), and their bundles are built
 * with the maps beside them (cdk/constructs/ddl-function.ts: `<file>.map`, mappings and names
 * only), without NODE_OPTIONS=--enable-source-maps. Nothing happens when Node's own source maps
 * are on, or outside a bundle.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

type ReadMap = (mapFile: string) => string;

/** One file's map (null: none, or unreadable), by the generated file's path. */
const cache = new Map<string, SourceMap | null>();

function readMapFile(mapFile: string): string {
  return readFileSync(mapFile, 'utf8');
}

/** The source map beside a generated file (`<file>.map`, as esbuild writes it), read once. */
export function sourceMapOf(file: string, read: ReadMap = readMapFile): SourceMap | null {
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  let map: SourceMap | null = null;
  // Only our bundles' outputs have maps beside them; node: and internal frames never do.
  if (file.endsWith('.mjs') || file.endsWith('.js')) {
    try {
      map = new SourceMap(JSON.parse(read(`${file}.map`)) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = null;
    }
  }
  cache.set(file, map);
  return map;
}

/**
 * A source as the repository names it: `shared/api/x.ts`, `node_modules/@smithy/core/...`. A map's
 * sources are relative to where the bundle was written (`../../../work/main/shared/api/x.ts` from
 * a CDK asset folder), which says nothing where it runs.
 */
export function sourcePath(source: string): string {
  const s = source.startsWith('file://') ? fileURLToPath(source) : source;
  const nm = s.lastIndexOf('node_modules/');
  if (nm >= 0) return s.slice(nm);
  const own = /(?:^|\/)((?:shared|functions)\/.*)$/.exec(s);
  if (own) return own[1]!;
  return s.replace(/^(?:\.\.?\/)+/, '');
}

interface Mapping {
  readonly originalSource?: string;
  readonly originalLine?: number;
  readonly originalColumn?: number;
  readonly name?: string;
}

/** The source position of a generated one (1-based in and out), or undefined when unmapped. */
export function originalPosition(map: SourceMap, line: number, column: number): { source: string; line: number; column: number; name?: string } | undefined {
  const e = map.findEntry(line - 1, column - 1) as Mapping;
  if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) return undefined;
  return { source: sourcePath(e.originalSource), line: e.originalLine + 1, column: e.originalColumn + 1, ...(e.name ? { name: e.name } : {}) };
}

function fileOf(site: NodeJS.CallSite): string | undefined {
  const name = site.getFileName() ?? undefined;
  if (name === undefined) return undefined;
  if (name.startsWith('file://')) {
    try {
      return fileURLToPath(name);
    } catch {
      return undefined;
    }
  }
  return name.startsWith('/') ? name : undefined;
}

/**
 * One frame as V8 prints it, with its location (and its function's name, when the map knows the
 * enclosing function's) taken from the source map when the frame's file has one.
 */
export function formatFrame(site: NodeJS.CallSite, read: ReadMap = readMapFile): string {
  const plain = String(site);
  const file = fileOf(site);
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (file === undefined || line === null || column === null) return plain;
  const map = sourceMapOf(file, read);
  if (map === null) return plain;
  const at = originalPosition(map, line, column);
  if (at === undefined) return plain;
  const generated = `${site.getFileName()}:${line}:${column}`;
  const i = plain.lastIndexOf(generated);
  if (i < 0) return plain;
  let head = plain.slice(0, i);
  // The minified function name, replaced by the enclosing function's name in the source.
  const enclosing = site as NodeJS.CallSite & { getEnclosingLineNumber?: () => number | null; getEnclosingColumnNumber?: () => number | null };
  const el = enclosing.getEnclosingLineNumber?.();
  const ec = enclosing.getEnclosingColumnNumber?.();
  const fn = site.getFunctionName();
  if (fn && el && ec) {
    const name = originalPosition(map, el, ec)?.name;
    // V8 writes the name right before " (" (`fn (`, `async Type.fn (`, `new fn (`).
    const k = head.lastIndexOf(`${fn} (`);
    const whole = k === 0 || head[k - 1] === '.' || head[k - 1] === ' ';
    if (name && name !== fn && k >= 0 && whole && k + fn.length + 2 === head.length) head = `${head.slice(0, k)}${name} (`;
  }
  return `${head}${at.source}:${at.line}:${at.column}${plain.slice(i + generated.length)}`;
}

function header(error: unknown): string {
  try {
    return error instanceof Error ? Error.prototype.toString.call(error) : String(error);
  } catch {
    return '<error>';
  }
}

/** `Error.prepareStackTrace`: V8's own format, each frame mapped. */
export function prepareStackTrace(error: unknown, sites: readonly NodeJS.CallSite[]): string {
  const lines = [header(error)];
  for (const site of sites) {
    let frame: string;
    try {
      frame = formatFrame(site);
    } catch {
      frame = String(site);
    }
    lines.push(`    at ${frame}`);
  }
  return lines.join('\n');
}

/**
 * Installs {@link prepareStackTrace} when this module runs from a built bundle (an `.mjs` output
 * with its maps beside it) and Node does not map traces itself (`--enable-source-maps`,
 * `process.setSourceMapsEnabled(true)`). From TypeScript (tsx, vitest: they map traces their own
 * way) it does nothing. Node 22's default `Error.prepareStackTrace`, if it has one, is replaced, as
 * any formatter's would be. Returns whether it installed.
 */
export function installLazySourceMaps(moduleUrl: string = import.meta.url): boolean {
  const p = process as NodeJS.Process & { sourceMapsEnabled?: boolean };
  if (!moduleUrl.endsWith('.mjs')) return false;
  if (p.sourceMapsEnabled === true || process.execArgv.includes('--enable-source-maps') || /--enable-source-maps/.test(process.env.NODE_OPTIONS ?? '')) return false;
  Error.prepareStackTrace = prepareStackTrace;
  return true;
}

installLazySourceMaps();
