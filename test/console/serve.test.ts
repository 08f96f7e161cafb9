/**
 * The local runtime's console route (local/console.ts): builds the console on first use when
 * its files are missing, serves them as static files with safe headers, and stays inside dist/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, isStale } from '../../console/build';
import { consoleFallback } from '../../local/console';
import { budget } from '../helpers/budget';

let dist: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dist = join(mkdtempSync(join(tmpdir(), 'ddl-console-')), 'dist');
  const fallback = consoleFallback({ distDir: dist });
  server = createServer((req, res) => {
    if (!fallback(req, res)) res.writeHead(404, { 'x-handled-by': 'api' }).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(join(dist, '..'), { recursive: true, force: true });
});

describe('console route', () => {
  it('builds the console on the first request when it is missing, and serves the page', async () => {
    expect(existsSync(dist)).toBe(false);
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('<script type="module" src="app.js"></script>');
    expect(isStale(dist)).toBe(false);
  });

  it('serves the script and the stylesheet, and the page for any route without an extension', async () => {
    const js = await fetch(`${base}/app.js`);
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(await js.text()).toContain('/api/sql');
    const css = await fetch(`${base}/app.css`);
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    expect((await fetch(`${base}/objects/u123`)).status).toBe(200);
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('answers 404 outside dist/ and for unknown files, and leaves other methods to the API', async () => {
    expect((await fetch(`${base}/nope.js`)).status).toBe(404);
    expect((await fetch(`${base}/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/%2e%2e/build.ts`)).status).toBe(404);
    // A malformed percent-encoding is the request's fault, not a missing build.
    for (const bad of ['/%E0%A4%A.js', '/bad%zz.css']) {
      const res = await fetch(`${base}${bad}`);
      const text = await res.text();
      expect([res.status, text], bad).toEqual([400, 'malformed percent-encoding in the path\n']);
    }
    const post = await fetch(`${base}/`, { method: 'POST' });
    expect([post.status, post.headers.get('x-handled-by')]).toEqual([404, 'api']);
  });

  it('builds small and fast (esbuild, no framework)', async () => {
    const out = join(dist, '..', 'again');
    const b = await buildConsole({ outDir: out, apiUrl: 'https://api.example.com/v1' });
    expect(b.ms).toBeLessThan(budget(10_000));
    expect(b.bytes).toBeLessThan(100_000);
    expect(await (await import('node:fs/promises')).readFile(join(out, 'app.js'), 'utf8')).toContain('https://api.example.com/v1');
  });
});
