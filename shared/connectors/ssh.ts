/**
 * SSH tunnels: a bastion that databases and brokers are reached through. The data plane holds its
 * key pair (`ALTER CONNECTION ... ROTATE KEYS`). Its probe is shared/probes/ssh.ts (the bastion
 * answers on its port).
 */
import { requireHostAndUser } from './common';
import { byName, type ConnectorDescriptor } from './types';

export const SSH = {
  name: 'ssh',
  words: ['ssh', 'tunnel'],
  connection: {
    options: { what: 'SSH tunnel connection', names: ['HOST', 'PORT', 'USER'], aliases: { USERNAME: 'USER' } },
    // The bastion cannot answer before the connection's public keys are installed on it.
    validateByDefault: false,
    check: (options, at) => requireHostAndUser(byName(options), at),
    rotatesKeys: true,
    tunnel: { options: false },
  },
  dataPlane: true,
  probe: { reprobed: true },
} as const satisfies ConnectorDescriptor;
