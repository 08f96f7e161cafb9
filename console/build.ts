/**
 * Builds the console into console/dist (index.html, app.js, app.css) with esbuild: one bundle, no
 * framework, well under a second. `npm run build:console [-- --api-url https://.../v1]` bakes in
 * the API URL the login box proposes (default: the origin the console is served from).
 *
 * Files are written to a temporary name and renamed, index.html last, so a server reading
 * dist/ while a build runs never serves half a file.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_DIR = dirname(fileURLToPath(import.meta.url));
export const DIST_DIR = join(CONSOLE_DIR, 'dist');
/** Every file the build reads: newer than dist/index.html means the build is stale. */
export function consoleSources(): string[] {
  const src = join(CONSOLE_DIR, 'src');
  return [join(CONSOLE_DIR, 'index.html'), join(CONSOLE_DIR, '..', 'shared', 'sql', 'caret.ts'), ...readdirSync(src).map((f) => join(src, f))];
}

export function isStale(outDir = DIST_DIR): boolean {
  let built: number;
  try {
    built = statSync(join(outDir, 'index.html')).mtimeMs;
  } catch {
    return true;
  }
  return consoleSources().some((f) => statSync(f).mtimeMs > built);
}

function writeAtomic(path: string, contents: Uint8Array | string): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

export interface BuildOptions {
  readonly outDir?: string;
  /** The API URL the login box proposes; empty: the console's own origin. */
  readonly apiUrl?: string;
}

export async function buildConsole(o: BuildOptions = {}): Promise<{ outDir: string; bytes: number; ms: number }> {
  const started = Date.now();
  const outDir = o.outDir ?? DIST_DIR;
  // esbuild is a devDependency: loaded only when a build runs.
  const { build } = await import('esbuild');
  const r = await build({
    entryPoints: [
      { in: join(CONSOLE_DIR, 'src', 'main.ts'), out: 'app' },
      { in: join(CONSOLE_DIR, 'src', 'style.css'), out: 'app' },
    ],
    outdir: outDir,
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    define: { __DEFAULT_API_URL__: JSON.stringify(o.apiUrl ?? '') },
  });
  mkdirSync(outDir, { recursive: true });
  let bytes = 0;
  for (const f of r.outputFiles) {
    writeAtomic(f.path, f.contents);
    bytes += f.contents.length;
  }
  const html = readFileSync(join(CONSOLE_DIR, 'index.html'));
  writeAtomic(join(outDir, 'index.html'), html);
  return { outDir, bytes: bytes + html.length, ms: Date.now() - started };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--api-url');
  const apiUrl = i > 0 ? process.argv[i + 1] : undefined;
  if (i > 0 && !apiUrl) {
    console.error('--api-url needs a URL');
    process.exit(64);
  }
  buildConsole(apiUrl ? { apiUrl } : {}).then(
    (b) => console.log(`console built in ${b.ms} ms: ${b.outDir} (${Math.round(b.bytes / 1024)} KiB)`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
