/**
 * What a data plane says on its way to mz_pending_effects and the connector statuses is scrubbed
 * like a probe's error: no secret value of the object's connection, no password in a URL, bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { MAX_ERROR_CHARS, REDACTED, scrubError } from '../../shared/probes/namespace';
import { tenantItems } from '../helpers/catalog';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';

const SECRET = 'Vq9-upstream-PASSWORD-4d2f1';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('error-scrub', { fullPass: false });
});
afterAll(async () => {
  await p.stop();
});

async function settled(tenant: string) {
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 15_000);
}

describe('scrubError', () => {
  it('removes secret values, URL passwords and bounds the text', () => {
    // Act
    const out = scrubError(`auth failed for ${SECRET} at postgres://mz:other-pass@db:5432/x; ${'y'.repeat(5_000)}`, { PASSWORD: SECRET });

    // Assess
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain('other-pass');
    expect(out).toContain(`auth failed for ${REDACTED} at postgres://mz:${REDACTED}@db:5432/x`);
    expect(out.length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 1);
  });
});

describe('data-plane errors', () => {
  it('reach mz_pending_effects and the source status without the connection secret', async () => {
    // Prepare: a source on a connection whose password is a secret.
    const { sql, tenant } = await sqlClient(p);
    const setup = await sql(
      `CREATE CLUSTER c (SIZE = '25cc'); CREATE SECRET pw AS '${SECRET}'; CREATE CONNECTION pg TO POSTGRES (HOST 'h', USER 'u', PASSWORD SECRET pw) WITH (VALIDATE = false); CREATE SOURCE running IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'p') FOR TABLES (public.t AS t)`,
    );
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    await settled(tenant);
    const runningId = (await sql("SELECT id FROM mz_sources WHERE name = 'running'")).body.results[0].rows[0][0];

    // Act: the data plane reports the running ingestion unhealthy, and fails a new one, both echoing the password.
    await p.dataPlane.setHealth(tenant, 'ingestion', runningId, { healthy: false, error: `postgres: password "${SECRET}" rejected by postgres://u:${SECRET}@h/db`, fatal: true });
    await p.reportHealth();
    p.faults.failNext(5, 'terminal', `upstream refused login with password ${SECRET}`);
    expect((await sql("CREATE SOURCE failing IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'p') FOR TABLES (public.u AS u)")).status).toBe(200);
    await settled(tenant);

    // Assess
    const pending = (await sql('SELECT last_error FROM mz_internal.mz_pending_effects')).body.results[0];
    const statuses = (await sql('SELECT name, error FROM mz_internal.mz_source_statuses')).body.results[0];
    const everything = JSON.stringify([pending, statuses, await tenantItems(p, tenant)]);
    expect(everything).not.toContain(SECRET);
    expect(JSON.stringify(pending.rows)).toContain(`upstream refused login with password ${REDACTED}`);
    expect(JSON.stringify(statuses.rows)).toContain(`password \\"${REDACTED}\\" rejected by postgres://u:${REDACTED}@h/db`);
  });
});
