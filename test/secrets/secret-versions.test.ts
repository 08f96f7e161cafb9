/**
 * Secret values in Secrets Manager: every (secret, generation) gets its own version id, so a
 * secret can be rotated any number of times against a store that, like AWS, refuses to reuse a
 * version id with another value. The DDL engine runs in process over the real catalog store;
 * Secrets Manager is the strict fake (test/helpers/secrets-manager-fake.ts).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore } from '../../shared/catalog/store';
import { AwsSecretStore } from '../../shared/secrets/aws-store';
import { FakeSecretsManager } from '../helpers/secrets-manager-fake';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('secret-versions', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

function engine(sm: FakeSecretsManager) {
  const store = new CatalogStore(p.clients.doc, p.config.catalogTable);
  const secrets = new AwsSecretStore(sm.client);
  const api = new SqlApi({ store, secrets, logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) });
  const tenant = `t${Math.random().toString(16).slice(2, 10)}`;
  const sql = async (query: string) => api.handle(tenant, `${tenant}/test`, JSON.stringify({ query }), 'application/json');
  return { store, secrets, tenant, sql };
}

describe('Secrets Manager version ids', () => {
  it('let a secret be altered 25 times in a row, each value readable at its generation', async () => {
    // Prepare
    const sm = new FakeSecretsManager();
    const { store, secrets, tenant, sql } = engine(sm);
    await store.ensureTenantCatalog(tenant);
    expect((await sql("CREATE SECRET pw AS 'value-0'")).status).toBe(200);
    const id = ((await sql("SELECT id FROM mz_secrets WHERE name = 'pw'")).body as any).results[0].rows[0][0] as string;

    // Act
    const statuses: number[] = [];
    for (let i = 1; i <= 25; i++) {
      statuses.push((await sql(`ALTER SECRET pw AS 'value-${i}'`)).status);
      // What the secrets executor does once the generation is committed.
      await secrets.prune(tenant, id, i + 1);
    }

    // Assess
    expect(statuses).toEqual(Array(25).fill(200));
    expect(await secrets.get(tenant, id, 26)).toBe('value-25');
    expect(await secrets.get(tenant, id, 25)).toBeUndefined();
    expect(await secrets.list(tenant)).toMatchObject([{ secretId: id, generations: [26] }]);
  });

  it('let a value be set again at a generation whose first value was stored for a commit that failed', async () => {
    // Prepare: a request stored generation 2's value, then lost its commit (conflict, crash).
    const sm = new FakeSecretsManager();
    const { store, secrets, tenant, sql } = engine(sm);
    await store.ensureTenantCatalog(tenant);
    await sql("CREATE SECRET pw AS 'first'");
    const id = ((await sql("SELECT id FROM mz_secrets WHERE name = 'pw'")).body as any).results[0].rows[0][0] as string;
    await secrets.put(tenant, id, 2, 'never-committed');

    // Act
    const r = await sql("ALTER SECRET pw AS 'second'");

    // Assess
    expect(r.status).toBe(200);
    expect(await secrets.get(tenant, id, 2)).toBe('second');
  });

  it('store a retried put of the same value once per generation label', async () => {
    // Prepare
    const sm = new FakeSecretsManager();
    const secrets = new AwsSecretStore(sm.client);

    // Act
    await secrets.put('t1', 'u000000000001', 1, 'v');
    await secrets.put('t1', 'u000000000001', 1, 'v');

    // Assess
    expect(await secrets.get('t1', 'u000000000001', 1)).toBe('v');
    expect(await secrets.list('t1')).toMatchObject([{ secretId: 'u000000000001', generations: [1] }]);
  });
});

describe('listing stored secrets', () => {
  it('keeps only the tenant\'s own secrets whatever else the name filter matches', async () => {
    // Prepare: a neighbouring tenant, and a deeper name under this tenant's prefix that is not one of its secrets.
    const sm = new FakeSecretsManager();
    const secrets = new AwsSecretStore(sm.client);
    await secrets.put('t1', 'u000000000001', 1, 'v');
    await secrets.put('t1x', 'u000000000002', 1, 'v');
    await secrets.put('t1', 'nested/u000000000003', 1, 'v');

    // Act
    const listed = await secrets.list('t1');

    // Assess
    expect(listed.map((l) => l.secretId)).toEqual(['u000000000001']);
  });
});
