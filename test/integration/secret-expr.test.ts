/**
 * Secret values given by an expression (`decode(...)`) through the local pipeline: the value the
 * expression evaluates to is what the secret store holds, at CREATE and at ALTER, and the catalog
 * and SHOW CREATE keep only the redacted text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('secret-expr');
});
afterAll(async () => {
  await p?.stop();
});

describe('CREATE / ALTER SECRET ... AS decode(...)', () => {
  it('stores the decoded value, redacts it everywhere else, and refuses a binary value with nothing committed', async () => {
    const { sql, tenant } = await sqlClient(p);
    const settled = async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state === 'applied' || e.state === 'superseded');
    expect((await sql("CREATE SECRET s AS decode('c2VjcmV0LW9uZQ==', 'base64')")).status).toBe(200);
    const id = (await sql("SELECT id FROM mz_secrets WHERE name = 's'")).body.results[0].rows[0][0];
    await eventually(settled);
    expect(await p.secrets.get(tenant, id, 1)).toBe('secret-one');

    expect((await sql("ALTER SECRET s AS decode('7365637265742d74776f', 'hex')")).status).toBe(200);
    await eventually(settled);
    expect(await p.secrets.get(tenant, id, 2)).toBe('secret-two');
    const shown = (await sql('SHOW CREATE SECRET s')).body.results[0].rows[0][1];
    expect(shown).toBe("CREATE SECRET s AS '********'");
    expect(JSON.stringify(await tenantItems(p, tenant))).not.toContain('secret-two');

    const before = await tenantItems(p, tenant);
    const binary = await sql("ALTER SECRET s AS decode('aa', 'hex')");
    expect(binary.body.results[0].error).toMatchObject({ code: '0A000', position: 18 });
    expect(await tenantItems(p, tenant)).toEqual(before);
  });
});
