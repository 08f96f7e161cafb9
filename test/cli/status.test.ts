/**
 * `ddlctl status`'s rendering (cli/commands/status.ts, pure): the replicas table shows a
 * reconfiguration column only while a cluster is being reconfigured, with each replica's part in
 * it and the deadline (mz_internal.mz_cluster_replica_reconfigurations).
 */
import { describe, expect, it } from 'vitest';
import { reconfigurationCell, renderStatus, type StatusSnapshot } from '../../cli/commands/status';

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const NOW = Date.parse('2026-01-01T00:01:00.000Z');
const replica = (name: string, extra: Partial<StatusSnapshot['replicas'][number]> = {}): StatusSnapshot['replicas'][number] => ({
  cluster: 'c',
  replica: name,
  id: `u-${name}`,
  size: '25cc',
  status: 'online',
  reason: null,
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const DEADLINE = '2026-01-01T00:10:00.000Z';

describe('ddlctl status: replicas', () => {
  it('has no reconfiguration column while no cluster is being reconfigured', () => {
    const out = plain(renderStatus({ sources: [], sinks: [], replicas: [replica('r1')] }, NOW));
    expect(out).toContain(' cluster | replica | id   | size | status | reason | since\n');
    expect(out).not.toContain('reconfiguration');
  });

  it("shows each replica's id beside its name, as the status relations and events name it", () => {
    const out = plain(renderStatus({ sources: [], sinks: [], replicas: [replica('r1', { id: 'u0a1b2c3d4e5f' }), replica('r1', { cluster: 'other', id: 'u9f8e7d6c5b4a', status: 'offline', reason: 'provisioning' })] }, NOW));
    const lines = out.split('\n');
    expect(lines.find((l) => / c +\| r1 +\|/.test(l))).toMatch(/\| r1 +\| u0a1b2c3d4e5f \| 25cc /);
    expect(lines.find((l) => / other +\| r1 +\|/.test(l))).toMatch(/\| r1 +\| u9f8e7d6c5b4a \| 25cc +\| offline \| provisioning /);
  });

  it("shows each replica's part in a reconfiguration under way and its deadline", () => {
    const out = plain(
      renderStatus(
        {
          sources: [],
          sinks: [],
          replicas: [
            replica('r1', { reconfiguration: { role: 'current', strategy: 'wait until ready', on_timeout: 'rollback', deadline: DEADLINE } }),
            replica('r1-pending', { size: '50cc', reconfiguration: { role: 'pending', strategy: 'wait until ready', on_timeout: 'rollback', deadline: DEADLINE } }),
            replica('r1', { cluster: 'other' }),
          ],
        },
        NOW,
      ),
    );
    const lines = out.split('\n');
    expect(lines.find((l) => l.startsWith(' cluster |'))).toMatch(/\| since +\| reconfiguration$/);
    expect(lines.find((l) => l.includes('r1-pending'))).toContain(`pending, wait until ready (ON TIMEOUT = ROLLBACK) until ${DEADLINE}`);
    expect(lines.find((l) => / c +\| r1 +\|/.test(l))).toContain(`current, wait until ready (ON TIMEOUT = ROLLBACK) until ${DEADLINE}`);
    expect(lines.find((l) => l.includes(' other '))).not.toContain('until');
  });

  it('says no ON TIMEOUT for WAIT FOR, which cuts over at its deadline whatever happens', () => {
    expect(reconfigurationCell({ role: 'pending', strategy: 'wait for', on_timeout: 'commit', deadline: DEADLINE })).toBe(`pending, wait for until ${DEADLINE}`);
  });
});
