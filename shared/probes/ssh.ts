/** SSH bastion: reachability only (the tunnel's key exchange needs the key pair the data plane holds). */
import { connect as netConnect } from 'node:net';
import { resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { namespaceOf } from './namespace';
import { opt, portOf } from './options';
import { addressRefused, fail, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeResult } from './types';


export async function probeTcp(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy): Promise<ProbeResult> {
  const namespace = namespaceOf(conn.type);
  const host = opt(conn.options, 'HOST');
  if (!host) return fail(namespace, 'HOST option is required', { fatal: true });
  const port = portOf(conn.options, 22);
  if (port === undefined) return fail(namespace, `invalid PORT: ${opt(conn.options, 'PORT')}`, { fatal: true });
  const pin = await resolveForProbe(host, network);
  if (pin.refused) return addressRefused(namespace, `${host}:${port}`);
  return new Promise<ProbeResult>((resolve) => {
    const socket = netConnect({ host: pin.address ?? host, port });
    const finish = (r: ProbeResult) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(r);
    };
    const onAbort = () => finish(timedOut(namespace, `${host}:${port}`));
    const timer = setTimeout(onAbort, timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish(ok(namespace)));
    socket.once('error', (err) => finish(fail(namespace, `error connecting to ${host}:${port}: ${osError(err) ?? err.message}`)));
  });
}

/** An SSH tunnel's probe: the bastion answers on its port. */
export const SSH_PROBE: ConnectorProbe<'ssh'> = {
  type: 'ssh',
  connection: (conn, c) => probeTcp(conn, c.timeoutMs, c.signal, c.network),
  target: (conn) => `${opt(conn.options, 'HOST') ?? ''}:${opt(conn.options, 'PORT') ?? 22}`,
};
