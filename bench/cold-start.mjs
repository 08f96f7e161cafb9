// A Lambda cold start, as close as plain Node gets: a fresh process imports the function's bundle
// (module scope runs: config, SDK clients, middy chain) and serves one event. Run by
// bench/phases/bundles.ts as `node bench/cold-start.mjs <bundle.mjs> <event.json> <function name>`;
// prints one JSON line. performance.now() counts from the process's start, so `bootMs` is Node's
// own start-up before this file ran.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

// `--modules a,b,c` instead times loading just those packages (the AWS SDK a bundle leaves to the
// Lambda runtime), with require() as the bundles load them: the floor under a bundle's import time.
if (process.argv[2] === '--modules') {
  const require = createRequire(import.meta.url);
  const t0 = performance.now();
  for (const m of process.argv[3].split(',').filter(Boolean)) require(m);
  process.stdout.write(JSON.stringify({ bootMs: t0, importMs: performance.now() - t0 }) + '\n');
  process.exit(0);
}

const [bundle, eventFile, functionName] = process.argv.slice(2);
const bootMs = performance.now();
const mod = await import(pathToFileURL(bundle).href);
const importedAt = performance.now();
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const deadline = Date.now() + 60_000;
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
  memoryLimitInMB: '256',
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};
let result;
let error;
try {
  result = await mod.handler(event, context);
} catch (err) {
  error = String(err?.message ?? err);
}
const servedAt = performance.now();
process.stdout.write(
  JSON.stringify({ bootMs, importMs: importedAt - bootMs, firstEventMs: servedAt - importedAt, result: JSON.stringify(result ?? null).slice(0, 300), error }) + '\n',
);
process.exit(0);
