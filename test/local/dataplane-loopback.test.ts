/** The stand-alone data plane server (local/dataplane-server.ts) listens on loopback unless told otherwise. */
import { describe, expect, it } from 'vitest';
import { startDataPlaneServer } from '../../local/dataplane-server';
import type { DataPlane } from '../../shared/dataplane/contract';
import { listeningSockets } from '../helpers/sockets';

describe('the data plane server', () => {
  it('binds 127.0.0.1 by default', async () => {
    // Never called: only the listening socket is looked at.
    const server = await startDataPlaneServer({ dataPlane: {} as DataPlane, port: 0 });
    try {
      const port = Number(new URL(server.url).port);
      const mine = listeningSockets([process.pid]).filter((s) => s.port === port);
      expect(mine.map((s) => ({ address: s.address, loopback: s.loopback }))).toEqual([{ address: '127.0.0.1', loopback: true }]);
    } finally {
      await server.stop();
    }
  });
});
