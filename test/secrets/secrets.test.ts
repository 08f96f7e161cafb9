/**
 * Secret values go only to the secret store: this run creates, uses and alters secrets with every
 * log line on, captures stdout/stderr, every response, every catalog and data-plane item and every
 * queue message, and finds the values nowhere but (encrypted) in the store.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { captureOutput, type CapturedOutput } from '../helpers/output';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

const FIRST = 'Xq7-first-secret-VALUE-93ac1';
const SECOND = 'Zr2-second-secret-VALUE-5be07';

let p: Pipeline;
let output: CapturedOutput;

beforeAll(async () => {
  output = captureOutput();
  const level = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  // Workers off for the router: the test reads the queue's messages itself before executing.
  p = await testPipeline('secrets', { workers: false });
  process.env.POWERTOOLS_LOG_LEVEL = level;
});
afterAll(async () => {
  await p.stop();
  output.restore();
});

async function scan(table: string): Promise<string> {
  const r = await p.clients.doc.send(new ScanCommand({ TableName: table }));
  return JSON.stringify(r.Items ?? []);
}

describe('secret values', () => {
  it('appear in no response, log line, error, catalog item, effect or queue message', async () => {
    const { sql, tenant } = await sqlClient(p);
    const responses: string[] = [];
    const run = async (q: string) => {
      const r = await sql(q);
      responses.push(JSON.stringify(r.body));
      return r;
    };
    await run(`CREATE SECRET pw AS '${FIRST}'`);
    await run(`CREATE SECRET pw AS '${FIRST}'`); // duplicate: an error response
    await run(`CREATE SECRET other '${FIRST}'`); // syntax error right at the value
    await run(`CREATE CONNECTION pg TO POSTGRES (HOST 'h', USER 'u', PASSWORD SECRET pw) WITH (VALIDATE = false)`);
    await run(`EXPLAIN EFFECTS FOR ALTER SECRET pw AS '${SECOND}'`);
    await run(`ALTER SECRET pw AS '${SECOND}'`);
    await run('SHOW CREATE SECRET pw');
    await run('SHOW CREATE CONNECTION pg');
    await run('SELECT * FROM mz_secrets');
    await run('SELECT * FROM mz_internal.mz_pending_effects');

    // Peek at the queue's first message (FIFO: one per object in flight), then let the pipeline run.
    const messages: string[] = [];
    p.router.start();
    await eventually(async () => {
      const r = await p.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: p.config.queueUrls.secrets, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
      for (const m of r.Messages ?? []) messages.push(m.Body ?? '');
      return messages.length >= 1;
    });
    p.pollers.secrets.start();
    await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state === 'applied' || e.state === 'superseded'));

    const secretId = JSON.parse(responses[8]!).results[0].rows[0][0];
    expect(await p.secrets.get(tenant, secretId, 2)).toBe(SECOND);
    expect(await p.secrets.list(tenant)).toMatchObject([{ secretId, generations: [2] }]);

    const everything = [
      ...responses,
      ...output.chunks,
      ...messages,
      await scan(p.config.catalogTable),
      await scan(p.config.dataPlaneTable!),
      // The store itself holds ciphertext only.
      await scan(`${p.config.catalogTable.replace(/catalog$/, 'secrets')}`),
    ].join('\n');
    // The logs were really captured: the API's and the executor's lines are there.
    expect(output.chunks.join('')).toContain('"message":"committed"');
    expect(output.chunks.join('')).toContain('"service":"executor-secrets"');
    expect(everything).toContain(secretId);
    expect(everything).not.toContain(FIRST);
    expect(everything).not.toContain(SECOND);
    expect(everything).not.toContain(Buffer.from(FIRST).toString('base64'));
  });
});

describe('credentials given as plain strings', () => {
  // Materialize reads these connection options as secrets only (src/sql/src/plan/statement/ddl/connection.rs).
  const LITERAL = 'Pl41n-literal-CREDENTIAL-77e1';
  const cases = [
    ['PASSWORD', `CREATE CONNECTION c TO POSTGRES (HOST 'h', USER 'u', PASSWORD '${LITERAL}')`],
    ['PASSWORD', `CREATE CONNECTION c TO CONFLUENT SCHEMA REGISTRY (URL 'http://h', USER 'u', PASSWORD '${LITERAL}')`],
    ['SASL PASSWORD', `CREATE CONNECTION c TO KAFKA (BROKER 'b:9092', SASL MECHANISMS 'PLAIN', SASL USERNAME 'u', SASL PASSWORD '${LITERAL}')`],
    ['SSL KEY', `CREATE CONNECTION c TO KAFKA (BROKER 'b:9092', SSL KEY '${LITERAL}', SSL CERTIFICATE 'cert')`],
    ['SSL KEY', `CREATE CONNECTION c TO POSTGRES (HOST 'h', USER 'u', SSL KEY '${LITERAL}', SSL CERTIFICATE 'cert')`],
    ['SECRET ACCESS KEY', `CREATE CONNECTION c TO AWS (ACCESS KEY ID 'AKIA', SECRET ACCESS KEY '${LITERAL}', REGION 'us-east-1')`],
  ] as const;

  it.each(cases)('%s as a literal is refused like Materialize refuses it, and leaves no trace: %s', async (option, query) => {
    // Prepare
    const { sql, tenant } = await sqlClient(p);
    const before = JSON.stringify(await tenantItems(p, tenant));

    // Act
    const r = await sql(`${query} WITH (VALIDATE = false)`);
    const shown = await sql('SHOW CREATE CONNECTION c');

    // Assess
    expect(r.status).toBe(400);
    expect(r.body.results[0].error).toMatchObject({ code: 'XX000', message: `invalid ${option}: must provide a secret value`, position: query.indexOf(`${option} '`) });
    expect(JSON.stringify(r.body)).not.toContain(LITERAL);
    expect(JSON.stringify(await tenantItems(p, tenant))).toBe(before);
    expect(shown.body.results[0].error.message).toMatch(/unknown catalog item 'c'/);
  });
});
