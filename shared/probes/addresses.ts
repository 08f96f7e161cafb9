/**
 * Where a probe may connect. A probe connects wherever a tenant's connection says, from inside
 * the control plane's network: in AWS that must not reach the instance-metadata service, the
 * function's own loopback, or (unless the deployment allows it) the VPC's private ranges. The
 * check runs on every address a host name resolves to, at connect time (a `lookup` the clients
 * use), so a name that resolves elsewhere the second time is caught too.
 */
import { AddressNotAllowedError } from '../errors';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

export interface ProbeNetworkPolicy {
  /**
   * `public`: public addresses only; `private`: also RFC 1918, CGNAT and IPv6 unique-local
   * ranges (a deployment whose upstreams sit in its VPC); `any`: everything, loopback included
   * (the local runtime, where the upstreams are on this machine).
   */
  readonly addresses: 'public' | 'private' | 'any';
  /**
   * Whether a network failure keeps its detail (refused, reset, timed out, closed by the server)
   * or reads only "could not connect to <target>", so that answers cannot tell open, closed and
   * filtered ports apart.
   */
  readonly detailedNetworkErrors: boolean;
}

/** In AWS: public upstreams only, and no port-scanning oracle. */
export const DEPLOYED_PROBE_POLICY: ProbeNetworkPolicy = { addresses: 'public', detailedNetworkErrors: false };
/** In AWS with the deployment's upstreams in private ranges (env PROBE_ALLOW_PRIVATE_NETWORKS). */
export const DEPLOYED_PRIVATE_PROBE_POLICY: ProbeNetworkPolicy = { addresses: 'private', detailedNetworkErrors: false };
/** The local runtime and tests: upstreams on this machine, errors in Materialize's words. */
export const LOCAL_PROBE_POLICY: ProbeNetworkPolicy = { addresses: 'any', detailedNetworkErrors: true };

/** The policy a configuration names (Config.probeNetworks; deployed functions default to `public`). */
export function probeNetworkPolicy(networks: 'public' | 'private' | 'local' | undefined): ProbeNetworkPolicy {
  return networks === 'local' ? LOCAL_PROBE_POLICY : networks === 'private' ? DEPLOYED_PRIVATE_PROBE_POLICY : DEPLOYED_PROBE_POLICY;
}

function blockList(v4: readonly [string, number][], v6: readonly [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

/** Never reachable from a deployed probe: this host, link-local (169.254.169.254 is instance metadata), fd00:ec2::/32 (its IPv6 twin), unspecified, multicast. */
const ALWAYS_REFUSED = blockList(
  [
    ['0.0.0.0', 8],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ],
  [
    ['::', 128],
    ['::1', 128],
    ['fe80::', 10],
    ['fd00:ec2::', 32],
    ['ff00::', 8],
  ],
);

/** Private ranges: refused unless the policy allows them. */
const PRIVATE = blockList(
  [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
  ],
  [['fc00::', 7]],
);

/** May a probe under `policy` connect to this IP address? */
export function addressAllowed(address: string, policy: ProbeNetworkPolicy): boolean {
  if (policy.addresses === 'any') return true;
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address it maps.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : isIP(ip) === 4 ? 'ipv4' : undefined;
  if (!family) return false;
  if (ALWAYS_REFUSED.check(ip, family)) return false;
  return policy.addresses === 'private' || !PRIVATE.check(ip, family);
}

/** Re-exported: the probes import it from here. */
export { AddressNotAllowedError };

/** A `dns.lookup` for net/tls/http clients that fails when any address of the name is refused. */
export function guardedLookup(policy: ProbeNetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (addresses.length === 0 || addresses.some((a) => !addressAllowed(a.address, policy))) return callback(new AddressNotAllowedError(hostname), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Checks a host (name or IP literal) before a probe connects: `refused` when it is, or resolves
 * to, an address the policy refuses; otherwise an allowed address to connect to (pinned, so a
 * second resolution cannot differ), or undefined when the name does not resolve (the client then
 * reports that in its own words).
 */
export async function resolveForProbe(host: string, policy: ProbeNetworkPolicy): Promise<{ refused: true } | { refused: false; address?: string }> {
  const literal = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal)) return addressAllowed(literal, policy) ? { refused: false, address: literal } : { refused: true };
  if (policy.addresses === 'any') return { refused: false };
  const addresses = await new Promise<LookupAddress[] | undefined>((resolve) => dnsLookup(host, { all: true }, (err, a) => resolve(err ? undefined : a)));
  if (!addresses || addresses.length === 0) return { refused: false };
  if (addresses.some((a) => !addressAllowed(a.address, policy))) return { refused: true };
  return { refused: false, address: addresses[0]!.address };
}
