// A function's same-calls floor (bench/phases/bundles.ts): a handler that makes the AWS calls a
// function's first event made — the same requests, in the same sequential rounds — with bare SDK
// clients and nothing else: no parsing, planning, marshalling or middleware of ours. Loaded like
// the baseline (bench/baseline-handler.mjs: @aws-sdk/client-dynamodb from the runtime, with
// require()); @aws-sdk/client-sqs, when a round sends to SQS, is loaded during the round before
// it, as the DDL function loads its own while its commit is in flight. Run by cold-start.mjs; the
// event is `{ rounds: [[{ service: 'dynamodb' | 'sqs', op, input }], ...] }`.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const dynamodb = require('@aws-sdk/client-dynamodb');
const client = new dynamodb.DynamoDBClient({});
let sqs;
const loadSqs = () => {
  if (!sqs) {
    const m = require('@aws-sdk/client-sqs');
    sqs = { m, client: new m.SQSClient({ useQueueUrlAsEndpoint: false }) };
  }
  return sqs;
};

const send = (call) => {
  if (call.service === 'sqs') {
    const { m, client: c } = loadSqs();
    return c.send(new m[`${call.op}Command`](call.input));
  }
  return client.send(new dynamodb[`${call.op}Command`](call.input));
};

export const handler = async (event) => {
  const rounds = event.rounds;
  for (let i = 0; i < rounds.length; i++) {
    const sent = Promise.all(rounds[i].map(send));
    if (rounds[i + 1]?.some((c) => c.service === 'sqs')) setImmediate(loadSqs);
    await sent;
  }
  return { statusCode: 200, calls: rounds.flat().length };
};
