/**
 * `ddlctl restart NAME` (issue 29): the object is looked up by its exact name (or as a SQL name),
 * only ever compared as a string literal, and the statement quotes every part of its name — so a
 * source named `my src` restarts, and a name holding SQL restarts that source and nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlClient } from '../../cli/client';
import { restartStatement } from '../../cli/commands/restart';
import type { Pipeline } from '../../local/pipeline';
import { ok, rows, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
let client: SqlClient;
let http: Awaited<ReturnType<typeof sqlClient>>['sql'];

beforeAll(async () => {
  p = await testPipeline('restart', { workers: false });
  const c = await sqlClient(p);
  http = c.sql;
  client = new SqlClient({ url: p.url!, password: c.password, passwordFrom: 'test' });
  const hook = (name: string, schema = 'public') => `CREATE SOURCE ${schema}.${name} IN CLUSTER c FROM WEBHOOK BODY FORMAT TEXT`;
  await ok(http, `CREATE CLUSTER c (SIZE = '25cc'); CREATE CLUSTER victim (SIZE = '25cc'); CREATE SCHEMA other`);
  await ok(http, [hook('"my src"'), hook('"x restart; drop cluster victim cascade; alter source x"'), hook('plain'), hook('plain', 'other'), hook('"Mixed"')].join('; '));
});
afterAll(async () => {
  await p.stop();
});

describe('ddlctl restart', () => {
  it('finds a source by its exact name and quotes every part', async () => {
    expect(await restartStatement(client, 'my src')).toBe('ALTER SOURCE "materialize"."public"."my src" RESTART');
    expect(await restartStatement(client, 'Mixed')).toBe('ALTER SOURCE "materialize"."public"."Mixed" RESTART');
    expect(await restartStatement(client, 'other.plain')).toBe('ALTER SOURCE "materialize"."other"."plain" RESTART');
  });

  it('never runs SQL that a name holds', async () => {
    const evil = 'x restart; drop cluster victim cascade; alter source x';
    const statement = await restartStatement(client, evil);
    expect(statement).toBe(`ALTER SOURCE "materialize"."public"."${evil}" RESTART`);
    await client.run(statement);
    expect(await rows(http, "SELECT name FROM mz_clusters WHERE name = 'victim'")).toEqual([['victim']]);
    await expect(restartStatement(client, "nope' OR '1'='1")).rejects.toThrow(/no source or sink named/);
  });

  it('asks for the schema when a name is in two', async () => {
    await expect(restartStatement(client, 'plain')).rejects.toThrow(/names 2 sources .*qualify it with its schema/);
  });
});
