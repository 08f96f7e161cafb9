/**
 * The SQL engine alone in a fresh process, for bench/phases/pgwire.ts: PgliteHost opens the
 * prebuilt template (as the server's first query does) and answers `SELECT 1`. What a cold
 * server's first catalog SELECT cannot do without: its floor beside PGlite's plain create().
 * Bundled with pgwire-server.ts; `node pglite-template.mjs '{"templateDir": ...}'` prints one
 * JSON line, times from the process's start.
 */
const bootMs = performance.now();
const { PgliteHost } = await import('../shared/pglite/host');
const importedMs = performance.now();
const o = JSON.parse(process.argv[2] ?? '{}') as { templateDir: string };
const host = await PgliteHost.open({ schemaSql: '', templateDir: o.templateDir });
const openedMs = performance.now();
const r = await host.run({ sql: 'SELECT 1', paramTypes: [], params: [], paramFormats: [], resultFormats: [], session: { user: 'materialize', database: 'materialize', settings: {} }, loads: [], maxRows: 10 });
const answeredMs = performance.now();
if (!r.ok) throw new Error(`SELECT 1: ${r.error.message}`);
process.stdout.write(JSON.stringify({ bootMs, importMs: importedMs - bootMs, openedMs, answeredMs }) + '\n');
process.exit(0);
export {};
