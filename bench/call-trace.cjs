// The AWS calls a cold function's first event makes (bench/phases/bundles.ts, a diagnostic run of
// its own, never a timed one): preloaded with `node --require`, it wraps http.request (the SDK's
// node-http-handler sends through it) and, at exit, prints one line
// `CALLS <json>`: each call's operation (X-Amz-Target), start and end in ms from the process's start.
'use strict';
const http = require('node:http');
const original = http.request;
const calls = [];
http.request = function request(...args) {
  const options = args[0] && typeof args[0] === 'object' ? args[0] : {};
  const headers = options.headers || {};
  const op = String(headers['x-amz-target'] || headers['X-Amz-Target'] || `${options.method || 'GET'} ${options.path || ''}`);
  const call = { op: op.replace(/^DynamoDB_\d+\./, 'DynamoDB.').replace(/^AmazonSQS\./, 'SQS.'), start: performance.now(), end: undefined };
  calls.push(call);
  const req = original.apply(this, args);
  req.once('response', (res) => res.once('end', () => (call.end = performance.now())));
  return req;
};
process.once('exit', () => {
  process.stderr.write(`CALLS ${JSON.stringify(calls.map((c) => ({ op: c.op, start: Math.round(c.start * 10) / 10, end: c.end === undefined ? null : Math.round(c.end * 10) / 10 })))}\n`);
});
