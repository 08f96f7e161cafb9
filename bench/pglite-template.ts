/**
 * The SQL engine alone in a fresh process, for bench/phases/pgwire.ts: PgliteHost opens the
 * prebuilt template (as the server's first query does) and answers `SELECT 1`. What a cold
 * server's first catalog SELECT cannot do without: its floor beside PGlite's plain create().
 * Bundled as pgwire-server.ts is (its template beside it); `node index.mjs` prints one JSON line,
 * times from the process's start.
 */
const bootMs = performance.now();
const [{ PgliteHost, shippedTemplate }, { engineSchemaSql }] = await Promise.all([import('../shared/pglite/host'), import('../shared/system/registry')]);
const importedMs = performance.now();
// The template shipped beside the bundle's chunk, as the server's engine opens it.
const schemaSql = engineSchemaSql();
if (!shippedTemplate(schemaSql)) throw new Error('no template shipped beside the bundle');
const host = await PgliteHost.open({ schemaSql });
const openedMs = performance.now();
const r = await host.run({ sql: 'SELECT 1', paramTypes: [], params: [], paramFormats: [], resultFormats: [], session: { user: 'materialize', database: 'materialize', settings: {} }, loads: [], maxRows: 10 });
const answeredMs = performance.now();
if (!r.ok) throw new Error(`SELECT 1: ${r.error.message}`);
process.stdout.write(JSON.stringify({ bootMs, importMs: importedMs - bootMs, openedMs, answeredMs }) + '\n');
process.exit(0);
export {};
