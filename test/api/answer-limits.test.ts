/**
 * Answers that cannot be given in full get a 4xx with a SQLSTATE, never a 500: an answer past the
 * size a Lambda response can carry, an Idempotency-Key on an answer too large to remember in one
 * DynamoDB item, and a WHERE of ten thousand flat OR / AND terms on a system table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { MAX_ANSWER_BYTES } from '../../shared/api/sql-api';
import { tenantItems } from '../helpers/catalog';
import { sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

let p: Pipeline;
let sql: SqlClient;
let tenant: string;
/** About 130 KB of SHOW CREATE TABLE. */
const COLUMNS = Array.from({ length: 1000 }, (_, i) => `column_with_a_long_descriptive_name_number_${String(i).padStart(4, '0')}_${'x'.repeat(60)} text`);

beforeAll(async () => {
  p = await testPipeline('answer-limits', { workers: false });
  ({ sql, tenant } = await sqlClient(p));
  const r = await sql(`CREATE TABLE wide (${COLUMNS.join(', ')})`);
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await p.stop();
});

describe('the size of an answer', () => {
  it('is capped below what a Lambda response can carry: 100 SHOW CREATE TABLE of a wide table answer 54000', async () => {
    // Act
    const r = await sql('SHOW CREATE TABLE wide;'.repeat(100));

    // Assess
    expect(r.status).toBe(400);
    const error = r.body.results.at(-1).error;
    expect(error.code).toBe('54000');
    expect(error.message).toMatch(new RegExp(`answer exceeds ${MAX_ANSWER_BYTES} bytes`));
    expect(Buffer.byteLength(JSON.stringify(r.body))).toBeLessThan(MAX_ANSWER_BYTES);
    expect(MAX_ANSWER_BYTES).toBeLessThan(6 * 1024 * 1024);
  });

  it('within the cap is answered in full', async () => {
    // Act
    const r = await sql('SHOW CREATE TABLE wide;'.repeat(3));

    // Assess
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(3);
  });
});

describe('an Idempotency-Key on an answer too large to remember (a DynamoDB item holds 400 KB)', () => {
  it('is refused with 54000, every time, and nothing is recorded', async () => {
    // Prepare: four SHOW CREATE TABLE wide are over 400 KB, well under the answer cap.
    const query = 'SHOW CREATE TABLE wide;'.repeat(4);
    const headers = { 'idempotency-key': 'big-answer' };

    // Act
    const first = await sql(query, { headers });
    const again = await sql(query, { headers });

    // Assess
    for (const r of [first, again]) {
      expect(r.status).toBe(400);
      expect(r.body.results.at(-1).error).toMatchObject({ code: '54000', message: expect.stringMatching(/Idempotency-Key/) });
    }
    expect((await tenantItems(p, tenant)).filter((i) => i.type === 'idempotency')).toEqual([]);
    expect((await sql(query)).status).toBe(200);
  });
});

describe('a WHERE of 10 000 flat terms on a system table', () => {
  it('is evaluated: OR', async () => {
    // Act
    const terms = Array.from({ length: 10_000 }, (_, i) => `name = 'nope${i}'`);
    const r = await sql(`SELECT name FROM mz_tables WHERE ${terms.join(' OR ')} OR name = 'wide'`);

    // Assess
    expect(r.status).toBe(200);
    expect(r.body.results[0].rows).toEqual([['wide']]);
  });

  it('is evaluated: AND', async () => {
    // Act
    const terms = Array.from({ length: 10_000 }, (_, i) => `name <> 'nope${i}'`);
    const r = await sql(`SELECT name FROM mz_tables WHERE ${terms.join(' AND ')}`);

    // Assess
    expect(r.status).toBe(200);
    expect(r.body.results[0].rows).toEqual([['wide']]);
  });
});
