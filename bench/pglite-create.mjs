// PGlite's plain start, for bench/phases/pgwire.ts: a fresh process imports PGlite and calls
// `PGlite.create()` on an empty in-memory instance (initdb included), then answers `SELECT 1`.
// Prints one JSON line; performance.now() counts from the process's start.
const bootMs = performance.now();
const { PGlite } = await import('@electric-sql/pglite');
const importedMs = performance.now();
const db = await PGlite.create();
const createdMs = performance.now();
await db.query('SELECT 1');
const answeredMs = performance.now();
process.stdout.write(JSON.stringify({ bootMs, importMs: importedMs - bootMs, createMs: createdMs - importedMs, createdMs, answeredMs }) + '\n');
process.exit(0);
