/**
 * Serves the console (console/dist) at `/` of the local runtime: the http server's `fallback`
 * for every non-/api route. The first request builds the console when dist/ is missing or older
 * than its sources (esbuild, well under a second); `npm run build:console` builds it ahead.
 * Static files only: the console talks to /api/sql like any other client.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { buildConsole, DIST_DIR, isStale } from '../console/build';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/** The page itself must not be framed, and the script may only talk to its own origin and this API. */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; connect-src *; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
};

export interface ConsoleOptions {
  /** Where the built files are (default console/dist). */
  readonly distDir?: string;
  /** Build when missing or stale (default true); false serves what is there. */
  readonly build?: boolean;
}

export type Fallback = (req: IncomingMessage, res: ServerResponse) => boolean;

export function consoleFallback(o: ConsoleOptions = {}): Fallback {
  const dist = o.distDir ?? DIST_DIR;
  let building: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (o.build === false) return Promise.resolve();
    // One build at a time; a request during a build waits for it.
    building ??= (isStale(dist) ? buildConsole({ outDir: dist }).then(() => undefined) : Promise.resolve()).finally(() => {
      building = undefined;
    });
    return building;
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    void serve(path, req.method === 'HEAD', res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`console unavailable: ${(err as Error).message}\nbuild it with: npm run build:console\n`);
    });
    return true;
  };

  async function serve(path: string, head: boolean, res: ServerResponse): Promise<void> {
    await ready();
    // The console is one page with hash routes: a path without an extension is the page.
    let rel: string;
    try {
      rel = path === '/' || extname(path) === '' ? 'index.html' : decodeURIComponent(path.slice(1));
    } catch {
      // (`%E0%A4%A`, `%zz`): the request's fault, not a missing build.
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('malformed percent-encoding in the path\n');
      return;
    }
    const file = normalize(join(dist, rel));
    if (!file.startsWith(dist + sep)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': String(body.length),
      'cache-control': 'no-cache',
      ...SECURITY_HEADERS,
    });
    res.end(head ? undefined : body);
  }
}
