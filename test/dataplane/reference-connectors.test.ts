/**
 * The reference data plane's connectors of one tenant: what its health monitor checks again when a
 * replica of that tenant comes or goes. A query of the tenant's partition, never a scan of every
 * tenant's resources (one scan per replica change made a burst of replica effects quadratic).
 */
import { describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { newTenant, owner, referenceDataPlane, SPECS } from './fixtures';

describe('reference data plane: a tenant’s live connectors', () => {
  it('are its present ingestions and exports, read from its own partition', async () => {
    const dp = await referenceDataPlane('live-connectors');
    const [a, b] = [newTenant(), newTenant()];
    const ingestion = owner(a, 'ingestion');
    const exp = owner(a, 'export');
    const gone = owner(a, 'ingestion');
    await dp.ensure('ingestion', ingestion, 1, SPECS.ingestion);
    await dp.ensure('export', exp, 1, SPECS.export);
    await dp.ensure('replica', owner(a, 'replica'), 1, SPECS.replica);
    await dp.ensure('collection', owner(a, 'collection'), 1, SPECS.collection);
    await dp.ensure('ingestion', gone, 1, SPECS.ingestion);
    await dp.drop('ingestion', gone, 2);
    await dp.ensure('ingestion', owner(b, 'ingestion'), 1, SPECS.ingestion);

    const scans: unknown[] = [];
    const doc = (dp as unknown as { doc: { send: (c: unknown) => Promise<unknown> } }).doc;
    const send = doc.send.bind(doc);
    doc.send = async (c: unknown) => {
      if (c instanceof ScanCommand) scans.push(c);
      return send(c);
    };
    const live = await dp.liveConnectorsOf(a);

    expect(live.map((c) => `${c.kind}/${c.resourceId}`).sort()).toEqual([`export/${exp.objectId}`, `ingestion/${ingestion.objectId}`].sort());
    expect(live.every((c) => c.tenant === a && c.present)).toBe(true);
    expect(scans).toEqual([]);
    expect(await dp.liveConnectorsOf(newTenant())).toEqual([]);
  });
});
