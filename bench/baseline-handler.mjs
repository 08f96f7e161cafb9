// The cold-init baseline (bench/phases/bundles.ts): a handler that imports only
// @aws-sdk/client-dynamodb, as the bundles load the runtime's SDK (require), and answers one event
// with one DynamoDB call (GetItem on the catalog table), as every function's first event makes at
// least one. Run by cold-start.mjs like a function's bundle.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { DynamoDBClient, GetItemCommand } = require('@aws-sdk/client-dynamodb');
const client = new DynamoDBClient({});

export const handler = async () => {
  const r = await client.send(new GetItemCommand({ TableName: process.env.CATALOG_TABLE, Key: { pk: { S: 'BASELINE' }, sk: { S: 'BASELINE' } } }));
  return { statusCode: 200, found: r.Item !== undefined };
};
