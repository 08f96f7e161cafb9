// The AWS calls a cold function's first event makes (bench/phases/bundles.ts, a diagnostic run of
// its own, never a timed one): preloaded with `node --require`, it wraps http.request (the SDK's
// node-http-handler sends through it) and, at exit, prints one line
// `CALLS <json>`: each call's operation (X-Amz-Target), start and end in ms from the process's start.
// It also prints `SDK <json>`: each `@aws-sdk/*` package the bundle itself required (the runtime's
// SDK, loaded with require()), with when, so the phase can tell the packages its import loads from
// those it loads on first use.
// With CALL_TRACE_BODIES=<file> it also writes each call's service host and request body there at
// exit (JSON): the bench replays a function's own calls with bare SDK clients (its same-calls floor).
'use strict';
const http = require('node:http');
const Module = require('node:module');
const sdk = [];
const load = Module._load;
Module._load = function _load(request, parent, ...rest) {
  if (/^@aws-sdk\//.test(request) && parent && !/[\\/]node_modules[\\/]/.test(parent.filename ?? '') && !sdk.some((s) => s.module === request)) {
    sdk.push({ module: request, at: Math.round(performance.now() * 10) / 10 });
  }
  return load.call(this, request, parent, ...rest);
};
const original = http.request;
const calls = [];
http.request = function request(...args) {
  const options = args[0] && typeof args[0] === 'object' ? args[0] : {};
  const headers = options.headers || {};
  const op = String(headers['x-amz-target'] || headers['X-Amz-Target'] || `${options.method || 'GET'} ${options.path || ''}`);
  const call = { op: op.replace(/^DynamoDB_\d+\./, 'DynamoDB.').replace(/^AmazonSQS\./, 'SQS.'), start: performance.now(), end: undefined };
  calls.push(call);
  const req = original.apply(this, args);
  if (process.env.CALL_TRACE_BODIES) {
    call.body = '';
    const end = req.end;
    req.end = function endWithBody(chunk, ...rest) {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) call.body += chunk.toString();
      return end.call(this, chunk, ...rest);
    };
  }
  req.once('response', (res) => res.once('end', () => (call.end = performance.now())));
  return req;
};
process.once('exit', () => {
  if (process.env.CALL_TRACE_BODIES) {
    require('node:fs').writeFileSync(process.env.CALL_TRACE_BODIES, JSON.stringify(calls.map((c) => ({ op: c.op, start: c.start, end: c.end ?? null, body: c.body ?? '' }))));
  }
  process.stderr.write(`SDK ${JSON.stringify(sdk)}\n`);
  process.stderr.write(`CALLS ${JSON.stringify(calls.map((c) => ({ op: c.op, start: Math.round(c.start * 10) / 10, end: c.end === undefined ? null : Math.round(c.end * 10) / 10 })))}\n`);
});
